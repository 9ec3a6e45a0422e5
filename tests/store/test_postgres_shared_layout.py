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


# -- the store on the layout (postgres_layout = "shared") ---------------------------------------
def _shared_store(pg_dsn: str, tmp_path, name: str, **kw):
    from pydantic import SecretStr

    from salience.config import Config
    from salience.store.postgres.shared_store import SharedPostgresStore

    cfg = Config(home=tmp_path, embedder="hash", backend="postgres", dsn=SecretStr(pg_dsn),
                 postgres_layout="shared")
    store = SharedPostgresStore.open(cfg, name)
    for k, v in kw.items():
        setattr(store, k, v)
    return store


def _memory(i: int, prefix: str = "m"):
    from salience.models import Importance, Memory, MemoryType, Source

    return Memory(id=f"{prefix}{i}", content=f"note {i} about the garden", memory_type=MemoryType.FACT,
                  importance=Importance.NORMAL, source=Source.USER_STATED, created_at=T0,
                  updated_at=T0)


def test_every_table_a_statement_names_is_one_minds(pg_dsn, tmp_path):
    """Isolation is structural: in every statement of postgres/sql.py (the shared ones
    included) as the store renders it, a table read is a literal `mind_id = <id>` subquery, a
    table written is a view of the transaction's mind WITH CHECK OPTION; a table named
    anywhere else is refused; a session outside a write transaction has no mind."""
    import re

    from salience.store.postgres import sql as pg_sql

    store = _shared_store(pg_dsn, tmp_path, f"iso{zlib.crc32(b'views')}")
    try:
        written: set[str] = set()
        for key, value in vars(pg_sql).items():
            if key in lay.SCHEMA_LAYOUT_ONLY:
                continue
            for text in (value if isinstance(value, tuple) else (value,)):
                if isinstance(text, str) and "{s}." in text and not text.lstrip().startswith(
                    ("CREATE", "ALTER", "DROP", "ANALYZE", "DO")
                ):
                    out = lay.for_mind(text, 42)
                    reads = re.findall(r"FROM salience\.(\w+) WHERE mind_id = (\d+)\)", out)
                    assert all(mid == "42" for _t, mid in reads), out
                    written |= set(re.findall(r"\{s\}\.(\w+)", out))
        assert {"memories", "meta", "memory_retrievals", "install_audit"} <= written
        with pytest.raises(ValueError):
            lay.for_mind("SELECT count(*) FROM unnest(ARRAY[1]) x WHERE EXISTS {s}.memories", 1)
        with psycopg.connect(pg_dsn) as conn:
            views = dict(conn.execute(
                "SELECT c.relname, pg_get_viewdef(c.oid) FROM pg_class c JOIN pg_namespace n "
                "ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind = 'v'",
                (lay.VIEW_SCHEMA,)).fetchall())
            opts = dict(conn.execute(
                "SELECT c.relname, array_to_string(c.reloptions, ',') FROM pg_class c JOIN "
                "pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s", (lay.VIEW_SCHEMA,)
            ).fetchall())
            for name in written:
                assert name in views, f"{name} is not a view of one mind"
                assert f"current_setting('{lay.MIND_SETTING}'" in views[name], views[name]
                assert "check_option=local" in (opts[name] or ""), name
            with pytest.raises(psycopg.errors.UndefinedObject):  # no mind: no rows at all
                conn.execute(f"SELECT count(*) FROM {lay.VIEW_SCHEMA}.memories")
            conn.rollback()
            conn.execute(lay.SET_MIND_LOCAL, (str(store.mind_id),))
            with pytest.raises(psycopg.errors.WithCheckOptionViolation):  # none into another
                conn.execute(f"INSERT INTO {lay.VIEW_SCHEMA}.meta (mind_id, key, value) "
                             "VALUES (%s, 'k', 'v')", (store.mind_id + 1_000_000,))
            conn.rollback()
        store.set_meta("k", "v")  # a write transaction: the mind is set in it, then gone
        no_mind = (psycopg.errors.InvalidTextRepresentation, psycopg.errors.UndefinedObject)
        with store._conn(tx=False) as conn, pytest.raises(no_mind):
            conn.execute(f"SELECT count(*) FROM {lay.VIEW_SCHEMA}.meta")
    finally:
        store.drop_mind()


def test_minds_with_the_same_ids_stay_apart_and_the_catalog_does_not_grow(pg_dsn, tmp_path):
    from salience.models import EmbeddingInfo

    tag = zlib.crc32(b"apart")
    a = _shared_store(pg_dsn, tmp_path, f"a{tag}")
    with psycopg.connect(pg_dsn) as conn:
        relations = conn.execute("SELECT count(*) FROM pg_class").fetchone()[0]
    b = _shared_store(pg_dsn, tmp_path, f"b{tag}")
    try:
        for s, n in ((a, 3), (b, 5)):
            s.pin_embedding(EmbeddingInfo("hash", 8))
            s.insert([_memory(i) for i in range(n)], np.eye(8, dtype=np.float32)[:n])
            s.set_meta("who", s._mind)
        assert (a.count(), b.count()) == (3, 5)
        assert a.get_meta("who") == a._mind and b.get_meta("who") == b._mind
        assert {c.id for c in b.search_text(["garden"], limit=10)} == {f"m{i}" for i in range(5)}
        assert a.delete(["m0", "m4"]) == 1 and b.get("m0") is not None
        with psycopg.connect(pg_dsn) as conn:
            assert conn.execute("SELECT count(*) FROM pg_class").fetchone()[0] == relations
    finally:
        a.drop_mind()
        b.drop_mind()
    c = _shared_store(pg_dsn, tmp_path, f"b{tag}")
    try:
        assert c.count() == 0 and c.get_meta("who") is None
    finally:
        c.drop_mind()


