"""MemoryFilter → SQL for the PostgreSQL store, and the literal search terms of full text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from psycopg import sql as psql

from ...clock import ensure_utc
from ...models import Importance, MemoryFilter, MemoryType, Source, normalize_entity
from . import sql


def literal_terms(terms: Sequence[str]) -> list[str]:
    """The terms worth searching: NULs removed, trimmed, at least one letter or digit, distinct.

    Each is bound as a parameter of `phraseto_tsquery`, which reads plain text: quotes,
    `&`, `|`, `!`, `<->`, `:*` and parentheses are never query syntax.
    """
    out: list[str] = []
    for t in terms:
        t = str(t).replace("\x00", "").strip()
        if t and any(ch.isalnum() for ch in t):
            out.append(t)
    return list(dict.fromkeys(out))


def filter_clause(flt: MemoryFilter | None) -> tuple[psql.Composable, list[Any]]:
    """(" AND …" over alias `m`, params) for a `MemoryFilter`; empty SQL when nothing to filter.

    Same semantics as the SQLite backend: tag filters are trimmed and lower-cased, entity
    filters normalised; an empty list matches nothing."""
    flt = flt or MemoryFilter()
    parts: list[str] = []
    params: list[Any] = []

    def add(frag: str, value: Any) -> None:
        parts.append(frag)
        params.append(value)

    if not flt.include_superseded:
        parts.append(sql.F_NOT_SUPERSEDED)
    if flt.memory_types is not None:
        add(sql.F_TYPES, [MemoryType(t).value for t in flt.memory_types])
    if flt.sources is not None:
        add(sql.F_SOURCES, [Source(s).value for s in flt.sources])
    if flt.importance is not None:
        add(sql.F_IMPORTANCE, [Importance(i).value for i in flt.importance])
    if flt.tags is not None:
        add(sql.F_TAGS, [t.strip().lower() for t in flt.tags])
    if flt.entities is not None:
        add(sql.F_ENTITIES, [normalize_entity(e) for e in flt.entities])
    if flt.session_id is not None:
        add(sql.F_SESSION, flt.session_id)
    if flt.since is not None:
        add(sql.F_SINCE, ensure_utc(flt.since))
    if flt.until is not None:
        add(sql.F_UNTIL, ensure_utc(flt.until))
    if flt.min_salience is not None:
        add(sql.F_MIN_SALIENCE, float(flt.min_salience))
    if flt.ids is not None:
        add(sql.F_IDS, list(flt.ids))
    if flt.id_prefix is not None:
        add(sql.F_ID_PREFIX, flt.id_prefix)
    return psql.SQL("".join(sql.F_AND + p for p in parts)), params
