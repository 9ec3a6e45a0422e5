"""`DELETE /v1/minds/{mind}?confirm={mind}` over loopback HTTP on both backends: the mind's
storage is gone (SQLite file, -wal/-shm, HNSW graph and manifest; PostgreSQL schema), the
server's pool holds no handle, the registry forgets the name and deletes the keys bound to it,
and a mind created again under the name starts empty — for its owner or another tenant."""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from test_http_live import serve

from salience.clock import FrozenClock
from salience.config import Config
from salience.interfaces.auth import ServerDB
from salience.interfaces.http import create_app
from salience.store import mind_exists


@contextmanager
def server(home: Path, config: dict[str, Any], *, insecure: bool = False) -> Iterator[Any]:
    """A served app (its `state` holds the pool and registry) and a client for it."""
    cfg = Config(home=home, embedder="hash", **config)
    db = ServerDB.at_home(home, clock=FrozenClock())
    app = create_app(cfg, insecure_local=insecure, server_db=db)
    try:
        with serve(app) as url, httpx.Client(base_url=url, timeout=60) as client:
            yield app, client
    finally:
        db.close()


def _key(app: Any, scope: str = "write", **reach: str) -> dict[str, str]:
    key, _ = app.state.server_db.create_key(scope=scope, **reach)
    return {"Authorization": f"Bearer {key}"}


def _files(home: Path, name: str) -> set[str]:
    minds = home / "minds"
    return {p.name for p in minds.iterdir() if p.name.startswith(f"{name}.")} if minds.is_dir() else set()


@pytest.fixture(params=["sqlite-hnsw", "postgres"])
def backend(request: pytest.FixtureRequest) -> dict[str, Any]:
    if request.param == "postgres":
        return {"backend": "postgres", "dsn": SecretStr(request.getfixturevalue("pg_dsn"))}
    # auto mode switches to HNSW at 10 vectors and saves the graph and manifest beside the file
    return {"sqlite_vector_index": "auto", "sqlite_hnsw_min_rows": 10}


def test_drop_removes_everything_and_frees_the_name(
    tmp_path: Path, backend: dict[str, Any], request: pytest.FixtureRequest
) -> None:
    name = "d" + format(zlib.crc32(request.node.nodeid.encode()), "d")
    home = tmp_path / "home"
    with server(home, backend) as (app, c):
        t1, t1_read, t2 = _key(app, tenant="t1"), _key(app, "read", tenant="t1"), _key(app, tenant="t2")
        assert c.post("/v1/minds", json={"name": name}, headers=t1).status_code == 201
        bound = _key(app, mind=name, tenant="t1")
        for part in (range(5), range(5, 30)):  # an exact cache of 5, then 30 vectors: HNSW
            items = [{"content": f"note {i} about the Lisbon office"} for i in part]
            r = c.post(f"/v1/minds/{name}/memories/batch", json={"items": items}, headers=t1)
            assert r.status_code == 201
            assert c.post(f"/v1/minds/{name}/search", json={"query": "Lisbon"}, headers=t1).json()["hits"]
        cfg = app.state.config
        assert mind_exists(cfg, name)
        if cfg.backend == "sqlite":
            assert {f"{name}.db", f"{name}.db.hnsw"} <= _files(home, name)
            assert (home / "minds" / f"{name}.db.hnsw" / "manifest.json").is_file()
        (home / "uploads" / name).mkdir(parents=True)
        (home / "uploads" / name / "left.mbox").write_text("an interrupted upload")

        # refused: no confirmation, wrong confirmation, a read key, another tenant, a request using it
        url = f"/v1/minds/{name}"
        assert c.delete(url, headers=t1).status_code == 422
        assert c.delete(url, params={"confirm": "other"}, headers=t1).status_code == 422
        assert c.delete(url, params={"confirm": name}, headers=t1_read).status_code == 403
        assert c.delete(url, params={"confirm": name}, headers=t2).status_code == 403
        with app.state.pool.lease(name, "t1"):
            r = c.delete(url, params={"confirm": name}, headers=t1)
            assert r.status_code == 409, r.text
        assert c.get(f"{url}/stats", headers=t1).json()["memories"] == 30
        assert app.state.pool.open_count() == 1

        r = c.delete(url, params={"confirm": name}, headers=t1)
        assert r.status_code == 200, r.text
        assert r.json() == {"dropped": name, "keys_deleted": 1}
        assert not mind_exists(cfg, name)
        assert _files(home, name) == set()  # database, -wal, -shm, the HNSW graph directory
        assert not (home / "uploads" / name).exists()
        assert app.state.pool.open_count() == 0
        assert app.state.server_db.find_mind(name) is None
        # the name is no longer the tenant's (403, as any name it does not hold); the bound key is dead
        assert c.get(f"{url}/stats", headers=t1).status_code == 403
        assert c.get(f"{url}/memories", headers=bound).status_code == 401
        assert c.get("/v1/minds", headers=t1).json() == {"minds": []}

        # another tenant may take the name: it gets an empty mind, none of the old data
        assert c.post("/v1/minds", json={"name": name}, headers=t2).status_code == 201
        assert c.get(f"{url}/stats", headers=t2).json()["memories"] == 0
        assert c.post(f"{url}/search", json={"query": "Lisbon"}, headers=t2).json()["hits"] == []
        assert c.delete(url, params={"confirm": name}, headers=t2).json()["keys_deleted"] == 0
        # and the owner can create it again, empty
        assert c.post("/v1/minds", json={"name": name}, headers=t1).status_code == 201
        assert c.get(f"{url}/memories", headers=t1).json()["items"] == []
        assert c.delete(url, params={"confirm": name}, headers=t1).status_code == 200
        assert not mind_exists(cfg, name)


def test_drop_in_insecure_local_mode(tmp_path: Path) -> None:
    with server(tmp_path / "home", {}, insecure=True) as (app, c):
        assert c.post("/v1/minds/local/memories", json={"content": "a note"}).status_code == 201
        assert c.delete("/v1/minds/local", params={"confirm": "local"}).json()["dropped"] == "local"
        r = c.get("/v1/minds/local/stats")
        assert r.status_code == 404 and r.json()["error"]["code"] == "mind_not_found"
        assert c.delete("/v1/minds/local", params={"confirm": "local"}).status_code == 404
        assert _files(tmp_path / "home", "local") == set()
        assert app.state.pool.open_count() == 0
