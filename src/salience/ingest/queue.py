"""Durable deferred triage (design A's pending_triage / DrainPendingTriage) and the retry of
staged distillations (pending_distillation).

Enqueueing is cheap (one row, no model call). Draining processes due items oldest first, triage
items in batches (`Ingestor.triage_and_save_stream`: one embedding call per batch); an item
leaves its queue only in the transaction that saves its result, so a crash at any point loses
nothing and duplicates nothing. A failed attempt is counted and rescheduled with exponential
backoff; after `queue_max_attempts` the item moves to failed_operations with its error.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..errors import InvalidInput, StoreError
from ..store.ingest import QueueItem, QueueName
from . import rules
from .items import DrainReport, IngestItem
from .pipeline import BATCH_SIZE

if TYPE_CHECKING:
    from datetime import datetime

    from ..store.ingest import PendingItem
    from .items import IngestResult
    from .pipeline import Ingestor

log = logging.getLogger("salience.ingest")


def enqueue(ingestor: Ingestor, items: Sequence[IngestItem], queue: QueueName = "triage") -> list[int]:
    """Queue `items` for deferred processing (with their harvest marks); their queue ids.

    An item queued for triage without its own time is stamped with the time it was queued
    (`occurred_at`): a turn was said now, not when a later heartbeat triages it — two turns
    triaged in one drain keep their order, so the newer of two statements stays the newer."""
    now = ingestor.clock.now()
    return ingestor.store.enqueue(
        queue,
        [
            QueueItem(kind=it.path, payload=_stamped(it, queue, now).to_payload(),
                      enqueued_at=now, harvest=it.harvest)
            for it in items
        ],
    )


def _stamped(item: IngestItem, queue: QueueName, now: datetime) -> IngestItem:
    if queue != "triage" or item.occurred_at is not None:
        return item
    return replace(item, occurred_at=now)


def drain(
    ingestor: Ingestor,
    *,
    limit: int = 100,
    queues: Sequence[QueueName] = ("triage", "distillation"),
    purge: bool = True,
) -> DrainReport:
    """Process up to `limit` due items of `queues`; purge expired ai_interactions rows first.

    Store errors (disk full, locked database) abort the drain and propagate: the items stay
    queued. Any other error counts as a failed attempt of that item.
    """
    report = DrainReport()
    cfg = ingestor.config
    if purge:
        cutoff = rules.retention_cutoff(ingestor.clock.now(), cfg.ai_interactions_retention_days)
        report.purged_interactions = ingestor.store.purge_interactions(cutoff)
    for queue in queues:
        left = limit - report.processed
        if left <= 0:
            break
        due = ingestor.store.due_items(queue, now=ingestor.clock.now(), limit=left)
        report.processed += len(due)
        if queue == "distillation":
            for pending in due:
                _process(ingestor, queue, pending, report)
            continue
        _process_batches(ingestor, queue, due, report)
    return report


def _process_batches(
    ingestor: Ingestor, queue: QueueName, due: Sequence[PendingItem], report: DrainReport
) -> None:
    """Triage queue items in batches (`Ingestor.triage_and_save_stream`: one embedding call
    per batch), each item removed in the transaction that saves it; a payload that cannot be
    read fails on its own."""
    items: list[tuple[PendingItem, IngestItem]] = []
    for pending in due:
        try:
            items.append((pending, IngestItem.from_payload(pending.payload)))
        except Exception as e:
            _failed(ingestor, queue, pending, e, report)
    batches = [items[i:i + BATCH_SIZE] for i in range(0, len(items), BATCH_SIZE)]
    stream = ingestor.triage_and_save_stream([(it, (queue, p.id)) for p, it in b] for b in batches)
    for batch, outcomes in zip(batches, stream, strict=True):
        for (pending, _), outcome in zip(batch, outcomes, strict=True):
            if isinstance(outcome, Exception):
                _failed(ingestor, queue, pending, outcome, report)
            else:
                _count(outcome, report)

def _process(ingestor: Ingestor, queue: QueueName, pending: PendingItem, report: DrainReport) -> None:
    try:
        item = IngestItem.from_payload(pending.payload)
        if queue == "distillation":
            result = ingestor.distill_staged(item, dequeue=(queue, pending.id))
        else:
            result = ingestor.triage_and_save(item, dequeue=(queue, pending.id))
    except StoreError:
        raise
    except Exception as e:
        _failed(ingestor, queue, pending, e, report)
        return
    _count(result, report)


def _failed(
    ingestor: Ingestor, queue: QueueName, pending: PendingItem, e: Exception, report: DrainReport
) -> None:
    """Count a failed attempt: rescheduled with backoff, or moved to failed_operations."""
    cfg = ingestor.config
    error = f"{type(e).__name__}: {e}"[:2000]
    permanent = isinstance(e, InvalidInput)  # a poison payload never gets better
    now = ingestor.clock.now()
    outcome = ingestor.store.fail_item(
        queue,
        pending.id,
        error,
        now=now,
        retry_at=now + rules.retry_delay(pending.attempts + 1, base_s=cfg.queue_retry_base_s),
        max_attempts=pending.attempts + 1 if permanent else cfg.queue_max_attempts,
    )
    report.errors.append(f"{queue}#{pending.id}: {error}")
    if outcome == "failed":
        report.failed += 1
        log.warning("%s item %d failed for good: %s", queue, pending.id, error)
    elif outcome == "retry":
        report.retried += 1
    else:
        report.gone += 1


def _count(result: IngestResult | None, report: DrainReport) -> None:
    if result is None:
        report.gone += 1
    elif result.saved:
        report.saved += 1
    else:
        report.skipped += 1
