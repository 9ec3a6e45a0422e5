"""The deterministic hash embedder: the last resort of the `auto` chain, and a test double.

Signed feature hashing of lowercase word unigrams (weight 1) and per-word character trigrams
(weight 0.5, with word-boundary marks) into `dim` buckets, L2-normalised. It captures lexical
overlap and spelling variants only — no meaning ("dog" and "puppy" are unrelated to it) — so its
status is always `degraded`, and when the `auto` chain falls back to it, the first embed warns.

Hashing uses BLAKE2b, so vectors are identical across processes, platforms and Python versions
(Python's `hash()` is salted per process).
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import warnings
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from ..errors import InvalidInput
from ._util import as_text_list
from .base import EmbedderStatus, check_vectors

if TYPE_CHECKING:
    import numpy as np

logger = logging.getLogger("salience.embed")

HASH_VERSION = "v1"  # bump when the feature recipe changes: it is part of the model identity
DEFAULT_HASH_DIM = 384
_WORD = re.compile(r"\w+")
_TRIGRAM_WEIGHT = 0.5
_EMPTY_FEATURE = "e:"  # empty or punctuation-only text still gets a (shared) non-zero vector


class DegradedEmbeddingWarning(UserWarning):
    """Semantic search runs on the hash fallback: recall by meaning is poor."""


def _features(text: str) -> Iterator[tuple[str, float]]:
    words = _WORD.findall(text.casefold())
    if not words:
        yield _EMPTY_FEATURE, 1.0
        return
    for word in words:
        yield "w:" + word, 1.0
        marked = f"<{word}>"
        for i in range(len(marked) - 2):
            yield "c:" + marked[i : i + 3], _TRIGRAM_WEIGHT


#: features whose bucket is kept (~200 bytes each, process-wide): 16,384 hold an everyday
#: vocabulary's words and trigrams; 65,536 grew a soak server by ~13 MB (issue 17)
BUCKET_CACHE_SIZE = 1 << 14


@lru_cache(maxsize=BUCKET_CACHE_SIZE)
def _bucket(feature: str, dim: int) -> tuple[int, float]:
    digest = hashlib.blake2b(
        feature.encode("utf-8"), digest_size=8, person=b"salience-hash"
    ).digest()
    h = int.from_bytes(digest, "little")
    return h % dim, (1.0 if h >> 63 else -1.0)


class HashEmbedder:
    """Deterministic signed feature hashing (lexical similarity only).

    Args:
        dim: output dimension.
        fallback_reason: set by the `auto` chain when no real model was available; the first
            embed then emits a `DegradedEmbeddingWarning` and a logged warning that include it.
    """

    provider = "hash"

    def __init__(self, dim: int = DEFAULT_HASH_DIM, *, fallback_reason: str | None = None) -> None:
        if dim < 1:
            raise InvalidInput(f"hash embedder dimension must be positive, got {dim}")
        self._dim = dim
        self.fallback_reason = fallback_reason
        self._warned = False
        self._warn_lock = threading.Lock()

    @property
    def model(self) -> str:
        return f"salience-hash-{HASH_VERSION}"

    @property
    def dim(self) -> int:
        return self._dim

    def _warn_once(self) -> None:
        if self.fallback_reason is None or self._warned:
            return
        with self._warn_lock:
            if self._warned:
                return
            self._warned = True
        message = (
            "Salience is embedding with the hash fallback: search by meaning will be poor "
            f"(lexical overlap only). No semantic embedder was available: {self.fallback_reason}"
        )
        logger.warning(message)
        warnings.warn(message, DegradedEmbeddingWarning, stacklevel=4)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        items = as_text_list(texts)
        self._warn_once()
        out = np.zeros((len(items), self._dim), dtype=np.float32)
        for row, text in enumerate(items):
            vec = out[row]
            for feature, weight in _features(text):
                index, sign = _bucket(feature, self._dim)
                vec[index] += sign * weight
            if not vec.any():  # every feature cancelled out (vanishingly rare)
                vec[_bucket(_EMPTY_FEATURE, self._dim)[0]] = 1.0
        if not items:
            return out
        return check_vectors(out, n=len(items), dim=self._dim, who="hash embedder")

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed memories (same recipe as queries). Returns (n, dim) float32, L2-normalised."""
        return self._embed(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries (same recipe as passages)."""
        return self._embed(texts)

    def status(self) -> EmbedderStatus:
        detail = (
            "DEGRADED: feature hashing of words and character trigrams, lexical similarity only"
        )
        if self.fallback_reason is not None:
            detail = f"FALLBACK ({self.fallback_reason}); {detail}"
        return EmbedderStatus(
            provider=self.provider, model=self.model, dim=self._dim, degraded=True, detail=detail
        )
