"""Ingestion storage written once: durable queues, failed operations, the atomic save of one
ingested item (`commit_ingest`), harvest sync state, mind events and the ai_interactions log
(see `store.ingest.IngestStore`)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ...clock import parse_ts
from ...errors import InvalidInput
from ...models import Memory
from ..ingest import (
    QUEUES,
    FailedOperation,
    HarvestMark,
    HarvestSource,
    IngestBatch,
    IngestCommit,
    MindEvent,
    PendingItem,
    QueueItem,
    QueueName,
)
from .columns import INTERACTION_COLUMNS
from .core import RelationalCore, Run

if TYPE_CHECKING:
    from ...models.interactions import InteractionRecord
    from ..graph_writer import GraphWrite


#: Queue name -> table; the only identifiers ever put into the queue statements' `{q}` slot.
QUEUE_TABLES = {"triage": "pending_triage", "distillation": "pending_distillation"}


def _table(queue: str) -> str:
    try:
        return QUEUE_TABLES[queue]
    except KeyError:
        known = ", ".join(QUEUES)
        raise InvalidInput(f"unknown queue {queue!r}; expected one of: {known}") from None


def _dumps(payload: Mapping[str, Any]) -> str:
    try:
        return json.dumps(payload, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise InvalidInput(f"queue payload must be JSON-serialisable: {e}") from None


class _Gone(Exception):
    """Internal: the dequeued item vanished; the transaction is rolled back."""


class IngestCore(RelationalCore):
    """Ingestion tables (see `salience.store.ingest.IngestStore` for the contract)."""

    if TYPE_CHECKING:

        def _check_vectors(self, vectors: Any, n: int) -> np.ndarray | None: ...

        def _write_graph(
            self, run: Run, graphs: Sequence[Any], *,
            supersede: Sequence[tuple[str, str]], now: datetime | None,
        ) -> GraphWrite: ...

    # -- queues -------------------------------------------------------------------------------
    def enqueue(self, queue: QueueName, items: Sequence[QueueItem]) -> list[int]:
        table = _table(queue)
        rows = [self._queue_row(it) for it in items]
        ids: list[int] = []
        with self._write() as run:
            for it, row in zip(items, rows, strict=True):
                ids.append(self._dialect.inserted_id(run("QUEUE_INSERT", row, q=table)))
                if it.harvest is not None:
                    self._mark(run, it.harvest, "queued", it.enqueued_at)
        return ids

    def due_items(
        self, queue: QueueName, *, now: datetime | None, limit: int
    ) -> list[PendingItem]:
        table = _table(queue)
        if now is None:
            rows = self._all("QUEUE_ALL", (limit,), q=table)
        else:
            rows = self._all("QUEUE_DUE", (self._dialect.ts(now), limit), q=table)
        return [_pending(queue, r) for r in rows]

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
        table, ts = _table(queue), self._dialect.ts
        with self._write() as run:
            row = run("QUEUE_LOCK", (item_id,), q=table).fetchone()
            if row is None:
                return "gone"
            item = _pending(queue, row)
            attempts = item.attempts + 1
            if attempts >= max_attempts:
                run(
                    "FAILED_INSERT",
                    (queue, item.kind, row[2], attempts, error, ts(item.enqueued_at), ts(now)),
                )
                run("QUEUE_DELETE", (item_id,), q=table)
                return "failed"
            run("QUEUE_RESCHEDULE", (attempts, error, ts(retry_at), item_id), q=table)
            return "retry"

    def failed_operations(self, *, limit: int = 100) -> list[FailedOperation]:
        return [_failed(r) for r in self._all("FAILED_LIST", (limit,))]

    def retry_failed(self, ids: Sequence[int] | None = None, *, now: datetime) -> int:
        ts = self._dialect.ts
        with self._write() as run:
            if ids is None:
                rows = run("FAILED_ALL_ASC").fetchall()
            else:
                rows = self._all_in("FAILED_BY_IDS", [int(i) for i in ids], run=run)
            for r in rows:
                op = _failed(r)
                run(
                    "QUEUE_INSERT",
                    (op.kind, r[3], 0, op.error, ts(op.enqueued_at), ts(now)),
                    q=_table(op.queue),
                )
                run("FAILED_DELETE", (op.id,))
        return len(rows)

    def queue_counts(self) -> dict[str, int]:
        def counts(run: Run) -> dict[str, int]:
            out = {
                table: int(run("QUEUE_COUNT", q=table).fetchone()[0])
                for table in QUEUE_TABLES.values()
            }
            out["failed_operations"] = int(run("FAILED_COUNT").fetchone()[0])
            return out

        return self._read_with(counts)

    # -- the atomic save of one ingested item --------------------------------------------------
    def commit_ingest(self, batch: IngestBatch) -> IngestCommit | None:
        vecs = self._check_vectors(batch.vectors, len(batch.memories))
        try:
            with self._write() as run:
                return self._commit_ingest(run, batch, vecs)
        except _Gone:
            return None

    def _commit_ingest(
        self, run: Run, batch: IngestBatch, vecs: np.ndarray | None
    ) -> IngestCommit:
        now, ts = batch.now, self._dialect.ts
        result = IngestCommit()
        self._serialize(run, "ingest")  # one ingest commit at a time: the hash check stays exact
        if batch.dequeue is not None:
            queue, item_id = batch.dequeue
            if run("QUEUE_DELETE", (item_id,), q=_table(queue)).rowcount == 0:
                raise _Gone()  # someone else finished it: roll back, write nothing
        renamed: dict[str, str] = {}
        keep: list[int] = []
        for i, m in enumerate(batch.memories):
            existing = run("FIND_BY_HASH", (m.content_hash,)).fetchone()
            if existing is not None:
                result.duplicates[m.id] = existing[0]
                renamed[m.id] = existing[0]
                continue
            if m.parent_id in renamed:
                m.parent_id = renamed[m.parent_id]
            keep.append(i)
        kept = [batch.memories[i] for i in keep]
        kept_vecs = vecs[keep] if vecs is not None else None
        if kept:
            self._rows_inserted(run, self._insert_rows(run, kept, kept_vecs), kept_vecs)
        result.saved = [m.id for m in kept]
        retired: list[tuple[str, str]] = []
        for old_id, new_id in batch.supersede:
            new_id = renamed.get(new_id, new_id)
            row = run("GET_BY_ID_FOR_UPDATE", (old_id,)).fetchone()
            if row is None or old_id == new_id:
                continue
            old = self._memory(row)
            if old.superseded_by is not None:
                continue
            old.superseded_by = new_id
            old.updated_at = now or old.updated_at
            self._update_rows(run, [old], None)
            result.superseded.append(old_id)
            retired.append((old_id, new_id))
        saved = set(result.saved)
        graphs = [g for g in batch.graph if g.memory_id in saved]
        self._write_graph(run, graphs, supersede=retired, now=now)
        for ev in batch.events:
            mid = renamed.get(ev.memory_id, ev.memory_id) if ev.memory_id else None
            run(
                "EVENT_INSERT",
                (ev.kind, mid, ev.related_id, _dumps(ev.payload), ts(ev.created_at)),
            )
        for key, value in batch.meta.items():
            run("SET_META", (key, value))
        for mark in batch.harvest:
            self._mark(run, mark, mark.status, now)
        for queue, item in batch.enqueue:
            run("QUEUE_INSERT", self._queue_row(item), q=_table(queue))
            if item.harvest is not None:
                self._mark(run, item.harvest, "queued", item.enqueued_at)
        return result

    def _queue_row(self, it: QueueItem) -> tuple[Any, ...]:
        due = it.next_attempt_at or it.enqueued_at
        ts = self._dialect.ts
        return (it.kind, _dumps(it.payload), 0, None, ts(it.enqueued_at), ts(due))

    def _mark(self, run: Run, mark: HarvestMark, status: str, at: datetime | None) -> None:
        if at is None:
            raise InvalidInput("harvest marks need a timestamp (IngestBatch.now)")
        run("HARVEST_MARK", (mark.kind, mark.key, mark.source, status, self._dialect.ts(at)))

    # -- harvest sync state --------------------------------------------------------------------
    def harvested(self, kind: str, keys: Sequence[str]) -> set[str]:
        return {r[0] for r in self._all_in("HARVEST_SEEN", keys, before=(kind,))}

    def set_harvest_source(
        self, source: str, kind: str, *, now: datetime, state: Mapping[str, Any]
    ) -> None:
        params = (source, kind, self._dialect.ts(now), _dumps(state))
        with self._write() as run:
            run("HARVEST_SOURCE_UPSERT", params)

    def harvest_sources(self) -> list[HarvestSource]:
        return [
            HarvestSource(
                source=r[0], kind=r[1], last_sync_at=parse_ts(r[2]), state=json.loads(r[3]),
                items=int(r[4]),
            )
            for r in self._all("HARVEST_SOURCES")
        ]

    # -- events and history ----------------------------------------------------------------------
    def events(self, kind: str | None = None, *, limit: int = 100) -> list[MindEvent]:
        if kind is None:
            rows = self._all("EVENTS_ALL", (limit,))
        else:
            rows = self._all("EVENTS_OF_KIND", (kind, limit))
        return [
            MindEvent(
                id=int(r[0]), kind=r[1], memory_id=r[2], related_id=r[3],
                payload=json.loads(r[4]), created_at=_ts(r[5]),
            )
            for r in rows
        ]

    def superseded_by_id(self, memory_id: str) -> list[Memory]:
        return [self._memory(r) for r in self._all("PREDECESSORS", (memory_id,))]

    # -- ai_interactions ------------------------------------------------------------------------
    def record_interactions(self, records: Sequence[InteractionRecord], *, at: datetime) -> None:
        if not records:
            return
        d = self._dialect
        rows = [
            (
                d.ts(r.started_at or at), r.call_site, r.provider, r.model,
                int(r.prompt_chars), int(r.output_chars), r.prompt_tokens, r.completion_tokens,
                r.total_tokens, float(r.latency_ms), r.outcome, r.error, d.flag(r.thinking),
                int(r.attempts),
            )
            for r in records
        ]
        with self._write() as run:
            run.many("INTERACTION_INSERT", rows)

    def interactions(self, *, limit: int = 100) -> list[dict[str, Any]]:
        out = []
        for r in self._all("INTERACTIONS_LIST", (limit,)):
            d = dict(zip(("id", *INTERACTION_COLUMNS), r, strict=True))
            d["created_at"] = parse_ts(d["created_at"])
            d["thinking"] = bool(d["thinking"])
            out.append(d)
        return out

    def purge_interactions(self, before: datetime) -> int:
        with self._write() as run:
            return int(run("INTERACTIONS_PURGE", (self._dialect.ts(before),)).rowcount)


# -- row decoding -------------------------------------------------------------------------------
def _ts(value: Any) -> datetime:
    ts = parse_ts(value)
    assert ts is not None
    return ts


def _pending(queue: QueueName, r: Sequence[Any]) -> PendingItem:
    return PendingItem(
        id=int(r[0]), queue=queue, kind=r[1], payload=json.loads(r[2]), attempts=int(r[3]),
        last_error=r[4], enqueued_at=_ts(r[5]), next_attempt_at=_ts(r[6]),
    )


def _failed(r: Sequence[Any]) -> FailedOperation:
    return FailedOperation(
        id=int(r[0]), queue=r[1], kind=r[2], payload=json.loads(r[3]), attempts=int(r[4]),
        error=r[5], enqueued_at=_ts(r[6]), failed_at=_ts(r[7]),
    )
