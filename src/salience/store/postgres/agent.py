"""PostgreSQL hooks of the agent-record store methods (`store.agent_core`): a pooled write
transaction (read-modify-writes lock their rows with `FOR UPDATE`), a read retried once on a
lost connection, timestamps as aware datetimes. Every statement lives in `sql.py`."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

import psycopg
from psycopg import sql as psql

from ...clock import ensure_utc
from ..agent_core import AgentRecordsCore, Run
from . import sql

T = TypeVar("T")


class AgentMixin(AgentRecordsCore):
    """Agent records for `PostgresStore` (see `store.agent.AgentStore`)."""

    if TYPE_CHECKING:

        def _q(self, template: str, **parts: psql.Composable) -> psql.Composed: ...

        def _tx(self) -> AbstractContextManager[psycopg.Connection]: ...

        def _read(self, fn: Callable[[psycopg.Connection], T]) -> T: ...

    @contextmanager
    def _agent_write(self) -> Iterator[Run]:
        with self._tx() as conn:
            yield lambda name, params=(): conn.execute(self._q(getattr(sql, name)), params)

    def _agent_rows(self, name: str, params: Sequence[Any] = ()) -> list[Any]:
        q = self._q(getattr(sql, name))
        return self._read(lambda c: c.execute(q, params).fetchall())

    def _agent_ts(self, value: datetime | None) -> Any:
        return None if value is None else ensure_utc(value)
