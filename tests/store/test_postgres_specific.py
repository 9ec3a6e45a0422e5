"""What is specific to the PostgreSQL backend: mind isolation on a shared server (schema per
mind), per-mind migrations, vector index choice by dimension, faults (bad address, bad password,
restart, concurrent processes) and moving a mind SQLite → PostgreSQL → SQLite.

Everything the two backends share is tested once, in test_contract.py.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

psycopg = pytest.importorskip("psycopg")

from psycopg.conninfo import conninfo_to_dict, make_conninfo  # noqa: E402

from salience.config import Config  # noqa: E402
from salience.errors import (  # noqa: E402
    EmbedderMismatch,
    InvalidInput,
    SchemaVersionError,
    StoreError,
)
from salience.models import (  # noqa: E402
    EmbeddingInfo,
    FrameType,
    Importance,
    Memory,
    MemoryFilter,
    MemoryType,
    Source,
    new_id,
    validate_memory,
)
from salience.store import open_store  # noqa: E402
from salience.store.migrations import Migration  # noqa: E402
from salience.store.postgres import PostgresStore, schema_name  # noqa: E402
from salience.store.postgres import store as pg_store_module  # noqa: E402
from salience.store.postgres.migrations import MIGRATIONS  # noqa: E402

pytestmark = pytest.mark.postgres

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
SRC = str(Path(__file__).resolve().parents[2] / "src")


def unit(dim: int, *xs: float) -> np.ndarray:
    v = np.zeros(dim, dtype=np.float32)
    v[: len(xs)] = xs
    return v / np.linalg.norm(v)


def rand_unit(n: int, dim: int, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def mem(content: str, i: int = 0, **kw) -> Memory:
    kw.setdefault("created_at", T0 + timedelta(minutes=i))
    kw.setdefault("updated_at", kw["created_at"])
    return validate_memory(Memory(content=content, **kw))


@pytest.fixture
def pg_config(config: Config, pg_dsn: str) -> Config:
    return config.model_copy(update={"backend": "postgres", "dsn": pg_dsn})


@pytest.fixture
def open_pg(pg_config: Config, request: pytest.FixtureRequest) -> Iterator[Callable]:
    """Factory: open a PostgreSQL mind (unique to this test); all dropped at teardown."""
    opened: list[PostgresStore] = []
    prefix = f"ps{zlib.crc32(request.node.nodeid.encode())}"

    def factory(name: str = "m", *, raw: bool = False, cfg: Config | None = None):
        store = open_store(cfg or pg_config, name if raw else f"{prefix}-{name}")
        opened.append(store)
        return store

    yield factory
    for s in opened:
        if s._closed:  # closed by the test: reopen to clean up (a no-op if already dropped)
            s = open_store(pg_config, s.mind)
        s.drop_mind()


def _other_dsn(dsn: str, **changes: str) -> str:
    return make_conninfo(dsn, **changes)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _child_env(dsn: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    env["CHILD_PG_DSN"] = dsn  # never on a command line
    return env


# -- isolation: one schema per mind ------------------------------------------------------------
def test_schema_names():
    assert schema_name("alice") == "salience_alice"
    assert schema_name("Alice") != schema_name("alice")
    a, b = "x" * 60 + "aaaa", "x" * 60 + "bbbb"
    assert len(schema_name(a)) <= 63 and len(schema_name(b)) <= 63
    assert schema_name(a) != schema_name(b)
    assert schema_name("y" * 54) == "salience_" + "y" * 54  # longest name kept verbatim
    with pytest.raises(InvalidInput):
        schema_name('x"; DROP SCHEMA public; --')


def test_minds_are_isolated(open_pg):
    a, b = open_pg("a"), open_pg("b")
    assert a.schema != b.schema
    a.pin_embedding(EmbeddingInfo("model-a", 8))
    b.pin_embedding(EmbeddingInfo("model-b", 4))  # each mind pins its own dimension
    shared = mem("shared fact about Lisbon", 0, entities=["Lisbon"], tags=["travel"])
    only_a = mem("alpha secret", 1, entities=["Alpha"], metadata={"mind": "a"})
    only_b = only_a.copy(content="beta secret", entities=["Beta"], metadata={"mind": "b"})
    validate_memory(only_b)
    a.insert([shared, only_a], np.stack([unit(8, 1), unit(8, 0, 1)]))
    b.insert([shared.copy(), only_b], np.stack([unit(4, 1), unit(4, 0, 1)]))

    # same ids, separate records
    assert a.get(only_a.id).content == "alpha secret"
    assert b.get(only_a.id).content == "beta secret"
    assert [m.content for m in a.get_many([only_a.id, shared.id])] == [
        "alpha secret",
        "shared fact about Lisbon",
    ]
    assert a.search_text(["beta"], limit=5) == []
    assert [c.id for c in b.search_text(["beta"], limit=5)] == [only_b.id]
    assert a.search_entities(["Beta"], limit=5) == []
    assert a.search_vector(unit(8, 0, 1), limit=5)[0].id == only_a.id
    assert a.get_vectors([only_a.id])[only_a.id].shape == (8,)
    assert b.get_vectors([only_a.id])[only_a.id].shape == (4,)
    assert a.find_by_hash(only_b.content_hash) is None

    # writes in one mind never reach the other
    a.update([only_a.copy(content="alpha changed")])
    assert b.get(only_a.id).content == "beta secret"
    assert a.delete([shared.id]) == 1
    assert b.get(shared.id) is not None and b.count() == 2 and a.count() == 1
    a.set_meta("k", "a")
    assert b.get_meta("k") is None
    assert [m.id for m, _ in b.iter_memories()] == [shared.id, only_b.id]
    assert a.stats()["memories"] == 1 and b.stats()["memories"] == 2

    # dropping one mind leaves the other whole
    a.drop_mind()
    assert b.count() == 2
    assert b.search_text(["secret"], limit=5)[0].id == only_b.id


def test_case_and_long_names_are_distinct_minds(open_pg, request):
    tag = f"{zlib.crc32(request.node.nodeid.encode()) % 10**6}"
    upper, lower = open_pg(f"Case{tag}", raw=True), open_pg(f"case{tag}", raw=True)
    long1 = open_pg(("L" + tag).ljust(60, "x") + "0001", raw=True)
    long2 = open_pg(("L" + tag).ljust(60, "x") + "0002", raw=True)
    stores = [upper, lower, long1, long2]
    assert len({s.schema for s in stores}) == 4
    m = mem("same id everywhere")
    for i, s in enumerate(stores):
        s.insert([m.copy(content=f"copy {i}")])
    assert [s.get(m.id).content for s in stores] == [f"copy {i}" for i in range(4)]


def test_schema_of_another_mind_is_refused(open_pg, pg_config):
    s = open_pg("owner")
    s.set_meta(pg_store_module.MIND_KEY, "someone-else")
    with pytest.raises(StoreError, match="belongs to mind 'someone-else'"):
        open_store(pg_config, s.mind)
    s.set_meta(pg_store_module.MIND_KEY, s.mind)
    open_store(pg_config, s.mind).close()


def test_drop_mind_and_closed_store(open_pg, pg_config):
    s = open_pg("dropme")
    s.insert([mem("gone soon")])
    name = s.mind
    s.drop_mind()
    with pytest.raises(StoreError, match="closed"):
        s.count()
    again = open_pg(name, raw=True)
    assert again.count() == 0 and again.schema_version() == len(MIGRATIONS)


def test_minds_share_one_pool(open_pg):
    a, b = open_pg("p1"), open_pg("p2")
    assert a._server is b._server
    a.close()
    assert b.count() == 0  # the pool lives on while a store uses it
    a = open_pg("p1")
    a.close()
    b.close()
    assert b._server.pool.closed  # closed with the last store on it


# -- migrations --------------------------------------------------------------------------------
def _migration_rows(dsn: str, schema: str) -> list[str]:
    q = psycopg.sql.SQL("SELECT name FROM {}._migrations ORDER BY position").format(
        psycopg.sql.Identifier(schema)
    )
    with psycopg.connect(dsn) as conn:
        return [r[0] for r in conn.execute(q)]


def test_migrations_recorded_per_mind(open_pg, pg_dsn):
    s = open_pg("mig")
    assert s.schema_version() == len(MIGRATIONS)
    assert _migration_rows(pg_dsn, s.schema) == [m.name for m in MIGRATIONS]


def test_newer_schema_is_refused(open_pg, pg_config, pg_dsn):
    s = open_pg("newer")
    q = psycopg.sql.SQL("INSERT INTO {}._migrations (name) VALUES ('9999_future')").format(
        psycopg.sql.Identifier(s.schema)
    )
    with psycopg.connect(pg_dsn) as conn:
        conn.execute(q)
    with pytest.raises(SchemaVersionError, match="9999_future"):
        open_store(pg_config, s.mind)


def test_failed_migration_rolls_back(open_pg, pg_dsn, monkeypatch):
    broken = Migration(
        "0099_broken",
        ("CREATE TABLE {s}.half_done (x int)", "SELECT no_such_function_anywhere()"),
    )
    monkeypatch.setattr(pg_store_module, "MIGRATIONS", (*MIGRATIONS, broken))
    with pytest.raises(StoreError, match="0099_broken"):
        open_pg("broken")
    monkeypatch.undo()
    s = open_pg("broken")  # the good migrations stayed applied; the broken one left nothing
    assert _migration_rows(pg_dsn, s.schema) == [m.name for m in MIGRATIONS]
    with psycopg.connect(pg_dsn) as conn:
        table = psycopg.sql.Identifier(s.schema).as_string() + ".half_done"
        assert conn.execute("SELECT to_regclass(%s)", (table,)).fetchone()[0] is None


_OPEN_CHILD = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from salience.config import Config
    from salience.store import open_store
    go = Path(sys.argv[2])
    while not go.exists():
        time.sleep(0.005)
    cfg = Config(home=sys.argv[3], backend="postgres", dsn=os.environ["CHILD_PG_DSN"])
    store = open_store(cfg, sys.argv[1])
    print(store.schema_version())
    store.close()
    """
)


