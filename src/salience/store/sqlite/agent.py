"""SQLite hooks of the agent-record store methods (`store.agent_core`): a write transaction
(BEGIN IMMEDIATE, so read-modify-writes are serialised), a read under the connection lock,
timestamps as sortable ISO text. Every statement lives in `sql.py`."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ...clock import format_ts
from ..agent_core import AgentRecordsCore, Run
from . import sql


class AgentMixin(AgentRecordsCore):
    """Agent records for `SQLiteStore` (see `store.agent.AgentStore`)."""

    _db: sqlite3.Connection
    _lock: threading.RLock

    if TYPE_CHECKING:

        def _tx(self) -> AbstractContextManager[sqlite3.Connection]: ...

    @contextmanager
    def _agent_write(self) -> Iterator[Run]:
        with self._tx() as db:
            yield lambda name, params=(): db.execute(getattr(sql, name), params)

    def _agent_rows(self, name: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            return self._db.execute(getattr(sql, name), params).fetchall()

    def _agent_ts(self, value: datetime | None) -> Any:
        return format_ts(value)
