"""The heartbeat: one tick per mind runs, in order, the deferred work of design A's heartbeat —
drain pending triage and distillation retries, heartbeat prefetch for the current awareness
task, maintenance when due (daily by default), a cognitive run when triggered.

Ticks of one mind never overlap: a process-wide lock per mind (threads) plus a lease row with
an expiry in the mind's database (processes; a crashed holder's lease lapses after
`heartbeat_lease_s`). A tick that cannot take both skips. A failing step is logged and recorded
in the tick report; the next step still runs.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from ..clock import format_ts, parse_ts
from ..store.maintenance import MaintenanceLogEntry
from .job import last_run as last_maintenance
from .triggers import due

if TYPE_CHECKING:
    from ..ingest.items import DrainReport
    from ..models import SearchHit
    from ..protocols import MindView
    from .cognitive import CognitiveEngine
    from .job import MaintenanceReport

    class Mind(MindView, Protocol):
        """What a tick uses of a mind (the `Mind` facade is one)."""

        @property
        def cognitive(self) -> CognitiveEngine: ...

        def drain_pending_triage(self, limit: int = 100) -> DrainReport: ...

        def heartbeat_prefetch(self, task: str, *, limit: int = 3) -> list[SearchHit]: ...

        def maintain(self, *, dry_run: bool = False) -> MaintenanceReport: ...

        def __enter__(self) -> Mind: ...

        def __exit__(self, *exc: object) -> None: ...

log = logging.getLogger(__name__)

LEASE_NAME = "heartbeat"
TICK_KEY = "heartbeat_last_tick_at"
#: one lock per mind while a tick of it runs in this process; weak, so a server that has ticked
#: many minds (a tenant creating minds, minds evicted from the pool) keeps none of theirs
_LOCKS: weakref.WeakValueDictionary[str, threading.Lock] = weakref.WeakValueDictionary()
_LOCKS_GUARD = threading.Lock()


@dataclass(slots=True)
class StepResult:
    """One step of a tick: "ok", "skipped" (not due / nothing to do) or "failed"."""

    name: str
    status: str
    detail: Any = None


@dataclass(slots=True)
class TickReport:
    """What one heartbeat tick of one mind did."""

    mind: str
    at: datetime
    ran: bool = True
    skipped_reason: str | None = None
    steps: list[StepResult] = field(default_factory=list)

    @property
    def failed(self) -> list[str]:
        return [s.name for s in self.steps if s.status == "failed"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "mind": self.mind,
            "at": self.at.isoformat(),
            "ran": self.ran,
            "skipped_reason": self.skipped_reason,
            "steps": [{"name": s.name, "status": s.status, "detail": s.detail} for s in self.steps],
        }


def _mind_key(mind: Mind) -> str:
    path = getattr(mind.store, "path", None)
    return f"{mind.store.backend}:{path or mind.name}"


def _process_lock(key: str) -> threading.Lock:
    with _LOCKS_GUARD:
        lock = _LOCKS.get(key)
        if lock is None:
            lock = _LOCKS[key] = threading.Lock()
        return lock


def holder_id() -> str:
    """This tick's lease holder: host, process and a random part."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def tick(mind: Mind, *, force_maintenance: bool = False) -> TickReport:
    """One heartbeat tick of `mind` (see the module docstring)."""
    now = mind.clock.now()
    report = TickReport(mind=mind.name, at=now)
    lock = _process_lock(_mind_key(mind))
    if not lock.acquire(blocking=False):
        report.ran, report.skipped_reason = False, "another tick of this mind is running"
        return report
    holder = holder_id()
    try:
        if not mind.store.acquire_lease(
            LEASE_NAME, holder, now=now, ttl_s=mind.config.heartbeat_lease_s
        ):
            report.ran, report.skipped_reason = False, "another process holds the heartbeat lease"
            return report
        try:
            for name, step in _steps(mind, force_maintenance):
                _run_step(report, name, step)
            mind.store.set_meta(TICK_KEY, format_ts(now) or "")
            if report.failed:
                mind.store.log_maintenance(
                    MaintenanceLogEntry(
                        kind="heartbeat", count=len(report.failed), created_at=now,
                        details=report.to_dict(),
                    )
                )
        finally:
            mind.store.release_lease(LEASE_NAME, holder)
    finally:
        lock.release()
    return report


