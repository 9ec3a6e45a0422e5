"""Storage protocol of design B's agent records (§3, §11): procedures, improvement signals,
execution traces, evolution runs and the install audit. Part of the `Store` protocol; the
conformance suite in tests/store/test_contract_agent.py pins it on every backend.

Rules every backend applies:
- times are passed in by the caller (the injected clock); stores never read the wall clock;
- `(name, version)` of a procedure and `(category, pattern_key)` of a signal are unique;
  at most one version per procedure name is active;
- a procedure's outcome is applied read-modify-write inside one serialised transaction with
  the pure `salience.models.agent.apply_outcome`, so concurrent recordings never lose a run;
- `mark_signals_surfaced` flips only signals not surfaced yet and returns those it flipped —
  two concurrent prompts never both surface one signal;
- an evolution run is decided once: deciding a run that is no longer proposed is a conflict;
- the install audit is append-only: there is no update or delete, and the tables refuse both.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
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
    )


class AgentStore(Protocol):
    # -- procedures ---------------------------------------------------------------------------
    def insert_procedure(self, p: Procedure) -> None:
        """Raise `ConflictError` if the id or (name, version) exists."""
        ...

    def get_procedure(self, procedure_id: str) -> Procedure | None: ...

    def procedure_versions(self, name: str) -> list[Procedure]:
        """Every version of `name`, oldest (lowest version) first."""
        ...

    def list_procedures(self, *, limit: int = 100) -> list[Procedure]:
        """Procedures by name, then version."""
        ...

    def record_procedure_outcome(
        self, procedure_id: str, *, success: bool, cost: float, now: datetime
    ) -> Procedure:
        """Apply one run's outcome (`models.agent.apply_outcome`) atomically; raise `NotFound`."""
        ...

    def activate_procedure(self, procedure_id: str, *, now: datetime) -> Procedure:
        """Make this version the active one of its name (the others stop being active), in
        one transaction; raise `NotFound`."""
        ...

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
        """Insert the signal with count 1 (id `new_id`), or count one more recurrence of the
        existing (category, pattern_key): count + 1, `last_seen_at` = now, the note replaced
        when `note` is not empty, metadata merged. Atomic (an upsert)."""
        ...

    def restore_signal(self, s: ImprovementSignal) -> None:
        """Insert a signal as it was (count, surfaced, times: a restore); raise
        `ConflictError` if its id or (category, pattern_key) exists."""
        ...

    def get_signal(self, category: SignalCategory, pattern_key: str) -> ImprovementSignal | None:
        ...

    def list_signals(
        self,
        *,
        category: SignalCategory | None = None,
        surfaced: bool | None = None,
        min_count: int = 1,
        limit: int = 100,
    ) -> list[ImprovementSignal]:
        """Signals by count desc, then last seen desc, then id."""
        ...

    def mark_signals_surfaced(self, ids: Sequence[str], *, now: datetime) -> list[str]:
        """Flag the not-yet-surfaced signals among `ids`; returns the ids this call flipped."""
        ...

    # -- execution traces -------------------------------------------------------------------
    def insert_trace(self, trace: ExecutionTrace, *, success: bool | None = None) -> Procedure | None:
        """Insert a trace. With `success` set and `trace.procedure_id` given, that
        procedure's outcome is recorded in the same transaction (`NotFound` if it does not
        exist; nothing is written then) and the updated procedure returned."""
        ...

    def get_trace(self, trace_id: str) -> ExecutionTrace | None: ...

    def list_traces(
        self,
        *,
        outcome: TraceOutcome | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        procedure_id: str | None = None,
        limit: int = 100,
    ) -> list[ExecutionTrace]:
        """Traces created in [since, until), newest first (ties by id desc)."""
        ...

    def trace_counts(self) -> dict[str, int]:
        """Traces by outcome value (outcomes without traces are absent)."""
        ...

    def prune_traces(
        self, *, before: datetime | None, keep: int | None, dry_run: bool = False
    ) -> int:
        """Delete traces created before `before` and all but the newest `keep`; returns how
        many (with `dry_run`, how many would be)."""
        ...

    def trim_interactions(
        self, *, before: datetime | None, keep: int | None, dry_run: bool = False
    ) -> int:
        """Delete ai_interactions rows created before `before` and all but the newest `keep`;
        returns how many (with `dry_run`, how many would be)."""
        ...

    # -- evolution runs ---------------------------------------------------------------------
    def insert_evolution_run(self, run: EvolutionRun) -> None:
        """Raise `ConflictError` on a duplicate id."""
        ...

    def get_evolution_run(self, run_id: str) -> EvolutionRun | None: ...

    def decide_evolution_run(self, run: EvolutionRun, *, promote: str | None = None) -> None:
        """Store the run's metrics, status, reason and decision time — only if it is still
        proposed (`ConflictError` otherwise, `NotFound` if unknown). With `promote`, that
        procedure id becomes the active version of its name in the same transaction."""
        ...

    def list_evolution_runs(
        self,
        *,
        target: str | None = None,
        status: EvolutionStatus | None = None,
        limit: int = 100,
    ) -> list[EvolutionRun]:
        """Runs, newest first (ties by id desc)."""
        ...

    # -- install audit (append-only) --------------------------------------------------------
    def append_install_audit(self, entry: InstallAuditEntry) -> None:
        """Append a row; raise `ConflictError` if its id was appended before."""
        ...

    def install_audit(
        self,
        *,
        capability: str | None = None,
        kind: InstallKind | None = None,
        limit: int = 100,
    ) -> list[InstallAuditEntry]:
        """Audit rows, newest first (in append order)."""
        ...

    def agent_counts(self) -> dict[str, int]:
        """Row counts for self-awareness and stats: procedures, signals, traces,
        evolution_runs, install_audit."""
        ...
