"""The server database on the store machinery (issue 16 item 4): the same keys, tenants and
quota counters on SQLite and PostgreSQL, the shared migration runner's newer-version guard, and
two `salience serve` processes over one PostgreSQL sharing all of it (real HTTP on loopback)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from salience.config import Config
from salience.errors import SchemaVersionError
from salience.interfaces.auth import ServerDB, Unauthorized


def test_two_handles_share_keys_tenants_and_counters(backend_config: Config) -> None:
    a, b = ServerDB.for_config(backend_config), ServerDB.for_config(backend_config)
    try:
        assert a.store.backend == backend_config.backend
        key, rec = a.create_key(scope="write", tenant=f"t-{os.getpid()}")
        tenant = rec.tenant
        assert tenant is not None
        a.set_tenant(tenant, "free", monthly_quota=5)
        assert b.authenticate(key).tenant == tenant  # a key made by one handle ...
        assert b.reserve_usage(tenant, 3, 5) == (0, 3)
        assert a.reserve_usage(tenant, 3, 5) is None  # ... one counter, never over quota
        assert a.usage(tenant) == b.usage(tenant) == 3
        b.revoke_key(rec.key_id)
        with pytest.raises(Unauthorized):
            a.authenticate(key)
    finally:
        a.close()
        b.close()


def test_a_newer_server_database_is_refused(tmp_path: Path) -> None:
    db = ServerDB.at_home(tmp_path)
    with db.store.tx() as tx:
        tx.run("RECORD_MIGRATION", ("9999_from_the_future", "2030-01-01T00:00:00Z"))
    db.close()
    with pytest.raises(SchemaVersionError, match="newer Salience"):
        ServerDB.at_home(tmp_path)


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(env: dict[str, str], port: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "salience.interfaces.cli", "serve", "--port", str(port),
         "--log-level", "warning"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )


def _wait(proc: subprocess.Popen[str], url: str, headers: dict[str, str]) -> None:
    for _ in range(600):  # until the server answers (or dies); not a timing assertion
        if proc.poll() is not None:
            raise AssertionError(f"server exited: {proc.stderr.read() if proc.stderr else ''}")
        try:
            if httpx.get(f"{url}/v1/health", headers=headers, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise AssertionError("server did not start")


@pytest.fixture
def pg_config(tmp_path: Path, pg_server) -> Config:
    """A PostgreSQL database of this test's own (its servers see only its minds)."""
    try:
        dsn = pg_server.create_database(f"shared_server_{os.getpid()}")
    except Exception:  # an external server: share its database
        dsn = str(pg_server.dsn)
    return Config(home=tmp_path / "home", embedder="hash", backend="postgres", dsn=SecretStr(dsn))


@pytest.fixture
def servers(pg_config: Config) -> Iterator[list[tuple[str, subprocess.Popen[str]]]]:
    env = {
        **os.environ, "PYTHONPATH": os.pathsep.join(sys.path),
        "SALIENCE_EMBEDDER": "hash",
        "SALIENCE_BACKEND": "postgres", "SALIENCE_DSN": pg_config.dsn.get_secret_value(),  # type: ignore[union-attr]
    }
    ports = [_port(), _port()]
    # replicas on two machines: each its own data directory, only PostgreSQL in common
    procs = [
        _serve({**env, "SALIENCE_HOME": str(pg_config.home.parent / f"replica-{i}")}, port)
        for i, port in enumerate(ports)
    ]
    try:
        yield [(f"http://127.0.0.1:{port}", proc) for port, proc in zip(ports, procs, strict=True)]
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=60)


def test_two_server_processes_share_keys_tenants_and_quota(
    pg_config: Config, servers: list[tuple[str, subprocess.Popen[str]]]
) -> None:
    db = ServerDB.for_config(pg_config)  # what `salience keys ...` writes
    try:
        key, rec = db.create_key(scope="write", tenant="acme")
        db.set_tenant("acme", "free", monthly_quota=4)
        h = {"Authorization": f"Bearer {key}"}
        for url, proc in servers:  # both started before the key was made: nothing cached
            _wait(proc, url, h)
        (a, _), (b, _) = servers
        assert httpx.post(f"{a}/v1/minds", json={"name": "kb"}, headers=h).status_code == 201
        items = [{"content": f"fact {i}"} for i in range(3)]
        r = httpx.post(f"{b}/v1/minds/kb/memories/batch", json={"items": items}, headers=h)
        assert r.status_code == 201, r.text  # B knows the mind A registered, for this tenant
        more = [{"content": "four"}, {"content": "five"}]
        r = httpx.post(f"{a}/v1/minds/kb/memories/batch", json={"items": more}, headers=h)
        assert r.status_code == 429, r.text  # A counts what B embedded: one counter
        assert r.json()["error"]["details"]["current"] == 3
        assert db.usage("acme") == 3
        db.revoke_key(rec.key_id)  # one revocation reaches both
        for url, _ in servers:
            assert httpx.get(f"{url}/v1/minds/kb/memories", headers=h).status_code == 401
    finally:
        db.close()