def test_concurrent_first_open_by_processes(open_pg, pg_dsn, tmp_path, request):
    name = f"race{zlib.crc32(request.node.nodeid.encode())}"
    go = tmp_path / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _OPEN_CHILD, name, str(go), str(tmp_path / "home")],
            env=_child_env(pg_dsn),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    go.touch()
    try:
        results = [p.communicate(timeout=120) for p in procs]
    finally:
        s = open_pg(name, raw=True)  # (and dropped at teardown)
    assert [p.returncode for p in procs] == [0] * 4, [err for _, err in results]
    assert {out.strip() for out, _ in results} == {str(len(MIGRATIONS))}
    assert _migration_rows(pg_dsn, s.schema) == [m.name for m in MIGRATIONS]


# -- faults ------------------------------------------------------------------------------------
def test_unreachable_server_names_host_and_port(config):
    port = _free_port()
    dsn = f"postgresql://salience:hunter2-unreachable@127.0.0.1:{port}/db?connect_timeout=5"
    cfg = config.model_copy(update={"backend": "postgres", "dsn": dsn})
    with pytest.raises(StoreError) as exc:
        open_store(cfg, "nowhere")
    msg = str(exc.value)
    assert f"127.0.0.1:{port}" in msg
    assert "hunter2" not in msg and "hunter2" not in repr(exc.value.__cause__)


