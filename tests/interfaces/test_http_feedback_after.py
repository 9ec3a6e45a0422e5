"""The HTTP search, prefetch and recall routes answer first and record its retrieval feedback after the response,
in the same process (issue 21 item 1): over loopback HTTP, with the mind's
`record_retrievals` held at a gate, the response arrives while the bump is not written; the
bump lands once the gate opens. A drop or shutdown of the mind meanwhile raises nothing: a
write already running is waited for, one not started is skipped."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_http_live import serve

from salience.clock import FrozenClock
from salience.config import Config
from salience.interfaces.auth import ServerDB
from salience.interfaces.http import create_app
from salience.interfaces.http_pool import MindPool

GATE_S = 20.0  # how long a held write waits for the test before going on (a deadlock guard)


@contextmanager
def server(home: Path) -> Iterator[tuple[Any, httpx.Client, dict[str, str]]]:
    """A served app with mind `m` of tenant `t` holding one memory, a client and a write key."""
    db = ServerDB.at_home(home, clock=FrozenClock())
    app = create_app(Config(home=home, embedder="hash"), server_db=db)
    key, _ = db.create_key(scope="write", tenant="t")
    h = {"Authorization": f"Bearer {key}"}
    try:
        with serve(app) as url, httpx.Client(base_url=url, timeout=60) as client:
            assert client.post("/v1/minds", json={"name": "m"}, headers=h).status_code == 201
            r = client.post("/v1/minds/m/memories", headers=h,
                            json={"content": "Maya is allergic to penicillin", "salience": 2.0})
            assert r.status_code == 201
            yield app, client, h
    finally:
        db.close()


class Gate:
    """Holds the pooled mind's `store.record_retrievals` until `open()`; records what the
    real call returned or raised."""

    def __init__(self, store: Any) -> None:
        self.entered, self.opened, self.done = threading.Event(), threading.Event(), threading.Event()
        self.results: list[Any] = []
        real = store.record_retrievals

        def held(*args: Any, **kw: Any) -> int:
            self.entered.set()
            self.opened.wait(GATE_S)
            try:
                out = real(*args, **kw)
                self.results.append(out)
                return int(out)
            except BaseException as e:
                self.results.append(e)
                raise
            finally:
                self.done.set()

        store.record_retrievals = held

    def open(self) -> None:
        self.opened.set()


def _memory(client: httpx.Client, h: dict[str, str], mind: str = "m") -> dict[str, Any]:
    items = client.get(f"/v1/minds/{mind}/memories", headers=h).json()["items"]
    assert len(items) == 1
    return dict(items[0])


def _search(client: httpx.Client, h: dict[str, str]) -> None:
    r = client.post("/v1/minds/m/search", json={"query": "penicillin allergy"}, headers=h)
    assert r.status_code == 200 and len(r.json()["hits"]) == 1, r.text


def test_the_bump_is_written_after_the_response(tmp_path: Path) -> None:
    with server(tmp_path / "home") as (app, client, h):
        pool: MindPool = app.state.pool
        gate = Gate(pool.get("m", "t").store)
        _search(client, h)
        # the response is here and the write is still held: it was not on the hot path
        assert not gate.done.is_set()
        before = _memory(client, h)
        assert before["retrieval_count"] == 0 and before["salience"] == 2.0
        gate.open()
        assert pool.settle(60)
        assert gate.results == [1]
        after = _memory(client, h)
        assert after["retrieval_count"] == 1 and after["salience"] > 2.0
        assert after["last_retrieved_at"] is not None
        # feedback=false schedules nothing
        r = client.post("/v1/minds/m/search", json={"query": "penicillin", "feedback": False},
                        headers=h)
        assert r.status_code == 200 and pool.settle(60)
        assert _memory(client, h)["retrieval_count"] == 1


@pytest.mark.parametrize("route", ["prefetch", "recall"])
def test_prefetch_and_recall_answer_before_their_bumps(tmp_path: Path, route: str) -> None:
    """Prefetch and multi-mind recall answer first too: the response arrives while every
    searched mind's bump is held at its gate; each mind's hits are bumped once it opens (a
    read key's call schedules nothing)."""
    with server(tmp_path / "home") as (app, client, h):
        pool: MindPool = app.state.pool
        assert client.post("/v1/minds", json={"name": "w"}, headers=h).status_code == 201
        r = client.post("/v1/minds/w/memories", headers=h,
                        json={"content": "Maya's penicillin allergy is on file", "salience": 2.0})
        assert r.status_code == 201
        minds = ["m", "w"] if route == "recall" else ["m"]
        gates = [Gate(pool.get(n, "t").store) for n in minds]
        body: dict[str, Any] = (
            {"query": "penicillin allergy", "minds": ["w"]} if route == "recall"
            else {"messages": ["planning Maya's trip"], "current": "penicillin allergy?"}
        )
        r = client.post(f"/v1/minds/m/{route}", json=body, headers=h)
        assert r.status_code == 200 and len(r.json()["hits"]) == len(minds), r.text
        # the response is here and no mind's write has run: none was on the hot path
        assert not any(g.done.is_set() for g in gates)
        assert all(_memory(client, h, n)["retrieval_count"] == 0 for n in minds)
        for g in gates:
            g.open()
        assert pool.settle(60)
        assert [g.results for g in gates] == [[1]] * len(minds)
        for n in minds:
            after = _memory(client, h, n)
            assert after["retrieval_count"] == 1 and after["salience"] > 2.0, n
        # a read key's prefetch / recall records nothing
        db: ServerDB = app.state.server_db
        read, _ = db.create_key(scope="read", tenant="t")
        rh = {"Authorization": f"Bearer {read}"}
        assert client.post(f"/v1/minds/m/{route}", json=body, headers=rh).status_code == 200
        assert pool.settle(60)
        assert all(_memory(client, h, n)["retrieval_count"] == 1 for n in minds)


def _wait_for(flag: Any) -> None:
    """Wait until `flag()` (a state change of another thread; a deadlock guard, no timing)."""
    deadline = time.monotonic() + 60
    while not flag():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.005)


