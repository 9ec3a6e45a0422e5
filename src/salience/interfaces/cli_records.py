"""CLI commands for design B's agent records (issue 20): `salience procedures|signals|traces|
evolution|installs ...`. Thin adapters over the facade; `--json` prints the records."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any

import typer
from rich.table import Table

from ..errors import InvalidInput, SalienceError
from .cli_common import DsnOpt, JsonOpt, MindOpt, config_for, console, emit, fail, open_mind

procedures_app = typer.Typer(help="Versioned prompt templates and their outcomes.",
                             no_args_is_help=True)
signals_app = typer.Typer(help="Recurring corrections, capability gaps, workflow patterns.",
                          no_args_is_help=True)
traces_app = typer.Typer(help="Execution traces: one per agent run.", no_args_is_help=True)
evolution_app = typer.Typer(help="Proposed prompt/schema evolutions and their verdicts.",
                            no_args_is_help=True)
installs_app = typer.Typer(help="The capability install audit (append-only).",
                           no_args_is_help=True)

LimitOpt = Annotated[int, typer.Option(help="At most this many rows.")]


def _run(mind: str, dsn: str | None, fn: Any, *, write: bool = False) -> Any:
    """`fn(mind)`; a write opens (creating if needed) the mind, a read opens it as every read
    command does (`open_mind`)."""
    try:
        if write:
            from ..mind import Mind

            m = Mind.open(mind, config=config_for(dsn))
        else:
            m = open_mind(mind, dsn)
        with m:
            return fn(m)
    except SalienceError as e:
        fail(e)


def _json_arg(text: str | None, what: str) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        fail(InvalidInput(f"{what} is not valid JSON: {e}"))


def _show(rows: list[Any], columns: list[str], as_json: bool, title: str) -> None:
    data = [r.to_dict() for r in rows]
    if as_json:
        emit(data)
        return
    table = Table(*columns, title=title)
    for d in data:
        table.add_row(*(_cell(d.get(c)) for c in columns))
    console.print(table)


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.3g}"
    text = "" if v is None else str(v)
    return text if len(text) <= 60 else text[:59] + "…"


# -- procedures -------------------------------------------------------------------------------
@procedures_app.command("list")
def procedures_list(mind: MindOpt = "default", limit: LimitOpt = 100, as_json: JsonOpt = False,
                    dsn: DsnOpt = None) -> None:
    """Every procedure version."""
    rows = _run(mind, dsn, lambda m: m.procedures.list(limit=limit))
    _show(rows, ["id", "name", "version", "active", "runs", "success_rate", "avg_cost"], as_json,
          "procedures")


@procedures_app.command("create")
def procedures_create(
    name: Annotated[str, typer.Argument(help="Procedure name.")],
    template: Annotated[str, typer.Argument(help="The prompt template.")],
    new_version: Annotated[bool, typer.Option("--new-version", help="Add the next version.")] = False,
    description: Annotated[str, typer.Option(help="What it is for.")] = "",
    mind: MindOpt = "default",
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Create a procedure (version 1), or with --new-version its next version."""
    def go(m: Any) -> Any:
        f = m.procedures.new_version if new_version else m.procedures.create
        return f(name, template, description=description)

    p = _run(mind, dsn, go, write=True)
    if as_json:
        emit(p.to_dict())
    else:
        console.print(f"procedure {p.name!r} version {p.version}: {p.id}")