def test_wrong_password_names_host_without_credentials(config, pg_dsn):
    info = conninfo_to_dict(pg_dsn)
    bad = _other_dsn(pg_dsn, password="wrong-Pa55word")
    cfg = config.model_copy(update={"backend": "postgres", "dsn": bad})
    with pytest.raises(StoreError) as exc:
        open_store(cfg, "intruder")
    msg = str(exc.value)
    assert f"{info.get('host') or 'localhost'}:{info.get('port') or '5432'}" in msg
    assert "wrong-Pa55word" not in msg
    if info.get("password"):
        assert str(info["password"]) not in msg
    assert exc.value.__cause__ is None and exc.value.__suppress_context__


def test_invalid_dsn_is_not_echoed(config):
    cfg = config.model_copy(update={"backend": "postgres", "dsn": "host=x password=s3cr3t = ="})
    with pytest.raises(StoreError) as exc:
        open_store(cfg, "m")
    assert "s3cr3t" not in str(exc.value)


@pytest.fixture
def private_pg():
    """A durable server of this test's own (it gets restarted, once as if it crashed)."""
    from pg_server import DSN_ENV, PgServerError, start_pg

    if os.environ.get(DSN_ENV):
        pytest.skip(f"{DSN_ENV} is set: not starting a server of our own")
    try:
        server = start_pg(use_env=False, durable=True)
    except PgServerError as e:
        pytest.skip(f"cannot start a private PostgreSQL: {e}")
    yield server
    server.stop()