def test_a_mind_crossing_the_threshold_gets_its_index_and_loses_it_below_half(pg_dsn, tmp_path):
    from salience.models import EmbeddingInfo
    from salience.store.postgres import sql as pg_sql

    s = _shared_store(pg_dsn, tmp_path, f"big{zlib.crc32(b'switch')}", exact_search_max=20)
    try:
        s.pin_embedding(EmbeddingInfo("hash", 16))
        rng = np.random.default_rng(5)
        vecs = rng.normal(size=(24, 16)).astype(np.float32)
        s.insert([_memory(i) for i in range(20)], vecs[:20])
        assert s.vector_index() is None  # at the line: exact
        s.insert([_memory(i) for i in range(20, 24)], vecs[20:])
        index = s.vector_index()
        assert index and f"WHERE (mind_id = {s.mind_id})" in index["definition"], index
        with s._conn(tx=False) as conn:
            conn.execute("SET enable_seqscan = off")
            try:
                where, order = s._index_walk(16, psycopg.sql.SQL(""))
                query = s._q(pg_sql.VECTOR_HNSW, where=where, index_order=order)
                plan = conn.execute(psycopg.sql.SQL("EXPLAIN ") + query,
                                    (vecs[3], vecs[3], 3)).fetchall()
            finally:
                conn.execute("RESET enable_seqscan")
        assert index["name"] in " ".join(r[0] for r in plan)
        assert s.search_vector(vecs[3], limit=1, exact=False)[0].id == "m3"
        s.delete([f"m{i}" for i in range(15)])  # 9 left, below half of 20
        assert s.vector_index() is None
        s.drop_vector_index()  # the switch off (a bulk load) ...
        s.insert([_memory(i) for i in range(30, 42)], rng.normal(size=(12, 16)).astype(np.float32))
        assert s.vector_index() is None
        s.build_vector_index()  # ... and on again
        assert s.vector_index() is not None
    finally:
        s.drop_mind()


def test_a_schema_mind_moves_to_the_shared_layout_by_export_and_restore(pg_dsn, tmp_path):
    """The documented migration: `salience export` from the schema-per-mind layout, `salience
    restore` into the shared one (vectors reused, no re-embedding), then the old schema
    dropped; the same memories, vectors and search results on the other side."""
    import io

    from pydantic import SecretStr

    from salience import Mind
    from salience.config import Config
    from salience.transfer import export_mind, restore_mind

    base = Config(home=tmp_path, embedder="hash", backend="postgres", dsn=SecretStr(pg_dsn))
    name = f"move{zlib.crc32(b'move')}"
    old = Mind.open(name, config=base)
    new = Mind.open(name, config=base.model_copy(update={"postgres_layout": "shared"}))
    try:
        assert old.store.schema != new.store.schema  # two stores of one name, side by side
        for i in range(12):
            old.add(f"note {i}: the garden gate in Lisbon needs oil", tags=[f"t{i % 3}"])
        buf = io.StringIO()
        export_mind(old, buf)
        summary = restore_mind(new, io.StringIO(buf.getvalue()))
        assert summary.reembedded == 0
        mine = sorted((m.to_dict() for m, _ in old.store.iter_memories()), key=lambda d: d["id"])
        got = sorted((m.to_dict() for m, _ in new.store.iter_memories()), key=lambda d: d["id"])
        assert got == mine
        query = "garden gate oil"
        assert [h.memory.id for h in new.search(query, limit=5, feedback=False)] == [
            h.memory.id for h in old.search(query, limit=5, feedback=False)
        ]
    finally:
        old.store.drop_mind()
        old.close()
        new.store.drop_mind()
        new.close()


def test_a_layout_from_before_stored_claims_gains_them(pg_dsn, tmp_path):
    """Migration 0002_memory_claims on a layout created without the table (issue 21)."""
    from salience.store.postgres import shared_store
    from salience.store.postgres.shared_sql import SCHEMA, VIEW_SCHEMA

    _shared_store(pg_dsn, tmp_path, f"pre{zlib.crc32(b'claims')}").close()  # the layout exists
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f"DROP VIEW IF EXISTS {VIEW_SCHEMA}.memory_claims")
        conn.execute(f"DROP TABLE {SCHEMA}.memory_claims")
        conn.execute(f"DELETE FROM {SCHEMA}._migrations WHERE name = '0002_memory_claims'")
    shared_store._LAYOUT_READY.clear()  # this process re-reads the layout's migrations
    store = _shared_store(pg_dsn, tmp_path, f"post{zlib.crc32(b'claims')}")
    try:
        with psycopg.connect(pg_dsn) as conn:
            names = [r[0] for r in conn.execute(f"SELECT name FROM {SCHEMA}._migrations")]
            assert "0002_memory_claims" in names
        store.derive_claims_with(lambda m: (1, "[]"))
        m = _memory(1, prefix="c")
        store.insert([m])
        assert store.stored_claims([m.id])[m.id][0] == 1
    finally:
        store.drop_mind()
        store.close()
