"""Catch-up mode (design B §9.2): "catch me up", "where were we", "what did we decide" ...

Such queries bypass semantic search: literal similarity would return recent small talk over
last week's critical decision. They get the important memories and the decisions, by importance
then recency, plus the three most recent ordinary memories, deduplicated by their first 100
characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ..models import IMPORTANCE_WEIGHTS, Importance, Memory

CATCH_UP_PATTERNS = (
    r"\bcatch\s+me\s+up\b",
    r"\bcatch\s+up\s+on\s+(?:where|what)\b",
    r"\bwhere\s+(?:were|are|did)\s+we\b",
    r"\bwhere\s+we\s+left\s+off\b",
    r"\bwhat\s+(?:did|have)\s+we\s+(?:decide|decided|agree|agreed)\b",
    r"\bwhat\s+was\s+decided\b",
    r"\bbrief\s+me\b",
    r"\bwhat(?:'s|’s|\s+is)\s+next\b",
    r"\bwhat\s+(?:have\s+)?i\s+missed\b",
    r"\bbring\s+me\s+up\s+to\s+speed\b",
    r"\bfill\s+me\s+in\b",
    r"\brecap\b",
)
_CATCH_UP = re.compile("|".join(CATCH_UP_PATTERNS), re.IGNORECASE)
DEDUP_PREFIX = 100
RECENT_CONTEXT = 3


def is_catch_up(query: str) -> bool:
    """Whether `query` asks to be caught up rather than for something specific."""
    return bool(_CATCH_UP.search(query))


def is_decision(memory: Memory) -> bool:
    """Design B's SQL: content LIKE 'Decision%' OR content LIKE '%decided%' (case-insensitive,
    as SQLite's LIKE is for ASCII)."""
    text = memory.content.lower()
    return text.startswith("decision") or "decided" in text


def _key(memory: Memory) -> tuple[float, float]:
    created = memory.created_at.timestamp() if memory.created_at else 0.0
    return (-IMPORTANCE_WEIGHTS[Importance(memory.importance)], -created)


def select_catch_up(pool: Iterable[Memory], recent: Sequence[Memory], limit: int) -> list[Memory]:
    """Up to `limit` important/critical or decision memories of `pool` (importance, then most
    recent first), then the first `RECENT_CONTEXT` usable memories of `recent` (already newest
    first); temporary and deprecated memories are never recent context; duplicates by the first
    100 characters are dropped."""
    key_imp = {Importance.CRITICAL, Importance.IMPORTANT}
    chosen = sorted(
        (m for m in pool if Importance(m.importance) in key_imp or is_decision(m)), key=_key
    )[:limit]
    extra = [
        m
        for m in recent
        if Importance(m.importance) not in (Importance.TEMPORARY, Importance.DEPRECATED)
    ][:RECENT_CONTEXT]
    out: list[Memory] = []
    seen: set[str] = set()
    for m in [*chosen, *extra]:
        k = m.content[:DEDUP_PREFIX]
        if k in seen:
            continue
        seen.add(k)
        out.append(m)
    return out
