"""HTTP routes for design B's agent records (issue 20): procedures, improvement signals,
execution traces, evolution runs and the install audit. Each route calls one facade method;
bodies are checked here for shape and size, the facade checks values (422 `invalid_input`),
duplicates and decided runs are 409, unknown ids 404."""

from datetime import datetime
from typing import Annotated, Any

from fastapi import FastAPI, Path, Query
from pydantic import BaseModel, ConfigDict, Field

_ID = Annotated[str, Path(min_length=1, max_length=64)]
_NAME = Annotated[str, Path(min_length=1, max_length=200)]
_LIMIT = Annotated[int, Query(ge=1, le=1000)]
_JSON_OBJ = dict[str, Any]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class ProcedureIn(_In):
    name: str = Field(min_length=1, max_length=200, examples=["summarise"])
    template: str = Field(min_length=1, max_length=200_000, examples=["Summarise: {text}"])
    description: str = Field("", max_length=20_000)
    metadata: _JSON_OBJ = Field(default_factory=dict)


class VersionIn(_In):
    template: str = Field(min_length=1, max_length=200_000)
    description: str = Field("", max_length=20_000)
    metadata: _JSON_OBJ = Field(default_factory=dict)


class OutcomeIn(_In):
    success: bool
    cost: float = Field(0.0, ge=0)


class SignalIn(_In):
    """One occurrence of a recurring pattern (a correction, a capability gap, a workflow)."""

    category: str = Field(max_length=32, examples=["correction"])
    pattern_key: str = Field(min_length=1, max_length=200, examples=["date format"])
    note: str = Field("", max_length=20_000, examples=["the user wants ISO dates"])
    metadata: _JSON_OBJ = Field(default_factory=dict)


class SurfaceIn(_In):
    ids: list[Annotated[str, Field(max_length=64)]] = Field(min_length=1, max_length=100)


class TraceIn(_In):
    task: str = Field(min_length=1, max_length=2000)
    outcome: str = Field(max_length=32, examples=["success"])
    trace: Any = None
    procedure_id: str | None = Field(None, max_length=64)
    session_id: str | None = Field(None, max_length=200)
    cost: float | None = Field(None, ge=0)
    duration_ms: float | None = Field(None, ge=0)
    metadata: _JSON_OBJ = Field(default_factory=dict)


class EvolutionIn(_In):
    target: str = Field(min_length=1, max_length=200, examples=["procedure:summarise"])
    kind: str = Field("prompt", max_length=32)
    baseline_id: str | None = Field(None, max_length=64)
    candidate_id: str | None = Field(None, max_length=64)
    description: str = Field("", max_length=20_000)
    proposal: _JSON_OBJ = Field(default_factory=dict)


class GateIn(_In):
    metric: str = Field("success_rate", max_length=100)
    higher_is_better: bool = True
    min_gain: float = 0.0
    min_samples: int = Field(1, ge=0, le=1_000_000)
    max_cost_ratio: float | None = Field(1.5, gt=0)


class EvaluateIn(_In):
    """Metrics default to the two procedure versions' recorded outcomes."""

    baseline: dict[str, float] | None = None
    candidate: dict[str, float] | None = None
    gate: GateIn = Field(default_factory=GateIn)
    promote: bool = True


class InstallIn(_In):
    capability: str = Field(min_length=1, max_length=200, examples=["web-search"])
    kind: str = Field(max_length=32, examples=["mcp"])
    action: str = Field("install", max_length=32)
    risk: str = Field("low", max_length=32)
    trust_source: str = Field("user", min_length=1, max_length=100)
    approval_class: str = Field("user_approved", min_length=1, max_length=100)
    details: _JSON_OBJ = Field(default_factory=dict)


def _items(rows: list[Any]) -> dict[str, Any]:
    return {"items": [r.to_dict() for r in rows]}