@procedures_app.command("outcome")
def procedures_outcome(
    procedure_id: Annotated[str, typer.Argument(help="Procedure version id.")],
    success: Annotated[bool, typer.Option("--success/--failure", help="How the run ended.")],
    cost: Annotated[float, typer.Option(help="Cost of the run.")] = 0.0,
    mind: MindOpt = "default",
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Record one run of a procedure version."""
    p = _run(mind, dsn, lambda m: m.procedures.record_outcome(
        procedure_id, success=success, cost=cost), write=True)
    if as_json:
        emit(p.to_dict())
    else:
        console.print(f"{p.name} v{p.version}: {p.runs} runs, success {p.success_rate:.0%}, "
                      f"average cost {p.avg_cost:.3g}")


@procedures_app.command("best")
def procedures_best(name: Annotated[str, typer.Argument(help="Procedure name.")],
                    mind: MindOpt = "default", as_json: JsonOpt = False,
                    dsn: DsnOpt = None) -> None:
    """The version to use now."""
    p = _run(mind, dsn, lambda m: m.procedures.best(name))
    if as_json:
        emit(p.to_dict())
    else:
        console.print(f"{p.name} v{p.version} ({p.id}): {p.template}", markup=False)


# -- signals ----------------------------------------------------------------------------------
@signals_app.command("record")
def signals_record(
    category: Annotated[str, typer.Argument(help="correction, capability_gap, workflow_pattern")],
    pattern_key: Annotated[str, typer.Argument(help="The pattern's stable key.")],
    note: Annotated[str, typer.Argument(help="Details.")] = "",
    mind: MindOpt = "default",
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Count one occurrence of a recurring pattern."""
    s = _run(mind, dsn, lambda m: m.signals.record(category, pattern_key, note), write=True)
    if as_json:
        emit(s.to_dict())
    else:
        console.print(f"{s.category.value} {s.pattern_key!r}: seen {s.count} times")


@signals_app.command("list")
def signals_list(
    actionable: Annotated[bool, typer.Option("--actionable", help="Only those to show now.")] = False,
    mind: MindOpt = "default",
    limit: LimitOpt = 100,
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Signals, most frequent first."""
    rows = _run(mind, dsn, lambda m: m.signals.actionable(limit=limit) if actionable
                else m.signals.list(limit=limit))
    _show(rows, ["category", "pattern_key", "count", "surfaced", "note"], as_json, "signals")


# -- traces -----------------------------------------------------------------------------------
@traces_app.command("record")
def traces_record(
    task: Annotated[str, typer.Argument(help="What the run was for.")],
    outcome: Annotated[str, typer.Argument(help="success, partial, failure, aborted")],
    trace: Annotated[str | None, typer.Option(help="The trace as JSON.")] = None,
    procedure: Annotated[str | None, typer.Option(help="Procedure version id followed.")] = None,
    cost: Annotated[float | None, typer.Option(help="Cost of the run.")] = None,
    mind: MindOpt = "default",
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Record one agent run."""
    body = _json_arg(trace, "--trace")
    t = _run(mind, dsn, lambda m: m.traces.record(
        task, outcome, trace=body, procedure_id=procedure, cost=cost), write=True)
    if as_json:
        emit(t.to_dict())
    else:
        console.print(f"trace {t.id} ({t.outcome.value})")


@traces_app.command("list")
def traces_list(
    outcome: Annotated[str | None, typer.Option(help="Only this outcome.")] = None,
    since: Annotated[datetime | None, typer.Option(help="From this UTC time (ISO).")] = None,
    until: Annotated[datetime | None, typer.Option(help="Before this UTC time (ISO).")] = None,
    mind: MindOpt = "default",
    limit: LimitOpt = 100,
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Traces, newest first."""
    from ..clock import ensure_utc

    s, u = (None if v is None else ensure_utc(v) for v in (since, until))
    rows = _run(mind, dsn, lambda m: m.traces.list(outcome=outcome, since=s, until=u,
                                                   limit=limit))
    _show(rows, ["id", "created_at", "task", "outcome", "cost"], as_json, "traces")


# -- evolution --------------------------------------------------------------------------------
@evolution_app.command("propose")
def evolution_propose(
    target: Annotated[str, typer.Argument(help="e.g. procedure:summarise or schema:memories")],
    kind: Annotated[str, typer.Option(help="prompt or schema")] = "prompt",
    baseline: Annotated[str | None, typer.Option(help="Baseline procedure id.")] = None,
    candidate: Annotated[str | None, typer.Option(help="Candidate procedure id.")] = None,
    description: Annotated[str, typer.Option(help="What changes and why.")] = "",
    mind: MindOpt = "default",
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Propose an evolution."""
    r = _run(mind, dsn, lambda m: m.evolution.propose(
        target, kind=kind, baseline_id=baseline, candidate_id=candidate, description=description),
        write=True)
    if as_json:
        emit(r.to_dict())
    else:
        console.print(f"evolution run {r.id} proposed for {r.target}")


@evolution_app.command("evaluate")
def evolution_evaluate(
    run_id: Annotated[str, typer.Argument(help="Evolution run id.")],
    baseline: Annotated[str | None, typer.Option(help="Baseline metrics as JSON.")] = None,
    candidate: Annotated[str | None, typer.Option(help="Candidate metrics as JSON.")] = None,
    min_samples: Annotated[int, typer.Option(help="Candidate samples needed.")] = 1,
    mind: MindOpt = "default",
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Decide a proposed run by the gate (metrics default to the versions' outcomes)."""
    from ..agent.rules import Gate

    b, c = _json_arg(baseline, "--baseline"), _json_arg(candidate, "--candidate")
    r = _run(mind, dsn, lambda m: m.evolution.evaluate(
        run_id, baseline=b, candidate=c, gate=Gate(min_samples=min_samples)), write=True)
    if as_json:
        emit(r.to_dict())
    else:
        console.print(f"{r.status.value}: {r.reason}", markup=False)


@evolution_app.command("history")
def evolution_history(
    target: Annotated[str | None, typer.Argument(help="Only this target.")] = None,
    mind: MindOpt = "default",
    limit: LimitOpt = 100,
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Evolution runs, newest first."""
    rows = _run(mind, dsn, lambda m: m.evolution.history(target, limit=limit))
    _show(rows, ["id", "created_at", "target", "status", "reason"], as_json, "evolution runs")


# -- installs ---------------------------------------------------------------------------------
@installs_app.command("record")
def installs_record(
    capability: Annotated[str, typer.Argument(help="What was installed.")],
    kind: Annotated[str, typer.Argument(help="native, skill, plugin, mcp")],
    action: Annotated[str, typer.Option(help="install, update, uninstall, deny")] = "install",
    risk: Annotated[str, typer.Option(help="low, medium, high, critical")] = "low",
    trust_source: Annotated[str, typer.Option(help="Where trust came from.")] = "user",
    approval_class: Annotated[str, typer.Option(help="How it was approved.")] = "user_approved",
    mind: MindOpt = "default",
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Append an install decision to the audit."""
    e = _run(mind, dsn, lambda m: m.installs.record(
        capability, kind, action=action, risk=risk, trust_source=trust_source,
        approval_class=approval_class), write=True)
    if as_json:
        emit(e.to_dict())
    else:
        console.print(f"audit {e.id}: {e.action.value} {e.capability} ({e.kind.value})")


@installs_app.command("list")
def installs_list(mind: MindOpt = "default", limit: LimitOpt = 100, as_json: JsonOpt = False,
                  dsn: DsnOpt = None) -> None:
    """The install audit, newest first."""
    rows = _run(mind, dsn, lambda m: m.installs.list(limit=limit))
    _show(rows, ["created_at", "capability", "kind", "action", "risk", "trust_source",
                 "approval_class"], as_json, "install audit")


def register(app: typer.Typer) -> None:
    """Add the agent-record command groups to the main app."""
    app.add_typer(procedures_app, name="procedures")
    app.add_typer(signals_app, name="signals")
    app.add_typer(traces_app, name="traces")
    app.add_typer(evolution_app, name="evolution")
    app.add_typer(installs_app, name="installs")
