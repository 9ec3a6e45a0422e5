"""Test doubles of the ingestion tests: a scripted `Brain`, a topic embedder whose vectors put
texts about the same attribute close together, and a Mind factory wiring them in."""

from __future__ import annotations

import re
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from salience.clock import Clock
from salience.config import Config
from salience.embed.base import EmbedderStatus
from salience.errors import LLMError
from salience.llm.base import InteractionRecord, LLMStatus, Recorder, emit
from salience.llm.brain import Fact, Quality, Triage
from salience.mind import Mind
from salience.models import MemoryType

TOPICS = ("live", "color", "job", "dog", "email", "meeting", "coffee", "sister")


class TopicEmbedder:
    """Deterministic 16-d vectors: one axis per topic word present, plus a small text-hash
    component, so 'I live in Lisbon' and 'I live in Porto' are within cosine distance 0.3."""

    model = "test/topic-16"
    dim = 16

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        low = text.lower()
        for i, t in enumerate(TOPICS):
            if t in low:
                v[i] = 1.0
        h = zlib.crc32(re.sub(r"\s+", " ", low).encode()) % 7
        v[8 + h] = 0.25 if v[:8].any() else 1.0
        return v / np.linalg.norm(v)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._vec(t) for t in texts]) if texts else np.zeros((0, self.dim))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_passages(texts)

    def status(self) -> EmbedderStatus:
        return EmbedderStatus(model=self.model, dim=self.dim)  # type: ignore[call-arg]


@dataclass
class ScriptedBrain:
    """A `Brain` whose answers come from the test: `salience_for(text)`, `contradict`,
    `facts`, and `fail` (a callable raising for chosen call sites). Calls are counted and
    reported to `on_call` like a real provider's."""

    on_call: Recorder | None = None
    salience_for: Callable[[str], int] = lambda text: 5
    save: bool = True
    memory_type: MemoryType = MemoryType.FACT
    specificity: float = 0.0
    uniqueness: float = 0.0
    contradict: Callable[[str, Sequence[str]], list[int]] = lambda new, c: []
    facts: Callable[[str], list[Fact]] = lambda text: []
    fail: Callable[[str, str], None] = lambda site, text: None
    delay_s: float = 0.0
    calls: dict[str, int] = field(default_factory=dict)

    def _call(self, site: str, text: str, answer: Callable[[], Any]) -> Any:
        self.calls[site] = self.calls.get(site, 0) + 1
        if self.delay_s:
            time.sleep(self.delay_s)
        try:
            self.fail(site, text)
            out = answer()
        except Exception as e:
            emit(self.on_call, InteractionRecord(site, "scripted", "s", len(text), 0, 1.0,
                                                 "error", error=str(e)))
            raise
        emit(self.on_call, InteractionRecord(site, "scripted", "s", len(text), 10, 1.0, "ok"))
        return out

    def status(self) -> LLMStatus:
        return LLMStatus(provider="scripted", model="s", heuristic=False)

    def triage(self, text: str, *, kind: str = "conversation") -> Triage:
        return self._call("triage", text, lambda: Triage(
            salience=self.salience_for(text), summary=text[:80], memory_type=self.memory_type,
            tags=["t"], entities=[], save=self.save))

    def quality(self, text: str, *, existing: Sequence[str] = ()) -> Quality:
        return self._call("quality", text, lambda: Quality(
            specificity=self.specificity, uniqueness=self.uniqueness, confidence=0.9))

    def contradicts(self, new: str, candidates: Sequence[str]) -> list[int]:
        return self._call("contradiction", new, lambda: self.contradict(new, list(candidates)))

    def distill(self, text: str) -> list[Fact]:
        return self._call("distillation", text, lambda: self.facts(text))

    def extract_entities(self, text: str) -> list[str]:
        return []


def failing(sites: set[str], error: type[Exception] = LLMError) -> Callable[[str, str], None]:
    """A `fail` hook raising `error` on `sites`."""

    def fail(site: str, text: str) -> None:
        if site in sites:
            raise error(f"scripted failure at {site}")

    return fail


def open_mind(
    config: Config,
    clock: Clock,
    brain: Any = None,
    *,
    name: str = "m",
    path: Path | None = None,
    embedder: Any = None,
    brain_factory: Callable[[Recorder], Any] | None = None,
) -> Mind:
    """A Mind with `embedder` (TopicEmbedder) over `brain` (or a brain built by
    `brain_factory(recorder)`, or the config's brain), passed to `Mind.open(brain=...)`."""
    if brain is not None and brain_factory is None:
        def brain_factory(rec: Recorder) -> Any:
            if hasattr(brain, "on_call") and brain.on_call is None:
                brain.on_call = rec
            return brain
    return Mind.open(
        path or name, config=config, clock=clock, embedder=embedder or TopicEmbedder(),
        brain=brain_factory,
    )
