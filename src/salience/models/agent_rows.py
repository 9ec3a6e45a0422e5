"""Columns, row decoding and statement parameters of the agent-record tables, shared by every
backend. Both backends' `sql.py` select and insert these columns in this order. SQLite hands
back timestamps as ISO text and booleans as 0/1; PostgreSQL as datetimes and booleans; JSON is
text in both. `ts` converts a datetime to what the backend stores (`format_ts` for SQLite,
`ensure_utc` for PostgreSQL)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from .agent import (
    EvolutionKind,
    EvolutionRun,
    EvolutionStatus,
    ExecutionTrace,
    ImprovementSignal,
    InstallAction,
    InstallAuditEntry,
    InstallKind,
    InstallRisk,
    Procedure,
    SignalCategory,
    TraceOutcome,
)
from .layer_rows import ts as _ts

TsFn = Callable[[datetime | None], Any]

PROCEDURE_COLUMNS = (
    "id", "name", "version", "template", "description", "metadata", "parent_id", "active",
    "runs", "successes", "success_rate", "avg_cost", "created_at", "updated_at",
)
SIGNAL_COLUMNS = (
    "id", "category", "pattern_key", "note", "count", "surfaced", "surfaced_at", "metadata",
    "first_seen_at", "last_seen_at",
)
TRACE_COLUMNS = (
    "id", "task", "outcome", "trace_json", "procedure_id", "session_id", "cost", "duration_ms",
    "metadata", "created_at",
)
EVOLUTION_COLUMNS = (
    "id", "target", "kind", "status", "description", "baseline_id", "candidate_id", "proposal",
    "baseline_metrics", "candidate_metrics", "reason", "created_at", "decided_at",
)
AUDIT_COLUMNS = (
    "id", "capability", "kind", "action", "risk", "trust_source", "approval_class", "details",
    "created_at",
)
AGENT_COUNT_KEYS = ("procedures", "signals", "traces", "evolution_runs", "install_audit")


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _js(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str | bytes | bytearray) else value


# -- rows -> records ----------------------------------------------------------------------------
def procedure(r: Sequence[Any]) -> Procedure:
    return Procedure(
        id=r[0], name=r[1], version=int(r[2]), template=r[3], description=r[4],
        metadata=_js(r[5]) or {}, parent_id=r[6], active=bool(r[7]), runs=int(r[8]),
        successes=int(r[9]), success_rate=float(r[10]), avg_cost=float(r[11]),
        created_at=_ts(r[12]), updated_at=_ts(r[13]),
    )


def signal(r: Sequence[Any]) -> ImprovementSignal:
    return ImprovementSignal(
        id=r[0], category=SignalCategory(r[1]), pattern_key=r[2], note=r[3], count=int(r[4]),
        surfaced=bool(r[5]), surfaced_at=_ts(r[6]), metadata=_js(r[7]) or {},
        first_seen_at=_ts(r[8]), last_seen_at=_ts(r[9]),
    )


def trace(r: Sequence[Any]) -> ExecutionTrace:
    return ExecutionTrace(
        id=r[0], task=r[1], outcome=TraceOutcome(r[2]), trace=_js(r[3]), procedure_id=r[4],
        session_id=r[5], cost=None if r[6] is None else float(r[6]),
        duration_ms=None if r[7] is None else float(r[7]), metadata=_js(r[8]) or {},
        created_at=_ts(r[9]),
    )


def evolution(r: Sequence[Any]) -> EvolutionRun:
    return EvolutionRun(
        id=r[0], target=r[1], kind=EvolutionKind(r[2]), status=EvolutionStatus(r[3]),
        description=r[4], baseline_id=r[5], candidate_id=r[6], proposal=_js(r[7]) or {},
        baseline_metrics=_js(r[8]) or {}, candidate_metrics=_js(r[9]) or {}, reason=r[10],
        created_at=_ts(r[11]), decided_at=_ts(r[12]),
    )


def audit(r: Sequence[Any]) -> InstallAuditEntry:
    return InstallAuditEntry(
        id=r[0], capability=r[1], kind=InstallKind(r[2]), action=InstallAction(r[3]),
        risk=InstallRisk(r[4]), trust_source=r[5], approval_class=r[6],
        details=_js(r[7]) or {}, created_at=_ts(r[8]),
    )


# -- records -> parameters (column order above) --------------------------------------------------
def procedure_params(p: Procedure, ts: TsFn) -> tuple[Any, ...]:
    return (
        p.id, p.name, int(p.version), p.template, p.description, dumps(p.metadata), p.parent_id,
        bool(p.active), int(p.runs), int(p.successes), float(p.success_rate),
        float(p.avg_cost), ts(p.created_at), ts(p.updated_at),
    )


def signal_params(s: ImprovementSignal, ts: TsFn) -> tuple[Any, ...]:
    return (
        s.id, SignalCategory(s.category).value, s.pattern_key, s.note, int(s.count),
        bool(s.surfaced), ts(s.surfaced_at), dumps(s.metadata), ts(s.first_seen_at),
        ts(s.last_seen_at),
    )


def trace_params(t: ExecutionTrace, ts: TsFn) -> tuple[Any, ...]:
    return (
        t.id, t.task, TraceOutcome(t.outcome).value, dumps(t.trace), t.procedure_id,
        t.session_id, t.cost, t.duration_ms, dumps(t.metadata), ts(t.created_at),
    )


def evolution_params(e: EvolutionRun, ts: TsFn) -> tuple[Any, ...]:
    return (
        e.id, e.target, EvolutionKind(e.kind).value, EvolutionStatus(e.status).value,
        e.description, e.baseline_id, e.candidate_id, dumps(e.proposal),
        dumps(e.baseline_metrics), dumps(e.candidate_metrics), e.reason, ts(e.created_at),
        ts(e.decided_at),
    )


def audit_params(a: InstallAuditEntry, ts: TsFn) -> tuple[Any, ...]:
    return (
        a.id, a.capability, InstallKind(a.kind).value, InstallAction(a.action).value,
        InstallRisk(a.risk).value, a.trust_source, a.approval_class, dumps(a.details),
        ts(a.created_at),
    )
