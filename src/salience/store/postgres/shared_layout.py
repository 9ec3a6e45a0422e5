"""Checks of the many-minds layout (`shared_sql.py`) against a live catalog: what Citus needs
before `create_distributed_table` (see `citus_blockers`) and the layout's own rule that every
index leads with `mind_id`. Pure decisions over rows read by `read_catalog`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import shared_sql as sql

KEY = "mind_id"


@dataclass(frozen=True, slots=True)
class Catalog:
    """What the checks read of one schema (top-level tables only; partitions follow them)."""

    tables: dict[str, str] = field(default_factory=dict)  # name -> type of its mind_id ("" none)
    #: (table, name, kind p/u/f/x, columns, referenced table, referenced columns)
    constraints: list[tuple[str, str, str, list[str], str | None, list[str]]] = field(
        default_factory=list
    )
    #: (table, index, unique, first column or "" for an expression, definition)
    indexes: list[tuple[str, str, bool, str, str]] = field(default_factory=list)
    triggers: list[tuple[str, str]] = field(default_factory=list)  # (table, trigger)
    identities: list[tuple[str, str, str]] = field(default_factory=list)  # (table, column, type)


def read_catalog(conn: Any, schema: str) -> Catalog:
    """The catalog rows of `schema` the checks need (`conn`: a psycopg connection)."""
    tables = {r[0]: r[1] or "" for r in conn.execute(sql.CATALOG_TABLES, (KEY, schema))}
    return Catalog(
        tables=tables,
        constraints=[tuple(r) for r in conn.execute(sql.CATALOG_CONSTRAINTS, (schema,))],
        indexes=[tuple(r) for r in conn.execute(sql.CATALOG_INDEXES, (schema,))],
        triggers=[tuple(r) for r in conn.execute(sql.CATALOG_TRIGGERS, (schema,))],
        identities=[tuple(r) for r in conn.execute(sql.CATALOG_IDENTITIES, (schema,))],
    )


def citus_blockers(cat: Catalog, reference: tuple[str, ...] = sql.REFERENCE_TABLES) -> list[str]:
    """Why `create_distributed_table(t, 'mind_id', colocate_with => memories)` would fail (or
    distribute badly) for some table of `cat`; [] when the schema is ready:

    - every distributed table has `mind_id`, all of one type (co-location needs it);
    - every primary key, unique constraint, unique index and exclusion constraint of a
      distributed table includes `mind_id` (Citus enforces uniqueness within a shard only);
    - every foreign key between distributed tables includes `mind_id` at the same position on
      both sides (a co-located key); none points from a reference table to a distributed one;
    - no user trigger on a distributed table (Citus refuses them unless told it is unsafe);
    - identity columns are bigint (Citus supports no smaller identity on distributed tables).
    """
    out: list[str] = []
    distributed = {t: typ for t, typ in cat.tables.items() if t not in reference}
    for t, typ in sorted(distributed.items()):
        if not typ:
            out.append(f"{t}: no {KEY} column")
    types = {typ for typ in distributed.values() if typ}
    if len(types) > 1:
        out.append(f"{KEY} has several types ({', '.join(sorted(types))}): no co-location")
    for table, name, kind, cols, ref, ref_cols in cat.constraints:
        if table not in distributed:
            if kind == "f" and ref in distributed:
                out.append(f"{table}.{name}: a reference table points at distributed {ref}")
            continue
        if kind in "pux" and KEY not in cols:
            out.append(f"{table}.{name}: key ({', '.join(cols)}) without {KEY}")
        if kind == "f" and ref in distributed:
            pos = cols.index(KEY) if KEY in cols else -1
            if pos < 0 or pos >= len(ref_cols) or ref_cols[pos] != KEY:
                out.append(f"{table}.{name}: foreign key to {ref} not on {KEY}")
    backing = {c[1] for c in cat.constraints}  # indexes of the constraints checked above
    for table, name, unique, _first, definition in cat.indexes:
        columns = definition.split(" USING ", 1)[-1].split(" WHERE ", 1)[0]
        if table in distributed and unique and name not in backing and KEY not in columns:
            out.append(f"{table}.{name}: unique index without {KEY}")
    out += [
        f"{t}.{g}: a trigger on a distributed table" for t, g in cat.triggers if t in distributed
    ]
    out += [
        f"{t}.{c}: identity column of type {typ} (bigint needed)"
        for t, c, typ in cat.identities
        if t in distributed and typ != "bigint"
    ]
    return out


def unled_indexes(cat: Catalog, reference: tuple[str, ...] = sql.REFERENCE_TABLES) -> list[str]:
    """Indexes of distributed tables whose first column is not `mind_id` (the layout's rule: a
    mind's rows are one range of every index; a mind's partial HNSW index has the predicate)."""
    return [
        f"{table}.{name}"
        for table, name, _u, first, definition in cat.indexes
        if table not in reference
        and first != KEY
        and f"WHERE ({KEY} = " not in definition
    ]


def mind_index_action(vectors: int, has_index: bool, threshold: int) -> str | None:
    """What a mind's own partial HNSW index needs after its vector count changed: "build" when
    it holds more than `threshold` vectors and has none, "drop" when it has one and fell below
    half the threshold (the gap keeps a mind near the line from rebuilding on every write),
    else None. Small minds are searched exactly through `(mind_id, pk)`."""
    if not has_index and vectors > threshold:
        return "build"
    if has_index and vectors < threshold // 2:
        return "drop"
    return None
