"""`check_vectors` and `fit_dimension`: the checks every provider's output goes through."""

from __future__ import annotations

import re

import numpy as np
import pytest

from salience.embed import check_vectors, fit_dimension
from salience.errors import EmbeddingError


def test_check_vectors_normalises_and_returns_float32() -> None:
    out = check_vectors([[3.0, 4.0], [0.0, 2.0]], n=2, dim=2, who="test")
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.0, 1.0]], rtol=1e-6)


def test_check_vectors_accepts_a_single_flat_vector_for_one_text() -> None:
    assert check_vectors([1.0, 0.0, 0.0], n=1, dim=3, who="test").shape == (1, 3)


@pytest.mark.parametrize(
    ("vectors", "n", "dim", "message"),
    [
        ([[1.0, 0.0, 0.0]], 1, 4, "3-dimensional vectors; expected 4"),
        ([[1.0, 0.0], [0.0, 1.0]], 3, 2, "shape (2, 2); expected (3, 2)"),
        ([[1.0, float("nan")]], 1, 2, "NaN or infinite"),
        ([[float("inf"), 1.0]], 1, 2, "NaN or infinite"),
        ([[1.0, float("-inf")]], 1, 2, "NaN or infinite"),
        ([[0.0, 0.0]], 1, 2, "all-zero vector"),
        ([[1.0, "x"]], 1, 2, "not a numeric array"),
        ([[1.0, None]], 1, 2, "NaN or infinite"),  # JSON null becomes NaN
        ([[1.0, 2.0], [1.0]], 2, 2, "not a numeric array"),
    ],
)
def test_check_vectors_rejects_bad_output(vectors: object, n: int, dim: int, message: str) -> None:
    with pytest.raises(EmbeddingError, match=rf"^provider X .*{re.escape(message)}"):
        check_vectors(vectors, n=n, dim=dim, who="provider X")


def test_fit_dimension_truncates_and_pads_then_normalises() -> None:
    vecs = np.array([[3.0, 4.0, 12.0]], dtype=np.float32)
    cut = fit_dimension(vecs, 2)
    np.testing.assert_allclose(cut, [[0.6, 0.8]], rtol=1e-6)
    padded = fit_dimension(vecs, 5)
    assert padded.shape == (1, 5)
    np.testing.assert_allclose(np.linalg.norm(padded, axis=1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(padded[0, 3:], 0.0)
