"""The HTTP API over real loopback HTTP: every resource, pagination, errors as JSON."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_http_live import Live, live_server  # skips this module without fastapi/uvicorn


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    with live_server(tmp_path / "home") as srv:
        yield srv


@pytest.fixture
def h(live: Live) -> dict[str, str]:
    return live.key(mind="notes")


def _add(live: Live, h: dict[str, str], content: str, **kw: object) -> str:
    r = live.client.post("/v1/minds/notes/memories", json={"content": content, **kw}, headers=h)
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def test_add_get_update_delete(live: Live, h: dict[str, str]) -> None:
    mid = _add(
        live,
        h,
        "Maya is allergic to penicillin.",
        memory_type="fact",
        salience=8,
        tags=["Health"],
        entities=["Maya"],
        metadata={"from": "chat"},
    )
    got = live.client.get(f"/v1/minds/notes/memories/{mid}", headers=h).json()
    assert got["content"] == "Maya is allergic to penicillin."
    assert got["memory_type"] == "fact"
    assert got["tags"] == ["health"]
    assert got["metadata"] == {"from": "chat"}

    r = live.client.patch(
        f"/v1/minds/notes/memories/{mid}", json={"salience": 9.5, "tags": ["a"]}, headers=h
    )
    assert r.status_code == 200
    assert r.json()["salience"] == 9.5
    assert r.json()["tags"] == ["a"]
    assert r.json()["content"] == got["content"]

    assert live.client.delete(f"/v1/minds/notes/memories/{mid}", headers=h).status_code == 204
    r = live.client.get(f"/v1/minds/notes/memories/{mid}", headers=h)
    assert r.status_code == 404
    assert r.json()["error"]["code"] == "not_found"
    r = live.client.delete(f"/v1/minds/notes/memories/{mid}", headers=h)
    assert r.json()["error"]["code"] == "not_found"


def test_identical_content_is_stored_once(live: Live, h: dict[str, str]) -> None:
    assert _add(live, h, "same thing") == _add(live, h, "same thing")


def test_batch_add_and_paginated_list(live: Live, h: dict[str, str]) -> None:
    items = [
        {"content": f"memory number {i}", "tags": ["even" if i % 2 == 0 else "odd"]}
        for i in range(7)
    ]
    r = live.client.post("/v1/minds/notes/memories/batch", json={"items": items}, headers=h)
    assert r.status_code == 201
    ids = r.json()["ids"]
    assert len(set(ids)) == 7

    seen: list[str] = []
    offset: int | None = 0
    pages = 0
    while offset is not None:
        page = live.client.get(
            "/v1/minds/notes/memories",
            params={"limit": 3, "offset": offset, "order": "created_asc"},
            headers=h,
        ).json()
        seen += [m["id"] for m in page["items"]]
        offset = page["next_offset"]
        pages += 1
    assert seen == ids
    assert pages == 3

    even = live.client.get(
        "/v1/minds/notes/memories", params={"tag": "even", "limit": 100}, headers=h
    ).json()
    assert len(even["items"]) == 4
    assert even["next_offset"] is None


def test_page_size_is_capped(live: Live, h: dict[str, str]) -> None:
    live.client.post("/v1/minds/notes/memories", json={"content": "x"}, headers=h)  # reads need a mind
    r = live.client.get("/v1/minds/notes/memories", params={"limit": 101}, headers=h)
    assert r.status_code == 422
    assert r.json()["error"]["code"] == "invalid_request"
    r = live.client.post("/v1/minds/notes/search", json={"query": "x", "limit": 1000}, headers=h)
    assert r.status_code == 422


def test_search_with_filter_preset_and_explanations(live: Live, h: dict[str, str]) -> None:
    target = _add(live, h, "Maya is allergic to penicillin.", memory_type="fact")
    _add(live, h, "The standup moved to 10am.", memory_type="event")
    r = live.client.post(
        "/v1/minds/notes/search", json={"query": "penicillin", "limit": 5}, headers=h
    )
    assert r.status_code == 200
    hits = r.json()["hits"]
    assert hits[0]["memory"]["id"] == target
    assert hits[0]["explanation"]
    assert hits[0]["mind"] == "notes"

    r = live.client.post(
        "/v1/minds/notes/search",
        json={"query": "penicillin", "filter": {"memory_types": ["event"]}},
        headers=h,
    )
    assert target not in [x["memory"]["id"] for x in r.json()["hits"]]

    r = live.client.post(
        "/v1/minds/notes/search",
        json={"query": "penicillin", "preset": "no-such-preset"},
        headers=h,
    )
    assert r.status_code == 422
    assert r.json()["error"]["code"] == "invalid_input"
    assert "preset" in r.json()["error"]["message"]


def test_prefetch_catch_up_feedback(live: Live, h: dict[str, str]) -> None:
    mid = _add(live, h, "Maya is allergic to penicillin.", importance="critical")
    r = live.client.post(
        "/v1/minds/notes/prefetch",
        json={"messages": ["We talked about Maya"], "current": "penicillin?"},
        headers=h,
    )
    assert r.status_code == 200
    assert mid in [x["memory"]["id"] for x in r.json()["hits"]]
    r = live.client.get("/v1/minds/notes/catch-up", params={"limit": 5}, headers=h)
    assert mid in [x["memory"]["id"] for x in r.json()["hits"]]
    r = live.client.get("/v1/minds/notes/catch-up", params={"topic": "penicillin"}, headers=h)
    assert r.status_code == 200 and r.json()["hits"][0]["memory"]["id"] == mid
    r = live.client.post("/v1/minds/notes/feedback", json={"ids": [mid], "useful": True}, headers=h)
    assert r.status_code == 200
    assert r.json()["items"][0]["usefulness"] > 0.5


def test_recall_across_minds_the_key_reaches(live: Live) -> None:
    h = live.key(tenant="acme")
    for name, text in (("personal", "I prefer green tea."), ("work", "The team prefers coffee.")):
        assert live.client.post("/v1/minds", json={"name": name}, headers=h).status_code == 201
        live.client.post(f"/v1/minds/{name}/memories", json={"content": text}, headers=h)
    r = live.client.post(
        "/v1/minds/personal/recall",
        json={"query": "prefers tea coffee", "minds": ["work"]},
        headers=h,
    )
    assert r.status_code == 200
    assert {x["mind"] for x in r.json()["hits"]} == {"personal", "work"}


def test_stats_and_minds(live: Live, h: dict[str, str]) -> None:
    _add(live, h, "one")
    st = live.client.get("/v1/minds/notes/stats", headers=h).json()
    assert st["memories"] == 1
    assert "path" not in st
    assert live.client.get("/v1/minds", headers=h).json() == {
        "minds": [{"name": "notes", "tenant": None}]
    }


def test_unknown_route_and_method_are_json(live: Live, h: dict[str, str]) -> None:
    r = live.client.get("/v1/nope", headers=h)
    assert r.status_code == 404
    assert r.json()["error"]["code"] == "not_found"
    r = live.client.put("/v1/minds/notes/search", headers=h)
    assert r.status_code == 405
    assert r.json()["error"]["code"] == "method_not_allowed"


def test_embedder_mismatch_is_409(tmp_path: Path) -> None:
    from salience import Config, Mind
    from salience.embed import HashEmbedder

    home = tmp_path / "home"
    with Mind.open("old", config=Config(home=home), embedder=HashEmbedder(64)) as m:
        m.add("built with a 64-dim embedder")
    with live_server(home) as srv:
        h = srv.key(mind="old")
        r = srv.client.post("/v1/minds/old/search", json={"query": "x"}, headers=h)
        assert r.status_code == 409
        assert r.json()["error"]["code"] == "embedder_mismatch"


def test_insecure_local_needs_no_key(tmp_path: Path) -> None:
    with live_server(tmp_path / "home", insecure_local=True) as srv:
        r = srv.client.post("/v1/minds/free/memories", json={"content": "no key needed"})
        assert r.status_code == 201
        assert srv.client.post("/v1/minds", json={"name": "other"}).status_code == 201
        r = srv.client.get("/v1/minds/..bad/stats")
        assert r.status_code == 422
        assert r.json()["error"]["code"] == "invalid_mind_name"
