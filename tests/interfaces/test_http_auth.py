"""Auth and isolation on every route: no key, bad keys, keys for another mind or tenant,
read-only keys on write routes; and that keys never reach the logs."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from test_http_live import Live, live_server

from salience.mind import Mind

ID = "{memory_id}"
# Every route that acts on a mind: (method, path, write?, JSON body or query params, the facade
# attribute it needs: routes for facade methods this version lacks are not served).
ALL_MIND_ROUTES: list[tuple[str, str, bool, dict[str, Any] | None, str]] = [
    ("GET", "/v1/minds/{mind}/stats", False, None, "stats"),
    ("POST", "/v1/minds/{mind}/memories", True, {"content": "intruder was here"}, "add"),
    (
        "POST",
        "/v1/minds/{mind}/memories/batch",
        True,
        {"items": [{"content": "intruder"}]},
        "add_many",
    ),
    ("GET", "/v1/minds/{mind}/memories", False, None, "list"),
    ("GET", f"/v1/minds/{{mind}}/memories/{ID}", False, None, "get"),
    (
        "PATCH",
        f"/v1/minds/{{mind}}/memories/{ID}",
        True,
        {"content": "rewritten by intruder"},
        "update",
    ),
    ("DELETE", f"/v1/minds/{{mind}}/memories/{ID}", True, None, "delete"),
    ("GET", f"/v1/minds/{{mind}}/memories/{ID}/history", False, None, "history"),
    ("POST", "/v1/minds/{mind}/search", False, {"query": "secret"}, "search"),
    ("POST", "/v1/minds/{mind}/prefetch", False, {"current": "secret?"}, "prefetch"),
    ("GET", "/v1/minds/{mind}/catch-up", False, None, "catch_up"),
    ("POST", "/v1/minds/{mind}/recall", False, {"query": "secret"}, "recall"),
    ("POST", "/v1/minds/{mind}/feedback", True, {"ids": [ID], "useful": True}, "mark_useful"),
    ("GET", "/v1/minds/{mind}/queue", False, None, "queue_status"),
    ("POST", "/v1/minds/{mind}/context", False, {"query": "secret"}, "context"),
    ("GET", "/v1/minds/{mind}/awareness", False, None, "awareness"),
    ("POST", "/v1/minds/{mind}/awareness", True, {"content": "intruder task"}, "awareness"),
    ("POST", f"/v1/minds/{{mind}}/awareness/{ID}/complete", True, None, "awareness"),
    ("DELETE", f"/v1/minds/{{mind}}/awareness/{ID}", True, None, "awareness"),
    ("GET", "/v1/minds/{mind}/identity", False, None, "identity"),
    ("POST", "/v1/minds/{mind}/graph/entities", True, {"name": "Intruder"}, "graph"),
    (
        "POST",
        "/v1/minds/{mind}/graph/relations",
        True,
        {"source_id": "x", "relation_type": "knows", "target_id": "y"},
        "graph",
    ),
    ("GET", f"/v1/minds/{{mind}}/graph/entities/{ID}/neighbors", False, None, "graph"),
    ("GET", "/v1/minds/{mind}/graph/about", False, {"name": "secret"}, "graph"),
    # the agent path and the hard deletes (issue 18); a confirmation naming "b" would drop b
    ("POST", "/v1/minds/{mind}/turns", True, {"user": "intruder was here"}, "remember_turn"),
    ("POST", "/v1/minds/{mind}/heartbeat", True, None, "heartbeat"),
    ("POST", "/v1/minds/{mind}/import/{kind}", True, None, "import_chat"),
    ("DELETE", "/v1/minds/{mind}/memories", True, {"confirm": "b"}, "list"),
    ("DELETE", "/v1/minds/{mind}", True, {"confirm": "b"}, "close"),
    # design B's agent records (issue 20); {name} is procedure "p", ids are unknown ("r1")
    ("GET", "/v1/minds/{mind}/procedures", False, None, "procedures"),
    (
        "POST",
        "/v1/minds/{mind}/procedures",
        True,
        {"name": "intruder", "template": "do {x}"},
        "procedures",
    ),
    (
        "POST",
        "/v1/minds/{mind}/procedures/{name}/versions",
        True,
        {"template": "do {x} badly"},
        "procedures",
    ),
    ("GET", "/v1/minds/{mind}/procedures/{name}/best", False, None, "procedures"),
    (
        "POST",
        "/v1/minds/{mind}/procedures/{procedure_id}/outcomes",
        True,
        {"success": False},
        "procedures",
    ),
    (
        "POST",
        "/v1/minds/{mind}/signals",
        True,
        {"category": "correction", "pattern_key": "intruder"},
        "signals",
    ),
    ("GET", "/v1/minds/{mind}/signals", False, None, "signals"),
    ("POST", "/v1/minds/{mind}/signals/surfaced", True, {"ids": ["r1"]}, "signals"),
    ("POST", "/v1/minds/{mind}/traces", True, {"task": "intrude", "outcome": "success"}, "traces"),
    ("GET", "/v1/minds/{mind}/traces", False, None, "traces"),
    ("POST", "/v1/minds/{mind}/evolution", True, {"target": "procedure:p"}, "evolution"),
    ("POST", "/v1/minds/{mind}/evolution/{run_id}/evaluate", True, {}, "evolution"),
    ("GET", "/v1/minds/{mind}/evolution", False, None, "evolution"),
    ("POST", "/v1/minds/{mind}/installs", True, {"capability": "x", "kind": "mcp"}, "installs"),
    ("GET", "/v1/minds/{mind}/installs", False, None, "installs"),
]
MIND_ROUTES = [r[:4] for r in ALL_MIND_ROUTES if hasattr(Mind, r[4])]
ID_ROUTES = [r for r in MIND_ROUTES if ID in r[1] or ID in str(r[3])]
OTHER_ROUTES = [("GET", "/v1/minds", None), ("POST", "/v1/minds", {"name": "newmind"})]


@dataclass
class World:
    live: Live
    secret_id: str  # a memory in mind "b"
    key_a: dict[str, str]
    key_a_read: dict[str, str]
    key_b: dict[str, str]


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with live_server(tmp_path / "home") as live:
        key_b = live.key(mind="b")
        r = live.client.post("/v1/minds/b/memories", json={"content": "b's secret"}, headers=key_b)
        assert r.status_code == 201
        yield World(live, r.json()["id"], live.key(mind="a"), live.key("read", mind="a"), key_b)


def _call(live: Live, method: str, path: str, mind: str, mid: str, body: Any, headers: Any) -> Any:
    url = path.replace("{mind}", mind).replace(ID, mid).replace("{kind}", "chat")
    url = url.replace("{name}", "p").replace("{procedure_id}", "r1").replace("{run_id}", "r1")
    if isinstance(body, dict):
        body = {k: ([mid] if v == [ID] else v) for k, v in body.items()}
    if method in ("GET", "DELETE"):
        return live.client.request(method, url, params=body, headers=headers)
    return live.client.request(method, url, json=body, headers=headers)


def _b_unchanged(w: World) -> None:
    r = w.live.client.get(f"/v1/minds/b/memories/{w.secret_id}", headers=w.key_b)
    assert r.status_code == 200
    assert r.json()["content"] == "b's secret"
    assert r.json()["usefulness"] == 0.5
    page = w.live.client.get("/v1/minds/b/memories", headers=w.key_b).json()
    assert [m["id"] for m in page["items"]] == [w.secret_id]


def test_route_table_covers_the_api(world: World) -> None:
    spec = world.live.client.get("/openapi.json").json()
    actual = {
        (method.upper(), path)
        for path, ops in spec["paths"].items()
        for method in ops
        if path != "/v1/health"
    }
    served = {"entities/" + ID: "entities/{entity_id}", "awareness/" + ID: "awareness/{item_id}"}
    expected = {
        (m, next((p.replace(k, v) for k, v in served.items() if k in p), p))
        for m, p, _, _ in MIND_ROUTES
    } | {(m, p) for m, p, _ in OTHER_ROUTES}
    assert actual == expected


@pytest.mark.parametrize(("method", "path", "write", "body"), MIND_ROUTES)
def test_no_key_is_401(world: World, method: str, path: str, write: bool, body: Any) -> None:
    for headers in (
        None,
        {"Authorization": "Bearer sal_000000000000_nope"},
        {"Authorization": "Bearer not-a-key"},
        {"Authorization": "Basic abc"},
    ):
        r = _call(world.live, method, path, "b", world.secret_id, body, headers)
        assert r.status_code == 401, (headers, r.text)
        assert r.json()["error"]["code"] == "unauthorized"
    _b_unchanged(world)


@pytest.mark.parametrize(("method", "path", "write", "body"), MIND_ROUTES)
def test_key_for_mind_a_never_reaches_mind_b(
    world: World, method: str, path: str, write: bool, body: Any
) -> None:
    for headers in (world.key_a, world.key_a_read):
        r = _call(world.live, method, path, "b", world.secret_id, body, headers)
        assert r.status_code == 403, r.text
        assert r.json()["error"]["code"] == "forbidden"
        assert "secret" not in r.text
    _b_unchanged(world)


@pytest.mark.parametrize(("method", "path", "write", "body"), ID_ROUTES)
def test_b_ids_through_a_path_find_nothing(
    world: World, method: str, path: str, write: bool, body: Any
) -> None:
    r = _call(world.live, method, path, "a", world.secret_id, body, world.key_a)
    # feedback on unknown ids updates nothing (the facade ignores them); the rest are 404
    assert r.status_code == 404 or (r.status_code == 200 and r.json() == {"items": []}), r.text
    assert "secret" not in r.text
    _b_unchanged(world)


@pytest.mark.parametrize(("method", "path", "write", "body"), MIND_ROUTES)
def test_read_only_key(world: World, method: str, path: str, write: bool, body: Any) -> None:
    own = world.live.client.post(
        "/v1/minds/a/memories", json={"content": "a's own"}, headers=world.key_a
    ).json()["id"]
    if "{name}" in path:  # the procedure the path names
        world.live.client.post(
            "/v1/minds/a/procedures", json={"name": "p", "template": "t"}, headers=world.key_a
        )
    r = _call(world.live, method, path, "a", own, body, world.key_a_read)
    if write:
        assert r.status_code == 403, r.text
        assert "read-only" in r.json()["error"]["message"]
    else:  # allowed (an id that is not an entity id may still be 404)
        assert r.status_code in (200, 404), r.text
        assert r.status_code == 200 or "graph" in path


def test_revoked_key_stops_working(world: World) -> None:
    key, rec = world.live.db.create_key(scope="read", mind="b")
    h = {"Authorization": f"Bearer {key}"}
    assert world.live.client.get("/v1/minds/b/stats", headers=h).status_code == 200
    world.live.db.revoke_key(rec.key_id)
    assert world.live.client.get("/v1/minds/b/stats", headers=h).status_code == 401


def test_keys_are_stored_hashed(world: World) -> None:
    key, rec = world.live.db.create_key(scope="read", mind="b")
    raw = (world.live.config.home / "server.db").read_bytes()
    assert key.encode() not in raw
    assert key.split("_", 2)[2].encode() not in raw  # the secret may itself contain "_"
    assert rec.key_id in key


def test_tenants_are_isolated(world: World) -> None:
    live = world.live
    t1, t2 = live.key(tenant="t1"), live.key(tenant="t2")
    assert live.client.post("/v1/minds", json={"name": "t1-notes"}, headers=t1).status_code == 201
    r = live.client.post("/v1/minds", json={"name": "t1-notes"}, headers=t2)
    assert r.status_code == 409
    for name in ("t1-notes", "a", "b"):
        for method, path, _, body in MIND_ROUTES:
            r = _call(live, method, path, name, world.secret_id, body, t2)
            assert r.status_code == 403, (name, path, r.text)
    assert live.client.get("/v1/minds", headers=t2).json() == {"minds": []}
    assert live.client.get("/v1/minds", headers=t1).json()["minds"] == [
        {"name": "t1-notes", "tenant": "t1"}
    ]
    _b_unchanged(world)


def test_creating_minds_needs_a_tenant_write_key(world: World) -> None:
    live = world.live
    r = live.client.post("/v1/minds", json={"name": "x"}, headers=world.key_a)
    assert r.status_code == 403
    r = live.client.post("/v1/minds", json={"name": "x"}, headers=live.key("read", tenant="t"))
    assert r.status_code == 403
    # a name held by another owner, or an unregistered mind already on disk, cannot be claimed
    r = live.client.post("/v1/minds", json={"name": "b"}, headers=live.key(tenant="t"))
    assert r.status_code == 409
    (live.config.home / "minds" / "local.db").write_bytes(b"")
    r = live.client.post("/v1/minds", json={"name": "local"}, headers=live.key(tenant="t"))
    assert r.status_code == 409


def test_minds_listing_shows_only_the_keys_minds(world: World) -> None:
    r = world.live.client.get("/v1/minds", headers=world.key_a)
    assert r.json() == {"minds": [{"name": "a", "tenant": None}]}
    assert world.live.client.get("/v1/minds").status_code == 401


def test_recall_cannot_pull_in_another_mind(world: World) -> None:
    # mind "a" must exist to be read (reads never create minds)
    world.live.client.post("/v1/minds/a/memories", json={"content": "a's note"}, headers=world.key_a)
    r = world.live.client.post(
        "/v1/minds/a/recall", json={"query": "secret", "minds": ["b"]}, headers=world.key_a
    )
    assert r.status_code == 403
    assert "secret" not in r.text


def test_keys_never_reach_the_logs(world: World, caplog: pytest.LogCaptureFixture) -> None:
    key, _ = world.live.db.create_key(scope="write", mind="a")
    caplog.set_level(logging.DEBUG)
    h = {"Authorization": f"Bearer {key}"}
    world.live.client.post("/v1/minds/a/memories", json={"content": "logged?"}, headers=h)
    world.live.client.get("/v1/minds/b/stats", headers=h)
    world.live.client.get("/v1/minds/a/stats", headers={"Authorization": f"Bearer {key}x"})
    assert key not in caplog.text


def test_b_record_ids_through_a_path_find_nothing(world: World) -> None:
    live, kb, ka = world.live, world.key_b, world.key_a
    proc = live.client.post(
        "/v1/minds/b/procedures", json={"name": "p", "template": "t"}, headers=kb
    ).json()
    run = live.client.post(
        "/v1/minds/b/evolution", json={"target": "procedure:p"}, headers=kb
    ).json()
    live.client.post("/v1/minds/a/memories", json={"content": "a exists"}, headers=ka)
    for path, body in (
        (f"/v1/minds/a/procedures/{proc['id']}/outcomes", {"success": False}),
        (f"/v1/minds/a/evolution/{run['id']}/evaluate", {}),
        ("/v1/minds/a/procedures/p/versions", {"template": "by a"}),
    ):
        r = live.client.post(path, json=body, headers=ka)
        assert r.status_code == 404, (path, r.text)
    assert live.client.get("/v1/minds/a/procedures", headers=ka).json() == {"items": []}
    after = live.client.get("/v1/minds/b/procedures", headers=kb).json()["items"]
    assert [(p["id"], p["version"]) for p in after] == [(proc["id"], proc["version"])]
    assert after[0] == proc
    runs = live.client.get("/v1/minds/b/evolution", headers=kb).json()["items"]
    assert runs == [run]
