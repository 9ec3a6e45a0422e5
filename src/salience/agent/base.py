"""What every agent-record SDK object holds: the mind's store and clock."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..clock import Clock
    from ..store.base import Store


class StoreClient:
    """Base of `Procedures`, `Evolution`, `Signals`, `Traces`, `Installs`."""

    def __init__(self, store: Store, clock: Clock) -> None:
        self._store = store
        self._clock = clock
