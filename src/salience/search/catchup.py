"""Catch-up mode (design B §9.2): "catch me up", "where were we", "what did we decide" ...

Such queries bypass semantic search: literal similarity would return recent small talk over
last week's critical decision. They get the important memories and the decisions, by importance
then recency, plus the three most recent ordinary memories, deduplicated by their first 100
characters.

A catch-up phrase with a topic ("what did we decide about payments?", "catch me up on the
launch") asks about that topic (issue 14): `catch_up_topic` extracts it, the topic is searched
like any query, and `select_topic_catch_up` puts the decisions and important memories among
the hits first, in the search's order.
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
_EACH = [re.compile(p, re.IGNORECASE) for p in CATCH_UP_PATTERNS]
DEDUP_PREFIX = 100
RECENT_CONTEXT = 3
TOPIC_POOL = 3  # a topic catch-up searches limit × this many hits to choose from



def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


# words that join a catch-up phrase to its topic ("... about payments", "... on the launch")
_CONNECTORS = _wordset("about on regarding re with for of concerning around in over wrt as to")
_DETERMINERS = _wordset("the a an our my your their his her its this that these those")
# what is left when a catch-up phrase has no topic ("catch me up on everything, please")
_FILLERS = _wordset(
    """please pls again so far then now yet today yesterday tonight lately recently this week
    everything anything something all it that this them things stuff quick quickly briefly ok
    okay hey hi well so and just real there here"""
)
_EDGE = " \t\n.,;:!?\"'()[]-–—"


def is_catch_up(query: str) -> bool:
    """Whether `query` asks to be caught up rather than for something specific."""
    return bool(_CATCH_UP.search(query))


def _words(text: str) -> list[str]:
    return text.strip(_EDGE).split()


def _trim(words: list[str]) -> list[str]:
    """`words` without the connectors and determiners in front and the fillers at the end."""
    while words and words[0].lower().strip(_EDGE) in _CONNECTORS | _DETERMINERS:
        words = words[1:]
    while words and words[-1].lower().strip(_EDGE) in _FILLERS:
        words = words[:-1]
    if all(w.lower().strip(_EDGE) in _FILLERS | _DETERMINERS for w in words):
        return []
    return words


def catch_up_topic(query: str) -> str | None:
    """The topic of a catch-up phrase: what follows the phrase ("what did we decide about the
    venue?" → "venue"), else what precedes it when set off by ':' or ',' ("Payments: what did
    we decide?" → "Payments"); None for a plain catch-up phrase or a query that is not one."""
    matches = [m for p in _EACH for m in p.finditer(query)]
    if not matches:
        return None
    start, end = min(m.start() for m in matches), max(m.end() for m in matches)
    after = _trim(_words(query[end:]))
    if after:
        return " ".join(after).strip(_EDGE)
    before = query[:start].rstrip()
    if before.endswith((":", ",", "-", "–", "—")):
        words = _trim(_words(before))
        if words:
            return " ".join(words).strip(_EDGE)
    return None


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


def is_key(memory: Memory) -> bool:
    """What catch-up is about: an important or critical memory, or a decision."""
    return Importance(memory.importance) in (Importance.CRITICAL, Importance.IMPORTANT) or (
        is_decision(memory)
    )


def mentions(memory: Memory, topic: str) -> bool:
    """Whether `memory` names a word of `topic` (a word's stem: all but its last two letters,
    at least four: "payments" → "payme…"); words under three letters only with a digit."""
    text = memory.content.lower()
    words = [w for w in re.findall(r"\w+", topic.lower()) if w not in _DETERMINERS]
    stems = [w[: max(4, len(w) - 2)] for w in words if len(w) >= 3 or any(c.isdigit() for c in w)]
    return any(re.search(rf"\b{re.escape(stem)}", text) for stem in stems)


def select_topic_catch_up(about: Sequence[Memory], topic: str, limit: int) -> list[Memory]:
    """Up to `limit` of `about` (the search hits for `topic`, best first): first the decisions
    and important/critical memories about it — among the top `limit` hits, or further down
    when they name the topic — then the other top hits, each part in the search's order;
    duplicates by the first 100 characters are dropped."""
    key = [
        m for pos, m in enumerate(about) if is_key(m) and (pos < limit or mentions(m, topic))
    ]
    chosen = {id(m) for m in key}
    out: list[Memory] = []
    seen: set[str] = set()
    for m in [*key, *(m for m in about[:limit] if id(m) not in chosen)]:
        k = m.content[:DEDUP_PREFIX]
        if k not in seen:
            seen.add(k)
            out.append(m)
    return out[:limit]
