"""SQL fragments for a `MemoryFilter` and small helpers for parameter lists (SQLite)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ...clock import format_ts
from ...models import Importance, MemoryFilter, MemoryType, Source, normalize_entity
from . import sql

MAX_VARS = 900  # stay below SQLite's host-parameter limit


def filter_clause(flt: MemoryFilter | None) -> tuple[str, list[Any]]:
    """(" AND …" SQL over alias `m`, params) for a `MemoryFilter`; "" when nothing to filter."""
    flt = flt or MemoryFilter()
    parts: list[str] = []
    params: list[Any] = []

    def add_in(frag: str, values: Sequence[Any]) -> None:
        parts.append(frag.format(marks=marks(values)))
        params.extend(values)

    if not flt.include_superseded:
        parts.append(sql.F_NOT_SUPERSEDED)
    if flt.memory_types is not None:
        add_in(sql.F_TYPES, [MemoryType(t).value for t in flt.memory_types] or [""])
    if flt.sources is not None:
        add_in(sql.F_SOURCES, [Source(s).value for s in flt.sources] or [""])
    if flt.importance is not None:
        add_in(sql.F_IMPORTANCE, [Importance(i).value for i in flt.importance] or [""])
    if flt.tags is not None:
        add_in(sql.F_TAGS, [t.strip().lower() for t in flt.tags] or [""])
    if flt.entities is not None:
        add_in(sql.F_ENTITIES, [normalize_entity(e) for e in flt.entities] or [""])
    if flt.session_id is not None:
        parts.append(sql.F_SESSION)
        params.append(flt.session_id)
    if flt.since is not None:
        parts.append(sql.F_SINCE)
        params.append(format_ts(flt.since))
    if flt.until is not None:
        parts.append(sql.F_UNTIL)
        params.append(format_ts(flt.until))
    if flt.min_salience is not None:
        parts.append(sql.F_MIN_SALIENCE)
        params.append(float(flt.min_salience))
    if flt.ids is not None:
        add_in(sql.F_IDS, list(flt.ids) or [""])
    if flt.id_prefix is not None:  # a range, so the primary-key index answers it
        parts.append(sql.F_ID_PREFIX)
        params.extend([flt.id_prefix, flt.id_prefix + "\x7f"])
    return ("".join(" AND " + p for p in parts), params)


def only_superseded_filter(flt: MemoryFilter) -> bool:
    """True when `flt` filters on nothing but (possibly) hiding superseded memories."""
    probe = MemoryFilter(include_superseded=flt.include_superseded)
    return filter_clause(flt) == filter_clause(probe)


def marks(values: Sequence[Any]) -> str:
    return ", ".join("?" for _ in values)


def chunks(values: list[Any], size: int = MAX_VARS) -> Iterator[list[Any]]:
    for i in range(0, len(values), size):
        yield values[i : i + size]