def test_pool_recovers_after_server_restart(config, private_pg):
    cfg = config.model_copy(update={"backend": "postgres", "dsn": private_pg.dsn})
    store = open_store(cfg, "survivor")
    try:
        store.pin_embedding(EmbeddingInfo("m", 8))
        a = mem("before the restart")
        store.insert([a], np.stack([unit(8, 1)]))
        assert store.get(a.id) is not None
        private_pg.restart()
        assert store.get(a.id).content == "before the restart"  # read after restart
        b = mem("after the restart", 1)
        store.insert([b], np.stack([unit(8, 0, 1)]))  # write after restart
        assert [c.id for c in store.search_vector(unit(8, 0, 1), limit=1)] == [b.id]
        private_pg.restart(mode="immediate")  # a crash, as it were
        assert store.count() == 2
    finally:
        store.drop_mind()


_WRITER_CHILD = textwrap.dedent(
    """
    import os, sys
    from datetime import UTC, datetime
    import numpy as np
    from salience.config import Config
    from salience.models import Memory, validate_memory
    from salience.store import open_store
    name, k, n, home = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    cfg = Config(home=home, backend="postgres", dsn=os.environ["CHILD_PG_DSN"])
    store = open_store(cfg, name)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    for i in range(n):
        m = validate_memory(Memory(content=f"proc {k} item {i}", created_at=now, updated_at=now))
        v = np.zeros(8, dtype=np.float32)
        v[0], v[1 + k % 7] = 1.0, float(i + 1)
        store.insert([m], (v / np.linalg.norm(v)).reshape(1, -1))
    store.close()
    """
)


def test_concurrent_writer_processes_lose_nothing(open_pg, pg_dsn, tmp_path):
    store = open_pg("writers")
    store.pin_embedding(EmbeddingInfo("m", 8))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER_CHILD, store.mind, str(k), "40", str(tmp_path)],
            env=_child_env(pg_dsn),
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in range(3)
    ]
    errors = [p.communicate(timeout=300)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], errors
    assert store.count() == 120
    assert store.stats()["vectors"] == 120
    contents = {m.content for m, _ in store.iter_memories()}
    assert contents == {f"proc {k} item {i}" for k in range(3) for i in range(40)}


def test_dimension_mismatch(open_pg):
    s = open_pg("dims")
    s.pin_embedding(EmbeddingInfo("e5-small", 384))
    with pytest.raises(EmbedderMismatch, match="384"):
        s.insert([mem("x")], np.ones((1, 385), dtype=np.float32))
    with pytest.raises(EmbedderMismatch):
        s.search_vector(np.ones(383, dtype=np.float32), limit=3)
    other = open_pg("dims")  # a second handle on the same mind
    with pytest.raises(EmbedderMismatch, match="e5-small"):
        other.pin_embedding(EmbeddingInfo("minilm", 384))
    with pytest.raises(EmbedderMismatch):
        other.pin_embedding(EmbeddingInfo("e5-small", 768))
    assert s.count() == 0


def test_pin_by_another_handle_is_seen(open_pg):
    a = open_pg("late")
    ms = [mem(f"plain {i}", i) for i in range(3)]
    a.insert(ms)
    for _ in range(8):  # enough executions for psycopg to prepare these statements
        a.get(ms[0].id)
        list(a.iter_memories())
        a.get_vectors([ms[0].id])
    b = open_pg("late")
    b.pin_embedding(EmbeddingInfo("m", 8))  # fixes the column type to vector(8)
    v = mem("with a vector", 5)
    a.insert([v], np.stack([unit(8, 1)]))
    got = dict((m.id, vec) for m, vec in a.iter_memories())
    np.testing.assert_array_equal(got[v.id], unit(8, 1))
    assert got[ms[0].id] is None


