"""`MindPool`: one open `Mind` per mind name for a server process (opened lazily, closed on
shutdown, thread-safe). Minds of a tenant get the tenant's tier-restricted, quota-counting
embedder; other minds share the server's embedder.

At most `config.server_max_open_minds` minds stay open: past that, the least recently used
mind that no request is using is closed (it reopens on its next request), so a tenant who
creates many minds cannot exhaust the server's file descriptors or connections.

Work a request leaves for after its response (`after_response`: the search route's retrieval
feedback) keeps the mind open too — a mind with such a write pending is never evicted — and
runs only on the mind it was scheduled for: a write that finds its mind dropped, evicted or
the pool closed is skipped (a lost retrieval bump, never a lost memory), and `dropping` and
`close` wait for a write already running before they close the mind.
"""

from __future__ import annotations

import functools
import logging
import threading
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..config import Config

if TYPE_CHECKING:
    from ..embed.base import Embedder
    from ..mind import Mind
    from .auth import ServerDB

log = logging.getLogger(__name__)
AFTER_RESPONSE_WAIT_S = 30.0  # how long a drop or shutdown waits for a running after-response write


class MindPool:
    """Open minds by name, at most one `Mind` per name."""

    def __init__(self, config: Config, db: ServerDB, *, max_open: int | None = None) -> None:
        self.config = config
        self.db = db
        self.max_open = max_open or config.server_max_open_minds
        self._minds: OrderedDict[str, Mind] = OrderedDict()  # least recently used first
        self._leases: dict[str, int] = {}  # requests using each mind now
        self._embedders: dict[str, Embedder] = {}  # by tier name; "" = no tenant
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)  # notified when an after-response write ends
        self._closed = False
        self._dropping: set[str] = set()  # minds being dropped now (see `dropping`)
        self._after: dict[str, int] = {}  # after-response writes scheduled, not yet started
        self._writing: dict[str, int] = {}  # after-response writes running now
        self._unrun: deque[tuple[str, list[bool]]] = deque()  # collected unrun (see after_response)

    def get(self, name: str, tenant: str | None, *, create: bool = True) -> Mind:
        """The open mind called `name` (opening it on first use; creating it only if `create`:
        readers pass False, so a typo is `MindNotFound`, not a new empty mind).

        `tenant` is the mind's owner from the registry: its tier decides the embedder and its
        quota is counted. Raises what `Mind.open` raises, and `TierError`.
        """
        return self._get(name, tenant, create=create, lease=False)

    @contextmanager
    def lease(self, name: str, tenant: str | None, *, create: bool = True) -> Iterator[Mind]:
        """`get`, holding the mind open (never evicted) until the block ends."""
        mind = self._get(name, tenant, create=create, lease=True)
        try:
            yield mind
        finally:
            with self._lock:
                _decrement(self._leases, name)
                idle = self._evict_locked()
            _close_all(idle)

    def after_response(
        self, name: str, mind: Mind, write: Callable[[Mind], object]
    ) -> Callable[[], None]:
        """Schedule `write(mind)` for after the response of a request holding a lease on
        `name` (call it inside the lease); returns the callable to run then (a Starlette
        background task). Until it has run, the pool does not evict the mind. It runs only if
        the pool still holds this same `mind` open — not after a drop, an eviction or `close`
        — and never raises: a failure is logged (the write is lost, the response was sent).
        A task that is dropped unrun (the response failed) is unscheduled when collected."""
        pending = [True]
        with self._lock:
            self._after[name] = self._after.get(name, 0) + 1

        def run() -> None:
            with self._lock:
                self._unschedule_locked(name, pending)
                live = (
                    not self._closed
                    and name not in self._dropping
                    and self._minds.get(name) is mind
                )
                if live:
                    self._writing[name] = self._writing.get(name, 0) + 1
            if not live:
                log.info("mind %r was closed before its after-response write: skipped", name)
                return
            try:
                write(mind)
            except Exception as e:  # the response is gone: log, never raise into the server
                log.warning("after-response write to mind %r failed: %s", name, e)
            finally:
                with self._lock:
                    _decrement(self._writing, name)
                    self._idle.notify_all()
                    idle = self._evict_locked()
                _close_all(idle)

        # a task dropped unrun (its request cancelled) must not pin the mind forever; the
        # finalizer only appends (it may run inside any locked section): drained under the lock
        weakref.finalize(run, self._unrun.append, (name, pending))
        return run

    def _unschedule_locked(self, name: str, pending: list[bool]) -> None:
        if pending[0]:
            pending[0] = False
            _decrement(self._after, name)
            self._idle.notify_all()

    def _drain_unrun_locked(self) -> None:
        while self._unrun:
            self._unschedule_locked(*self._unrun.popleft())

    def settle(self, timeout: float | None = None) -> bool:
        """Wait until no after-response write is scheduled or running; False on timeout."""
        with self._lock:
            return self._idle.wait_for(self._idle_locked, timeout)

    def _idle_locked(self) -> bool:
        self._drain_unrun_locked()
        return not self._after and not self._writing

    @contextmanager
    def dropping(self, name: str) -> Iterator[None]:
        """Close mind `name` and keep it closed while the block deletes its storage: requests
        for it meanwhile fail with `ConflictError`. Raises `ConflictError` when a request is
        using the mind now (the caller must not hold a lease on it). An after-response write
        to it that is running is waited for; one not started yet is skipped."""
        from ..errors import ConflictError

        with self._lock:
            if name in self._leases or name in self._dropping:
                raise ConflictError(f"mind {name!r} is in use; retry the drop")
            self._dropping.add(name)
            self._idle.wait_for(lambda: not self._writing.get(name), AFTER_RESPONSE_WAIT_S)
            mind = self._minds.pop(name, None)
        try:
            if mind is not None:
                mind.close()
            yield
        finally:
            with self._lock:
                self._dropping.discard(name)

    def open_count(self) -> int:
        """How many minds are open now."""
        return len(self._minds)

    def _get(self, name: str, tenant: str | None, *, create: bool, lease: bool) -> Mind:
        with self._lock:
            if self._closed:
                from ..errors import StoreError

                raise StoreError("the server is shutting down")
            if name in self._dropping:
                from ..errors import ConflictError

                raise ConflictError(f"mind {name!r} is being dropped")
            mind = self._minds.get(name)
            if mind is None:
                from ..mind import Mind

                mind = Mind.open(
                    name, config=self.config, embedder=self._embedder(tenant), create=create
                )
                self._minds[name] = mind
            self._minds.move_to_end(name)
            if lease:
                self._leases[name] = self._leases.get(name, 0) + 1
            idle = self._evict_locked()
        _close_all(idle)
        return mind

    def _evict_locked(self) -> list[Mind]:
        """Remove least recently used minds no request holds, down to `max_open`; the caller
        closes them after releasing the lock."""
        self._drain_unrun_locked()
        out: list[Mind] = []
        for name in list(self._minds):
            if len(self._minds) - len(out) <= self.max_open:
                break
            busy = name in self._leases or name in self._after or name in self._writing
            if not busy and name != next(reversed(self._minds)):
                out.append(self._minds.pop(name))
        return out

    def _embedder(self, tenant: str | None) -> Embedder:
        from .quotas import QuotaEmbedder, get_tier, tier_embedder

        if tenant is None:
            base = self._embedders.get("")
            if base is None:
                from ..embed import make_embedder

                base = self._embedders[""] = make_embedder(self.config)
            return base
        tier = get_tier(self.db.tenant(tenant).tier)
        base = self._embedders.get(tier.name)
        if base is None:
            base = self._embedders[tier.name] = tier_embedder(self.config, tier)
        return QuotaEmbedder(base, self.db, tenant)

    def close(self) -> None:
        """Close every open mind and embedder; later `get` calls fail. After-response writes
        not started yet are skipped; running ones are waited for."""
        with self._lock:
            self._closed = True
            self._idle.wait_for(lambda: not self._writing, AFTER_RESPONSE_WAIT_S)
            minds, self._minds = list(self._minds.values()), OrderedDict()
            embedders, self._embedders = list(self._embedders.values()), {}
        for m in minds:
            m.close()
        for e in embedders:
            close = getattr(e, "close", None)
            if callable(close):
                close()


def _decrement(counts: dict[str, int], name: str) -> None:
    counts[name] -= 1
    if not counts[name]:
        del counts[name]


def _close_all(minds: list[Mind]) -> None:
    for m in minds:
        m.close()


class ReadOnlyMind:
    """What a read-scope API key holds: the pooled `Mind`, with every method call run inside
    `feedback_suppressed()` (its searches, prefetches, catch-ups and recalls record no
    retrievals, so a read key cannot keep a memory from decaying or being pruned), and
    `context()` showing improvement signals without marking them surfaced (a read key cannot
    hide a signal from the next writer's prompt)."""

    def __init__(self, mind: Mind) -> None:
        self._mind = mind

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._mind, name)
        if not callable(attr) or isinstance(attr, type):
            return attr

        @functools.wraps(attr)
        def call(*args: Any, **kwargs: Any) -> Any:
            from ..search.feedback import feedback_suppressed

            if name == "context":
                kwargs["surface_signals"] = False
            with feedback_suppressed():
                return attr(*args, **kwargs)

        return call


def read_only(mind: Mind) -> Mind:
    """`mind` as a read-scope caller sees it (see `ReadOnlyMind`)."""
    return ReadOnlyMind(mind)  # type: ignore[return-value]
