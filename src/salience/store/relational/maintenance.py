"""Maintenance storage written once: score updates, the maintenance log and leases (see
`store.maintenance.MaintenanceStore`). Backends add one hook, `_set_score_rows`."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from ...clock import parse_ts
from ...errors import InvalidInput
from ...models.layer_rows import js
from ..maintenance import MaintenanceLogEntry, ScoreUpdate
from .core import RelationalCore, Run


class MaintenanceCore(RelationalCore):
    """Maintenance tables (see `salience.store.maintenance.MaintenanceStore`)."""

    def _set_score_rows(self, run: Run, updates: Sequence[ScoreUpdate]) -> int:
        """Write the clamped scores of `updates`; how many rows changed (a backend hook)."""
        raise NotImplementedError

    def set_scores(
        self, updates: Sequence[ScoreUpdate], *, meta: Mapping[str, str] | None = None
    ) -> int:
        if not updates and not meta:
            return 0
        with self._write() as run:
            changed = self._set_score_rows(run, updates) if updates else 0
            for key, value in (meta or {}).items():
                run("SET_META", (key, value))
        return changed

    def log_maintenance(self, entry: MaintenanceLogEntry) -> int:
        d = self._dialect
        params = (
            entry.kind,
            int(entry.count),
            d.array(list(entry.ids)),
            json.dumps(entry.details, ensure_ascii=False, default=str),
            d.ts(entry.created_at),
        )
        with self._write() as run:
            entry.id = d.inserted_id(run("MAINTENANCE_LOG_INSERT", params))
        return entry.id

    def maintenance_log(
        self, *, kind: str | None = None, limit: int = 20
    ) -> list[MaintenanceLogEntry]:
        if limit < 0:
            raise InvalidInput("limit must be non-negative")
        return [
            MaintenanceLogEntry(
                id=int(r[0]),
                kind=r[1],
                count=int(r[2]),
                ids=list(js(r[3]) or []),
                details=json.loads(r[4]),
                created_at=parse_ts(r[5]),  # type: ignore[arg-type]
            )
            for r in self._all("MAINTENANCE_LOG_LIST", (kind, kind, limit))
        ]

    def acquire_lease(self, name: str, holder: str, *, now: datetime, ttl_s: float) -> bool:
        d = self._dialect
        params = (name, holder, d.ts(now + timedelta(seconds=ttl_s)), d.ts(now))
        with self._write() as run:
            row: Any = run("LEASE_ACQUIRE", params).fetchone()
        return row is not None and row[0] == holder

    def release_lease(self, name: str, holder: str) -> bool:
        with self._write() as run:
            return run("LEASE_RELEASE", (name, holder)).rowcount > 0
