"""`AsyncMind`: the `Mind` facade for asyncio code, on the same synchronous core.

Every call runs the synchronous `Mind` method in a bounded thread pool (`max_workers`, 4 by
default), so the event loop never blocks on SQLite, PostgreSQL, an embedder or an LLM call;
the store serialises its own database access (one lock per store), so concurrent calls are
safe. Context variables (e.g. an OpenTelemetry span) follow each call into its thread.

>>> async with await AsyncMind.open("assistant") as mind:
...     await mind.add("Maya is allergic to penicillin.")
...     hits = await mind.search("what is Maya allergic to?")
...     await mind.awareness.add("Book Maya's flights")   # layers are async too

Design rule (style guide): one core, never two copies of a class — this module only wraps.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

from .errors import InvalidInput
from .mind import Mind
from .models import Memory, MemoryFilter, SearchHit

if TYPE_CHECKING:
    from .ingest.items import DrainReport, ImportReport, IngestResult
    from .layers.context import PromptContext
    from .maintenance import CognitiveReport, MaintenanceReport, TickReport
    from .search.config import SearchConfig
    from .transfer import TransferSummary

T = TypeVar("T")
DEFAULT_WORKERS = 4


class AsyncLayer:
    """An async view of a layer object (`identity`, `awareness`, `sessions`, `graph`,
    `profile`): each method call returns an awaitable run in the mind's pool."""

    def __init__(self, target: Any, run: Callable[..., Any]) -> None:
        self._target = target
        self._run = run

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._target, name)
        if not callable(attr):
            return attr

        @functools.wraps(attr)
        async def call(*args: Any, **kwargs: Any) -> Any:
            return await self._run(attr, *args, **kwargs)

        return call

    def __repr__(self) -> str:
        return f"AsyncLayer({self._target!r})"


