"""CLI commands of the ingestion paths: `import mbox|ics|chat PATH` (with a progress bar) and
`queue` (pending/failed counts, drain, retry). Registered on the main app by `register(app)`."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ..errors import SalienceError
from .cli_common import DsnOpt, JsonOpt, MindOpt, console
from .cli_common import emit as _emit
from .cli_common import fail as _fail
from .cli_common import open_mind as _open
from .cli_progress import job_progress


class ImportKind(StrEnum):
    mbox = "mbox"
    ics = "ics"
    chat = "chat"
    mem0 = "mem0"


_UNITS = {ImportKind.mbox: "emails", ImportKind.ics: "events", ImportKind.chat: "exchanges"}


def import_(
    kind: Annotated[
        ImportKind,
        typer.Argument(help="mbox (email), ics (calendar), chat (JSONL) or mem0 (a mem0 export)."),
    ],
    path: Annotated[Path, typer.Argument(help="The file to import.")],
    mind: MindOpt = "default",
    defer: Annotated[
        bool, typer.Option("--defer", help="Only queue the items; `salience queue --drain` triages.")
    ] = False,
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Import emails, calendar events or chat transcripts. Re-importing a file is incremental."""
    from ..ingest.service import count_items
    from ..ingest.sniff import check_kind

    if kind is ImportKind.mem0:
        return _import_mem0(path, mind, as_json, dsn)
    try:
        if path.expanduser().is_file():  # before the mind is opened: a wrong file creates none
            check_kind(kind.value, path.expanduser())
        total = count_items(kind.value, path)
        with (
            _open(mind, dsn, create=True) as m,
            job_progress(f"import {kind.value}", total, unit=_UNITS.get(kind, "items")) as bar,
        ):
            report = getattr(m, f"import_{kind.value}")(path, defer=defer, progress=bar.advance)
    except SalienceError as e:
        _fail(e)
    if as_json:
        _emit(report.to_dict())
        return
    table = Table("items", "new saved", "skipped", "queued", "already imported", "invalid")
    table.add_row(*(str(v) for v in (report.items, report.saved, report.skipped, report.queued,
                                      report.already_imported, report.invalid)))
    console.print(table)
    for note in report.notes[:10]:
        console.print(note, style="dim", markup=False, highlight=False)
    if len(report.notes) > 10:
        console.print(f"[dim]… {len(report.notes) - 10} more notes (--json lists them)[/]")


def _import_mem0(path: Path, mind: str, as_json: bool, dsn: str | None) -> None:
    """`salience import mem0 FILE`: memories exported from mem0 (salience.compat.mem0)."""
    from ..compat.mem0 import import_export

    try:
        with _open(mind, dsn, create=True) as m:
            counts = import_export(m, path.expanduser())
    except (SalienceError, OSError, ValueError) as e:
        _fail(e)
    if as_json:
        _emit(counts)
        return
    table = Table(*counts)
    table.add_row(*(str(v) for v in counts.values()))
    console.print(table)


def queue(
    mind: MindOpt = "default",
    drain: Annotated[bool, typer.Option("--drain", help="Process due queued items now.")] = False,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="Items to drain.")] = 1000,
    retry_failed: Annotated[
        bool, typer.Option("--retry-failed", help="Move failed operations back to the queue.")
    ] = False,
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Show the deferred-triage queues (pending, failed); optionally retry failed and drain."""
    out: dict[str, Any] = {}
    try:
        with _open(mind, dsn) as m:
            if retry_failed:
                out["retried"] = m.retry_failed()
            if drain:
                out["drain"] = m.drain_pending_triage(limit).to_dict()
            status = m.queue_status()
    except SalienceError as e:
        _fail(e)
    out.update(status)
    if as_json:
        _emit(out)
        return
    table = Table("queue", "items")
    for key in ("pending_triage", "pending_distillation", "failed_operations"):
        table.add_row(key, str(status[key]))
    console.print(table)
    if "retried" in out:
        console.print(f"requeued {out['retried']} failed operation(s)")
    if "drain" in out:
        d = out["drain"]
        console.print(
            f"drained {d['processed']}: saved {d['saved']}, skipped {d['skipped']}, "
            f"retry later {d['retried']}, failed {d['failed']}"
        )
    for f in status["failed"][:10]:
        console.print(f"[red]failed #{f['id']}[/] ({f['queue']}, {f['attempts']} attempts): "
                      f"{f['error'][:120]}")


def register(app: typer.Typer) -> None:
    """Add `import` and `queue` to the main CLI app."""
    app.command("import")(import_)
    app.command("queue")(queue)