# -- vector index by dimension -----------------------------------------------------------------
def test_hnsw_index_for_384_dims(open_pg):
    s = open_pg("hnsw384")
    assert s.vector_index() is None  # nothing pinned yet
    s.pin_embedding(EmbeddingInfo("m", 384))
    idx = s.vector_index()
    assert idx is not None and idx["opclass"] == "vector_cosine_ops"
    assert "USING hnsw" in idx["definition"]
    assert "m='24'" in idx["definition"] and "ef_construction='200'" in idx["definition"]
    assert s.stats()["vector_index"] == "vector_cosine_ops"
    vecs = rand_unit(60, 384)
    ms = [mem(f"v{i}", i) for i in range(60)]
    s.insert(ms, vecs)
    for exact in (True, False, None):
        assert s.search_vector(vecs[7], limit=3, exact=exact)[0].id == ms[7].id


def test_halfvec_index_for_2560_dims(open_pg):
    s = open_pg("hnsw2560")
    s.pin_embedding(EmbeddingInfo("big", 2560))
    idx = s.vector_index()
    assert idx is not None and idx["opclass"] == "halfvec_cosine_ops"
    assert "halfvec(2560)" in idx["definition"] and "USING hnsw" in idx["definition"]
    vecs = rand_unit(30, 2560, seed=1)
    ms = [mem(f"h{i}", i) for i in range(30)]
    s.insert(ms, vecs)
    got = s.get_vectors([ms[3].id])[ms[3].id]
    np.testing.assert_array_equal(got, vecs[3])  # stored at full precision
    for exact in (True, False):
        hit = s.search_vector(vecs[3], limit=2, exact=exact)[0]
        assert hit.id == ms[3].id and hit.score == pytest.approx(1.0, abs=1e-5)


def test_above_4000_dims_is_exact_only(open_pg):
    s = open_pg("wide")
    s.pin_embedding(EmbeddingInfo("wide", 4096))
    assert s.vector_index() is None
    vecs = rand_unit(5, 4096, seed=2)
    ms = [mem(f"w{i}", i) for i in range(5)]
    s.insert(ms, vecs)
    assert s.search_vector(vecs[2], limit=1, exact=False)[0].id == ms[2].id
    with pytest.raises(InvalidInput, match="4000"):
        s.build_vector_index()
    too_wide = open_pg("too-wide")
    with pytest.raises(InvalidInput, match="16000"):
        too_wide.pin_embedding(EmbeddingInfo("huge", 16001))


def test_rebuild_vector_index(open_pg):
    s = open_pg("rebuild")
    s.pin_embedding(EmbeddingInfo("m", 16))
    s.drop_vector_index()
    assert s.vector_index() is None
    vecs = rand_unit(40, 16, seed=3)
    ms = [mem(f"r{i}", i) for i in range(40)]
    s.insert(ms, vecs)  # a bulk load without the index
    assert s.search_vector(vecs[9], limit=1, exact=False)[0].id == ms[9].id
    s.build_vector_index(m=8, ef_construction=32, maintenance_work_mem="64MB")
    assert "m='8'" in s.vector_index()["definition"]
    assert s.search_vector(vecs[9], limit=1, exact=False)[0].id == ms[9].id


