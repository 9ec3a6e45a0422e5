"""What every `salience` command module shares: options, output, errors, opening a mind."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console

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


def config_for(dsn: str | None = None) -> Config:
    """The effective config (env + defaults), pointed at PostgreSQL when `dsn` is given."""
    cfg = Config()
    if dsn:
        from pydantic import SecretStr

        cfg = cfg.model_copy(update={"backend": "postgres", "dsn": SecretStr(dsn)})
    return cfg


def open_mind(mind: str, dsn: str | None = None) -> Mind:
    from ..mind import Mind

    return Mind.open(mind, config=config_for(dsn))


def emit(data: Any) -> None:
    """Print `data` as JSON on stdout."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def fail(e: Exception) -> NoReturn:
    """Report an error on stderr (no traceback) and exit with status 2."""
    err_console.print(f"[bold red]error[/]: {e}")
    raise typer.Exit(code=2)
