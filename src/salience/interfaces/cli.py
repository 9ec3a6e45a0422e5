"""The `salience` command line: thin commands over the `Mind` facade."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..errors import SalienceError
from .cli_common import (
    SCORE_NOTE,
    DsnOpt,
    JsonOpt,
    MindOpt,
    console,
    emit,
    err_console,
    fail,
    mind_names,
    open_mind,
    show_stats,
)
from .cli_common import config_for as _config

app = typer.Typer(
    name="salience",
    help="Long-term memory for AI agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

_open = open_mind
_emit = emit
_fail = fail


def _version(value: bool) -> None:
    if value:
        from .. import __version__

        console.print(f"salience {__version__}", highlight=False)
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Long-term memory for AI agents."""


@app.command()
def add(
    content: Annotated[str, typer.Argument(help="Text to remember ('-' reads stdin).")],
    mind: MindOpt = "default",
    memory_type: Annotated[str, typer.Option("--type", help="Memory type.")] = "general",
    salience: Annotated[float, typer.Option(help="Salience 1-10.")] = 5.0,
    tag: Annotated[list[str] | None, typer.Option("--tag", help="Tag (repeatable).")] = None,
    entity: Annotated[
        list[str] | None, typer.Option("--entity", help="Entity (repeatable).")
    ] = None,
    source: Annotated[str, typer.Option(help="Source of the memory.")] = "user_stated",
    importance: Annotated[str, typer.Option(help="Importance class.")] = "normal",
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Store a memory."""
    text = sys.stdin.read() if content == "-" else content
    try:
        with _open(mind, dsn, create=True) as m:
            mid = m.add(
                text,
                memory_type=memory_type,
                salience=salience,
                tags=tag or [],
                entities=entity or [],
                source=source,
                importance=importance,
            )
    except SalienceError as e:
        _fail(e)
    if as_json:
        _emit({"id": mid})
    else:
        console.print(mid)


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    mind: MindOpt = "default",
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=1000)] = 10,
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Hybrid search (full text + vectors)."""
    try:
        with _open(mind, dsn) as m:
            hits = m.search(query, limit=limit)
    except SalienceError as e:
        _fail(e)
    if as_json:
        _emit([h.to_dict() for h in hits])
        return
    table = Table("#", "score", show_lines=False)
    table.add_column("id", no_wrap=True, min_width=32)  # whole ids: `get`/`delete` take them
    table.add_column("memory")
    for i, h in enumerate(hits, start=1):
        table.add_row(str(i), f"{h.score:.4f}", h.memory.id, escape(_clip(h.memory.text, 100)))
    if hits:
        table.caption = SCORE_NOTE
    console.print(table if hits else "[dim]no results[/]")




@app.command()
def get(
    memory_id: Annotated[str, typer.Argument(help="Memory id (or a unique prefix of it).")],
    mind: MindOpt = "default",
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Show one memory."""
    try:
        with _open(mind, dsn) as m:
            mem = m.get(m.resolve_id(memory_id))
    except SalienceError as e:
        _fail(e)
    if as_json:
        _emit(mem.to_dict())
        return
    table = Table("field", "value", show_header=False)
    for k, v in mem.to_dict().items():
        table.add_row(
            k, json.dumps(v, ensure_ascii=False) if isinstance(v, list | dict) else str(v)
        )
    console.print(table)


@app.command()
def delete(
    memory_id: Annotated[str, typer.Argument(help="Memory id (or a unique prefix of it).")],
    mind: MindOpt = "default",
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Delete a memory."""
    try:
        with _open(mind, dsn) as m:
            memory_id = m.resolve_id(memory_id)
            m.delete(memory_id)
    except SalienceError as e:
        _fail(e)
    if as_json:
        _emit({"deleted": memory_id})
    else:
        console.print(f"deleted {memory_id}")


@app.command("list")
def list_(
    mind: MindOpt = "default",
    limit: Annotated[int, typer.Option("--limit", "-n", min=0)] = 20,
    offset: Annotated[int, typer.Option(min=0)] = 0,
    memory_type: Annotated[str | None, typer.Option("--type", help="Only this type.")] = None,
    tag: Annotated[str | None, typer.Option(help="Only memories with this tag.")] = None,
    include_superseded: Annotated[bool, typer.Option(help="Show superseded memories.")] = False,
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """List memories, newest first."""
    from ..models import MemoryFilter, MemoryType, parse_enum

    try:
        flt = MemoryFilter(
            memory_types=[parse_enum(MemoryType, memory_type, "memory_type")]
            if memory_type
            else None,
            tags=[tag] if tag else None,
            include_superseded=include_superseded,
        )
        with _open(mind, dsn) as m:
            rows = m.list(flt, limit=limit, offset=offset)
    except SalienceError as e:
        _fail(e)
    if as_json:
        _emit([r.to_dict() for r in rows])
        return
    table = Table()
    table.add_column("id", no_wrap=True, min_width=32)
    for col in ("created", "type", "sal.", "memory"):
        table.add_column(col)
    for r in rows:
        created = r.created_at.strftime("%Y-%m-%d %H:%M") if r.created_at else ""
        table.add_row(
            r.id, created, r.memory_type.value, f"{r.salience:.1f}", escape(_clip(r.text, 90))
        )
    console.print(table if rows else "[dim]no memories[/]")


@app.command()
def stats(mind: MindOpt = "default", as_json: JsonOpt = False, dsn: DsnOpt = None) -> None:
    """Counts, sizes, the pinned embedder and the salience histogram."""
    show_stats(mind, dsn, as_json)


@app.command()
def embedders(as_json: JsonOpt = False) -> None:
    """Which embedding providers are available, and which `auto` picks."""
    from ..embed import available_embedders

    cfg = _config()
    rows = available_embedders(cfg)
    pick = auto_pick([(n, ok) for n, ok, _ in rows])
    if as_json:
        _emit(
            [
                {"name": n, "available": ok, "detail": d, "auto_pick": n == pick}
                for n, ok, d in rows
            ]
        )
        return
    table = Table("provider", "available", "auto", "detail")
    for n, ok, d in rows:
        mark = "[bold cyan]← picks[/]" if n == pick else ""
        table.add_row(n, "[green]yes[/]" if ok else "[red]no[/]", mark, escape(d))
    console.print(table)
    using = f"; this configuration uses {cfg.embedder}" if cfg.embedder != "auto" else ""
    console.print(f"`auto` picks [bold]{pick}[/]{using}", highlight=False)


AUTO_ORDER = ("onnx", "e5", "minilm", "ollama", "openai")  # embed/factory.py's `auto` chain


def auto_pick(rows: list[tuple[str, bool]]) -> str:
    """The provider `auto` uses given (name, available) rows: the first available one of its
    chain, else the hash fallback."""
    available = {n for n, ok in rows if ok}
    return next((n for n in AUTO_ORDER if n in available), "hash")


@app.command()
def demo(
    directory: Annotated[
        Path | None,
        typer.Option("--dir", help="Where to create the demo mind (default: a temporary dir)."),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1)] = 3,
    as_json: JsonOpt = False,
) -> None:
    """Run an agent's live loop over a 3-month conversation, then ask it what it remembers."""
    import tempfile
    from datetime import datetime

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from ..clock import FrozenClock, ensure_utc
    from ..demo import load_demo, run_demo
    from ..mind import Mind

    first = min(s["date"] for s in load_demo()["sessions"])
    clock = FrozenClock(ensure_utc(datetime.fromisoformat(first.replace("Z", "+00:00"))))
    with tempfile.TemporaryDirectory(prefix="salience-demo-") as tmp:
        home = directory or Path(tmp)
        cfg = _config().model_copy(update={"home": home, "backend": "sqlite"})
        try:
            with Mind.open("demo", config=cfg, clock=clock) as m, Progress(
                "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                TimeElapsedColumn(), console=err_console, disable=as_json, transient=True,
            ) as bar:
                if not as_json:  # a temporary mind is deleted at the end: no path to show
                    where = m.store.stats()["path"] if directory else "a temporary directory"
                    err_console.print(f"[dim]mind: {where}[/]", soft_wrap=True)
                task = bar.add_task("agent loop: prefetch → remember_turn → heartbeat", total=None)
                result = run_demo(
                    m, clock, limit=limit,
                    on_turn=lambda done, total: bar.update(task, completed=done, total=total),
                )
                status = m.embedder.status()
        except SalienceError as e:
            _fail(e)
    if as_json:
        _emit(
            {
                "embedder": status.model,
                "turns": result.turns,
                "memories": result.memories,
                "superseded": result.superseded,
                "heartbeats": result.heartbeats,
                "first": result.first,
                "answers": [
                    {
                        "query": a.query,
                        "expect": a.expect,
                        "found_at": a.found_at,
                        "hits": [h.to_dict() for h in a.hits],
                    }
                    for a in result.answers
                ],
                "context": result.context,
            }
        )
        return
    out = console if console.is_terminal else Console(soft_wrap=True)  # a pipe: no hard wraps
    out.print(
        f"[bold]Salience demo[/] — {result.turns} exchanges through remember_turn, "
        f"{result.heartbeats} heartbeats over the conversation's dates → {result.memories} "
        f"memories ({result.superseded} superseded by newer statements, kept as history); "
        f"embedder [cyan]{status.model}[/]{' [red](degraded)[/]' if status.degraded else ''}\n"
    )
    for a in result.answers:
        mark = f"[green]found at #{a.found_at}[/]" if a.found_at else "[red]not in top results[/]"
        out.print(f"[bold]? {escape(a.query)}[/]  {mark}")
        for i, h in enumerate(a.hits, start=1):
            when = h.memory.occurred_at.date().isoformat() if h.memory.occurred_at else ""
            out.print(f"   {i}. [dim]{h.score:.4f} {when}[/] {escape(_clip(h.memory.content, 110))}")
        out.print()
    if result.context:
        out.print("[bold]What the agent's system prompt gets for the first question:[/]")
        out.print(result.context + "\n", markup=False, highlight=False, style="dim")
    out.print(
        f"[bold]{result.first}/{len(result.answers)}[/] questions answered with the right memory "
        f"first, {result.found}/{len(result.answers)} in the top {limit}."
    )


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


# -- maintenance (issue 7): `maintain`, `heartbeat` -------------------------------------------
@app.command()
def maintain(
    mind: MindOpt = "default",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would change.")] = False,
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Decay, usefulness regression, pruning and compaction (a table of what changes)."""
    try:
        with _open(mind, dsn) as m:
            report = m.maintain(dry_run=dry_run)
    except SalienceError as e:
        _fail(e)
    data = report.to_dict()
    if as_json:
        _emit(data)
        return
    verb = "would change" if dry_run else "changed"
    table = Table("what", "count", "detail", title=f"maintenance of {mind!r}: {verb}")
    table.add_row("scanned", str(data["scanned"]), f"last run: {data['last_run'] or 'never'}")
    table.add_row(
        "salience decayed", str(data["decayed"]), f"mean change {data['mean_salience_change']:+.3f}"
    )
    table.add_row(
        "usefulness regressed", str(data["regressed"]),
        f"mean change {data['mean_usefulness_change']:+.3f}",
    )
    for key, label in (("pruned", "pruned"), ("compacted", "compacted")):
        items = data[key]
        table.add_row(label, str(len(items)), "\n".join(f"{i} ({r})" for i, r in items.items()))
    merges = data["merges"]
    table.add_row(
        "P-frames merged", str(sum(len(mg["dropped"]) for mg in merges)),
        "\n".join(f"session {mg['session_id']}: {mg['patches']} patches" for mg in merges),
    )
    for key, n in data.get("retention", {}).items():  # agent records (issue 20)
        table.add_row(f"{key} past retention", str(n), "deleted by age/count bound")
    console.print(table)


@app.command()
def heartbeat(
    mind: Annotated[
        list[str] | None, typer.Option("--mind", "-m", help="Mind (repeatable; default: all).")
    ] = None,
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """One heartbeat tick per mind: drain queues, prefetch, maintenance when due, a cognitive
    run when triggered."""
    reports = []
    try:
        names = mind_names(mind, dsn)
    except SalienceError as e:
        _fail(e)
    for name in names:
        try:
            with _open(name, dsn) as m:
                reports.append(m.heartbeat().to_dict())
        except SalienceError as e:
            _fail(e)
    if as_json:
        _emit(reports)
        return
    table = Table("mind", "step", "status", "detail")
    for r in reports:
        if not r["ran"]:
            table.add_row(r["mind"], "-", "[yellow]skipped[/]", r["skipped_reason"])
        for s in r["steps"]:
            color = {"ok": "green", "failed": "red"}.get(s["status"], "dim")
            table.add_row(
                r["mind"], s["name"], f"[{color}]{s['status']}[/]", escape(_detail(s["detail"]))
            )
    console.print(table if reports else "[dim]no minds yet[/]")


def _detail(detail: Any) -> str:
    """A step's detail as `key: value` lines (whole values, never cut mid-JSON)."""
    if isinstance(detail, dict):
        return "\n".join(
            f"{k}: {v if isinstance(v, str | int | float) else json.dumps(v, ensure_ascii=False)}"
            for k, v in detail.items()
        )
    return detail if isinstance(detail, str) else json.dumps(detail, ensure_ascii=False)


# serving: `serve`, `mcp`, `keys ...` (kept in their own module)
from .cli_server import register as _register_server_commands  # noqa: E402

_register_server_commands(app)

# ingestion: `import`, `queue` (kept in their own module)
from .cli_ingest import register as _register_ingest_commands  # noqa: E402

_register_ingest_commands(app)

# the agent path: `remember`
from .cli_agent import register as _register_agent_commands  # noqa: E402

_register_agent_commands(app)

# moving minds: `export`, `restore`, `reembed`
from .cli_transfer import register as _register_transfer_commands  # noqa: E402

_register_transfer_commands(app)

# config, layers and recall: `config show`, `awareness`, `identity`, `context`, `catch-up`, ...
from .cli_more import register as _register_more_commands  # noqa: E402

_register_more_commands(app)

# agent records: `procedures`, `signals`, `traces`, `evolution`, `installs` (issue 20)
from .cli_records import register as _register_record_commands  # noqa: E402

_register_record_commands(app)

# `minds list|info|drop`
from .cli_minds import register as _register_minds_commands  # noqa: E402

_register_minds_commands(app)


def main() -> None:
    """Console-script entry point. A malformed `SALIENCE_*` setting is one line, not a
    pydantic traceback."""
    from pydantic import ValidationError

    try:
        app()
    except ValidationError as e:
        try:
            _fail(e)
        except typer.Exit as done:
            sys.exit(done.exit_code)


if __name__ == "__main__":
    main()
