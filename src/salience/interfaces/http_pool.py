"""`MindPool`: one open `Mind` per mind name for a server process (opened lazily, closed on
shutdown, thread-safe). Minds of a tenant get the tenant's tier-restricted, quota-counting
embedder; other minds share the server's embedder.

At most `config.server_max_open_minds` minds stay open: past that, the least recently used
mind that no request is using is closed (it reopens on its next request), so a tenant who
creates many minds cannot exhaust the server's file descriptors or connections.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..config import Config

if TYPE_CHECKING:
    from ..embed.base import Embedder
    from ..mind import Mind
    from .auth import ServerDB


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
        self._closed = False
        self._dropping: set[str] = set()  # minds being dropped now (see `dropping`)

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
                self._leases[name] -= 1
                if not self._leases[name]:
                    del self._leases[name]
                idle = self._evict_locked()
            _close_all(idle)

    @contextmanager
    def dropping(self, name: str) -> Iterator[None]:
        """Close mind `name` and keep it closed while the block deletes its storage: requests
        for it meanwhile fail with `ConflictError`. Raises `ConflictError` when a request is
        using the mind now (the caller must not hold a lease on it)."""
        from ..errors import ConflictError

        with self._lock:
            if name in self._leases or name in self._dropping:
                raise ConflictError(f"mind {name!r} is in use; retry the drop")
            self._dropping.add(name)
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
        out: list[Mind] = []
        for name in list(self._minds):
            if len(self._minds) - len(out) <= self.max_open:
                break
            if name not in self._leases and name != next(reversed(self._minds)):
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
        """Close every open mind and embedder; later `get` calls fail."""
        with self._lock:
            self._closed = True
            minds, self._minds = list(self._minds.values()), OrderedDict()
            embedders, self._embedders = list(self._embedders.values()), {}
        for m in minds:
            m.close()
        for e in embedders:
            close = getattr(e, "close", None)
            if callable(close):
                close()


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
