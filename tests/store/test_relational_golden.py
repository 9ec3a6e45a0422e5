"""Golden SQL: the shared relational core renders the statements the backends ran before it.

`data/golden_sql.json` holds every statement constant of `store/sqlite/sql.py` and
`store/postgres/sql.py` as they were at 746677c, before the shared core (`store/relational/`)
existed. Each backend's `sql.py` now takes the shared statements from
`relational.statements.statements(dialect)`; this test renders both dialects and compares every
statement, shared or not, with that text. The few statements the move rewrote on purpose are
listed below with the reason, and must differ (so the list stays exact); renamed ones are
compared under their old name.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from salience.store.relational.dialect import POSTGRES, SQLITE
from salience.store.relational.statements import statements
from salience.store.sqlite import sql as sqlite_sql

GOLDEN = json.loads((Path(__file__).parent / "data" / "golden_sql.json").read_text())

_ALIAS_SQLITE = "alias `m` on the memory table, as PostgreSQL (and SQLite's LIST_MEMORIES) had it"
#: (backend, name) -> why its text changed
REWRITTEN = {
    ("sqlite", "SELECT_MEMORY"): _ALIAS_SQLITE,
    ("sqlite", "GET_BY_ID"): _ALIAS_SQLITE,
    ("sqlite", "GET_BY_IDS"): _ALIAS_SQLITE,
    ("sqlite", "PREDECESSORS"): _ALIAS_SQLITE,
    ("sqlite", "SESSION_FRAMES"): _ALIAS_SQLITE,
    ("sqlite", "GET_BY_ID_FOR_UPDATE"): _ALIAS_SQLITE,
    ("sqlite", "ITER_MEMORIES"): _ALIAS_SQLITE,
    **{
        ("sqlite", n): "the queue-table slot is named {q} on both backends (was {table})"
        for n in ("QUEUE_INSERT", "QUEUE_DUE", "QUEUE_ALL", "QUEUE_LOCK", "QUEUE_DELETE",
                  "QUEUE_RESCHEDULE", "QUEUE_COUNT")
    },
    ("sqlite", "INSERT_IDENTITY"): "ON CONFLICT (id) DO NOTHING, as PostgreSQL: rowcount 0 = exists",
    ("sqlite", "INSERT_SESSION"): "ON CONFLICT (id) DO NOTHING, as PostgreSQL: rowcount 0 = exists",
    ("sqlite", "ENTITY_EXISTS"): "a list slot (two values) instead of two fixed marks",
    ("sqlite", "LEASE_ACQUIRE"): "RETURNING holder, as PostgreSQL (was a second SELECT)",
    ("postgres", "COUNT_ACTIVE_AWARENESS"): "parenthesised condition, as SQLite (same meaning)",
    ("postgres", "MIND_SCHEMAS"): "issue 21: not the shared layout's view schema salience__mind",
    **{
        ("postgres", n): "issue 21: {how} (INDEX / INDEX CONCURRENTLY) and {name} slots, so a "
        "rebuild is built beside the old index without blocking reads"
        for n in ("CREATE_HNSW_VECTOR", "CREATE_HNSW_HALFVEC")
    },
    **{
        ("postgres", n): "issue 21: retrieval counters in the side table memory_retrievals; reads "
        "add the pending values (Dialect.col), the feedback write is an upsert there"
        for n in ("F_MIN_SALIENCE", "GET_BY_ID", "GET_BY_IDS", "GET_BY_ID_FOR_UPDATE",
                  "LIST_MEMORIES", "PREDECESSORS", "SELECT_MEMORY", "SESSION_FRAMES",
                  "ENTITY_SEARCH", "ITER_MEMORIES", "RECORD_RETRIEVALS", "STATS_SALIENCE_HIST",
                  "_COLS")
    },
}
#: (backend, new name) -> the old name it is compared with
RENAMED = {
    ("sqlite", "QUEUE_LOCK"): "QUEUE_GET",
    ("sqlite", "GET_BY_ID_FOR_UPDATE"): "GET_BY_ID",
    ("postgres", "PK_BY_ID"): "PK_BY_ID_LAYERS",
}
#: shared statements a backend did not have before
ADDED = {("sqlite", "FAILED_BY_IDS"), ("sqlite", "SESSION_TURNS"), ("postgres", "SESSION_TURNS")}
#: the stored-claims statements (issue 21, relational/claims.py): new on both backends
ADDED |= {(b, n) for b in ("sqlite", "postgres") for n in (
    "CLAIMS_OF", "UPSERT_CLAIMS", "DELETE_CLAIMS_CHANGED", "DELETE_CLAIMS_OF", "CLAIMS_MISSING",
    "CLAIMS_COUNTS")}

ALIASES = {
    "sqlite": GOLDEN["sqlite"]["_ALIASES"],
    "postgres": (
        "coalesce((SELECT json_agg(a.alias ORDER BY a.alias_key) FROM {s}.kg_aliases a "
        "WHERE a.entity_id = e.id), '[]'::json)"
    ),
}


def _modules() -> dict[str, ModuleType]:
    out = {"sqlite": sqlite_sql}
    try:
        from salience.store.postgres import sql as postgres_sql
    except ImportError:  # psycopg not installed: the shared rendering is still checked
        return out
    out["postgres"] = postgres_sql
    return out


def _text(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


@pytest.mark.parametrize("dialect", [SQLITE, POSTGRES], ids=lambda d: d.name)
def test_shared_statements_render_todays_sql(dialect) -> None:
    golden = GOLDEN[dialect.name]
    rendered = statements(dialect, aliases=ALIASES[dialect.name])
    wrong = {}
    for name, text in rendered.items():
        key = (dialect.name, name)
        if key in ADDED:
            assert RENAMED.get(key, name) not in golden
            continue
        old = golden[RENAMED.get(key, name)]
        if key in REWRITTEN:
            assert text != old, f"{name} is listed as rewritten but renders today's text"
        elif text != old:
            wrong[name] = (old, text)
    assert not wrong, wrong


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_backend_statements_are_todays_or_shared(backend: str) -> None:
    """Every statement a backend's sql.py defines is today's text or the shared rendering."""
    module = _modules().get(backend)
    if module is None:
        pytest.skip("psycopg is not installed")
    dialect = SQLITE if backend == "sqlite" else POSTGRES
    shared = statements(dialect, aliases=ALIASES[backend])
    golden = GOLDEN[backend]
    for name, text in shared.items():
        assert getattr(module, name) == text, f"{backend} sql.{name} is not the shared statement"
    changed = {}
    for name, value in vars(module).items():
        if not name.isupper() or name in shared or name not in golden:
            continue
        if (backend, name) in REWRITTEN:
            assert _text(value) != golden[name], f"{name} is listed as rewritten but is not"
        elif isinstance(value, str | tuple | dict) and _text(value) != golden[name]:
            changed[name] = (golden[name], value)
    assert not changed, changed
    listed = {n for (b, n) in [*REWRITTEN, *RENAMED, *ADDED] if b == backend}
    assert listed <= set(vars(module)), listed - set(vars(module))
