"""Layer routes (history, queue, context, awareness, identity, graph) over loopback HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_http_live import Live, live_server

from salience.mind import Mind


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    with live_server(tmp_path / "home") as srv:
        yield srv


def _needs(attr: str) -> None:
    if not hasattr(Mind, attr):
        pytest.skip(f"the facade has no {attr} in this version")


def test_history_and_queue(live: Live) -> None:
    _needs("history")
    h = live.key(mind="m")
    mid = live.client.post("/v1/minds/m/memories", json={"content": "v1"}, headers=h).json()["id"]
    r = live.client.get(f"/v1/minds/m/memories/{mid}/history", headers=h)
    assert [x["id"] for x in r.json()["items"]] == [mid]
    assert live.client.get(f"/v1/minds/m/memories/{'0' * 32}/history", headers=h).status_code == 404
    q = live.client.get("/v1/minds/m/queue", headers=h).json()
    assert q["pending_triage"] == 0


def test_context_and_awareness(live: Live) -> None:
    _needs("awareness")
    _needs("context")
    h = live.key(mind="m")
    live.client.post("/v1/minds/m/memories", json={"content": "Maya likes green tea"}, headers=h)
    r = live.client.post("/v1/minds/m/awareness", json={"content": "Plan Maya's visit"}, headers=h)
    assert r.status_code == 201
    items = live.client.get("/v1/minds/m/awareness", headers=h).json()["items"]
    assert [i["content"] for i in items] == ["Plan Maya's visit"]
    ctx = live.client.post("/v1/minds/m/context", json={"query": "tea"}, headers=h).json()
    assert "green tea" in ctx["text"]
    assert ctx["tokens"] > 0
    for i in range(20):
        r = live.client.post("/v1/minds/m/awareness", json={"content": f"item {i}"}, headers=h)
        if r.status_code != 201:
            break
    assert r.status_code == 409  # working memory is capped
    assert r.json()["error"]["code"] == "awareness_full"


def test_identity_and_graph(live: Live) -> None:
    _needs("identity")
    _needs("graph")
    h = live.key(mind="m")
    r = live.client.get("/v1/minds/m/identity", headers=h)  # reads never create the mind
    assert r.status_code == 404 and r.json()["error"]["code"] == "mind_not_found"
    live.client.post("/v1/minds/m/awareness", json={"content": "a first write"}, headers=h)
    assert live.client.get("/v1/minds/m/identity", headers=h).json() == {"identity": None}
    live.client.post(
        "/v1/minds/m/memories",
        json={"content": "Maya works at Acme", "entities": ["Maya"]},
        headers=h,
    )
    maya = live.client.post(
        "/v1/minds/m/graph/entities", json={"name": "Maya", "entity_type": "person"}, headers=h
    ).json()
    bob = live.client.post(
        "/v1/minds/m/graph/entities", json={"name": "Bob", "entity_type": "person"}, headers=h
    ).json()
    r = live.client.post(
        "/v1/minds/m/graph/relations",
        json={"source_id": maya["id"], "relation_type": "knows", "target_id": bob["id"]},
        headers=h,
    )
    assert r.status_code == 201
    n = live.client.get(f"/v1/minds/m/graph/entities/{maya['id']}/neighbors", headers=h).json()
    assert [x["entity"]["name"] for x in n["items"]] == ["Bob"]
    past = live.client.get(
        f"/v1/minds/m/graph/entities/{maya['id']}/neighbors",
        params={"as_of": "2000-01-01T00:00:00Z"},
        headers=h,
    ).json()
    assert past["items"] == []
    about = live.client.get("/v1/minds/m/graph/about", params={"name": "Maya"}, headers=h).json()
    assert [x["content"] for x in about["items"]] == ["Maya works at Acme"]
    r = live.client.post(
        "/v1/minds/m/graph/relations",
        json={"source_id": "nope", "relation_type": "knows", "target_id": bob["id"]},
        headers=h,
    )
    assert r.status_code == 404
