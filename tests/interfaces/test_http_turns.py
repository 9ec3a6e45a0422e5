"""The agent path over loopback HTTP: `POST …/turns` (triaged, queued) and `POST …/heartbeat`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_http_live import Live, live_server


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    with live_server(tmp_path / "home") as srv:
        yield srv


def test_deferred_turn_is_queued_then_drained_by_the_heartbeat(live: Live) -> None:
    h = live.key(mind="m")
    r = live.client.post(
        "/v1/minds/m/turns",
        json={"user": "My sister Maya is allergic to penicillin.", "metadata": {"msg": "42"}},
        headers=h,
    )
    assert r.status_code == 202, r.text
    assert isinstance(r.json()["queued"], int)
    assert live.client.get("/v1/minds/m/queue", headers=h).json()["pending_triage"] == 1
    assert live.client.get("/v1/minds/m/memories", headers=h).json()["items"] == []

    tick = live.client.post("/v1/minds/m/heartbeat", headers=h)
    assert tick.status_code == 200, tick.text
    drain = next(s for s in tick.json()["steps"] if s["name"] == "drain")
    assert drain["detail"]["saved"] == 1
    items = live.client.get("/v1/minds/m/memories", headers=h).json()["items"]
    assert [i["content"] for i in items] == ["User: My sister Maya is allergic to penicillin."]
    assert items[0]["metadata"]["msg"] == "42"


def test_immediate_turns_are_triaged_and_checked_for_contradictions(live: Live) -> None:
    h = live.key(mind="m")
    first = live.client.post(
        "/v1/minds/m/turns", json={"user": "I live in Leeds.", "defer": False}, headers=h
    )
    assert first.status_code == 201, first.text
    old_id = first.json()["result"]["saved"][0]
    moved = live.client.post(
        "/v1/minds/m/turns",
        json={"user": "I moved to Lisbon last month.", "assistant": "Noted.", "defer": False},
        headers=h,
    ).json()["result"]
    assert moved["superseded"] == [old_id]  # the contradiction check ran
    small_talk = live.client.post(
        "/v1/minds/m/turns", json={"user": "thanks!", "defer": False}, headers=h
    ).json()["result"]
    assert small_talk["saved"] == [] and small_talk["skipped"] == "noise"  # admission ran
    chain = live.client.get(f"/v1/minds/m/memories/{old_id}/history", headers=h).json()
    assert [c["id"] for c in chain["items"]] == [old_id, moved["saved"][0]]


def test_turn_validation_and_scope(live: Live) -> None:
    h = live.key(mind="m")
    bad = live.client.post(
        "/v1/minds/m/turns", json={"user": "hi", "speaker": "Assistant"}, headers=h
    )
    assert bad.status_code == 422
    assert live.client.post("/v1/minds/m/turns", json={"user": ""}, headers=h).status_code == 422
    ro = live.key("read", mind="m")
    r = live.client.post("/v1/minds/m/turns", json={"user": "I like tea."}, headers=ro)
    assert r.status_code == 403
    assert live.client.post("/v1/minds/m/heartbeat", headers=ro).status_code == 403


CHAT = "\n".join([
    '{"role": "user", "content": "My sister Maya is allergic to penicillin."}',
    '{"role": "assistant", "content": "I will remember that."}',
    '{"role": "user", "content": "I moved to Lisbon last month."}',
    '{"role": "assistant", "content": "Noted."}',
])


def test_import_uploads(live: Live) -> None:
    h = live.key(mind="m")
    r = live.client.post("/v1/minds/m/import/chat?filename=chat.jsonl", content=CHAT, headers=h)
    assert r.status_code == 200, r.text
    assert r.json()["items"] == 2 and r.json()["saved"] == 2
    again = live.client.post("/v1/minds/m/import/chat?filename=chat.jsonl", content=CHAT, headers=h)
    assert again.json()["already_imported"] == 2  # the same name: incremental
    hits = live.client.post("/v1/minds/m/search", json={"query": "penicillin"}, headers=h).json()
    assert "penicillin" in hits["hits"][0]["memory"]["content"]
    mem0 = '{"results": [{"id": "x1", "memory": "Prefers window seats", "user_id": "ana"}]}'
    r = live.client.post("/v1/minds/m/import/mem0", content=mem0, headers=h)
    assert r.json() == {"kind": "mem0", "records": 1, "imported": 1, "already_imported": 0,
                        "invalid": 0}
    uploads = live.config.home / "uploads" / "m"
    assert list(uploads.iterdir()) == []  # nothing left on disk
    for bad in [("pdf", CHAT, ""), ("chat", "  ", ""), ("chat", CHAT, "?filename=../x"),
                ("mem0", "{nope", ""), ("chat", "not json at all", "")]:
        r = live.client.post(f"/v1/minds/m/import/{bad[0]}{bad[2]}", content=bad[1], headers=h)
        assert r.status_code == 422, (bad, r.text)
    ro = live.key("read", mind="m")
    assert live.client.post("/v1/minds/m/import/chat", content=CHAT, headers=ro).status_code == 403


def test_import_body_limit(tmp_path: Path) -> None:
    with live_server(tmp_path / "home", max_body_bytes=1000) as srv:
        h = srv.key(mind="m")
        r = srv.client.post("/v1/minds/m/import/chat", content=CHAT * 10, headers=h)
        assert r.status_code == 413


def test_delete_every_memory_needs_confirmation(live: Live) -> None:
    h = live.key(mind="m")
    live.client.post("/v1/minds/m/turns", json={"user": "I live in Leeds.", "defer": False}, headers=h)
    live.client.post("/v1/minds/m/turns", json={"user": "I moved to Lisbon.", "defer": False}, headers=h)
    live.client.post("/v1/minds/m/memories/batch", json={"items": [{"content": f"n{i}"} for i in range(5)]},
                     headers=h)
    assert live.client.delete("/v1/minds/m/memories", headers=h).status_code == 422
    assert live.client.delete("/v1/minds/m/memories?confirm=other", headers=h).status_code == 422
    r = live.client.delete("/v1/minds/m/memories?confirm=m", headers=h)
    assert r.status_code == 200 and r.json() == {"deleted": 7}  # the superseded one too
    assert live.client.get("/v1/minds/m/stats", headers=h).json()["memories"] == 0
    hits = live.client.post("/v1/minds/m/search", json={"query": "Lisbon"}, headers=h).json()
    assert hits["hits"] == []
    ro = live.key("read", mind="m")
    assert live.client.delete("/v1/minds/m/memories?confirm=m", headers=ro).status_code == 403