def _run_step(report: TickReport, name: str, step: Callable[[], StepResult]) -> None:
    try:
        result = step()
    except Exception as e:
        log.exception("heartbeat step %s failed for mind %s", name, report.mind)
        result = StepResult(name, "failed", f"{type(e).__name__}: {e}")
    report.steps.append(result)


def _steps(mind: Mind, force_maintenance: bool) -> list[tuple[str, Callable[[], StepResult]]]:
    cfg = mind.config

    def drain() -> StepResult:
        r = mind.drain_pending_triage(cfg.heartbeat_drain_limit)
        status = "ok" if r.processed else "skipped"
        return StepResult("drain", status, r.to_dict())

    def prefetch() -> StepResult:
        from ..models.layers import AwarenessCategory

        items = mind.awareness.get_by_category(AwarenessCategory.TASK)
        if not items:
            return StepResult("prefetch", "skipped", "no current awareness task")
        hits = mind.heartbeat_prefetch(items[0].content)
        return StepResult("prefetch", "ok", {"task": items[0].content,
                                              "memories": [h.memory.id for h in hits]})

    def maintenance() -> StepResult:
        now = mind.clock.now()
        if not force_maintenance and not due(
            last_maintenance(mind.store), now, cfg.maintenance_interval_s
        ):
            return StepResult("maintenance", "skipped", "not due")
        return StepResult("maintenance", "ok", mind.maintain().to_dict())

    def cognitive() -> StepResult:
        engine = mind.cognitive
        trig = engine.trigger(mind.clock.now())
        if not trig.fire:
            return StepResult("cognitive", "skipped", trig.reason)
        return StepResult("cognitive", "ok", engine.run(mind.clock.now(), reason=trig.reason).to_dict())

    return [
        ("drain", drain),
        ("prefetch", prefetch),
        ("maintenance", maintenance),
        ("cognitive", cognitive),
    ]


def last_tick(mind: Mind) -> datetime | None:
    return parse_ts(mind.store.get_meta(TICK_KEY))


class HeartbeatLoop:
    """Ticks every mind `open_minds()` yields every `interval_s` seconds, in a daemon thread
    (for `salience serve --heartbeat 5m`). `open_minds` opens fresh `Mind`s each round; they
    are closed after their tick."""

    def __init__(
        self,
        open_minds: Callable[[], Iterable[Mind]],
        interval_s: float,
        *,
        on_tick: Callable[[TickReport], None] | None = None,
    ) -> None:
        self._open = open_minds
        self.interval_s = interval_s
        self._on_tick = on_tick
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def round(self) -> list[TickReport]:
        """One tick of every mind; a mind that fails to open or tick is logged and skipped."""
        out: list[TickReport] = []
        for mind in self._open():
            try:
                with mind:
                    r = tick(mind)
                out.append(r)
                if self._on_tick is not None:
                    self._on_tick(r)
            except Exception:
                log.exception("heartbeat tick failed for mind %s", getattr(mind, "name", "?"))
        return out

    def _run(self) -> None:
        while not self._stop.is_set():
            self.round()
            self._stop.wait(self.interval_s)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="salience-heartbeat", daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)


def parse_interval(text: str) -> float:
    """"5m", "30s", "1h", "300" -> seconds. Raises `ValueError`."""
    text = text.strip().lower()
    units = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86_400.0}
    value = float(text[:-1]) * units[text[-1]] if text and text[-1] in units else float(text)
    if value <= 0:
        raise ValueError(f"interval must be positive, got {text!r}")
    return value
