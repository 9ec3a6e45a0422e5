"""`salience.aio.AsyncMind` with real asyncio: the same core, run in a bounded pool, never on
the event loop. No timings are asserted: the event loop's freedom is shown by a probe that runs
while searches are in flight, and by the thread every synchronous call ran on (the latency is
measured by bench/async_loop.py)."""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from salience import Config, Mind
from salience.aio import AsyncLayer, AsyncMind

N_SEARCHES = 200
WORKERS = 4


def _config(tmp_path: Path) -> Config:
    return Config(home=tmp_path / "home", embedder="hash")


class Spy:
    """Wraps a real `Mind` method: records the thread of each call and how many overlap."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.threads: set[int] = set()
        self.in_flight = 0
        self.max_in_flight = 0
        self.started = 0
        self.finished = 0
        self._lock = threading.Lock()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            self.threads.add(threading.get_ident())
            self.started += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return self.fn(*args, **kwargs)
        finally:
            with self._lock:
                self.in_flight -= 1
                self.finished += 1


def test_same_methods_as_mind(tmp_path: Path) -> None:
    """Every public method of `Mind` is a coroutine function on `AsyncMind`, every layer an
    async layer (explicitly wrapped or through the fallback that follows the facade)."""
    sync_only = {"embed_query", "embedder", "name", "open", "close", "store", "config", "clock"}
    names = [n for n in dir(Mind) if not n.startswith("_") and n not in sync_only]
    assert {"add", "search", "remember_turn", "awareness", "graph"} <= set(names)
    with Mind.open("p", config=_config(tmp_path)) as mind:
        amind = AsyncMind(mind)
        for n in names:
            attr = getattr(amind, n)
            if isinstance(inspect.getattr_static(Mind, n), property):
                assert isinstance(attr, AsyncLayer), n
            else:
                assert inspect.iscoroutinefunction(attr), n
        with pytest.raises(AttributeError):
            amind.no_such_method  # noqa: B018
        asyncio.run(amind.close())


def test_the_core_api_awaitable(tmp_path: Path) -> None:
    async def main() -> dict[str, Any]:
        async with await AsyncMind.open("a", config=_config(tmp_path)) as mind:
            mid = await mind.add("Maya is allergic to penicillin.", memory_type="fact")
            queued = await mind.remember_turn("I live in Leeds.")
            tick = await mind.heartbeat()
            item = await mind.awareness.add("Book Maya's flights")
            entity = await mind.graph.add_entity("Maya", "person")
            hits = await mind.search("penicillin")
            out = {
                "mid": mid, "queued": queued, "tick": tick, "item": item, "entity": entity,
                "hits": hits, "count": await mind.count(), "got": await mind.get(mid),
                "ctx": await mind.context("flights"), "inner": mind.mind,
            }
        out["closed_call"] = None
        try:
            await mind.count()
        except Exception as e:  # a closed AsyncMind refuses work
            out["closed_call"] = e
        return out

    out = asyncio.run(main())
    assert out["hits"][0].memory.id == out["mid"] and out["got"].id == out["mid"]
    assert isinstance(out["queued"], int) and out["tick"].ran
    assert out["count"] == 2  # the fact and the drained turn
    assert "Book Maya's flights" in out["ctx"].text
    assert out["entity"].name == "Maya"
    assert out["closed_call"] is not None
    with pytest.raises(Exception):  # noqa: B017 - the owned mind was closed with it
        out["inner"].count()


def test_concurrent_searches_never_run_on_the_event_loop(tmp_path: Path) -> None:
    with Mind.open("c", config=_config(tmp_path)) as mind:
        topics = [f"topic{i} keyword{i} fact number {i}" for i in range(N_SEARCHES)]
        ids = mind.add_many(topics)
        spy = Spy(mind.search)
        mind.search = spy  # type: ignore[method-assign]  # instrumented, still the real search
        seen_in_flight: list[int] = []

        async def probe(done: asyncio.Event) -> None:
            while not done.is_set():
                if spy.started > spy.finished:
                    seen_in_flight.append(spy.started - spy.finished)
                await asyncio.sleep(0)

        async def main() -> list[Any]:
            amind = AsyncMind(mind, max_workers=WORKERS)
            done = asyncio.Event()
            probing = asyncio.create_task(probe(done))
            try:
                return await asyncio.gather(
                    *(amind.search(f"keyword{i}", limit=1) for i in range(N_SEARCHES))
                )
            finally:
                done.set()
                await probing
                await amind.close()
                loop_threads.append(threading.get_ident())

        loop_threads: list[int] = []
        results = asyncio.run(main())

    assert [r[0].memory.id for r in results] == ids  # every answer is its own query's
    assert spy.started == spy.finished == N_SEARCHES
    assert loop_threads[0] not in spy.threads  # no search ran on the event loop's thread
    assert 1 <= len(spy.threads) <= WORKERS and spy.max_in_flight <= WORKERS  # bounded pool
    assert seen_in_flight  # the loop kept running while searches were in flight


def test_concurrent_writes_are_all_stored(tmp_path: Path) -> None:
    async def main() -> tuple[list[str], int]:
        async with await AsyncMind.open("w", config=_config(tmp_path), max_workers=8) as mind:
            ids = await asyncio.gather(*(mind.add(f"note {i} about item{i}") for i in range(60)))
            return list(ids), await mind.count()

    ids, count = asyncio.run(main())
    assert len(set(ids)) == 60 and count == 60


def test_context_variables_follow_the_call(tmp_path: Path) -> None:
    import contextvars

    var: contextvars.ContextVar[str] = contextvars.ContextVar("request", default="none")
    with Mind.open("v", config=_config(tmp_path)) as mind:
        seen: list[str] = []
        real = mind.count

        def count(*a: Any) -> int:
            seen.append(var.get())
            return real(*a)

        mind.count = count  # type: ignore[method-assign]

        async def main() -> None:
            amind = AsyncMind(mind)
            var.set("req-7")
            await amind.count()
            await amind.close()

        asyncio.run(main())
    assert seen == ["req-7"]


def test_http_routes_that_block_are_not_coroutines(tmp_path: Path) -> None:
    """FastAPI runs plain `def` routes in its thread pool; an `async def` route doing store or
    embedder work would block the server's event loop."""
    pytest.importorskip("fastapi")
    from fastapi.routing import APIRoute

    from salience.interfaces.http import create_app

    app = create_app(_config(tmp_path), insecure_local=True)
    routes = [r for r in app.routes if isinstance(r, APIRoute)]
    assert len(routes) > 20
    # the one async route reads the upload's body on the loop and imports in the pool
    assert [r.path for r in routes if inspect.iscoroutinefunction(r.endpoint)] == [
        "/v1/minds/{mind}/import/{kind}"
    ]
    app.state.pool.close()
    app.state.server_db.close()
