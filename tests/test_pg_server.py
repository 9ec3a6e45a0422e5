"""The test PostgreSQL server: pgvector present, HNSW usable, restart, isolation, errors."""

from __future__ import annotations

import os
import socket
from concurrent.futures import ThreadPoolExecutor

import pytest

psycopg = pytest.importorskip("psycopg")

from pg_server import DSN_ENV, PgServer, PgServerError, start_pg  # noqa: E402

pytestmark = pytest.mark.postgres


@pytest.fixture
def embedded():
    """Skip tests that start servers of their own when told to use an existing one."""
    if os.environ.get(DSN_ENV):
        pytest.skip(f"{DSN_ENV} is set: not starting servers of our own")


@pytest.fixture
def private_pg(embedded):
    """A server of this test's own, for tests that stop or restart it."""
    server = start_pg(use_env=False)
    yield server
    server.stop()


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def test_vector_extension_installed(pg_server: PgServer):
    with psycopg.connect(pg_server.dsn) as conn:
        row = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()
        assert row is not None, "vector extension missing from the test database"
        assert _version(row[0]) >= (0, 5, 0)  # HNSW arrived in 0.5.0
        if pg_server.managed:
            assert _version(row[0]) >= (0, 8, 0)
            num = conn.execute("SHOW server_version_num").fetchone()[0]
            assert int(num) // 10000 == 18
            assert conn.execute("SHOW server_encoding").fetchone()[0] == "UTF8"


def test_hnsw_nearest_neighbour(pg_server: PgServer):
    with psycopg.connect(pg_server.dsn) as conn:
        # A temporary table: invisible to other sessions, gone at disconnect.
        conn.execute("CREATE TEMP TABLE items (id int PRIMARY KEY, embedding vector(3))")
        conn.execute(
            "INSERT INTO items SELECT i, ARRAY[i, i * 2, i % 7]::real[]::vector(3) "
            "FROM generate_series(1, 500) AS i"
        )
        conn.execute("CREATE INDEX ON items USING hnsw (embedding vector_l2_ops)")
        conn.execute("ANALYZE items")
        conn.execute("SET enable_seqscan = off")
        query = "SELECT id FROM items ORDER BY embedding <-> %s::vector LIMIT 3"
        target = "[42.1, 84.2, 0]"  # row 42 is [42, 84, 0]
        plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + query, (target,)))
        assert "items_embedding_idx" in plan, plan
        ids = [r[0] for r in conn.execute(query, (target,))]
        assert ids == [42, 43, 44]


def test_text_search_is_unicode_aware(pg_server: PgServer):
    with psycopg.connect(pg_server.dsn) as conn:
        vec = conn.execute("SELECT to_tsvector('simple', 'Café NAÏVE Straße')::text").fetchone()[0]
        assert vec == "'café':1 'naïve':2 'straße':3"


def test_extension_present_in_new_databases(pg_server: PgServer):
    if not pg_server.managed:
        pytest.skip("needs a server started by start_pg()")
    dsn = pg_server.create_database(f"extra_{os.getpid()}")
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT '[1,2,3]'::vector(3) <-> '[1,2,4]'").fetchone()[0] == 1.0


def test_wrong_password_is_rejected(pg_server: PgServer):
    if not pg_server.managed:
        pytest.skip("needs a server started by start_pg()")
    bad = pg_server.dsn.replace(pg_server.password, "wrong-password")
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(bad, connect_timeout=5)


def test_restart_keeps_data_and_address(private_pg: PgServer):
    dsn, port = private_pg.dsn, private_pg.port
    old = psycopg.connect(dsn, autocommit=True)
    old.execute("CREATE TABLE kept (v vector(2))")
    old.execute("INSERT INTO kept VALUES ('[1,2]')")

    private_pg.restart()

    assert (private_pg.dsn, private_pg.port) == (dsn, port)
    with pytest.raises(psycopg.OperationalError):
        old.execute("SELECT 1")  # the old session did not survive
    old.close()
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT v::text FROM kept").fetchone()[0] == "[1,2]"

    private_pg.stop_server(mode="immediate")  # a crash, as it were
    assert not private_pg.is_running()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(dsn, connect_timeout=2)
    private_pg.start_server()
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT count(*) FROM kept").fetchone()[0] == 1


def test_stop_removes_data_and_is_idempotent(embedded):
    server = start_pg(use_env=False)
    assert server.base_dir is not None and server.base_dir.is_dir()
    assert server.log_path is not None and server.log_path.is_file()
    server.stop()
    assert not server.is_running()
    assert not server.base_dir.exists()
    server.stop()
    with pytest.raises(PgServerError):
        server.start_server()


def test_servers_side_by_side(embedded):
    with ThreadPoolExecutor(2) as pool:
        servers = list(pool.map(lambda _: start_pg(use_env=False), range(2)))
    try:
        a, b = servers
        assert a.port != b.port
        assert a.base_dir != b.base_dir
        for server in servers:
            with psycopg.connect(server.dsn) as conn:
                conn.execute("CREATE TABLE mine (port int)")
                conn.execute("INSERT INTO mine VALUES (%s)", (server.port,))
        for server in servers:
            with psycopg.connect(server.dsn) as conn:
                assert conn.execute("SELECT port FROM mine").fetchall() == [(server.port,)]
    finally:
        for server in servers:
            server.stop()


def test_startup_failure_shows_server_log(embedded):
    with pytest.raises(PgServerError) as info:
        # initdb accepts this; the server cannot bind to an address it does not have.
        start_pg(use_env=False, settings={"listen_addresses": "203.0.113.7"})
    message = str(info.value)
    assert "server log tail" in message
    assert "203.0.113.7" in message


def test_taken_port_is_skipped(embedded, monkeypatch: pytest.MonkeyPatch):
    import pg_server as module

    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        taken = squatter.getsockname()[1]
        offered = iter([taken])
        real_free_port = module._free_port
        monkeypatch.setattr(module, "_free_port", lambda: next(offered, None) or real_free_port())
        with start_pg(use_env=False) as server:
            assert server.port != taken
            assert "Address already in use" in server.log_tail(200)
            with psycopg.connect(server.dsn) as conn:
                assert conn.execute("SELECT 1").fetchone()[0] == 1


def test_env_dsn_starts_nothing(pg_server: PgServer, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(DSN_ENV, pg_server.dsn)
    external = start_pg()
    assert not external.managed
    assert external.dsn == pg_server.dsn
    external.stop()  # a no-op: the server is not ours
    with psycopg.connect(pg_server.dsn) as conn:
        assert conn.execute("SELECT 1").fetchone()[0] == 1
    with pytest.raises(PgServerError):
        external.restart()


def test_env_dsn_error_names_host_not_password(monkeypatch: pytest.MonkeyPatch):
    port = _closed_port()
    monkeypatch.setenv(DSN_ENV, f"postgresql://someone:s3cret@127.0.0.1:{port}/nowhere")
    with pytest.raises(PgServerError) as info:
        start_pg()
    assert f"127.0.0.1:{port}" in str(info.value)
    assert "s3cret" not in str(info.value)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
