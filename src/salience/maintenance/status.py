"""Run status for `salience stats`: queue sizes and the last maintenance, cognitive and
heartbeat runs of a mind."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..store.base import Store

_RUN_KEYS = {
    "maintenance": "maintenance_last_run_at",
    "cognitive": "cognitive_last_run_at",
    "reflection": "reflection_last_at",
    "heartbeat": "heartbeat_last_tick_at",
}


def run_status(store: Store) -> dict[str, Any]:
    """{"queues": {...}, "last_runs": {name: ISO time or None}}."""
    try:
        queues: dict[str, Any] = dict(store.queue_counts())
    except AttributeError:  # a backend without the ingestion tables
        queues = {}
    return {
        "queues": queues,
        "last_runs": {name: store.get_meta(key) for name, key in _RUN_KEYS.items()},
    }
