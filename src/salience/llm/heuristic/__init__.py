"""The offline, deterministic `Brain`: every call site answered by rules.

It does the job "as well as rules can" (decisions.md): English-centred patterns for the triage
rubric, entity extraction, claim-based contradiction detection, lexical retrieval helpers and
extractive/counted synthesis. docs/llm.md lists what it does and does not do.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, is_dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from ...errors import InvalidInput
from ..base import THINKING_BY_CALL_SITE, CallSite, InteractionRecord, LLMStatus, Recorder, emit
from ..brain import (
    TRIAGE_KINDS,
    Episode,
    Fact,
    IdentityProfile,
    Quality,
    Reflection,
    Triage,
    TriageKind,
)
from . import contradiction as _contradiction
from . import identity as _identity
from . import quality as _quality
from . import reflection as _reflection
from . import retrieval as _retrieval
from . import synthesis as _synthesis
from . import triage as _triage
from .entities import extract_entities

if TYPE_CHECKING:
    from ...clock import Clock
    from ...models import Memory

__all__ = ["HEURISTIC_MODEL", "HeuristicBrain"]

HEURISTIC_MODEL = "salience-rules-1"
T = TypeVar("T")


def _size(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if is_dataclass(value) and not isinstance(value, type):
        value = asdict(value)
    try:
        return len(json.dumps(value, default=str, ensure_ascii=False))
    except (TypeError, ValueError):
        return len(str(value))


def _check_text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be text, got {type(value).__name__}")
    return value


class HeuristicBrain:
    """Rules for every call site; reports each call to `on_call` with provider "heuristic".

    Args:
        on_call: optional recorder of `InteractionRecord`s (the `ai_interactions` log).
        clock: optional clock stamping `InteractionRecord.started_at`.
    """

    provider = "heuristic"
    model = HEURISTIC_MODEL

    def __init__(self, *, on_call: Recorder | None = None, clock: Clock | None = None) -> None:
        self._on_call = on_call
        self._clock = clock

    def __repr__(self) -> str:
        return f"HeuristicBrain(model={self.model!r})"

    def close(self) -> None:
        """Nothing to release (for symmetry with `LLMBrain.close`)."""

    def status(self) -> LLMStatus:
        """Always heuristic: answers come from rules, not a language model."""
        return LLMStatus(
            provider=self.provider,
            model=self.model,
            heuristic=True,
            thinking={str(k): False for k in THINKING_BY_CALL_SITE},
            detail=(
                "offline rule engine (no language model): English-centred patterns for triage, "
                "entities and contradictions; extractive synthesis. Set llm='openai' for a model."
            ),
        )

    def _run(self, call_site: CallSite, prompt_chars: int, fn: Callable[[], T]) -> T:
        started_at = self._clock.now() if self._clock is not None else None
        t0 = time.perf_counter()
        try:
            result = fn()
        except Exception as e:
            emit(
                self._on_call,
                InteractionRecord(
                    call_site=str(call_site),
                    provider=self.provider,
                    model=self.model,
                    prompt_chars=prompt_chars,
                    output_chars=0,
                    latency_ms=(time.perf_counter() - t0) * 1000,
                    outcome="error",
                    error=f"{type(e).__name__}: {e}",
                    started_at=started_at,
                ),
            )
            raise
        emit(
            self._on_call,
            InteractionRecord(
                call_site=str(call_site),
                provider=self.provider,
                model=self.model,
                prompt_chars=prompt_chars,
                output_chars=_size(result),
                latency_ms=(time.perf_counter() - t0) * 1000,
                outcome="ok",
                started_at=started_at,
            ),
        )
        return result

    # -- call sites ---------------------------------------------------------------------------

    def triage(self, text: str, *, kind: TriageKind = "conversation") -> Triage:
        """Rubric-based triage; see `salience.llm.heuristic.triage`."""
        text = _check_text(text, "text")
        if kind not in TRIAGE_KINDS:
            raise InvalidInput(
                f"unknown triage kind {kind!r}; expected one of: {', '.join(TRIAGE_KINDS)}"
            )
        return self._run(CallSite.TRIAGE, len(text), lambda: _triage.triage(text, kind=kind))

    def quality(self, text: str, *, existing: Sequence[str] = ()) -> Quality:
        """Specificity, uniqueness against `existing`, confidence and entities."""
        text = _check_text(text, "text")
        existing = list(existing)
        size = len(text) + sum(len(e) for e in existing)
        return self._run(CallSite.QUALITY, size, lambda: _quality.quality(text, existing))

    def extract_entities(self, text: str) -> list[str]:
        """Entities of `text`: names, places, organisations, dates, emails, URLs, money."""
        text = _check_text(text, "text")
        return self._run(CallSite.ENTITIES, len(text), lambda: extract_entities(text))

    def contradicts(self, new: str, candidates: Sequence[str]) -> list[int]:
        """Positions of `candidates` contradicted by `new` (claim comparison)."""
        new = _check_text(new, "new")
        cands = [_check_text(c, "candidate") for c in candidates]
        size = len(new) + sum(len(c) for c in cands)
        return self._run(
            CallSite.CONTRADICTION, size, lambda: _contradiction.contradicts(new, cands)
        )

    def rewrite_query(self, query: str, *, n: int = 3) -> list[str]:
        """Up to `n` variations: statement form, keywords, synonyms."""
        query = _check_text(query, "query")
        if n < 1:
            raise InvalidInput("n must be at least 1")
        return self._run(
            CallSite.QUERY_REWRITE, len(query), lambda: _retrieval.rewrite_query(query, n)
        )

    def rerank(self, query: str, candidates: Sequence[str]) -> list[int]:
        """A permutation of candidate positions, most relevant first (lexical + prior order)."""
        query = _check_text(query, "query")
        cands = [_check_text(c, "candidate") for c in candidates]
        size = len(query) + sum(len(c) for c in cands)
        return self._run(CallSite.RERANK, size, lambda: _retrieval.rerank(query, cands))

    def is_useful(self, response: str, memory: str) -> bool:
        """Lexical-overlap usefulness (see `retrieval.USEFUL_OVERLAP`)."""
        response = _check_text(response, "response")
        memory = _check_text(memory, "memory")
        size = len(response) + len(memory)
        return self._run(CallSite.USEFULNESS, size, lambda: _retrieval.is_useful(response, memory))

    def distill(self, text: str) -> list[Fact]:
        """Fact-bearing sentences of a context slide with their salience."""
        text = _check_text(text, "text")
        return self._run(CallSite.DISTILLATION, len(text), lambda: _synthesis.distill(text))

    def synthesize_episode(self, memories: Sequence[Memory]) -> Episode:
        """Extractive episode: title from top entities/keywords, most central sentences."""
        mems = list(memories)
        if not mems:
            raise InvalidInput("an episode needs at least one memory")
        size = sum(len(m.text) for m in mems)
        return self._run(
            CallSite.EPISODE_SYNTHESIS, size, lambda: _synthesis.synthesize_episode(mems)
        )

    def reflect(self, memories: Sequence[Memory]) -> Reflection:
        """Counted patterns, rising/fading interests, co-occurrences, recurrences."""
        mems = list(memories)
        size = sum(len(m.text) for m in mems)
        return self._run(CallSite.REFLECTION, size, lambda: _reflection.reflect(mems))

    def consolidate(
        self,
        memories: Sequence[Memory],
        *,
        previous: IdentityProfile | None = None,
        paradigm_shift: bool = False,
    ) -> IdentityProfile:
        """User profile from the user's first-person statements, later memories winning."""
        mems = list(memories)
        size = sum(len(m.content) for m in mems) + (len(previous.profile) if previous else 0)
        site = CallSite.PARADIGM_SHIFT if paradigm_shift else CallSite.CONSOLIDATION
        return self._run(site, size, lambda: _identity.consolidate(mems, previous))