def test_search_goes_on_while_the_index_is_rebuilt(open_pg, pg_dsn):
    """A rebuild is `CREATE INDEX CONCURRENTLY`: held mid-build by a writer that has not
    committed (the build waits for it), searches of the mind still answer. The old build (drop +
    create in one transaction) queued an exclusive lock there, and every read queued behind it."""
    s = open_pg("concurrent-build")
    s.pin_embedding(EmbeddingInfo("m", 16))
    vecs = rand_unit(30, 16, seed=4)
    ms = [mem(f"c{i}", i) for i in range(30)]
    s.insert(ms, vecs)
    table = f'"{s.schema}".memories'
    with psycopg.connect(pg_dsn) as holder, psycopg.connect(pg_dsn, autocommit=True) as watch:
        holder.execute(f"UPDATE {table} SET pinned = pinned WHERE id = %s", (ms[0].id,))
        errors: list[BaseException] = []

        def build() -> None:
            try:
                s.build_vector_index(m=8, ef_construction=32)
            except BaseException as e:  # reported by the assertion below
                errors.append(e)

        builder = threading.Thread(target=build)
        builder.start()
        waiting = (  # the build's statement, waiting for the holder's lock
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND query LIKE '%%memories_embedding_hnsw%%' AND pid <> pg_backend_pid()"
        )
        while not watch.execute(waiting).fetchone()[0]:
            assert builder.is_alive() and not errors, errors
            time.sleep(0.01)
        results: dict[str, list] = {}

        def search() -> None:
            for exact in (True, False, None):
                results[str(exact)] = s.search_vector(vecs[5], limit=3, exact=exact)
            results["get"] = [s.get(ms[5].id)]

        reader = threading.Thread(target=search)
        reader.start()
        reader.join(60)  # a deadlock guard, not a timing: a blocked read never returns
        assert not reader.is_alive(), "a search waited on the index build"
        assert all(r[0].id == ms[5].id for r in results.values())
        assert watch.execute(waiting).fetchone()[0] == 1  # the build was still in progress
        holder.rollback()
        builder.join()
    assert not errors, errors
    idx = s.vector_index()
    assert idx is not None and "m='8'" in idx["definition"]
    indexes = "SELECT indexname FROM pg_indexes WHERE schemaname = %s"
    names = {r[0] for r in s._read(lambda c: c.execute(indexes, (s.schema,)).fetchall())}
    assert "memories_embedding_hnsw_build" not in names
    assert s.search_vector(vecs[5], limit=1, exact=False)[0].id == ms[5].id


def test_retrievals_wait_in_the_side_table_until_folded(open_pg):
    """A search's feedback is an upsert into `memory_retrievals`: the memory row (and so its
    HNSW, GIN and salience index entries) is untouched; every read adds the pending values;
    maintenance's `set_scores` folds them in first; an update writes the record's own."""
    from salience.search.feedback import RETRIEVAL_BOOST, boosted_salience
    from salience.store.maintenance import ScoreUpdate

    s = open_pg("side-counters")
    s.pin_embedding(EmbeddingInfo("m", 16))
    vecs = rand_unit(3, 16, seed=5)
    # c outranks a by salience until a's two pending bumps (4.0 -> 4.3546)
    a, b, c = (mem(f"counter {i}", i, salience=x) for i, x in enumerate((4.0, 2.0, 4.2)))
    s.insert([a, b, c], vecs)
    table = f'"{s.schema}".memories'
    row_version = f"SELECT id, xmin::text FROM {table} ORDER BY id"

    def versions() -> list:
        return s._read(lambda conn: conn.execute(row_version).fetchall())

    before = versions()
    t1, t2 = T0 + timedelta(hours=1), T0 + timedelta(hours=2)
    assert s.record_retrievals([a.id, b.id], t1, boost=RETRIEVAL_BOOST) == 2
    assert s.record_retrievals([a.id], t2, boost=RETRIEVAL_BOOST) == 1
    assert versions() == before  # no memory row was written
    assert s.pending_retrievals() == 2
    want_a = boosted_salience(boosted_salience(4.0))

    def seen() -> tuple:
        got = s.get(a.id)
        return (
            (got.retrieval_count, got.last_retrieved_at, got.salience),
            s.list(order="salience_desc", limit=1)[0].id,
            [m.id for m in s.list(MemoryFilter(min_salience=want_a), limit=5)],
            next(m for m, _ in s.iter_memories() if m.id == a.id).salience,
        )

    pending = seen()
    assert pending[0] == (2, t2, want_a)
    assert pending[1:] == (a.id, [a.id], want_a)
    assert s.fold_retrievals() == 2
    assert s.pending_retrievals() == 0 and versions() != before
    assert seen() == pending  # the same values, now in the row
    s.record_retrievals([b.id], t2, boost=RETRIEVAL_BOOST)
    s.set_scores([ScoreUpdate(c.id, 9.5, 0.5)])  # maintenance folds before it scores
    assert s.pending_retrievals() == 0 and s.get(b.id).retrieval_count == 2
    s.record_retrievals([c.id], t2, boost=RETRIEVAL_BOOST)
    got_c = s.get(c.id)
    assert got_c.salience == boosted_salience(9.5) and got_c.retrieval_count == 1
    s.update([got_c.copy(salience=3.0)])  # the record carries its counters
    assert s.pending_retrievals() == 0
    assert (s.get(c.id).salience, s.get(c.id).retrieval_count) == (3.0, 1)
    s.record_retrievals([c.id], t2, boost=RETRIEVAL_BOOST)
    s.delete([c.id])  # its side row is no longer read (the next fold removes it)
    assert s.pending_retrievals() == 0


