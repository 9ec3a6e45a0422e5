"""CLI command of the agent path: `salience remember USER [REPLY]` (a conversation turn through
triage, queued or now). Registered on the main app by `register(app)`."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.markup import escape

from ..errors import SalienceError
from .cli_common import DsnOpt, JsonOpt, MindOpt, config_for, console, emit, fail


def remember(
    user: Annotated[str, typer.Argument(help="What the person said ('-' reads stdin).")],
    assistant: Annotated[str, typer.Argument(help="The assistant's reply (optional).")] = "",
    mind: MindOpt = "default",
    speaker: Annotated[
        str | None, typer.Option("--speaker", "-s", help="Who spoke (default: User).")
    ] = None,
    tool_grounded: Annotated[
        bool, typer.Option("--tool-grounded", help="The reply rests on a tool's result.")
    ] = False,
    defer: Annotated[
        bool,
        typer.Option("--defer", help="Only queue the turn; `salience heartbeat` triages it."),
    ] = False,
    session: Annotated[str | None, typer.Option("--session", help="Session id.")] = None,
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Remember a conversation turn the way an agent does: triage decides what is kept (small
    talk is dropped, what it contradicts is superseded). `salience add` saves as given."""
    text = sys.stdin.read() if user == "-" else user
    try:
        from ..mind import Mind

        with Mind.open(mind, config=config_for(dsn)) as m:  # a turn creates its mind, as `add`
            out = m.remember_turn(
                text, assistant, speaker=speaker, tool_grounded=tool_grounded, defer=defer,
                session_id=session,
            )
    except SalienceError as e:
        fail(e)
    if defer:
        if as_json:
            emit({"queued": out})
        else:
            console.print(f"queued #{out} for triage (run `salience heartbeat -m {mind}`)")
        return
    result = out.to_dict()
    if as_json:
        emit({"result": result})
        return
    if result["saved"]:
        console.print(f"kept {len(result['saved'])} memory(ies): {', '.join(result['saved'])}"
                      f" (salience {result['salience']})")
    else:
        why = result["skipped"] or "not kept"
        console.print(f"[dim]not kept: {escape(why)}[/]")
    if result["superseded"]:
        console.print(f"superseded: {', '.join(result['superseded'])}")


def register(app: typer.Typer) -> None:
    """Add `remember` to the main CLI app."""
    app.command("remember")(remember)
