"""Issue 17 item 1: who owns a mind is decided by the backend that holds it.

A mind made locally (CLI / SDK) and never registered on the server cannot be claimed by a
tenant's key over HTTP: on SQLite (a file) and on PostgreSQL (a schema) alike.
"""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest
from pydantic import SecretStr

sys.path.insert(0, str(Path(__file__).parents[1] / "interfaces"))
from test_http_live import live_server

from salience.config import Config
from salience.mind import Mind
from salience.store import mind_exists


def _backend_kw(backend: str, request: pytest.FixtureRequest) -> dict:
    if backend == "postgres":
        return {"backend": "postgres", "dsn": SecretStr(request.getfixturevalue("pg_dsn"))}
    return {}


def test_a_local_mind_cannot_be_claimed_by_a_tenant(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    kw = _backend_kw(backend, request)
    name = f"local-{uuid.uuid4().hex[:8]}"
    config = Config(home=tmp_path / "home", embedder="hash", **kw)
    with Mind.open(name, config=config) as m:  # made with the SDK, never registered
        m.add("the launch code is 0000")
    try:
        assert mind_exists(config, name)
        assert not mind_exists(config, name + "-never")
        with live_server(tmp_path / "home", config=kw) as live:
            intruder = live.key(tenant="intruder")
            r = live.client.post("/v1/minds", json={"name": name}, headers=intruder)
            assert r.status_code == 409, r.text
            r = live.client.get(f"/v1/minds/{name}/memories", headers=intruder)
            assert r.status_code == 403, r.text
            # a genuinely new name is still free
            fresh = name + "-new"
            r = live.client.post("/v1/minds", json={"name": fresh}, headers=intruder)
            assert r.status_code == 201, r.text
            assert live.db.mind(fresh).tenant == "intruder"
    finally:
        if backend == "postgres":
            for n in (name, name + "-new"):
                with Mind.open(n, config=config) as m:
                    m.store.drop_mind()  # type: ignore[attr-defined]