def test_a_retrieval_does_not_wait_for_an_update_of_the_memory(open_pg, pg_dsn):
    """An update holds its memories' rows (FOR UPDATE) and then drops their side rows; a
    search's upsert must not wait on those rows meanwhile (a foreign key's key-share lock did:
    the two then waited on each other). Here another transaction holds b's row the way an
    update does; the retrieval of a and b completes, then that transaction drops their side rows
    and commits."""
    from salience.search.feedback import RETRIEVAL_BOOST

    s = open_pg("no-wait")
    a, b = mem("first", 0), mem("second", 1)
    s.insert([a, b])
    with psycopg.connect(pg_dsn) as holder:
        holder.execute(f'SELECT id FROM "{s.schema}".memories WHERE id = %s FOR UPDATE', (b.id,))
        done: list[int] = []
        t = threading.Thread(
            target=lambda: done.append(s.record_retrievals([a.id, b.id], T0, boost=RETRIEVAL_BOOST))
        )
        t.start()
        t.join(60)  # a deadlock guard, not a timing
        assert done == [2], "the retrieval waited on the row an update holds"
        holder.execute(
            f'DELETE FROM "{s.schema}".memory_retrievals r USING "{s.schema}".memories m '
            "WHERE r.pk = m.pk AND m.id = ANY(%s)",
            ([a.id, b.id],),
        )
        holder.commit()
    assert s.pending_retrievals() == 0


def test_filtered_hnsw_search_is_not_starved(open_pg):
    s = open_pg("starve")
    s.pin_embedding(EmbeddingInfo("m", 16))
    s.exact_search_max = 0  # treat the mind as large: the automatic choice is the index
    vecs = rand_unit(400, 16, seed=4)
    q = vecs[0]
    far = np.argsort(vecs @ q)[:5]  # the five vectors least like the query
    ms = [mem(f"s{i}", i, session_id="rare" if i in far else "common") for i in range(400)]
    s.insert(ms, vecs)
    flt = MemoryFilter(session_id="rare")
    exact = [c.id for c in s.search_vector(q, limit=5, flt=flt, exact=True)]
    assert sorted(exact) == sorted(ms[i].id for i in far)
    assert [c.id for c in s.search_vector(q, limit=5, flt=flt)] == exact
    assert sorted(c.id for c in s.search_vector(q, limit=5, flt=flt, exact=False)) == sorted(exact)


# -- full text ---------------------------------------------------------------------------------
def test_tsquery_syntax_is_literal(open_pg):
    s = open_pg("fts")
    a = mem("football scores")
    b = mem("cats & dogs | birds", 1)
    s.insert([a, b])
    for term in ["foot:*", "a & b", "!cats", "cats <-> dogs", "(birds", "'", "\\", "a|b", ":*", "&"]:
        s.search_text([term], limit=5)  # never raises
    assert s.search_text(["foot:*"], limit=5) == []  # not a prefix query
    assert [h.id for h in s.search_text(["football"], limit=5)] == [a.id]
    assert [h.id for h in s.search_text(["!cats"], limit=5)] == [b.id]  # not a negation
    assert s.search_text(["the", "and"], limit=5) == []  # stop words only
    assert s.stats()["fts_unaccent"] is True


