"""Issue 17 item 7 over real HTTP: hostile values are typed 4xx (never a 500 or a dropped
connection), storage failures are typed 503 without server paths, and the mind stays readable.
Also a full disk on the SDK (SQLite `max_page_count`): a typed `StoreError` naming the reason."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "interfaces"))
from test_http_live import Live, live_server

from salience.config import Config
from salience.errors import StoreError
from salience.mind import Mind

RAW_SURROGATE = b'{"content": "ok", "summary": "bad \\ud800 summary"}'
RAW_META_SURROGATE = b'{"content": "ok", "metadata": {"k": "\\udfff"}}'
RAW_KEY_SURROGATE = b'{"content": "ok", "metadata": {"\\ud83d": 1}}'
DEEP = b'{"content": "ok", "metadata": ' + b'{"a": ' * 300 + b"1" + b"}" * 300 + b"}"
YEAR0 = "0001-01-01T00:30:00+05:00"
YEAR10000 = "9999-12-31T23:00:00-05:00"


def _still_fine(live: Live, h: dict[str, str], n: int, mind: str = "m") -> None:
    r = live.client.get(f"/v1/minds/{mind}/memories", params={"limit": 50}, headers=h)
    assert r.status_code == 200, r.text
    assert len(r.json()["items"]) == n
    r = live.client.post(f"/v1/minds/{mind}/search", json={"query": "garden"}, headers=h)
    assert r.status_code == 200, r.text
    assert live.client.get(f"/v1/minds/{mind}/catch-up", headers=h).status_code == 200


def test_hostile_values_are_4xx_and_the_mind_stays_readable(tmp_path: Path) -> None:
    with live_server(tmp_path / "home") as live:
        h = live.key(mind="m")
        r = live.client.post("/v1/minds/m/memories", json={"content": "the garden"}, headers=h)
        assert r.status_code == 201
        mid = r.json()["id"]
        json_h = {**h, "content-type": "application/json"}
        for body in (RAW_SURROGATE, RAW_META_SURROGATE, RAW_KEY_SURROGATE, DEEP):
            r = live.client.post("/v1/minds/m/memories", content=body, headers=json_h)
            assert 400 <= r.status_code < 500, (body[:60], r.status_code, r.text)
            r = live.client.patch(f"/v1/minds/m/memories/{mid}", content=body, headers=json_h)
            assert 400 <= r.status_code < 500, (body[:60], r.status_code, r.text)
        for when in (YEAR0, YEAR10000):
            r = live.client.post(
                "/v1/minds/m/memories", json={"content": "x", "occurred_at": when}, headers=h
            )
            assert r.status_code == 422, (when, r.text)
            for key in ("since", "until"):
                r = live.client.post(
                    "/v1/minds/m/search",
                    json={"query": "garden", "filter": {key: when}},
                    headers=h,
                )
                assert r.status_code == 422, (key, when, r.text)
        r = live.client.post(
            "/v1/minds/m/memories/batch",
            json={"items": [{"content": "fine"}, {"content": "x", "occurred_at": YEAR0}]},
            headers=h,
        )
        assert r.status_code == 422, r.text
        _still_fine(live, h, 1)


def test_a_bad_row_written_around_validation_reads_over_http(
    backend_config: Config, tmp_path: Path
) -> None:
    """Issue 17 item 2 (a), (c) over HTTP, SQLite and PostgreSQL: a row 300 levels deep in
    metadata and retrieved in year 9999 (an older version, a hand edit) is in the mind; its
    list page, the row itself, search and catch-up answer 200, and maintenance runs (before
    the fix: 500 `Maximum serialization depth exceeded`, and `OverflowError`)."""
    import uuid
    from datetime import UTC, datetime

    from salience.models import Memory

    name = f"bad{uuid.uuid4().hex[:8]}"
    kw = {"backend": backend_config.backend, "dsn": backend_config.dsn}
    deep: dict = {"leaf": 1}
    for _ in range(300):
        deep = {"k": deep}
    try:
        with live_server(tmp_path / "home", config=kw) as live:
            h = live.key(mind=name)
            for i in range(3):
                r = live.client.post(f"/v1/minds/{name}/memories",
                                     json={"content": f"the garden bed {i}"}, headers=h)
                assert r.status_code == 201, r.text
            m = live.app.state.pool.get(name, None)  # the served mind (no request meanwhile)
            now = m.clock.now()
            bad = Memory(content="a bad row about the garden", created_at=now, updated_at=now,
                         metadata=deep,
                         last_retrieved_at=datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC))
            m.store.insert([bad], m.embedder.embed_passages([bad.content]))
            m.maintain()  # before any search could rewrite last_retrieved_at
            _still_fine(live, h, 4, name)
            r = live.client.get(f"/v1/minds/{name}/memories/{bad.id}", headers=h)
            assert r.status_code == 200, r.text
    finally:
        if backend_config.backend == "postgres":
            with Mind.open(name, config=backend_config) as mind:
                mind.store.drop_mind()  # type: ignore[attr-defined]


def test_a_locked_database_is_503_without_server_paths(tmp_path: Path) -> None:
    with live_server(tmp_path / "home", config={"sqlite_busy_timeout_ms": 50}) as live:
        h = live.key(mind="m")
        assert live.client.post(
            "/v1/minds/m/memories", json={"content": "the garden"}, headers=h
        ).status_code == 201
        blocker = sqlite3.connect(live.config.home / "minds" / "m.db", isolation_level=None)
        blocker.execute("BEGIN EXCLUSIVE")
        try:
            r = live.client.post("/v1/minds/m/memories", json={"content": "blocked"}, headers=h)
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        assert r.status_code == 503, r.text
        assert r.json()["error"]["code"] == "store_error"
        message = r.json()["error"]["message"]
        assert str(tmp_path) not in message and "/minds/" not in message, message
        assert "m.db" in message
        _still_fine(live, h, 1)


def test_a_full_disk_is_a_typed_store_error(tmp_path: Path) -> None:
    config = Config(home=tmp_path / "home", embedder="hash")
    with Mind.open("full", config=config) as m:
        first = m.add("the garden before the disk filled")
        db = m.store._db  # type: ignore[attr-defined]
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages + 2}")
        with pytest.raises(StoreError, match="full"):
            m.add_many([f"item {i} " + "x" * 3000 for i in range(40)])
        assert [r.id for r in m.list()] == [first]
        assert m.search("garden")
        db.execute("PRAGMA max_page_count = 1073741823")
        m.add("room again")
        assert m.count() == 2
