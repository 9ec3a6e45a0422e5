"""Storage records and protocol of maintenance: targeted score updates (decay, usefulness
regression), the `maintenance_log` table (every deletion and run, with ids) and leases (a row
with an expiry that keeps two processes from running a heartbeat tick of one mind at once).
Part of the `Store` protocol."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol


@dataclass(slots=True, frozen=True)
class ScoreUpdate:
    """New salience and usefulness of one memory (other fields, `updated_at` included, stay)."""

    id: str
    salience: float
    usefulness: float


@dataclass(slots=True)
class MaintenanceLogEntry:
    """One row of `maintenance_log`: what a maintenance step did (`kind`: "decay", "prune",
    "compact", "merge", "cognitive", "heartbeat"), how many memories, which ids, details."""

    kind: str
    count: int
    created_at: datetime
    ids: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    id: int | None = None  # assigned by the store


class MaintenanceStore(Protocol):
    """Maintenance storage. Times are passed in by the caller; stores never read the clock."""

    def set_scores(
        self, updates: Sequence[ScoreUpdate], *, meta: Mapping[str, str] | None = None
    ) -> int:
        """Set salience and usefulness of the given memories in one transaction (unknown ids
        are skipped; values are clamped to their ranges); returns how many rows changed.
        `meta` keys are written in the same transaction (the maintenance run time, so a crash
        can never leave decay applied without its run recorded)."""
        ...

    def log_maintenance(self, entry: MaintenanceLogEntry) -> int:
        """Append `entry` to the maintenance log; returns its id."""
        ...

    def maintenance_log(self, *, kind: str | None = None, limit: int = 20) -> list[
        MaintenanceLogEntry
    ]:
        """The latest log entries (of `kind` when given), newest first."""
        ...

    def acquire_lease(self, name: str, holder: str, *, now: datetime, ttl_s: float) -> bool:
        """Take the lease `name` for `holder` until `now + ttl_s`, atomically. Succeeds when the
        lease is free, expired at `now`, or already held by `holder` (which renews it)."""
        ...

    def release_lease(self, name: str, holder: str) -> bool:
        """Give the lease back if `holder` holds it; returns whether it did."""
        ...


def clamp_scores(u: ScoreUpdate) -> tuple[float, float]:
    """(salience in [1, 10], usefulness in [0, 1]) of an update."""
    return (min(max(float(u.salience), 1.0), 10.0), min(max(float(u.usefulness), 0.0), 1.0))