# -- moving a mind between backends --------------------------------------------------------------
def _copy_mind(src, dst, batch_size: int = 7) -> None:
    """Copy every record and vector of `src` into `dst` through the Store API, keeping order."""
    info = src.embedding_info()
    if info is not None:
        dst.pin_embedding(info)
    run: list[tuple[Memory, np.ndarray | None]] = []

    def flush() -> None:
        if run:
            vecs = np.stack([v for _, v in run]) if run[0][1] is not None else None
            dst.insert([m for m, _ in run], vecs)
            run.clear()

    for m, v in src.iter_memories(batch_size=batch_size):
        if run and ((v is None) != (run[0][1] is None) or len(run) >= batch_size):
            flush()
        run.append((m, v))
    flush()


def _varied_mind(store, dim: int) -> None:
    store.pin_embedding(EmbeddingInfo("roundtrip-model", dim))
    rng = np.random.default_rng(5)
    newer = new_id()
    ms = [
        mem(
            f"memory number {i} about Lisbon, São Paulo and tea",
            i,
            summary=f"summary {i}" if i % 3 == 0 else "",
            memory_type=list(MemoryType)[i % len(MemoryType)],
            importance=list(Importance)[i % len(Importance)],
            source=list(Source)[i % len(Source)],
            salience=1.0 + (i % 10) * 0.9,
            confidence=(i % 11) / 10,
            usefulness=0.123456789 * (i % 8),
            retrieval_count=i,
            last_retrieved_at=T0 + timedelta(hours=i, microseconds=i) if i % 2 else None,
            tags=[f"tag{i % 4}", "shared"],
            entities=[f"Person {i % 5}", "Ünïcode"],
            superseded_by=newer if i == 3 else None,
            related_ids=[new_id()] if i % 4 == 0 else [],
            session_id=f"s{i % 3}",
            t=i,
            frame_type="I",
            pinned=i % 6 == 0,
            occurred_at=T0 - timedelta(days=i) if i % 3 == 1 else None,
            metadata={"i": i, "nested": {"x": [1, 2.5, None]}, "text": "ñ ü"},
        )
        for i in range(25)
    ]
    for i in range(3, 25, 6):  # P-frames patching the first I-frame of their session
        ms[i].frame_type, ms[i].base_frame_id = FrameType.P, ms[0].id
    vecs = rng.normal(size=(25, dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    store.insert(ms[:10], vecs[:10])
    store.insert(ms[10:15])  # records without vectors in the middle
    store.insert(ms[15:], vecs[15:])


@pytest.mark.parametrize("dim", [16, 2560])
def test_round_trip_sqlite_postgres_sqlite(config, open_pg, dim):
    sqlite_a = open_store(config, "origin")
    sqlite_b = open_store(config, "returned")
    try:
        _varied_mind(sqlite_a, dim)
        pg = open_pg(f"trip{dim}")
        _copy_mind(sqlite_a, pg)
        _copy_mind(pg, sqlite_b)
        first = list(sqlite_a.iter_memories())
        for other in (pg, sqlite_b):
            got = list(other.iter_memories())
            assert [m.to_dict() for m, _ in got] == [m.to_dict() for m, _ in first]
            for (_, v1), (_, v2) in zip(first, got, strict=True):
                if v1 is None:
                    assert v2 is None
                else:
                    assert v2.dtype == np.float32 and np.array_equal(v1, v2)
            assert other.embedding_info() == sqlite_a.embedding_info()
        # identical candidates in, identical vector candidates out (exact search)
        q = first[17][1]
        want = sqlite_a.search_vector(q, limit=10)
        for other in (pg, sqlite_b):
            got = other.search_vector(q, limit=10)
            assert [c.id for c in got] == [c.id for c in want]
            np.testing.assert_allclose([c.score for c in got], [c.score for c in want], atol=1e-5)
        hits = {c.id for c in sqlite_a.search_text(["lisbon"], limit=50)}
        assert {c.id for c in pg.search_text(["lisbon"], limit=50)} == hits
        ent = [c.id for c in sqlite_a.search_entities(["person 2"], limit=50)]
        assert [c.id for c in pg.search_entities(["person 2"], limit=50)] == ent
    finally:
        sqlite_a.close()
        sqlite_b.close()
