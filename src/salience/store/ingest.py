"""Storage records and protocol of ingestion: the durable queues (deferred triage, pending
distillation), failed operations, harvest sync state (design B's `harvest_sources`), mind events
and the `ai_interactions` log (design B §11). Part of the `Store` protocol."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..models import Memory

if TYPE_CHECKING:
    import numpy as np

    from ..models.graph import MemoryGraph
    from ..models.interactions import InteractionRecord

#: The durable work queues: deferred triage (design A's pending_triage) and archive slides
#: whose distillation failed (pending_distillation).
QueueName = Literal["triage", "distillation"]
QUEUES: tuple[QueueName, ...] = ("triage", "distillation")


@dataclass(slots=True, frozen=True)
class HarvestMark:
    """One imported item marked processed (design B's harvest sync state, per item).

    `kind` is the importer ("mbox", "ics", "chat"), `key` the item's stable identity within it
    (Message-ID, UID+SEQUENCE, a content hash), `source` the harvest source it came from.
    """

    kind: str
    key: str
    source: str
    status: str = "saved"  # "saved", "skipped" (below threshold), "queued"


@dataclass(slots=True)
class QueueItem:
    """A unit of deferred work to enqueue; `payload` must be JSON-serialisable."""

    kind: str
    payload: dict[str, Any]
    enqueued_at: datetime
    next_attempt_at: datetime | None = None  # None: due immediately (= enqueued_at)
    harvest: HarvestMark | None = None  # written with status "queued" in the same transaction


@dataclass(slots=True)
class PendingItem:
    """A queued item as stored."""

    id: int
    queue: QueueName
    kind: str
    payload: dict[str, Any]
    attempts: int
    last_error: str | None
    enqueued_at: datetime
    next_attempt_at: datetime


@dataclass(slots=True)
class FailedOperation:
    """An item that exhausted its attempts (design A's failed_operations), kept for post-mortem."""

    id: int
    queue: QueueName
    kind: str
    payload: dict[str, Any]
    attempts: int
    error: str
    enqueued_at: datetime
    failed_at: datetime


@dataclass(slots=True)
class MindEvent:
    """A notable event in a mind's life (e.g. a paradigm shift), kept as a row."""

    kind: str
    created_at: datetime
    memory_id: str | None = None
    related_id: str | None = None
    payload: dict[str, Any] = field(default_factory=dict)
    id: int | None = None


@dataclass(slots=True)
class IngestBatch:
    """Everything one ingested item changes, written by `Store.commit_ingest` atomically.

    - `dequeue`: the queue item this result belongs to; if it is no longer queued (another
      drainer finished it), nothing at all is written;
    - `memories`/`vectors`: new records (row-aligned vectors); a record whose content hash is
      already stored is skipped (exact-duplicate guard, also across re-drains);
    - `supersede`: (old id, new id) pairs — `old.superseded_by = new`, never a delete;
    - `events`, `meta`, `harvest`: event rows, meta keys and harvest marks to write;
    - `enqueue`: follow-up work to queue (e.g. a slide whose distillation failed);
    - `graph`: what the new memories state (`salience.graph.extract`), written with them —
      skipped for memories that turned out to be duplicates — and the relations of the
      memories they supersede ended (`salience.store.graph_writer`).
    """

    memories: list[Memory] = field(default_factory=list)
    vectors: np.ndarray | None = None
    supersede: list[tuple[str, str]] = field(default_factory=list)
    events: list[MindEvent] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)
    harvest: list[HarvestMark] = field(default_factory=list)
    enqueue: list[tuple[QueueName, QueueItem]] = field(default_factory=list)
    dequeue: tuple[QueueName, int] | None = None
    now: datetime | None = None  # stamps supersession updates and harvest marks
    graph: list[MemoryGraph] = field(default_factory=list)


@dataclass(slots=True)
class IngestCommit:
    """What `commit_ingest` wrote: saved ids, the existing ids that deduplicated others,
    and the ids actually superseded (already-superseded rows are left alone)."""

    saved: list[str] = field(default_factory=list)
    duplicates: dict[str, str] = field(default_factory=dict)  # new id -> existing id
    superseded: list[str] = field(default_factory=list)


@dataclass(slots=True)
class HarvestSource:
    """Sync state of one harvest source (a file, a mailbox, a calendar)."""

    source: str
    kind: str
    last_sync_at: datetime | None
    items: int  # item keys marked processed from this source
    state: dict[str, Any] = field(default_factory=dict)


class IngestStore(Protocol):
    """Ingestion tables of one mind (every method is atomic)."""

    def enqueue(self, queue: QueueName, items: Sequence[QueueItem]) -> list[int]:
        """Append items to a queue (with their harvest marks) in one transaction; their ids."""
        ...

    def due_items(
        self, queue: QueueName, *, now: datetime | None, limit: int
    ) -> list[PendingItem]:
        """Queued items, oldest first; only those due at `now` unless `now` is None."""
        ...

    def commit_ingest(self, batch: IngestBatch) -> IngestCommit | None:
        """Apply `batch` in one transaction; `None` (and no change) if its `dequeue` item is
        no longer queued. Raises `InvalidInput` / `EmbedderMismatch` like `insert`."""
        ...

    def fail_item(
        self,
        queue: QueueName,
        item_id: int,
        error: str,
        *,
        now: datetime,
        retry_at: datetime,
        max_attempts: int,
    ) -> Literal["retry", "failed", "gone"]:
        """Count a failed attempt: reschedule at `retry_at`, or — at `max_attempts` — move the
        item to failed_operations with `error`, atomically. "gone" if it is not queued."""
        ...

    def failed_operations(self, *, limit: int = 100) -> list[FailedOperation]:
        """Failed items, newest first."""
        ...

    def retry_failed(self, ids: Sequence[int] | None = None, *, now: datetime) -> int:
        """Move failed items (all, or `ids`) back to their queue with zero attempts."""
        ...

    def queue_counts(self) -> dict[str, int]:
        """{"pending_triage": n, "pending_distillation": n, "failed_operations": n}."""
        ...

    def harvested(self, kind: str, keys: Sequence[str]) -> set[str]:
        """The subset of `keys` already marked processed for importer `kind`."""
        ...

    def set_harvest_source(
        self, source: str, kind: str, *, now: datetime, state: Mapping[str, Any]
    ) -> None:
        """Record a sync of `source` (last_sync_at = now, `state` replaces the stored state)."""
        ...

    def harvest_sources(self) -> list[HarvestSource]: ...

    def events(self, kind: str | None = None, *, limit: int = 100) -> list[MindEvent]:
        """Event rows, newest first."""
        ...

    def superseded_by_id(self, memory_id: str) -> list[Memory]:
        """Memories whose `superseded_by` is `memory_id` (its direct predecessors)."""
        ...

    def record_interactions(self, records: Sequence[InteractionRecord], *, at: datetime) -> None:
        """Append model-call rows to ai_interactions (`at` when a record has no start time)."""
        ...

    def interactions(self, *, limit: int = 100) -> list[dict[str, Any]]:
        """ai_interactions rows, newest first, as dicts."""
        ...

    def purge_interactions(self, before: datetime) -> int:
        """Delete ai_interactions rows created before `before`; how many."""
        ...
