"""`salience minds list|info|drop`: the minds that exist (reads never create one)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ..errors import SalienceError
from .cli_common import DsnOpt, JsonOpt, config_for, console, emit, fail, show_stats

minds_app = typer.Typer(help="List, inspect and drop minds.", no_args_is_help=True)

NameArg = Annotated[str, typer.Argument(help="Mind name.")]


@minds_app.command("list")
def minds_list(as_json: JsonOpt = False, dsn: DsnOpt = None) -> None:
    """Every mind of the data directory (or of the PostgreSQL server with --dsn)."""
    from ..store.catalog import list_minds

    cfg = config_for(dsn)
    try:
        names = list_minds(cfg)
    except SalienceError as e:
        fail(e)
    rows = [{"name": n, "backend": cfg.backend} for n in names]
    if cfg.backend == "sqlite":
        for r in rows:
            path = cfg.minds_dir / f"{r['name']}.db"
            r["path"] = str(path)
            r["bytes"] = path.stat().st_size
    if as_json:
        emit(rows)
        return
    if not rows:
        console.print("[dim]no minds yet — `salience add TEXT --mind NAME` creates one[/]")
        return
    table = Table("mind", "size" if cfg.backend == "sqlite" else "backend")
    for r in rows:
        size = f"{r['bytes'] / 1e6:,.1f} MB" if "bytes" in r else r["backend"]
        table.add_row(escape(r["name"]), size)
    console.print(table)


@minds_app.command("info")
def minds_info(name: NameArg, as_json: JsonOpt = False, dsn: DsnOpt = None) -> None:
    """Counts, sizes, the pinned embedder and the last maintenance runs of one mind."""
    show_stats(name, dsn, as_json)


@minds_app.command("drop")
def minds_drop(
    name: NameArg,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Delete a mind with every memory, vector and index (asks first unless --yes)."""
    from ..store.catalog import drop_mind, require_mind

    cfg = config_for(dsn)
    try:
        require_mind(cfg, name)
        if not yes and not typer.confirm(f"Delete mind {name!r} and everything in it?"):
            raise typer.Exit(code=1)
        drop_mind(cfg, name)
    except (SalienceError, OSError) as e:
        fail(e)
    emit({"dropped": name}) if as_json else console.print(f"dropped mind {escape(name)}")


def register(app: typer.Typer) -> None:
    """Add the `minds` group to the main CLI app."""
    app.add_typer(minds_app, name="minds")