def register_record_routes(app: FastAPI, Reader: Any, Writer: Any) -> None:
    """Add the agent-record routes."""
    from ..agent.rules import Gate

    tags = ["agent records"]
    base = "/v1/minds/{mind}"

    @app.get(base + "/procedures", tags=tags)
    def list_procedures(m: Reader, limit: _LIMIT = 100) -> dict[str, Any]:
        """Every procedure version, by name then version."""
        return _items(m.procedures.list(limit=limit))

    @app.post(base + "/procedures", status_code=201, tags=tags)
    def create_procedure(body: ProcedureIn, m: Writer) -> dict[str, Any]:
        """Version 1 of a new procedure (409 if the name exists)."""
        return m.procedures.create(**body.model_dump()).to_dict()

    @app.post(base + "/procedures/{name}/versions", status_code=201, tags=tags)
    def new_version(name: _NAME, body: VersionIn, m: Writer) -> dict[str, Any]:
        """The next version of a procedure."""
        return m.procedures.new_version(name, **body.model_dump()).to_dict()

    @app.get(base + "/procedures/{name}/best", tags=tags)
    def best_procedure(name: _NAME, m: Reader) -> dict[str, Any]:
        """The version to use: the promoted one, else the best tried, else the newest."""
        return m.procedures.best(name).to_dict()

    @app.post(base + "/procedures/{procedure_id}/outcomes", tags=tags)
    def record_outcome(procedure_id: _ID, body: OutcomeIn, m: Writer) -> dict[str, Any]:
        """One run of a version: success rate and average cost updated."""
        return m.procedures.record_outcome(procedure_id, **body.model_dump()).to_dict()

    @app.post(base + "/signals", status_code=201, tags=tags)
    def record_signal(body: SignalIn, m: Writer) -> dict[str, Any]:
        """Count one occurrence of a pattern; returns the signal with its count."""
        kw = body.model_dump()
        return m.signals.record(kw.pop("category"), kw.pop("pattern_key"), **kw).to_dict()

    @app.get(base + "/signals", tags=tags)
    def list_signals(
        m: Reader, actionable: bool = False, surfaced: bool | None = None, limit: _LIMIT = 100
    ) -> dict[str, Any]:
        """Signals, most frequent first; `actionable=true`: only those to show now."""
        if actionable:
            return _items(m.signals.actionable(limit=limit))
        return _items(m.signals.list(surfaced=surfaced, limit=limit))

    @app.post(base + "/signals/surfaced", tags=tags)
    def mark_surfaced(body: SurfaceIn, m: Writer) -> dict[str, Any]:
        """Mark signals as shown (context() does this itself); returns the ids flipped."""
        return {"ids": m.signals.mark_surfaced(body.ids)}

    @app.post(base + "/traces", status_code=201, tags=tags)
    def record_trace(body: TraceIn, m: Writer) -> dict[str, Any]:
        """Record one agent run (and, with procedure_id, that version's outcome)."""
        kw = body.model_dump()
        return m.traces.record(kw.pop("task"), kw.pop("outcome"), **kw).to_dict()

    @app.get(base + "/traces", tags=tags)
    def list_traces(
        m: Reader,
        outcome: Annotated[str | None, Query(max_length=32)] = None,
        since: datetime | None = None,
        until: datetime | None = None,
        procedure_id: Annotated[str | None, Query(max_length=64)] = None,
        limit: _LIMIT = 100,
    ) -> dict[str, Any]:
        """Traces in [since, until), newest first."""
        return _items(
            m.traces.list(
                outcome=outcome, since=since, until=until, procedure_id=procedure_id, limit=limit
            )
        )

    @app.post(base + "/evolution", status_code=201, tags=tags)
    def propose(body: EvolutionIn, m: Writer) -> dict[str, Any]:
        """Propose an evolution of a prompt or schema."""
        kw = body.model_dump()
        return m.evolution.propose(kw.pop("target"), **kw).to_dict()

    @app.post(base + "/evolution/{run_id}/evaluate", tags=tags)
    def evaluate(run_id: _ID, body: EvaluateIn, m: Writer) -> dict[str, Any]:
        """Decide a proposed run by the gate (409 if already decided)."""
        gate = Gate(**body.gate.model_dump())
        return m.evolution.evaluate(
            run_id, baseline=body.baseline, candidate=body.candidate, gate=gate,
            promote=body.promote,
        ).to_dict()

    @app.get(base + "/evolution", tags=tags)
    def history(
        m: Reader,
        target: Annotated[str | None, Query(max_length=200)] = None,
        status: Annotated[str | None, Query(max_length=32)] = None,
        limit: _LIMIT = 100,
    ) -> dict[str, Any]:
        """Evolution runs (of a target), newest first."""
        return _items(m.evolution.history(target, status=status, limit=limit))

    @app.post(base + "/installs", status_code=201, tags=tags)
    def record_install(body: InstallIn, m: Writer) -> dict[str, Any]:
        """Append a capability install decision to the audit trail."""
        kw = body.model_dump()
        return m.installs.record(kw.pop("capability"), kw.pop("kind"), **kw).to_dict()

    @app.get(base + "/installs", tags=tags)
    def install_audit(
        m: Reader,
        capability: Annotated[str | None, Query(max_length=200)] = None,
        kind: Annotated[str | None, Query(max_length=32)] = None,
        limit: _LIMIT = 100,
    ) -> dict[str, Any]:
        """The install audit, newest first (append-only: no update or delete routes)."""
        return _items(m.installs.list(capability=capability, kind=kind, limit=limit))