@pytest.mark.parametrize("how", ["drop", "shutdown"])
def test_a_drop_or_shutdown_during_the_write_raises_nothing(
    tmp_path: Path, how: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Over HTTP: the write is running (held at the gate) when the mind is dropped or the pool
    closed. FastAPI >= 0.118 ends a request's dependencies (the mind's lease) after its
    background tasks, so the drop is refused (409, retry) — older versions end the lease at
    the response, then the drop waits for the write — and a shutdown waits for it."""
    caplog.set_level(logging.WARNING)
    with server(tmp_path / "home") as (app, client, h):
        pool: MindPool = app.state.pool
        gate = Gate(pool.get("m", "t").store)
        _search(client, h)
        assert gate.entered.wait(60)  # the after-response write is running, held at the gate
        out: list[Any] = []
        if how == "drop":
            t = threading.Thread(target=lambda: out.append(
                client.delete("/v1/minds/m", params={"confirm": "m"}, headers=h)))
            t.start()
            _wait_for(lambda: out or "m" in pool._dropping)
        else:
            t = threading.Thread(target=lambda: out.append(pool.close()))
            t.start()
            _wait_for(lambda: pool._closed)
        gate.open()  # the drop / close has begun: it must not pull the mind from the write
        t.join(60)
        assert not t.is_alive() and pool.settle(60)
        assert gate.results == [1]  # the write ran on the open mind
        if how == "drop":
            assert out[0].status_code in (200, 409), out[0].text
            if out[0].status_code == 409:  # refused while in use: the client retries, as told;
                # the request's lease ends after its response, so a retry may still meet it
                retried: list[Any] = []
                _wait_for(lambda: retried.append(client.delete(
                    "/v1/minds/m", params={"confirm": "m"}, headers=h)) or (
                        retried[-1].status_code != 409))
                assert retried[-1].status_code == 200, retried[-1].text
            assert client.get("/v1/minds/m/stats", headers=h).status_code in (403, 404)  # gone
    assert not [r for r in caplog.records if "after-response" in r.getMessage()]


@pytest.mark.parametrize("how", ["drop", "close"])
def test_the_pool_waits_for_a_running_write(tmp_path: Path, how: str) -> None:
    """The pool's side, whatever the framework does with the lease: a write scheduled in a
    lease and running after it ended holds `dropping` / `close` until it is done."""
    with server(tmp_path / "home") as (app, _client, _h):
        pool: MindPool = app.state.pool
        with pool.lease("m", "t") as mind:
            ids = [r.id for r in mind.list()]
            gate = Gate(mind.store)
            later = pool.after_response(
                "m", mind, lambda m: m.store.record_retrievals(ids, mind.clock.now(), boost=0.3))
        writer = threading.Thread(target=later)
        writer.start()
        assert gate.entered.wait(60)
        if how == "drop":
            def drop() -> None:
                with pool.dropping("m"):
                    pass
            t = threading.Thread(target=drop)
            t.start()
            _wait_for(lambda: "m" in pool._dropping)
        else:
            t = threading.Thread(target=pool.close)
            t.start()
            _wait_for(lambda: pool._closed)
        assert not gate.done.is_set()
        gate.open()
        t.join(60)
        writer.join(60)
        assert not t.is_alive() and not writer.is_alive()
        assert gate.results == [1]  # the real call returned on the open store: it was not closed
        assert pool.open_count() == 0


def test_a_write_not_started_before_a_drop_is_skipped(tmp_path: Path) -> None:
    """Scheduled inside a request, run after the mind was dropped: nothing written, nothing
    raised (a lost bump, never a lost memory)."""
    with server(tmp_path / "home") as (app, client, h):
        pool: MindPool = app.state.pool
        with pool.lease("m", "t") as mind:
            calls: list[Any] = []
            later = pool.after_response("m", mind, calls.append)
        assert client.delete("/v1/minds/m", params={"confirm": "m"}, headers=h).status_code == 200
        later()
        assert calls == [] and pool.settle(60)
        # a task collected unrun does not keep the mind from being evicted or the pool settled
        with pool.lease("m", "t") as mind:
            pool.after_response("m", mind, calls.append)  # dropped unrun
        assert pool.settle(60) and calls == []
