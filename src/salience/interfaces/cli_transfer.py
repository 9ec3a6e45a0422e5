"""`salience export`, `restore` and `reembed`: moving whole minds (see `salience.transfer`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import SalienceError
from .cli_common import DsnOpt, JsonOpt, MindOpt, console
from .cli_common import config_for as _config
from .cli_common import emit as _emit
from .cli_common import fail as _fail
from .cli_common import open_mind as _open
from .cli_progress import job_progress


def _report(action: str, summary, as_json: bool) -> None:
    data = {
        "action": action,
        "counts": summary.counts,
        "skipped": summary.skipped,
        "reembedded": summary.reembedded,
        "notes": summary.notes,
    }
    if as_json:
        _emit(data)
        return
    parts = ", ".join(f"{n:,} {k}" for k, n in sorted(summary.counts.items())) or "nothing"
    console.print(f"{action}: {parts}")
    if summary.skipped:
        skipped = ", ".join(f"{n:,} {k}" for k, n in sorted(summary.skipped.items()))
        console.print(f"[dim]already present, skipped: {skipped}[/]")
    if summary.reembedded:
        console.print(f"[dim]re-embedded {summary.reembedded:,} memories[/]")
    for note in summary.notes:
        console.print(f"[yellow]note[/]: {note}")


def export(
    path: Annotated[Path, typer.Argument(help="JSONL file to write ('-' for stdout).")],
    mind: MindOpt = "default",
    no_embeddings: Annotated[
        bool, typer.Option("--no-embeddings", help="Leave vectors out (restore re-embeds).")
    ] = False,
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Export a whole mind as JSONL (memories, embeddings, identity, graph, awareness, queues)."""
    import sys

    try:
        with _open(mind, dsn) as m:
            total = m.count()  # every memory, superseded history included
            with job_progress(f"export {mind}", total, unit="memories") as bar:
                dest = sys.stdout if str(path) == "-" else path
                summary = m.export(dest, embeddings=not no_embeddings, progress=bar.advance)
    except (SalienceError, OSError) as e:
        _fail(e)
    if str(path) != "-":
        _report(f"exported mind {mind!r} to {path}", summary, as_json)


def restore(
    path: Annotated[Path, typer.Argument(help="A file written by `salience export`.")],
    mind: MindOpt = "default",
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Restore an export into a new or existing mind (idempotent: existing records are skipped)."""
    from ..transfer import count_export_memories

    try:
        total = count_export_memories(path)
        with (
            _open(mind, dsn, create=True) as m,
            job_progress(f"restore {mind}", total, unit="memories") as bar,
        ):
            summary = m.restore(path, progress=bar.advance)
    except (SalienceError, OSError) as e:
        _fail(e)
    _report(f"restored {path} into mind {mind!r}", summary, as_json)


def reembed(
    mind: MindOpt = "default",
    embedder: Annotated[str, typer.Option("--embedder", help="Provider for the new mind.")] = "e5",
    to: Annotated[
        str | None, typer.Option("--to", help="New mind name (default MIND-EMBEDDER).")
    ] = None,
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Copy a mind into a new mind embedded with another model; re-run to resume."""
    from ..mind import Mind
    from ..transfer import reembed_mind

    target_name = to or f"{mind}-{embedder}"
    try:
        cfg = _config(dsn).model_copy(update={"embedder": embedder})
        with _open(mind, dsn) as src, Mind.open(target_name, config=cfg) as dst:
            label = f"re-embed {mind} -> {target_name}"
            with job_progress(label, src.count(), unit="memories") as bar:
                summary = reembed_mind(src, dst, progress=bar.advance)
    except SalienceError as e:
        _fail(e)
    _report(f"re-embedded mind {mind!r} into {target_name!r} with {embedder}", summary, as_json)


def register(app: typer.Typer) -> None:
    app.command()(export)
    app.command()(restore)
    app.command()(reembed)
