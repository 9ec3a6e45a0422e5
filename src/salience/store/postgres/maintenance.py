"""The PostgreSQL side of maintenance: score updates, the maintenance log and leases. Mixed
into `PostgresStore` (it uses its pooled connections and statement helpers)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, TypeVar

from ...clock import ensure_utc
from ...errors import InvalidInput
from ..maintenance import MaintenanceLogEntry, ScoreUpdate, clamp_scores
from . import sql

if TYPE_CHECKING:
    import psycopg
    from psycopg import sql as psql

T = TypeVar("T")


class MaintenanceMixin:
    """Maintenance tables of `PostgresStore` (see `salience.store.maintenance`)."""

    if TYPE_CHECKING:  # provided by PostgresStore

        def _tx(self) -> AbstractContextManager[psycopg.Connection]: ...
        def _read(self, fn: Callable[[psycopg.Connection], T]) -> T: ...
        def _q(self, template: str, **parts: psql.Composable) -> psql.Composed: ...

    def set_scores(
        self, updates: Sequence[ScoreUpdate], *, meta: Mapping[str, str] | None = None
    ) -> int:
        if not updates and not meta:
            return 0
        ids = [u.id for u in updates]
        scores = [clamp_scores(u) for u in updates]
        with self._tx() as conn:
            changed = 0
            if updates:
                cur = conn.execute(
                    self._q(sql.SET_SCORES),
                    (ids, [s for s, _ in scores], [u for _, u in scores]),
                )
                changed = int(cur.rowcount)
            for key, value in (meta or {}).items():
                conn.execute(self._q(sql.SET_META), (key, value))
            return changed

    def log_maintenance(self, entry: MaintenanceLogEntry) -> int:
        params = (
            entry.kind,
            int(entry.count),
            list(entry.ids),
            json.dumps(entry.details, ensure_ascii=False, default=str),
            entry.created_at,
        )
        with self._tx() as conn:
            row = conn.execute(self._q(sql.MAINTENANCE_LOG_INSERT), params).fetchone()
        entry.id = int(row[0])
        return entry.id

    def maintenance_log(
        self, *, kind: str | None = None, limit: int = 20
    ) -> list[MaintenanceLogEntry]:
        if limit < 0:
            raise InvalidInput("limit must be non-negative")
        stmt = self._q(sql.MAINTENANCE_LOG_LIST)
        rows = self._read(lambda c: c.execute(stmt, (kind, kind, limit)).fetchall())
        return [
            MaintenanceLogEntry(
                id=int(r[0]),
                kind=r[1],
                count=int(r[2]),
                ids=list(r[3] or []),
                details=json.loads(r[4]),
                created_at=ensure_utc(r[5]),
            )
            for r in rows
        ]

    def acquire_lease(self, name: str, holder: str, *, now: datetime, ttl_s: float) -> bool:
        expires = now + timedelta(seconds=ttl_s)
        with self._tx() as conn:
            row = conn.execute(self._q(sql.LEASE_ACQUIRE), (name, holder, expires, now)).fetchone()
        return row is not None and row[0] == holder

    def release_lease(self, name: str, holder: str) -> bool:
        with self._tx() as conn:
            return conn.execute(self._q(sql.LEASE_RELEASE), (name, holder)).rowcount > 0
