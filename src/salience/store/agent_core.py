"""The agent-record store methods (`store.agent.AgentStore`), written once for every backend.

A backend mixes `AgentRecordsCore` in and supplies three hooks — the only places the engines
differ: `_agent_write()` (a write transaction yielding `run(statement_name, params)`),
`_agent_rows(statement_name, params)` (a read) and `_agent_ts(datetime)` (a timestamp as the
backend stores it). Statements are looked up by name in the backend's own `sql.py`, which is
where every dialect atom lives (placeholders, casts, `FOR UPDATE`, `OFFSET` without `LIMIT`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from ..errors import ConflictError, NotFound
from ..models import agent_rows as rows
from ..models.agent import (
    EvolutionRun,
    EvolutionStatus,
    ExecutionTrace,
    ImprovementSignal,
    InstallAuditEntry,
    InstallKind,
    Procedure,
    SignalCategory,
    TraceOutcome,
    apply_outcome,
)

Run = Callable[..., Any]  # run(statement_name, params=()) -> a cursor
_NO_LIMIT = 2**62  # "keep every row" for the OFFSET of the retention statements


def _val(v: Any) -> Any:
    return None if v is None else getattr(v, "value", v)


class AgentRecordsCore:
    """Procedures, improvement signals, execution traces, evolution runs, install audit."""

    # -- hooks (each backend implements them) --------------------------------------------------
    def _agent_write(self) -> AbstractContextManager[Run]:
        raise NotImplementedError

    def _agent_rows(self, name: str, params: Sequence[Any] = ()) -> list[Any]:
        raise NotImplementedError

    def _agent_ts(self, value: datetime | None) -> Any:
        raise NotImplementedError

    # -- procedures ---------------------------------------------------------------------------
    def insert_procedure(self, p: Procedure) -> None:
        with self._agent_write() as run:
            if not run("PROC_INSERT", rows.procedure_params(p, self._agent_ts)).fetchall():
                raise ConflictError(
                    f"procedure {p.name!r} version {p.version} (or id {p.id}) already exists"
                )

    def get_procedure(self, procedure_id: str) -> Procedure | None:
        found = self._agent_rows("PROC_GET", (procedure_id,))
        return rows.procedure(found[0]) if found else None

    def procedure_versions(self, name: str) -> list[Procedure]:
        return [rows.procedure(r) for r in self._agent_rows("PROC_VERSIONS", (name,))]

    def list_procedures(self, *, limit: int = 100) -> list[Procedure]:
        return [rows.procedure(r) for r in self._agent_rows("PROC_LIST", (int(limit),))]

    def _apply_outcome(
        self, run: Run, procedure_id: str, success: bool, cost: float, now: datetime
    ) -> Procedure:
        found = run("PROC_GET_FOR_UPDATE", (procedure_id,)).fetchall()
        if not found:
            raise NotFound(f"procedure {procedure_id} not found")
        p = apply_outcome(rows.procedure(found[0]), success=success, cost=cost, now=now)
        run(
            "PROC_SET_STATS",
            (p.runs, p.successes, p.success_rate, p.avg_cost, self._agent_ts(now), p.id),
        )
        return p

    def record_procedure_outcome(
        self, procedure_id: str, *, success: bool, cost: float, now: datetime
    ) -> Procedure:
        with self._agent_write() as run:
            return self._apply_outcome(run, procedure_id, success, cost, now)

    def _activate(self, run: Run, procedure_id: str, now: datetime) -> Procedure:
        found = run("PROC_GET_FOR_UPDATE", (procedure_id,)).fetchall()
        if not found:
            raise NotFound(f"procedure {procedure_id} not found")
        p = rows.procedure(found[0])
        run("PROC_LOCK_NAME", (p.name,)).fetchall()
        stamp = self._agent_ts(now)
        run("PROC_DEACTIVATE", (False, stamp, p.name, p.id))
        run("PROC_ACTIVATE", (True, stamp, p.id))
        p.active, p.updated_at = True, now
        return p

    def activate_procedure(self, procedure_id: str, *, now: datetime) -> Procedure:
        with self._agent_write() as run:
            return self._activate(run, procedure_id, now)

    # -- improvement signals ----------------------------------------------------------------
    def record_signal(
        self,
        category: SignalCategory,
        pattern_key: str,
        *,
        note: str,
        metadata: dict,
        now: datetime,
        new_id: str,
    ) -> ImprovementSignal:
        stamp = self._agent_ts(now)
        params = (
            new_id, SignalCategory(category).value, pattern_key, note, False,
            rows.dumps(metadata), stamp, stamp,
        )
        with self._agent_write() as run:
            return rows.signal(run("SIGNAL_UPSERT", params).fetchone())

    def restore_signal(self, s: ImprovementSignal) -> None:
        with self._agent_write() as run:
            if not run("SIGNAL_RESTORE", rows.signal_params(s, self._agent_ts)).fetchall():
                raise ConflictError(
                    f"signal {s.category.value}/{s.pattern_key!r} (or id {s.id}) already exists"
                )

    def get_signal(self, category: SignalCategory, pattern_key: str) -> ImprovementSignal | None:
        found = self._agent_rows("SIGNAL_GET", (SignalCategory(category).value, pattern_key))
        return rows.signal(found[0]) if found else None

    def list_signals(
        self,
        *,
        category: SignalCategory | None = None,
        surfaced: bool | None = None,
        min_count: int = 1,
        limit: int = 100,
    ) -> list[ImprovementSignal]:
        cat = _val(category)
        params = (cat, cat, surfaced, surfaced, int(min_count), int(limit))
        return [rows.signal(r) for r in self._agent_rows("SIGNAL_LIST", params)]

    def mark_signals_surfaced(self, ids: Sequence[str], *, now: datetime) -> list[str]:
        flipped: list[str] = []
        with self._agent_write() as run:
            for sid in dict.fromkeys(ids):
                if run("SIGNAL_SURFACE", (True, self._agent_ts(now), sid)).fetchall():
                    flipped.append(sid)
        return flipped

    # -- execution traces -------------------------------------------------------------------
    def insert_trace(
        self, trace: ExecutionTrace, *, success: bool | None = None
    ) -> Procedure | None:
        with self._agent_write() as run:
            if not run("TRACE_INSERT", rows.trace_params(trace, self._agent_ts)).fetchall():
                raise ConflictError(f"trace {trace.id} already exists")
            if success is None or trace.procedure_id is None:
                return None
            assert trace.created_at is not None
            return self._apply_outcome(
                run, trace.procedure_id, success, trace.cost or 0.0, trace.created_at
            )

    def get_trace(self, trace_id: str) -> ExecutionTrace | None:
        found = self._agent_rows("TRACE_GET", (trace_id,))
        return rows.trace(found[0]) if found else None

    def list_traces(
        self,
        *,
        outcome: TraceOutcome | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        procedure_id: str | None = None,
        limit: int = 100,
    ) -> list[ExecutionTrace]:
        out, s, u = _val(outcome), self._agent_ts(since), self._agent_ts(until)
        params = (out, out, s, s, u, u, procedure_id, procedure_id, int(limit))
        return [rows.trace(r) for r in self._agent_rows("TRACE_LIST", params)]

    def trace_counts(self) -> dict[str, int]:
        return {r[0]: int(r[1]) for r in self._agent_rows("TRACE_COUNTS")}

    def prune_traces(
        self, *, before: datetime | None, keep: int | None, dry_run: bool = False
    ) -> int:
        b = self._agent_ts(before)
        params = (b, b, _NO_LIMIT if keep is None else int(keep))
        if dry_run:
            return int(self._agent_rows("TRACE_PRUNABLE", params)[0][0])
        with self._agent_write() as run:
            return int(run("TRACE_PRUNE", params).rowcount)

    def trim_interactions(
        self, *, before: datetime | None, keep: int | None, dry_run: bool = False
    ) -> int:
        b = self._agent_ts(before)
        params = (b, b, _NO_LIMIT if keep is None else int(keep))
        if dry_run:
            return int(self._agent_rows("INTERACTIONS_EXCESS", params)[0][0])
        with self._agent_write() as run:
            return int(run("INTERACTIONS_TRIM", params).rowcount)

    # -- evolution runs ---------------------------------------------------------------------
    def insert_evolution_run(self, evo: EvolutionRun) -> None:
        with self._agent_write() as run:
            if not run("EVO_INSERT", rows.evolution_params(evo, self._agent_ts)).fetchall():
                raise ConflictError(f"evolution run {evo.id} already exists")

    def get_evolution_run(self, run_id: str) -> EvolutionRun | None:
        found = self._agent_rows("EVO_GET", (run_id,))
        return rows.evolution(found[0]) if found else None

    def decide_evolution_run(self, evo: EvolutionRun, *, promote: str | None = None) -> None:
        params = (
            EvolutionStatus(evo.status).value, rows.dumps(evo.baseline_metrics),
            rows.dumps(evo.candidate_metrics), evo.reason, self._agent_ts(evo.decided_at),
            evo.id,
        )
        with self._agent_write() as run:
            if not run("EVO_DECIDE", params).fetchall():
                if not run("EVO_GET", (evo.id,)).fetchall():
                    raise NotFound(f"evolution run {evo.id} not found")
                raise ConflictError(f"evolution run {evo.id} was already decided")
            if promote is not None:
                assert evo.decided_at is not None
                self._activate(run, promote, evo.decided_at)

    def list_evolution_runs(
        self,
        *,
        target: str | None = None,
        status: EvolutionStatus | None = None,
        limit: int = 100,
    ) -> list[EvolutionRun]:
        st = _val(status)
        params = (target, target, st, st, int(limit))
        return [rows.evolution(r) for r in self._agent_rows("EVO_LIST", params)]

    # -- install audit ------------------------------------------------------------------------
    def append_install_audit(self, entry: InstallAuditEntry) -> None:
        with self._agent_write() as run:
            if not run("AUDIT_INSERT", rows.audit_params(entry, self._agent_ts)).fetchall():
                raise ConflictError(f"install audit row {entry.id} already exists")

    def install_audit(
        self,
        *,
        capability: str | None = None,
        kind: InstallKind | None = None,
        limit: int = 100,
    ) -> list[InstallAuditEntry]:
        k = _val(kind)
        params = (capability, capability, k, k, int(limit))
        return [rows.audit(r) for r in self._agent_rows("AUDIT_LIST", params)]

    def agent_counts(self) -> dict[str, int]:
        (found,) = self._agent_rows("AGENT_COUNTS")
        return dict(zip(rows.AGENT_COUNT_KEYS, (int(v) for v in found), strict=True))
