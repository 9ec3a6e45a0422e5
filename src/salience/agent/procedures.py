"""`mind.procedures`: versioned prompt templates with their running success rate and average
cost (design B's procedures, §11), and `mind.evolution`: proposed evolutions of a prompt or
schema, evaluated baseline vs candidate and accepted or rejected by a gate (the decision is
`rules.gate_verdict`); an accepted procedure evolution promotes the candidate version."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import ConflictError, InvalidInput, NotFound
from ..models import parse_enum
from ..models.agent import (
    MAX_TEMPLATE_BYTES,
    EvolutionKind,
    EvolutionRun,
    EvolutionStatus,
    Procedure,
    check_body,
    check_count,
    check_name,
    check_number,
    check_object,
)
from . import rules
from .base import StoreClient

if TYPE_CHECKING:
    pass

PROCEDURE_TARGET = "procedure:"  # an evolution target naming a procedure: "procedure:<name>"


def check_record_id(value: Any, what: str) -> str:
    return check_name(value, what, max_chars=64)


class Procedures(StoreClient):
    """create / new_version / record_outcome / best / active / versions / get / list."""

    def create(
        self,
        name: str,
        template: str,
        *,
        description: str = "",
        metadata: Mapping[str, Any] | None = None,
    ) -> Procedure:
        """Version 1 of a new procedure. Raises `ConflictError` if `name` exists (use
        `new_version`), `InvalidInput` for bad values."""
        return self._insert(name, template, description, metadata, version=1, parent=None)

    def new_version(
        self,
        name: str,
        template: str,
        *,
        description: str = "",
        metadata: Mapping[str, Any] | None = None,
    ) -> Procedure:
        """The next version of `name` (latest + 1), derived from the latest. Raises
        `NotFound` if the procedure does not exist."""
        versions = self.versions(name)
        if not versions:
            raise NotFound(f"procedure {name!r} not found; create it first")
        latest = versions[-1]
        return self._insert(
            name, template, description, metadata, version=latest.version + 1, parent=latest.id
        )

    def _insert(
        self,
        name: str,
        template: str,
        description: str,
        metadata: Mapping[str, Any] | None,
        *,
        version: int,
        parent: str | None,
    ) -> Procedure:
        now = self._clock.now()
        p = Procedure(
            name=check_name(name, "procedure name"),
            template=check_body(template, "template", max_bytes=MAX_TEMPLATE_BYTES),
            version=version,
            description=check_body(description, "description"),
            metadata=check_object(metadata, "metadata"),
            parent_id=parent,
            created_at=now,
            updated_at=now,
        )
        if not p.template.strip():
            raise InvalidInput("template is empty")
        self._store.insert_procedure(p)
        return p

    def record_outcome(self, procedure_id: str, *, success: bool, cost: float = 0.0) -> Procedure:
        """One run of a version: success rate and average cost updated incrementally."""
        if not isinstance(success, bool):
            raise InvalidInput(f"success must be true or false, got {type(success).__name__}")
        return self._store.record_procedure_outcome(
            check_record_id(procedure_id, "procedure id"),
            success=success,
            cost=check_number(cost, "cost"),
            now=self._clock.now(),
        )

    def get(self, procedure_id: str) -> Procedure:
        p = self._store.get_procedure(check_record_id(procedure_id, "procedure id"))
        if p is None:
            raise NotFound(f"procedure {procedure_id} not found")
        return p

    def versions(self, name: str) -> list[Procedure]:
        """Every version of `name`, oldest first."""
        return self._store.procedure_versions(check_name(name, "procedure name"))

    def best(self, name: str, *, min_runs: int = rules.BEST_MIN_RUNS) -> Procedure:
        """The version to use (`rules.best_procedure`: the promoted one, else the best rate
        among tried versions, else the newest). Raises `NotFound` for an unknown name."""
        best = rules.best_procedure(self.versions(name), min_runs=check_count(min_runs, "min_runs"))
        if best is None:
            raise NotFound(f"procedure {name!r} not found")
        return best

    def active(self, name: str) -> Procedure | None:
        """The version an evolution run promoted, if any."""
        return next((p for p in self.versions(name) if p.active), None)

    def list(self, *, limit: int = 100) -> list[Procedure]:
        return self._store.list_procedures(limit=check_count(limit, "limit", lo=1, hi=10_000))


class Evolution(StoreClient):
    """propose / evaluate / get / history."""

    def propose(
        self,
        target: str,
        *,
        kind: EvolutionKind | str = EvolutionKind.PROMPT,
        baseline_id: str | None = None,
        candidate_id: str | None = None,
        description: str = "",
        proposal: Mapping[str, Any] | None = None,
    ) -> EvolutionRun:
        """Record a proposed evolution of `target` ("procedure:<name>" for a procedure: then
        `baseline_id` and `candidate_id`, when given, must be versions of it)."""
        target = check_name(target, "target")
        run = EvolutionRun(
            target=target,
            kind=parse_enum(EvolutionKind, kind, "evolution kind"),
            baseline_id=None if baseline_id is None else check_record_id(baseline_id, "baseline"),
            candidate_id=(
                None if candidate_id is None else check_record_id(candidate_id, "candidate")
            ),
            description=check_body(description, "description"),
            proposal=check_object(proposal, "proposal"),
            created_at=self._clock.now(),
        )
        if target.startswith(PROCEDURE_TARGET):
            name = target[len(PROCEDURE_TARGET) :]
            for what, pid in (("baseline", run.baseline_id), ("candidate", run.candidate_id)):
                if pid is None:
                    continue
                p = self._store.get_procedure(pid)
                if p is None or p.name != name:
                    raise InvalidInput(f"{what} {pid} is not a version of procedure {name!r}")
        self._store.insert_evolution_run(run)
        return run

    def evaluate(
        self,
        run_id: str,
        *,
        baseline: Mapping[str, float] | None = None,
        candidate: Mapping[str, float] | None = None,
        gate: rules.Gate | None = None,
        promote: bool = True,
    ) -> EvolutionRun:
        """Decide a proposed run: compare `candidate` metrics with `baseline` by `gate`
        (`rules.gate_verdict`) and store the verdict with its reason. For a procedure run the
        metrics default to the two versions' recorded outcomes (`rules.procedure_metrics`),
        and an accepted candidate becomes the active version (`promote`), in the same
        transaction. Raises `ConflictError` if the run was already decided."""
        if gate is not None and not isinstance(gate, rules.Gate):
            raise InvalidInput(f"gate must be a salience.agent.rules.Gate, got {type(gate).__name__}")
        run = self.get(run_id)
        if run.status is not EvolutionStatus.PROPOSED:
            raise ConflictError(f"evolution run {run.id} was already {run.status.value}")
        base = self._metrics(baseline, run.baseline_id, "baseline")
        cand = self._metrics(candidate, run.candidate_id, "candidate")
        verdict = rules.gate_verdict(base, cand, gate or rules.Gate())
        run.baseline_metrics, run.candidate_metrics = base, cand
        run.status = EvolutionStatus.ACCEPTED if verdict.accepted else EvolutionStatus.REJECTED
        run.reason = verdict.reason
        run.decided_at = self._clock.now()
        target_is_procedure = run.target.startswith(PROCEDURE_TARGET)
        winner = run.candidate_id if verdict.accepted and promote and target_is_procedure else None
        self._store.decide_evolution_run(run, promote=winner)
        return run

    def _metrics(
        self, given: Mapping[str, float] | None, procedure_id: str | None, what: str
    ) -> dict[str, float]:
        if given is not None:
            return rules.check_metrics(given, f"{what} metrics")
        if procedure_id is None:
            raise InvalidInput(f"{what} metrics are required (the run names no {what} version)")
        p = self._store.get_procedure(procedure_id)
        if p is None:
            raise NotFound(f"{what} procedure {procedure_id} not found")
        return rules.procedure_metrics(p)

    def get(self, run_id: str) -> EvolutionRun:
        run = self._store.get_evolution_run(check_record_id(run_id, "evolution run id"))
        if run is None:
            raise NotFound(f"evolution run {run_id} not found")
        return run

    def history(
        self,
        target: str | None = None,
        *,
        status: EvolutionStatus | str | None = None,
        limit: int = 100,
    ) -> list[EvolutionRun]:
        """Runs (of `target` when given), newest first."""
        return self._store.list_evolution_runs(
            target=None if target is None else check_name(target, "target"),
            status=None if status is None else parse_enum(EvolutionStatus, status, "status"),
            limit=check_count(limit, "limit", lo=1, hi=10_000),
        )
