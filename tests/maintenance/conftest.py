"""Fixtures of the maintenance tests: a mind on SQLite with a frozen clock and a topic
embedder (texts sharing a topic word are within cosine distance 0.3 of each other)."""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime

import numpy as np
import pytest

from salience.clock import FrozenClock
from salience.config import Config
from salience.embed.base import EmbedderStatus
from salience.mind import Mind

T0 = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
TOPICS = ("hiking", "piano", "budget", "garden", "travel", "dentist")


class TopicEmbedder:
    """Deterministic 16-d vectors: one axis per topic word, plus a small text-hash part."""

    model = "test/maint-topic-16"
    dim = 16

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        low = text.lower()
        for i, t in enumerate(TOPICS):
            if t in low:
                v[i] = 1.0
        h = zlib.crc32(re.sub(r"\s+", " ", low).encode()) % 8
        v[8 + h] += 0.3 if v[:8].any() else 1.0
        return v / np.linalg.norm(v)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._vec(t) for t in texts]) if texts else np.zeros((0, self.dim))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_passages(texts)

    def status(self) -> EmbedderStatus:
        return EmbedderStatus(provider="test", model=self.model, dim=self.dim)


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(T0)


@pytest.fixture
def make_mind(config: Config, clock: FrozenClock) -> Iterator[Callable[..., Mind]]:
    opened: list[Mind] = []

    def factory(name: str = "sim", brain: object = None, **overrides: object) -> Mind:
        cfg = config.model_copy(update=overrides) if overrides else config
        m = Mind.open(name, config=cfg, embedder=TopicEmbedder(), clock=clock, brain=brain)
        opened.append(m)
        return m

    yield factory
    for m in opened:
        m.close()


@pytest.fixture
def mind(make_mind: Callable[..., Mind]) -> Mind:
    return make_mind()
