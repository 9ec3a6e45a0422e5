"""A real uvicorn server on a free loopback port, for the HTTP API tests (imported by the other
`test_http_*` modules), and smoke tests of the harness itself."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

import httpx
import uvicorn

from salience.clock import FrozenClock
from salience.config import Config
from salience.interfaces.auth import ServerDB
from salience.interfaces.http import create_app


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """Run `app` with uvicorn in a background thread; yields its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:  # a startup wait, not a timed assertion
        if not thread.is_alive():
            raise RuntimeError("uvicorn exited during startup")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join()
        sock.close()


@dataclass
class Live:
    """A running server, its key database and an httpx client."""

    url: str
    db: ServerDB
    config: Config
    client: httpx.Client
    clock: FrozenClock
    app: Any = None  # the served app (`app.state.pool`: e.g. `settle()` after-response writes)

    def key(
        self, scope: str = "write", *, mind: str | None = None, tenant: str | None = None
    ) -> dict[str, str]:
        """Create a key and return the Authorization header that carries it."""
        key, _ = self.db.create_key(scope=scope, mind=mind, tenant=tenant)
        return {"Authorization": f"Bearer {key}"}


@contextmanager
def live_server(home: Path, *, insecure_local: bool = False, **kw: Any) -> Iterator[Live]:
    """A fresh data directory served over loopback HTTP."""
    config = Config(**{"home": home, "embedder": "hash", **kw.pop("config", {})})
    clock = FrozenClock()
    db = ServerDB.at_home(home, clock=clock)
    app = create_app(config, insecure_local=insecure_local, server_db=db, **kw)
    try:
        with serve(app) as url, httpx.Client(base_url=url, timeout=60) as client:
            yield Live(url, db, config, client, clock, app)
    finally:
        db.close()


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    with live_server(tmp_path / "home") as srv:
        yield srv


def test_health_needs_no_key(live: Live) -> None:
    r = live.client.get("/v1/health")
    assert r.status_code == 200
    assert r.json()["status"] == "ok"


def test_openapi_documents_every_route_with_examples(live: Live) -> None:
    spec = live.client.get("/openapi.json").json()
    paths = spec["paths"]
    assert "/v1/minds/{mind}/memories" in paths
    assert "/v1/minds/{mind}/search" in paths
    assert spec["components"]["securitySchemes"]["HTTPBearer"]["type"] == "http"
    assert spec["components"]["schemas"]["MemoryIn"]["examples"]
    assert spec["components"]["schemas"]["ErrorOut"]


def test_server_survives_restart_with_same_data(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with live_server(home) as srv:
        h = srv.key(mind="a")
        mid = srv.client.post("/v1/minds/a/memories", json={"content": "kept"}, headers=h).json()[
            "id"
        ]
    with live_server(home) as srv:
        assert srv.client.get(f"/v1/minds/a/memories/{mid}", headers=h).json()["content"] == "kept"
