"""The many-minds layout (issue 21 item 3, `store/postgres/shared_sql.py`): one set of tables
keyed by mind, ready for Citus. Checked on a live PostgreSQL catalog: every key and index leads
with `mind_id`, `create_distributed_table`'s preconditions hold (and fail for a table that breaks
them), every statement names its mind, a large mind's partial HNSW index serves its searches."""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from datetime import UTC, datetime

import numpy as np
import pytest

psycopg = pytest.importorskip("psycopg")

from pgvector.psycopg import register_vector  # noqa: E402

from salience.store.postgres import shared_sql as lay  # noqa: E402
from salience.store.postgres.shared_layout import (  # noqa: E402
    citus_blockers,
    read_catalog,
    unled_indexes,
)

pytestmark = pytest.mark.postgres
T0 = datetime(2026, 12, 1, tzinfo=UTC)


@pytest.fixture(params=[0, 4], ids=["plain", "hash4"])
def layout(pg_dsn: str, request: pytest.FixtureRequest) -> Iterator[tuple[psycopg.Connection, str]]:
    schema = f"lay{zlib.crc32(request.node.nodeid.encode())}"
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        for stmt in lay.layout_ddl(partitions=request.param, schema=schema):
            conn.execute(stmt)
        register_vector(conn)
        try:
            yield conn, schema
        finally:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def test_layout_is_ready_for_citus(layout):
    conn, schema = layout
    cat = read_catalog(conn, schema)
    assert set(cat.tables) == set(lay.TABLES)
    assert citus_blockers(cat) == []
    assert unled_indexes(cat) == []
    statements = lay.citus_statements(schema)
    assert len(statements) == len(lay.TABLES)
    assert all("'mind_id'" in s for s in statements if "distributed" in s)


def test_blockers_are_found(layout):
    """The check can fail: a key without mind_id, a foreign key off it, a trigger, an index
    not led by it, an int identity."""
    conn, schema = layout
    conn.execute(
        f"CREATE TABLE {schema}.bad (mind_id bigint NOT NULL, id text PRIMARY KEY, "
        f"n integer GENERATED ALWAYS AS IDENTITY, "
        f"ref text REFERENCES {schema}.bad (id))"
    )
    conn.execute(f"CREATE INDEX bad_ref ON {schema}.bad (ref)")
    conn.execute(
        f"CREATE FUNCTION {schema}.nope() RETURNS trigger LANGUAGE plpgsql AS "
        "$$ BEGIN RETURN NEW; END $$"
    )
    conn.execute(
        f"CREATE TRIGGER bad_t BEFORE UPDATE ON {schema}.bad "
        f"FOR EACH ROW EXECUTE FUNCTION {schema}.nope()"
    )
    conn.execute(f"CREATE TABLE {schema}.orphan (id text)")
    found = citus_blockers(read_catalog(conn, schema))
    assert any(b.startswith("bad.bad_pkey: key (id) without mind_id") for b in found), found
    assert any("foreign key to bad not on mind_id" in b for b in found), found
    assert any("bad.bad_t: a trigger" in b for b in found), found
    assert any("identity column of type integer" in b for b in found), found
    assert "orphan: no mind_id column" in found
    assert "bad.bad_ref" in unled_indexes(read_catalog(conn, schema))


def test_every_statement_names_its_mind():
    for template in lay.MIND_STATEMENTS:
        assert "mind_id = " in template, template


def _mind(conn: psycopg.Connection, schema: str, name: str, vecs: np.ndarray) -> int:
    mid = conn.execute(lay.stmt(lay.CREATE_MIND, schema), (name, 1)).fetchone()[0]
    with conn.cursor() as cur, cur.copy(
        f"COPY {schema}.memories (mind_id, id, content, memory_type, importance, source, "
        "salience, confidence, usefulness, content_hash, created_at, updated_at, embedding) "
        "FROM STDIN (FORMAT BINARY)"
    ) as cp:
        cp.set_types(["int8", "text", "text", "text", "text", "text", "float8", "float8",
                      "float8", "text", "timestamptz", "timestamptz", "vector"])
        for i, v in enumerate(vecs):
            cp.write_row((mid, f"{name}-{i}", f"memory {i}", "fact", "normal", "user_stated", 5.0,
                          0.9, 0.5, f"h{i}", T0, T0, v))
    return int(mid)


def test_small_minds_exact_large_mind_its_own_index(layout):
    """Two minds with the same ids and vectors: each search sees its own mind only; the large
    mind's partial HNSW index (built CONCURRENTLY) answers its searches, the exact scan the
    small one's, and the index goes when the mind drops below the threshold."""
    conn, schema = layout
    rng = np.random.default_rng(3)
    vecs = rng.normal(size=(40, 16)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    small, large = _mind(conn, schema, "small", vecs[:5]), _mind(conn, schema, "large", vecs)
    exact = lay.stmt(lay.VECTOR_EXACT, schema)
    assert next(r[0] for r in conn.execute(exact, (vecs[2], small, 3))) == "small-2"
    assert {r[0].split("-")[0] for r in conn.execute(exact, (vecs[2], small, 10))} == {"small"}
    table = f"{schema}.memories"
    if conn.execute("SELECT relkind FROM pg_class WHERE oid = %s::regclass", (table,)).fetchone()[
        0
    ] == "p":  # partitioned: the index goes on the partition holding the mind
        table = conn.execute(
            f"SELECT tableoid::regclass::text FROM {table} WHERE mind_id = %s LIMIT 1", (large,)
        ).fetchone()[0]
    conn.execute(lay.create_mind_index(large, 16, m=8, ef_construction=32, table=table))
    hnsw = lay.stmt(lay.VECTOR_HNSW, schema, dim=16, mind_id=large)
    conn.execute("SET enable_seqscan = off")  # 40 rows: make the planner show its choice
    plan = " ".join(r[0] for r in conn.execute("EXPLAIN " + hnsw, (vecs[7], vecs[7], 3)))
    assert lay.mind_index_name(large) in plan, plan
    got = [r[0] for r in conn.execute(hnsw, (vecs[7], vecs[7], 3))]
    assert got[0] == "large-7" and all(g.startswith("large-") for g in got)
    other = lay.stmt(lay.VECTOR_HNSW, schema, dim=16, mind_id=small)  # not this mind's index
    plan = " ".join(r[0] for r in conn.execute("EXPLAIN " + other, (vecs[1], vecs[1], 3)))
    assert lay.mind_index_name(large) not in plan, plan
    conn.execute("RESET enable_seqscan")
    conn.execute(lay.drop_mind_index(large, schema=table.rsplit(".", 1)[0]))
    names = {r[0] for r in conn.execute(
        "SELECT indexname FROM pg_indexes WHERE schemaname = %s", (schema,))}
    assert lay.mind_index_name(large) not in names


def test_a_mind_gets_its_index_above_the_threshold_and_loses_it_well_below():
    from salience.store.postgres.shared_layout import mind_index_action

    assert mind_index_action(10_000, False, 10_000) is None  # at the line: still exact
    assert mind_index_action(10_001, False, 10_000) == "build"
    assert mind_index_action(10_001, True, 10_000) is None
    assert mind_index_action(6_000, True, 10_000) is None  # between half and the line: kept
    assert mind_index_action(4_999, True, 10_000) == "drop"
    assert mind_index_action(4_999, False, 10_000) is None
