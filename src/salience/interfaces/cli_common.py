"""What every `salience` command module shares: options, output, errors, opening a mind."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from ..config import Config

if TYPE_CHECKING:
    from ..mind import Mind

console = Console()
err_console = Console(stderr=True)

MindOpt = Annotated[str, typer.Option("--mind", "-m", help="Mind name.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
DsnOpt = Annotated[
    str | None, typer.Option("--dsn", help="PostgreSQL DSN (selects the postgres backend).")
]


SCORE_NOTE = (
    "score: how well each memory ranks for this query (higher is better); it orders the hits, "
    "it is not a probability and can exceed 1. --json shows what it is made of."
)


_CONFIG_KEY = "salience.config"  # where config_for keeps the command's Config


def config_for(dsn: str | None = None) -> Config:
    """The effective config (env + defaults), pointed at PostgreSQL when `dsn` is given.
    A malformed `SALIENCE_*` variable exits with a one-line error.

    `Config()` is built once per command (the process entry point) and kept on the root
    click context; every later call of the same command reuses it."""
    import click

    ctx = click.get_current_context(silent=True)
    root = ctx.find_root() if ctx is not None else None
    cfg = root.meta.get(_CONFIG_KEY) if root is not None else None
    if cfg is None:
        try:
            cfg = Config()
        except ValueError as e:  # pydantic's ValidationError
            fail(e)
        if root is not None:
            root.meta[_CONFIG_KEY] = cfg
    if dsn:
        from pydantic import SecretStr

        cfg = cfg.model_copy(update={"backend": "postgres", "dsn": SecretStr(dsn)})
    return cfg


def open_mind(mind: str, dsn: str | None = None, *, create: bool = False) -> Mind:
    """Open `mind`; only writers pass `create=True` (a typo in a read is an error, not a new
    empty mind: `MindNotFound` names the close names)."""
    from ..mind import Mind

    return Mind.open(mind, config=config_for(dsn), create=create)


def emit(data: Any) -> None:
    """Print `data` as JSON on stdout."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def error_text(e: Exception) -> str:
    """One line for `e`; a settings error names the variable, the value and what is allowed."""
    errors = getattr(e, "errors", None)
    if type(e).__name__ == "ValidationError" and callable(errors):
        parts = []
        for err in errors():
            field = ".".join(str(x) for x in err.get("loc", ()))
            var = f"SALIENCE_{field.upper()}" if field else "settings"
            parts.append(f"{var}={err.get('input')!r}: {err.get('msg')}")
        return "invalid setting " + "; ".join(parts)
    return " ".join(str(e).split()) if "\n" in str(e) else str(e)


def fail(e: Exception) -> NoReturn:
    """Report an error on stderr (one line, no traceback) and exit with status 2."""
    err_console.print("[bold red]error[/]: " + escape(error_text(e)), highlight=False, soft_wrap=True)
    raise typer.Exit(code=2)


def show_stats(mind: str, dsn: str | None, as_json: bool) -> None:
    """Print the stats of an existing mind (`salience stats`, `salience minds info`)."""
    from rich.table import Table

    from ..errors import SalienceError

    try:
        with open_mind(mind, dsn) as m:
            st = m.stats()
    except SalienceError as e:
        fail(e)
    if as_json:
        emit(st)
        return
    table = Table("stat", "value", show_header=False, title=f"mind {mind}")
    for k, v in st.items():
        text = json.dumps(v, ensure_ascii=False) if isinstance(v, dict | list) else str(v)
        table.add_row(k, escape(text))
    console.print(table)


def mind_names(minds: list[str] | None, dsn: str | None = None) -> list[str]:
    """The minds named, or every mind that exists (data directory or PostgreSQL server:
    `salience.store.catalog.list_minds`)."""
    if minds:
        return minds
    from ..store.catalog import list_minds

    return list_minds(config_for(dsn))
