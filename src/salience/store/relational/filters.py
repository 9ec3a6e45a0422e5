"""A `MemoryFilter` as SQL over alias `m`, written once: the shared fragments come from
`statements.py`, three per backend (tags, entities, an id prefix: side tables on SQLite, arrays
and `starts_with` on PostgreSQL). Same semantics on both: tags are trimmed and lower-cased,
entities normalised, and an empty list matches nothing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...models import Importance, MemoryFilter, MemoryType, Source, normalize_entity
from .dialect import Dialect


def filter_clause(
    flt: MemoryFilter | None,
    d: Dialect,
    frag: Callable[[str], str],
    id_prefix: Callable[[str], list[Any]],
) -> tuple[str, list[Any]]:
    """(" AND …", params) for `flt` ("" when nothing to filter). `frag(name)` is the backend's
    fragment `F_<name>`, `id_prefix(p)` the parameters of its `F_ID_PREFIX`."""
    flt = flt or MemoryFilter()
    parts: list[str] = []
    params: list[Any] = []

    def add(name: str, *values: Any) -> None:
        parts.append(frag(name))
        params.extend(values)

    def add_list(name: str, values: Sequence[Any]) -> None:
        values = list(values) or ([] if d.postgres else [""])  # nothing (SQLite has no `IN ()`)
        text = frag(name)
        parts.append(text if d.postgres else text.format(marks=", ".join(["?"] * len(values))))
        params.extend(d.bind(values))

    if not flt.include_superseded:
        add("NOT_SUPERSEDED")
    if flt.memory_types is not None:
        add_list("TYPES", [MemoryType(t).value for t in flt.memory_types])
    if flt.sources is not None:
        add_list("SOURCES", [Source(s).value for s in flt.sources])
    if flt.importance is not None:
        add_list("IMPORTANCE", [Importance(i).value for i in flt.importance])
    if flt.tags is not None:
        add_list("TAGS", [t.strip().lower() for t in flt.tags])
    if flt.entities is not None:
        add_list("ENTITIES", [normalize_entity(e) for e in flt.entities])
    if flt.session_id is not None:
        add("SESSION", flt.session_id)
    if flt.since is not None:
        add("SINCE", d.ts(flt.since))
    if flt.until is not None:
        add("UNTIL", d.ts(flt.until))
    if flt.min_salience is not None:
        add("MIN_SALIENCE", float(flt.min_salience))
    if flt.ids is not None:
        add_list("IDS", list(flt.ids))
    if flt.id_prefix is not None:  # a range or starts_with, so the primary key answers it
        add("ID_PREFIX", *id_prefix(flt.id_prefix))
    return "".join(" AND " + p for p in parts), params
