"""The SQLite side of maintenance: score updates, the maintenance log and leases. Mixed into
`SQLiteStore` (it uses its connection, lock and transaction helper)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ...clock import format_ts, parse_ts
from ...errors import InvalidInput
from ..maintenance import MaintenanceLogEntry, ScoreUpdate, clamp_scores
from . import sql

if TYPE_CHECKING:
    import threading


class MaintenanceMixin:
    """Maintenance tables of `SQLiteStore` (see `salience.store.maintenance.MaintenanceStore`)."""

    _db: sqlite3.Connection
    _lock: threading.RLock

    _tx: Callable[[], AbstractContextManager[sqlite3.Connection]]  # provided by SQLiteStore

    def set_scores(
        self, updates: Sequence[ScoreUpdate], *, meta: Mapping[str, str] | None = None
    ) -> int:
        if not updates and not meta:
            return 0
        rows = [(*clamp_scores(u), u.id) for u in updates]
        changed = 0
        with self._tx() as db:
            for row in rows:
                changed += db.execute(sql.SET_SCORES, row).rowcount
            for key, value in (meta or {}).items():
                db.execute(sql.SET_META, (key, value))
        return changed

    def log_maintenance(self, entry: MaintenanceLogEntry) -> int:
        params = (
            entry.kind,
            int(entry.count),
            json.dumps(list(entry.ids)),
            json.dumps(entry.details, ensure_ascii=False, default=str),
            format_ts(entry.created_at),
        )
        with self._tx() as db:
            cur = db.execute(sql.MAINTENANCE_LOG_INSERT, params)
        entry.id = int(cur.lastrowid or 0)
        return entry.id

    def maintenance_log(
        self, *, kind: str | None = None, limit: int = 20
    ) -> list[MaintenanceLogEntry]:
        if limit < 0:
            raise InvalidInput("limit must be non-negative")
        with self._lock:
            rows = self._db.execute(sql.MAINTENANCE_LOG_LIST, (kind, kind, limit)).fetchall()
        return [
            MaintenanceLogEntry(
                id=int(r[0]),
                kind=r[1],
                count=int(r[2]),
                ids=json.loads(r[3]),
                details=json.loads(r[4]),
                created_at=parse_ts(r[5]),  # type: ignore[arg-type]
            )
            for r in rows
        ]

    def acquire_lease(self, name: str, holder: str, *, now: datetime, ttl_s: float) -> bool:
        expires = format_ts(now + timedelta(seconds=ttl_s))
        with self._tx() as db:
            db.execute(sql.LEASE_ACQUIRE, (name, holder, expires, format_ts(now)))
            row = db.execute(sql.LEASE_HOLDER, (name,)).fetchone()
        return row is not None and row[0] == holder

    def release_lease(self, name: str, holder: str) -> bool:
        with self._tx() as db:
            return db.execute(sql.LEASE_RELEASE, (name, holder)).rowcount > 0
