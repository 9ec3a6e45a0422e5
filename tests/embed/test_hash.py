"""The deterministic hash embedder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

from salience.embed import DegradedEmbeddingWarning, HashEmbedder
from salience.errors import InvalidInput


def test_shape_norm_and_identity() -> None:
    emb = HashEmbedder(64)
    vecs = emb.embed_passages(["The cat sat on the mat.", "Quarterly tax return", ""])
    assert vecs.shape == (3, 64)
    assert vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-6)
    assert emb.model == "salience-hash-v1"
    assert emb.dim == 64
    status = emb.status()
    assert status.degraded is True
    assert status.provider == "hash"


def test_queries_and_passages_share_one_recipe() -> None:
    emb = HashEmbedder()
    text = ["Where did Alice move in 2021?"]
    np.testing.assert_array_equal(emb.embed_queries(text), emb.embed_passages(text))


def test_lexical_overlap_scores_higher_than_unrelated_text() -> None:
    emb = HashEmbedder()
    query = emb.embed_queries(["the cat sat on the mat"])[0]
    close, variant, far = emb.embed_passages(
        ["a cat sat on a mat", "cats sitting on mats", "quarterly tax return deadline"]
    )
    assert query @ close > query @ variant > query @ far
    # Case and punctuation do not matter; word order barely does.
    a, b = emb.embed_passages(["Hello, World!", "world hello"])
    assert a @ b > 0.99


def test_deterministic_across_instances_and_processes() -> None:
    texts = ["Alice adopted a puppy", "Zürich — ünïcode ok", "", "x"]
    here = HashEmbedder(32).embed_passages(texts)
    np.testing.assert_array_equal(here, HashEmbedder(32).embed_passages(texts))
    code = (
        "import json, sys; from salience.embed import HashEmbedder; "
        "print(json.dumps(HashEmbedder(32).embed_passages(json.loads(sys.argv[1])).tolist()))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}  # Python's own hash() would change
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(texts)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    np.testing.assert_array_equal(np.array(json.loads(out.stdout), dtype=np.float32), here)


def test_empty_and_punctuation_only_texts_get_valid_vectors() -> None:
    vecs = HashEmbedder(16).embed_passages(["", "   ", "?!…"])
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-6)


def test_empty_batch() -> None:
    assert HashEmbedder(16).embed_queries([]).shape == (0, 16)


def test_rejects_a_bare_string_and_non_strings() -> None:
    emb = HashEmbedder()
    with pytest.raises(InvalidInput, match="list of strings"):
        emb.embed_queries("not a list")
    with pytest.raises(InvalidInput, match=r"texts\[1\] is int"):
        emb.embed_queries(["ok", 3])  # type: ignore[list-item]


def test_fallback_warns_once_and_explicit_use_is_silent(caplog: pytest.LogCaptureFixture) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        HashEmbedder().embed_passages(["explicitly chosen: no warning"])

    fallback = HashEmbedder(fallback_reason="e5: not installed")
    with pytest.warns(DegradedEmbeddingWarning, match="e5: not installed"):
        fallback.embed_passages(["first use"])
    assert any("hash fallback" in r.getMessage() for r in caplog.records)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fallback.embed_queries(["second use: already warned"])
    assert "FALLBACK" in fallback.status().detail
