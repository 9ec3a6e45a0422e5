"""The agent-record store methods (`store.agent_core.AgentRecordsCore`) on the relational
core: its three hooks are the core's write transaction, read and timestamp codec."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from ..agent_core import AgentRecordsCore
from .core import RelationalCore, Run


class AgentCore(AgentRecordsCore, RelationalCore):
    """Procedures, improvement signals, execution traces, evolution runs, install audit."""

    def _agent_write(self) -> AbstractContextManager[Run]:
        return self._write()

    def _agent_rows(self, name: str, params: Sequence[Any] = ()) -> list[Any]:
        return self._all(name, params)

    def _agent_ts(self, value: datetime | None) -> Any:
        return self._dialect.ts(value)
