"""Synthetic but realistic benchmark data: Zipf-distributed text and clustered unit vectors."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from salience.models import Memory, validate_memory

_SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ra",
    "te",
    "su",
    "no",
    "vi",
    "da",
    "pe",
    "zo",
    "ri",
    "an",
    "el",
    "or",
    "us",
    "in",
    "et",
    "ba",
    "go",
    "ne",
    "ta",
    "shi",
    "ko",
    "lu",
    "mar",
    "den",
    "tor",
]


def vocabulary(size: int = 8000, seed: int = 7) -> list[str]:
    rng = np.random.default_rng(seed)
    words: set[str] = set()
    while len(words) < size:
        n = int(rng.integers(1, 4))
        words.add("".join(rng.choice(_SYLLABLES, n)))
    return sorted(words)


class Corpus:
    """Deterministic text + vector generator (the same seed gives the same data)."""

    def __init__(self, dim: int = 384, clusters: int = 1000, seed: int = 42) -> None:
        self.rng = np.random.default_rng(seed)
        self.dim = dim
        self.vocab = vocabulary()
        ranks = np.arange(1, len(self.vocab) + 1)
        self.p = (1.0 / ranks) / (1.0 / ranks).sum()
        self.centers = self.rng.normal(size=(clusters, dim)).astype(np.float32)
        self.centers /= np.linalg.norm(self.centers, axis=1, keepdims=True)

    def texts(self, n: int) -> list[str]:
        lengths = self.rng.integers(8, 120, size=n)  # words per memory: chat turns to emails
        idx = self.rng.choice(len(self.vocab), size=int(lengths.sum()), p=self.p)
        out, pos = [], 0
        for ln in lengths.tolist():
            out.append(" ".join(self.vocab[i] for i in idx[pos : pos + ln]) + ".")
            pos += ln
        return out

    def vectors(self, n: int, noise: float = 1.0) -> np.ndarray:
        """Unit vectors around random cluster centres. With noise 1.0 a vector's cosine to its
        centre is about 0.7 and to a sibling about 0.5 — the shape of sentence embeddings on
        one topic — while vectors of different clusters are near-orthogonal."""
        c = self.rng.integers(0, len(self.centers), size=n)
        v = self.centers[c] + noise * self.rng.normal(size=(n, self.dim)).astype(
            np.float32
        ) / np.sqrt(self.dim)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        return v.astype(np.float32)

    def queries(self, n: int) -> tuple[list[list[str]], np.ndarray]:
        # Query words follow the corpus distribution minus its 50 most frequent words, which
        # play the part of the stop words a real query loses before full-text search.
        p = self.p.copy()
        p[:50] = 0
        p /= p.sum()
        terms = [
            [self.vocab[i] for i in self.rng.choice(len(self.vocab), size=int(k), p=p)]
            for k in self.rng.integers(2, 6, size=n)
        ]
        return terms, self.vectors(n)

    def memories(self, n: int, start: int = 0) -> list[Memory]:
        t0 = datetime(2026, 1, 1, tzinfo=UTC)
        out = []
        for i, text in enumerate(self.texts(n)):
            ts = t0 + timedelta(seconds=start + i)
            out.append(validate_memory(Memory(content=text, created_at=ts, updated_at=ts)))
        return out
