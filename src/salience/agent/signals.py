"""`mind.signals`: improvement signals (design B §11) — recurring corrections, capability gaps
and workflow patterns, one row per (category, pattern_key), counted on every recurrence. A
signal is actionable once it recurred `rules.ACTIONABLE_COUNT` times and was not surfaced yet;
`context()` shows actionable signals in the self-awareness section and marks them surfaced, so
the agent sees each one once."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInput
from ..models import parse_enum
from ..models.agent import (
    ImprovementSignal,
    SignalCategory,
    check_body,
    check_count,
    check_name,
    check_object,
)
from . import rules
from .base import StoreClient

if TYPE_CHECKING:
    from ..clock import Clock
    from ..store.base import Store


class Signals(StoreClient):
    """record / correction / get / list / actionable / mark_surfaced."""

    def __init__(self, store: Store, clock: Clock, *, threshold: int = rules.ACTIONABLE_COUNT):
        super().__init__(store, clock)
        self.threshold = check_count(threshold, "signal threshold", lo=1)

    def record(
        self,
        category: SignalCategory | str,
        pattern_key: str,
        note: str = "",
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> ImprovementSignal:
        """Count one occurrence of a pattern. The key is normalised (`rules.
        normalize_pattern_key`), so "Date format" and "date  format" are one signal; a
        non-empty `note` replaces the previous one. Returns the signal with its new count."""
        from ..models import new_id

        cat = parse_enum(SignalCategory, category, "signal category")
        key = rules.normalize_pattern_key(check_name(pattern_key, "pattern_key"))
        return self._store.record_signal(
            cat,
            key,
            note=check_body(note, "note").strip(),
            metadata=check_object(metadata, "metadata"),
            now=self._clock.now(),
            new_id=new_id(),
        )

    def correction(self, pattern_key: str, note: str = "") -> ImprovementSignal:
        """`record("correction", ...)`: the user corrected the agent."""
        return self.record(SignalCategory.CORRECTION, pattern_key, note)

    def get(self, category: SignalCategory | str, pattern_key: str) -> ImprovementSignal | None:
        cat = parse_enum(SignalCategory, category, "signal category")
        key = rules.normalize_pattern_key(check_name(pattern_key, "pattern_key"))
        return self._store.get_signal(cat, key)

    def list(
        self,
        *,
        category: SignalCategory | str | None = None,
        surfaced: bool | None = None,
        limit: int = 100,
    ) -> list[ImprovementSignal]:
        """Signals, most frequent first."""
        return self._store.list_signals(
            category=None if category is None else parse_enum(SignalCategory, category, "category"),
            surfaced=surfaced,
            limit=check_count(limit, "limit", lo=1, hi=10_000),
        )

    def actionable(self, *, limit: int = 20) -> list[ImprovementSignal]:
        """Signals worth showing the agent now (`rules.actionable`); nothing is marked."""
        found = self._store.list_signals(
            surfaced=False, min_count=self.threshold, limit=check_count(limit, "limit", lo=1)
        )
        return rules.actionable(found, threshold=self.threshold)

    def mark_surfaced(self, ids: Sequence[str]) -> list[str]:
        """Flag signals as shown; returns the ids this call flipped (others were already)."""
        if isinstance(ids, str) or not isinstance(ids, Sequence):
            raise InvalidInput("ids must be a list of signal ids")
        return self._store.mark_signals_surfaced(
            [check_name(i, "signal id", max_chars=64) for i in ids], now=self._clock.now()
        )