class AsyncMind:
    """A `Mind` for asyncio: the same methods, awaitable (see the module docstring).

    Build it with `await AsyncMind.open(...)` or wrap an open mind: `AsyncMind(mind)`;
    `await close()` (or `async with`) waits for running calls, then closes the mind when this
    object opened it (or was given `owns=True`).
    """

    def __init__(
        self, mind: Mind, *, max_workers: int = DEFAULT_WORKERS, owns: bool = False
    ) -> None:
        if max_workers < 1:
            raise InvalidInput("max_workers must be at least 1")
        self.mind = mind
        self.max_workers = max_workers
        self._owns = owns
        self._pool = ThreadPoolExecutor(max_workers, thread_name_prefix=f"salience-{mind.name}")
        self._closed = False

    @classmethod
    async def open(
        cls, name_or_path: str | Path = "default", *, max_workers: int = DEFAULT_WORKERS,
        **kwargs: Any,
    ) -> AsyncMind:
        """`Mind.open(name_or_path, **kwargs)` off the event loop; the result owns the mind."""
        mind = await asyncio.to_thread(Mind.open, name_or_path, **kwargs)
        return cls(mind, max_workers=max_workers, owns=True)

    async def _run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        if self._closed:
            raise InvalidInput(f"AsyncMind {self.name!r} is closed")
        ctx = contextvars.copy_context()
        call = functools.partial(ctx.run, fn, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self._pool, call)

    # -- lifecycle ------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.mind.name

    async def close(self) -> None:
        """Wait for running calls, stop the pool and close the mind if this object owns it."""
        if self._closed:
            return
        self._closed = True
        await asyncio.to_thread(self._pool.shutdown, wait=True)
        if self._owns:
            await asyncio.to_thread(self.mind.close)

    async def __aenter__(self) -> AsyncMind:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"AsyncMind({self.name!r}, max_workers={self.max_workers})"

    # -- everything else: layers and methods added to `Mind` later --------------------------------
    def __getattr__(self, name: str) -> Any:
        """Any other public `Mind` attribute, async: a method becomes a coroutine function,
        a layer property (`identity`, `awareness`, `sessions`, `graph`, `profile`, ...) an
        `AsyncLayer`. Keeps parity with the facade as it grows."""
        static = None if name.startswith("_") else inspect.getattr_static(Mind, name, None)
        if static is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        if isinstance(static, property):
            return AsyncLayer(getattr(self.mind, name), self._run)
        attr = getattr(self.mind, name)
        if not callable(attr):
            return attr

        @functools.wraps(attr)
        async def call(*args: Any, **kwargs: Any) -> Any:
            return await self._run(attr, *args, **kwargs)

        return call

    # -- writing --------------------------------------------------------------------------------
    async def add(self, content: str | bytes, **kwargs: Any) -> str:
        """`Mind.add`: store one memory (direct save, contradiction check on)."""
        return await self._run(self.mind.add, content, **kwargs)

    async def add_many(self, items: Sequence[str | Mapping[str, Any]], **kwargs: Any) -> list[str]:
        """`Mind.add_many`: many memories, batched embedding, one transaction."""
        return await self._run(self.mind.add_many, list(items), **kwargs)

    async def get(self, memory_id: str) -> Memory:
        return await self._run(self.mind.get, memory_id)

    async def update(self, memory_id: str, **changes: Any) -> Memory:
        return await self._run(self.mind.update, memory_id, **changes)

    async def delete(self, memory_id: str) -> None:
        await self._run(self.mind.delete, memory_id)

    async def list(self, flt: MemoryFilter | None = None, **kwargs: Any) -> list[Memory]:
        return await self._run(self.mind.list, flt, **kwargs)

    async def count(self, flt: MemoryFilter | None = None) -> int:
        return await self._run(self.mind.count, flt)

    async def find_duplicate(self, content: str) -> str | None:
        return await self._run(self.mind.find_duplicate, content)

    async def history(self, memory_id: str) -> list[Memory]:
        return await self._run(self.mind.history, memory_id)

    # -- the agent path -------------------------------------------------------------------------
    async def remember_turn(
        self, user: str, assistant: str = "", **kwargs: Any
    ) -> int | IngestResult | None:
        """`Mind.remember_turn`: a conversation turn through triage (queued by default)."""
        return await self._run(self.mind.remember_turn, user, assistant, **kwargs)

    async def save_memory(self, content: str, **fields: Any) -> IngestResult:
        return await self._run(self.mind.save_memory, content, **fields)

    async def archive_context(
        self, messages: Sequence[str | Mapping[str, Any]], **kwargs: Any
    ) -> IngestResult:
        return await self._run(self.mind.archive_context, list(messages), **kwargs)

    async def drain_pending_triage(self, limit: int = 100) -> DrainReport:
        return await self._run(self.mind.drain_pending_triage, limit)

    async def queue_status(self) -> dict[str, Any]:
        return await self._run(self.mind.queue_status)

    async def retry_failed(self, ids: Sequence[int] | None = None) -> int:
        return await self._run(self.mind.retry_failed, ids)

    async def import_mbox(self, path: str | Path, **kwargs: Any) -> ImportReport:
        return await self._run(self.mind.import_mbox, path, **kwargs)

    async def import_ics(self, path: str | Path, **kwargs: Any) -> ImportReport:
        return await self._run(self.mind.import_ics, path, **kwargs)

    async def import_chat(self, path: str | Path, **kwargs: Any) -> ImportReport:
        return await self._run(self.mind.import_chat, path, **kwargs)

    # -- recall ---------------------------------------------------------------------------------
    async def search(
        self, query: str, *, limit: int = 10, flt: MemoryFilter | None = None,
        preset: str | SearchConfig | None = None, **kwargs: Any,
    ) -> list[SearchHit]:
        """`Mind.search`: hybrid search, best first."""
        return await self._run(
            self.mind.search, query, limit=limit, flt=flt, preset=preset, **kwargs
        )

    async def search_as_of(self, query: str, as_of: datetime, **kwargs: Any) -> list[SearchHit]:
        return await self._run(self.mind.search_as_of, query, as_of, **kwargs)

    async def recall(
        self, query: str, *, others: Sequence[Mind | AsyncMind] = (), limit: int = 10
    ) -> list[SearchHit]:
        minds = [o.mind if isinstance(o, AsyncMind) else o for o in others]
        return await self._run(self.mind.recall, query, others=minds, limit=limit)

    async def prefetch(self, messages: Sequence[str], current: str, **kwargs: Any) -> list[SearchHit]:
        return await self._run(self.mind.prefetch, list(messages), current, **kwargs)

    async def heartbeat_prefetch(self, task: str, *, limit: int = 3) -> list[SearchHit]:
        return await self._run(self.mind.heartbeat_prefetch, task, limit=limit)

    async def catch_up(self, *, limit: int = 10) -> list[SearchHit]:
        return await self._run(self.mind.catch_up, limit=limit)

    async def context(self, query: str | None = None, **kwargs: Any) -> PromptContext:
        return await self._run(self.mind.context, query, **kwargs)

    async def mark_useful(self, memory_ids: Sequence[str], useful: bool) -> list[Memory]:
        return await self._run(self.mind.mark_useful, list(memory_ids), useful)

    async def evaluate_usefulness(
        self, response: str, prefetched: Sequence[SearchHit | Memory]
    ) -> dict[str, bool]:
        return await self._run(self.mind.evaluate_usefulness, response, list(prefetched))

    # -- maintenance, transfer ------------------------------------------------------------------
    async def heartbeat(self) -> TickReport:
        return await self._run(self.mind.heartbeat)

    async def maintain(self, *, dry_run: bool = False) -> MaintenanceReport:
        return await self._run(self.mind.maintain, dry_run=dry_run)

    async def cognitive_run(self, *, reason: str = "explicit") -> CognitiveReport:
        return await self._run(self.mind.cognitive_run, reason=reason)

    async def stats(self) -> dict[str, Any]:
        return await self._run(self.mind.stats)

    async def export(self, dest: str | Path | IO[str], **kwargs: Any) -> TransferSummary:
        return await self._run(self.mind.export, dest, **kwargs)

    async def restore(self, src: str | Path | IO[str], **kwargs: Any) -> TransferSummary:
        return await self._run(self.mind.restore, src, **kwargs)


__all__ = ["AsyncLayer", "AsyncMind"]
