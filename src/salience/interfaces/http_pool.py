"""`MindPool`: one open `Mind` per mind name for a server process (opened lazily, closed on
shutdown, thread-safe). Minds of a tenant get the tenant's tier-restricted, quota-counting
embedder; other minds share the server's embedder."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from ..config import Config

if TYPE_CHECKING:
    from ..embed.base import Embedder
    from ..mind import Mind
    from .auth import ServerDB


class MindPool:
    """Open minds by name, at most one `Mind` per name."""

    def __init__(self, config: Config, db: ServerDB) -> None:
        self.config = config
        self.db = db
        self._minds: dict[str, Mind] = {}
        self._embedders: dict[str, Embedder] = {}  # by tier name; "" = no tenant
        self._lock = threading.Lock()
        self._closed = False

    def get(self, name: str, tenant: str | None, *, create: bool = True) -> Mind:
        """The open mind called `name` (opening it on first use; creating it only if `create`:
        readers pass False, so a typo is `MindNotFound`, not a new empty mind).

        `tenant` is the mind's owner from the registry: its tier decides the embedder and its
        quota is counted. Raises what `Mind.open` raises, and `TierError`.
        """
        mind = self._minds.get(name)
        if mind is not None:
            return mind
        with self._lock:
            if self._closed:
                from ..errors import StoreError

                raise StoreError("the server is shutting down")
            mind = self._minds.get(name)
            if mind is None:
                from ..mind import Mind

                mind = Mind.open(
                    name, config=self.config, embedder=self._embedder(tenant), create=create
                )
                self._minds[name] = mind
        return mind

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
            minds, self._minds = list(self._minds.values()), {}
            embedders, self._embedders = list(self._embedders.values()), {}
        for m in minds:
            m.close()
        for e in embedders:
            close = getattr(e, "close", None)
            if callable(close):
                close()
