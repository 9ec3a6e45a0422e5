"""`mind.traces`: execution traces (design B §11) — one row per agent run with its trace
(any JSON: steps, tool calls, messages) and outcome; recording a run of a procedure version
also records that version's outcome, in the same transaction. `mind.installs`: the install
audit, append-only. Retention (`apply_retention`, run by `salience maintain`) bounds traces
and ai_interactions by age and count; audit rows are never pruned."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInput
from ..models import parse_enum
from ..models.agent import (
    MAX_JSON_BYTES,
    ExecutionTrace,
    InstallAction,
    InstallAuditEntry,
    InstallKind,
    InstallRisk,
    TraceOutcome,
    check_count,
    check_json,
    check_name,
    check_number,
    check_object,
)
from . import rules
from .base import StoreClient

if TYPE_CHECKING:
    from ..store.base import Store


class Traces(StoreClient):
    """record / get / list / counts."""

    def record(
        self,
        task: str,
        outcome: TraceOutcome | str,
        *,
        trace: Any = None,
        procedure_id: str | None = None,
        session_id: str | None = None,
        cost: float | None = None,
        duration_ms: float | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> ExecutionTrace:
        """Record one run. With `procedure_id`, that version's outcome is recorded too
        (success when `outcome` is "success"; its cost is `cost` or 0)."""
        t = ExecutionTrace(
            task=check_name(task, "task", max_chars=2_000),
            outcome=parse_enum(TraceOutcome, outcome, "outcome"),
            trace=check_json({} if trace is None else trace, "trace", obj=False,
                             max_bytes=MAX_JSON_BYTES),
            procedure_id=None if procedure_id is None else check_name(
                procedure_id, "procedure id", max_chars=64),
            session_id=None if session_id is None else check_name(session_id, "session id"),
            cost=None if cost is None else check_number(cost, "cost"),
            duration_ms=None if duration_ms is None else check_number(duration_ms, "duration_ms"),
            metadata=check_object(metadata, "metadata"),
            created_at=self._clock.now(),
        )
        success = None if t.procedure_id is None else t.outcome is TraceOutcome.SUCCESS
        self._store.insert_trace(t, success=success)
        return t

    def get(self, trace_id: str) -> ExecutionTrace | None:
        return self._store.get_trace(check_name(trace_id, "trace id", max_chars=64))

    def list(
        self,
        *,
        outcome: TraceOutcome | str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        procedure_id: str | None = None,
        limit: int = 100,
    ) -> list[ExecutionTrace]:
        """Traces created in [since, until), newest first."""
        for what, v in (("since", since), ("until", until)):
            if v is not None and (not isinstance(v, datetime) or v.tzinfo is None):
                raise InvalidInput(f"{what} must be a timezone-aware datetime")
        return self._store.list_traces(
            outcome=None if outcome is None else parse_enum(TraceOutcome, outcome, "outcome"),
            since=since,
            until=until,
            procedure_id=None if procedure_id is None else check_name(
                procedure_id, "procedure id", max_chars=64),
            limit=check_count(limit, "limit", lo=1, hi=10_000),
        )

    def counts(self) -> dict[str, int]:
        """Traces by outcome."""
        return self._store.trace_counts()


class Installs(StoreClient):
    """record / list — the install audit trail; there is no update or delete."""

    def record(
        self,
        capability: str,
        kind: InstallKind | str,
        *,
        action: InstallAction | str = InstallAction.INSTALL,
        risk: InstallRisk | str = InstallRisk.LOW,
        trust_source: str = "user",
        approval_class: str = "user_approved",
        details: Mapping[str, Any] | None = None,
    ) -> InstallAuditEntry:
        """Append one audit row for a capability install, update, removal or refusal."""
        e = InstallAuditEntry(
            capability=check_name(capability, "capability"),
            kind=parse_enum(InstallKind, kind, "install kind"),
            action=parse_enum(InstallAction, action, "install action"),
            risk=parse_enum(InstallRisk, risk, "risk"),
            trust_source=check_name(trust_source, "trust_source", max_chars=100),
            approval_class=check_name(approval_class, "approval_class", max_chars=100),
            details=check_object(details, "details"),
            created_at=self._clock.now(),
        )
        self._store.append_install_audit(e)
        return e

    def list(
        self,
        *,
        capability: str | None = None,
        kind: InstallKind | str | None = None,
        limit: int = 100,
    ) -> list[InstallAuditEntry]:
        """Audit rows, newest first."""
        return self._store.install_audit(
            capability=None if capability is None else check_name(capability, "capability"),
            kind=None if kind is None else parse_enum(InstallKind, kind, "install kind"),
            limit=check_count(limit, "limit", lo=1, hi=10_000),
        )


@dataclass(frozen=True, slots=True)
class RetentionReport:
    traces: int
    interactions: int

    def to_dict(self) -> dict[str, int]:
        return {"traces": self.traces, "interactions": self.interactions}


def apply_retention(
    store: Store,
    now: datetime,
    traces: rules.Retention,
    interactions: rules.Retention,
    *,
    dry_run: bool = False,
) -> RetentionReport:
    """Delete execution traces and ai_interactions rows past their age/count bounds
    (`dry_run` counts only). The install audit has no bound: it is never pruned."""
    n_traces = store.prune_traces(
        before=rules.retention_cutoff(now, traces), keep=traces.max_rows, dry_run=dry_run
    )
    n_calls = store.trim_interactions(
        before=rules.retention_cutoff(now, interactions), keep=interactions.max_rows,
        dry_run=dry_run,
    )
    return RetentionReport(n_traces, n_calls)
