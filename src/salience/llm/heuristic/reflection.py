"""Heuristic reflection: counted patterns, rising interests, co-occurrences, recurrences."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from datetime import datetime, timedelta
from itertools import combinations, pairwise
from statistics import median
from typing import TYPE_CHECKING

from ...models import MemoryType
from ..brain import Reflection
from .entities import find_entities
from .lexicon import MONTHS, WEEKDAYS
from .synthesis import chronological, memory_time, top_entities, top_keywords
from .text import content_terms, jaccard, stem, trim

if TYPE_CHECKING:
    from ...models import Memory

MAX_ITEMS = 5
_WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_SCHEDULED = frozenset({MemoryType.EVENT, MemoryType.CALENDAR})
_SCHEDULE_TAGS = frozenset({"meeting", "plan", "deadline", "calendar", "event"})
_TIME_WORDS = (
    MONTHS
    | WEEKDAYS
    | frozenset(
        [
            "am",
            "pm",
            "today",
            "tomorrow",
            "yesterday",
            "morning",
            "afternoon",
            "evening",
            "night",
            "week",
            "weekly",
            "next",
            "last",
            "utc",
            "daily",
            "every",
        ]
    )
)


def _label(kind: str, n: int) -> str:
    return f"{kind}{'' if n == 1 else 's'}"


def _patterns(ordered: list[Memory]) -> list[str]:
    n = len(ordered)
    out: list[str] = []
    types = Counter(m.memory_type.value for m in ordered)
    parts = [f"{c} {_label(t, c)} ({round(100 * c / n)}%)" for t, c in types.most_common(3)]
    out.append(f"Of {n} memories: " + ", ".join(parts) + ".")
    tags = Counter(t for m in ordered for t in m.tags)
    if tags:
        out.append(
            "Most frequent topics: " + ", ".join(f"{t} ({c})" for t, c in tags.most_common(4)) + "."
        )
    ents = [(e, c) for e, c in top_entities(ordered, limit=4) if c >= 2]
    if ents:
        out.append("Most mentioned: " + ", ".join(f"{e} ({c})" for e, c in ents) + ".")
    sources = Counter(m.source.value for m in ordered)
    if len(sources) > 1:
        out.append("Sources: " + ", ".join(f"{s} ({c})" for s, c in sources.most_common(3)) + ".")
    times = [t for t in (memory_time(m) for m in ordered) if t is not None]
    if len(times) >= 7:
        days = Counter(t.weekday() for t in times)
        day, count = days.most_common(1)[0]
        if count >= 2 * len(times) / 7:
            out.append(f"Most activity on {_WEEKDAY_NAMES[day]}s ({count} of {len(times)}).")
    high = sum(m.salience >= 8 for m in ordered)
    avg = sum(m.salience for m in ordered) / n
    noun = "memory" if high == 1 else "memories"
    out.append(f"Average salience {avg:.1f}; {high} high-value {noun} (salience 8 or more).")
    return out[: MAX_ITEMS + 1]


def _interest_terms(m: Memory) -> set[str]:
    terms = {f"#{t}" for t in m.tags}
    names = m.entities or [e.text for e in find_entities(m.text) if e.kind not in ("url", "date")]
    terms |= {f"@{n}" for n in names}
    terms |= {
        t for t in content_terms(m.text) if len(t) >= 4 and not t.isdigit() and t not in _TIME_WORDS
    }
    return terms


def _display(term: str, forms: dict[str, str]) -> str:
    if term[0] in "#@":
        return term[1:]
    return forms.get(term, term)


def _evolving(ordered: list[Memory]) -> list[str]:
    if len(ordered) < 4:
        return []
    half = len(ordered) // 2
    first = Counter(t for m in ordered[:half] for t in _interest_terms(m))
    second = Counter(t for m in ordered[half:] for t in _interest_terms(m))
    forms = {stem(k): k for k, _ in top_keywords([m.text for m in ordered], limit=200)}
    rising = [
        t
        for t in second
        if second[t] >= 2 and second[t] >= 2 * max(first[t], 0.5) + (1 if first[t] else 0)
    ]
    rising.sort(key=lambda t: (-(second[t] - first[t]), t[0] not in "#@", t))
    fading = [t for t in first if first[t] >= 2 and second[t] == 0]
    fading.sort(key=lambda t: (-first[t], t[0] not in "#@", t))
    out = [
        f"Rising: {_display(t, forms)} ({first[t]} → {second[t]} mentions)"
        for t in _dedupe(rising, forms)[:MAX_ITEMS]
    ]
    out += [
        f"Fading: {_display(t, forms)} ({first[t]} → 0 mentions)"
        for t in _dedupe(fading, forms)[:2]
    ]
    return out


def _dedupe(terms: list[str], forms: dict[str, str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for t in terms:
        key = stem(_display(t, forms).lower())
        if key not in seen:
            seen.add(key)
            out.append(t)
    return out


def _connections(ordered: list[Memory]) -> list[str]:
    pairs: Counter[tuple[str, str]] = Counter()
    display: dict[str, str] = {}
    for m in ordered:
        names = m.entities or [
            e.text for e in find_entities(m.text) if e.kind not in ("url", "date")
        ]
        keys = sorted({n.lower() for n in names})
        for n in names:
            display.setdefault(n.lower(), n)
        for a, b in combinations(keys, 2):
            pairs[(a, b)] += 1
    out = [
        f"{display[a]} and {display[b]} appear together in {c} memories"
        for (a, b), c in sorted(pairs.items(), key=lambda p: (-p[1], p[0]))
        if c >= 2
    ][:MAX_ITEMS]
    entity_tags: Counter[tuple[str, str]] = Counter()
    for m in ordered:
        names = {n.lower() for n in (m.entities or [])}
        for n in names:
            for t in m.tags:
                entity_tags[(n, t)] += 1
    for (n, t), c in sorted(entity_tags.items(), key=lambda p: (-p[1], p[0])):
        if len(out) >= MAX_ITEMS or c < 3:
            break
        out.append(
            f"{display.get(n, n)} is usually discussed in connection with {t} ({c} memories)"
        )
    return out


def _signature(m: Memory) -> set[str]:
    """What a scheduled item is called: the text before a colon or dash, else its first five
    content words; dates, times and numbers removed."""
    head = re.split(r":|\s[-–—]\s", m.text, maxsplit=1)[0]
    terms = [
        t for t in content_terms(head) if t not in _TIME_WORDS and not any(ch.isdigit() for ch in t)
    ]
    return set(terms[:5])


def _predictions(ordered: list[Memory]) -> list[str]:
    scheduled = [
        m
        for m in ordered
        if memory_time(m) is not None
        and (m.memory_type in _SCHEDULED or _SCHEDULE_TAGS & set(m.tags))
    ]
    groups: list[list[Memory]] = []
    for m in scheduled:
        sig = _signature(m)
        for g in groups:
            if jaccard(sig, _signature(g[0])) >= 0.5:
                g.append(m)
                break
        else:
            groups.append([m])
    out: list[str] = []
    for g in sorted(groups, key=len, reverse=True):
        if len(g) < 3:
            continue
        times = sorted(t for t in (memory_time(m) for m in g) if t is not None)
        gaps = [(b - a).total_seconds() / 86400 for a, b in pairwise(times)]
        step = median(gaps)
        if step < 0.5 or any(abs(x - step) > max(1.0, 0.2 * step) for x in gaps):
            continue
        nxt: datetime = times[-1] + timedelta(days=step)
        weekdays = Counter(t.weekday() for t in times)
        day, cnt = weekdays.most_common(1)[0]
        when = f", usually on {_WEEKDAY_NAMES[day]}" if cnt == len(times) and step % 7 < 0.5 else ""
        name = trim(g[-1].summary or g[-1].content, 60)
        out.append(
            f"“{name}” recurs about every {step:.0f} days ({len(g)} times{when}); "
            f"next expected around {nxt.date().isoformat()}."
        )
    recent = ordered[len(ordered) // 2 :]
    plans = [
        m
        for m in reversed(recent)
        if {"plan", "deadline"} & set(m.tags) and m.memory_type not in _SCHEDULED
    ]
    for m in plans[:2]:
        out.append(f"Upcoming: {trim(m.text, 100)}")
    return out[:MAX_ITEMS]


def reflect(memories: Sequence[Memory]) -> Reflection:
    """Design A's reflection over `memories`, computed by counting (see docs/llm.md)."""
    if not memories:
        return Reflection()
    ordered = chronological(memories)
    rising = _evolving(ordered)
    predictions = _predictions(ordered)
    for line in rising:
        if line.startswith("Rising:") and len(predictions) < MAX_ITEMS:
            topic = line.split(":", 1)[1].split("(")[0].strip()
            predictions.append(f"Expect more about {topic}.")
            break
    return Reflection(
        patterns=_patterns(ordered),
        evolving_interests=rising,
        connections=_connections(ordered),
        predictions=predictions,
        entities=[e for e, _ in top_entities(ordered)],
    )
