"""MCP tools for design B's agent records (issue 20): record a correction (recurring ones
become improvement signals, shown once in the agent's self-awareness), record other signals
and runs, fetch the procedure version to use and report its outcome. Each tool calls one
`Mind` method; errors come back as tool errors starting with the stable error code."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import Field

from ..mind import Mind
from ..models.agent import SignalCategory, TraceOutcome

CategoryName = Literal[tuple(c.value for c in SignalCategory)]  # type: ignore[valid-type]
OutcomeName = Literal[tuple(o.value for o in TraceOutcome)]  # type: ignore[valid-type]
KeyArg = Annotated[
    str,
    Field(
        description="A short stable key naming the pattern, the same each time it recurs, "
        "e.g. 'date format' or 'tone too formal'.",
        min_length=1,
        max_length=200,
    ),
]


def _signal(s: Any) -> dict[str, Any]:
    return {
        "category": s.category.value,
        "pattern_key": s.pattern_key,
        "count": s.count,
        "surfaced": s.surfaced,
        "note": s.note,
    }


def register_record_tools(server: Any, mind: Mind, call: Callable[[Callable[[], Any]], Any]):
    """Add the agent-record tools to `server` (`call` maps Salience errors to tool errors)."""

    @server.tool()
    def record_correction(
        pattern_key: KeyArg,
        note: Annotated[
            str,
            Field(description="What the user corrected and what they want instead.",
                  max_length=2000),
        ] = "",
    ) -> dict[str, Any]:
        """Call this when the user corrects you (format, tone, a wrong assumption). Corrections
        with the same key are counted; one that recurs is shown to you once in your
        self-awareness so you can change how you work."""
        return _signal(call(lambda: mind.signals.correction(pattern_key, note)))

    @server.tool()
    def record_signal(
        category: Annotated[CategoryName, Field(description="What recurs.")],
        pattern_key: KeyArg,
        note: Annotated[str, Field(description="Details.", max_length=2000)] = "",
    ) -> dict[str, Any]:
        """Count a capability gap (something you could not do) or a workflow pattern (steps
        the user keeps repeating) — or a correction."""
        return _signal(call(lambda: mind.signals.record(category, pattern_key, note)))

    @server.tool()
    def record_run(
        task: Annotated[str, Field(description="What you were asked to do.", min_length=1,
                                   max_length=2000)],
        outcome: Annotated[OutcomeName, Field(description="How it ended.")],
        steps: Annotated[
            list[str] | None,
            Field(description="The steps or tool calls you made, in order.", max_length=200),
        ] = None,
        procedure_id: Annotated[
            str | None, Field(description="The procedure version you followed (get_procedure).")
        ] = None,
        cost: Annotated[float | None, Field(ge=0, description="Cost of the run, if known.")] = None,
    ) -> dict[str, Any]:
        """Record one run of a task (an execution trace); with procedure_id it also counts
        toward that procedure version's success rate."""
        t = call(
            lambda: mind.traces.record(
                task, outcome, trace={"steps": steps or []}, procedure_id=procedure_id, cost=cost
            )
        )
        return {"id": t.id, "outcome": t.outcome.value}

    @server.tool()
    def get_procedure(
        name: Annotated[str, Field(description="The procedure's name.", min_length=1,
                                   max_length=200)],
    ) -> dict[str, Any]:
        """The version of a named procedure (prompt template) to use now: the promoted one,
        else the best tried one."""
        p = call(lambda: mind.procedures.best(name))
        return {
            "id": p.id,
            "name": p.name,
            "version": p.version,
            "template": p.template,
            "success_rate": p.success_rate,
            "runs": p.runs,
        }
