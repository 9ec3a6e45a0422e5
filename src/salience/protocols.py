"""What the services below the facade read of a mind, as protocols (issue 16): the layers,
the heartbeat and export/restore take "a mind" without importing `salience.mind` (which
imports them), so the packages form no import cycle. The `Mind` facade satisfies each."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .clock import Clock
    from .config import Config
    from .layers.awareness import AwarenessLayer
    from .store.base import Store


class MindView(Protocol):
    """A mind's name, store, clock, config and working memory."""

    @property
    def name(self) -> str: ...

    @property
    def store(self) -> Store: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def config(self) -> Config: ...

    @property
    def awareness(self) -> AwarenessLayer: ...
