"""The import runner shared by every importer (mbox, ICS, chat transcripts).

Importers turn a file into `SourceRecord`s (a stable per-item key and an `IngestItem`). The
runner skips keys already harvested, then triages the new items in batches
(`Ingestor.triage_and_save_stream`: one embedding call per batch, run while the batch before it is
committed; each item checked and committed in order) — or, with `defer`, only queues them. An item is marked processed (design B's harvest state) in the same transaction that saves
it, skips it or queues it; when triage fails, the item is queued for retry with its mark. So
re-importing a file is incremental and a crash never loses or duplicates an item.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING

from ..errors import InvalidInput
from ..store.ingest import HarvestMark
from .items import ImportReport, IngestItem, IngestResult
from .pipeline import BATCH_SIZE
from .queue import enqueue

if TYPE_CHECKING:
    from .pipeline import Ingestor

Progress = Callable[[int], None]
_MAX_NOTES = 100


@dataclass(slots=True)
class SourceRecord:
    """One item read from a source: its stable key, the item (None when it could not be
    read), and notes for the report (skipped attachments, truncation, parse errors)."""

    key: str
    item: IngestItem | None
    notes: list[str] = field(default_factory=list)


def _batches(records: Iterable[SourceRecord], size: int) -> Iterator[list[SourceRecord]]:
    it = iter(records)
    while group := list(islice(it, size)):
        yield group


def run_import(
    ingestor: Ingestor,
    kind: str,
    source: str,
    records: Iterable[SourceRecord],
    *,
    defer: bool = False,
    progress: Progress | None = None,
    batch_size: int = 200,
) -> ImportReport:
    """Ingest `records` of importer `kind` from `source`; see the module docstring.

    Raises `StoreError` (the database failed: what was committed stays committed) and the
    importer's `InvalidInput` for an unreadable source.
    """
    report = ImportReport(kind=kind, source=source)
    store = ingestor.store
    for group in _batches(records, batch_size):
        report.items += len(group)
        for r in group:
            _note(report, r.notes)
        valid = [r for r in group if r.item is not None]
        report.invalid += len(group) - len(valid)
        seen = store.harvested(kind, [r.key for r in valid])
        fresh: dict[str, SourceRecord] = {}
        for r in valid:
            if r.key in seen or r.key in fresh:
                report.already_imported += 1
            else:
                fresh[r.key] = r
        items: list[IngestItem] = []
        for r in fresh.values():
            assert r.item is not None
            r.item.harvest = HarvestMark(kind=kind, key=r.key, source=source, status="queued")
            items.append(r.item)
        if defer:
            if items:
                enqueue(ingestor, items)
            report.queued += len(items)
        elif progress is not None and len(group) > len(items):
            progress(len(group) - len(items))  # the ones read, seen or broken: no triage
        if not defer:
            batches = [items[i:i + BATCH_SIZE] for i in range(0, len(items), BATCH_SIZE)]
            stream = ingestor.triage_and_save_stream([(it, None) for it in b] for b in batches)
            for batch, outcomes in zip(batches, stream, strict=True):
                for item, outcome in zip(batch, outcomes, strict=True):
                    _settle_one(ingestor, item, outcome, report)
                    if progress is not None:
                        progress(1)  # per item settled (a batch settles at once)
        elif progress is not None:
            progress(len(group))
    store.set_harvest_source(
        source, kind, now=ingestor.clock.now(),
        state={k: v for k, v in report.to_dict().items() if isinstance(v, int)},
    )
    return report


def _settle_one(
    ingestor: Ingestor, item: IngestItem, result: IngestResult | Exception | None,
    report: ImportReport,
) -> None:
    """Count one item's outcome (`Ingestor.triage_and_save_many`) in the report."""
    if isinstance(result, InvalidInput):  # can never be saved; report it, leave it unmarked
        report.invalid += 1
        _note(report, [f"{item.harvest.key if item.harvest else '?'}: {result}"])
        return
    if isinstance(result, Exception):  # the model or the embedder failed: queue it for the drain
        enqueue(ingestor, [item])
        report.queued += 1
        _note(report, [f"queued for retry: {type(result).__name__}: {result}"[:300]])
        return
    if result is not None and result.saved:
        report.saved += 1
    else:
        report.skipped += 1
        key = item.harvest.key if item.harvest else "?"
        _note(report, [f"{key}: not kept — {skip_reason(result)}"])


def skip_reason(result: IngestResult | None) -> str:
    """Why triage kept nothing of an item, in words (for import reports)."""
    if result is None:
        return "nothing to save"
    score = f" (salience {result.salience:.0f}/10)" if result.salience is not None else ""
    return {
        "noise": f"small talk, nothing worth keeping{score}",
        "below_threshold": f"triage scored it below the save threshold{score}",
        "model_said_no": f"the triage model judged it not worth keeping{score}",
        "duplicate": f"already stored as {result.duplicate_of}",
        "gone": "its source no longer exists",
    }.get(result.skipped or "", f"skipped by triage: {result.skipped}{score}")


def _note(report: ImportReport, notes: list[str]) -> None:
    room = _MAX_NOTES - len(report.notes)
    if room > 0:
        report.notes.extend(notes[:room])
