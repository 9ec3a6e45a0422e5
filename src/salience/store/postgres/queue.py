"""The PostgreSQL side of ingestion: durable queues, failed operations, harvest sync state, mind
events and the ai_interactions log. Mixed into `PostgresStore` (it uses its pooled
connections, schema-qualified statements and row codecs)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import numpy as np
from psycopg import sql as psql

from ...clock import ensure_utc
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
from ..relational.columns import INTERACTION_COLUMNS
from . import sql

if TYPE_CHECKING:
    import psycopg

    from ...models.interactions import InteractionRecord

T = TypeVar("T")


def _dumps(payload: Mapping[str, Any]) -> str:
    try:
        return json.dumps(payload, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise InvalidInput(f"queue payload must be JSON-serialisable: {e}") from None


class _Gone(Exception):
    """Internal: the dequeued item vanished; the transaction is rolled back."""


class IngestStoreMixin:
    """Ingestion tables of `PostgresStore` (see `salience.store.ingest.IngestStore`)."""

    _mind: str
    _lock_key: str

    if TYPE_CHECKING:  # provided by PostgresStore

        def _tx(self) -> AbstractContextManager[psycopg.Connection]: ...
        def _read(self, fn: Callable[[psycopg.Connection], T]) -> T: ...
        def _q(self, template: str, **parts: psql.Composable) -> psql.Composed: ...
        def _check_vectors(self, vectors: Any, n: int) -> np.ndarray | None: ...
        def _insert_rows(
            self, conn: psycopg.Connection, memories: Sequence[Memory], vecs: np.ndarray | None
        ) -> None: ...
        def _update_rows(
            self, conn: psycopg.Connection, memories: Sequence[Memory], vecs: np.ndarray | None
        ) -> None: ...
        def _write_graph(
            self, conn: psycopg.Connection, graphs: Sequence[Any], *,
            supersede: Sequence[tuple[str, str]], now: datetime | None,
        ) -> Any: ...

    def _qq(self, template: str, queue: str) -> psql.Composed:
        try:
            table = sql.QUEUE_TABLES[queue]
        except KeyError:
            raise InvalidInput(
                f"unknown queue {queue!r}; expected one of: {', '.join(QUEUES)}"
            ) from None
        return self._q(template, q=psql.Identifier(table))

    # -- queues -------------------------------------------------------------------------------
    def enqueue(self, queue: QueueName, items: Sequence[QueueItem]) -> list[int]:
        stmt = self._qq(sql.QUEUE_INSERT, queue)
        rows = [_queue_row(it) for it in items]
        ids: list[int] = []
        with self._tx() as conn:
            for it, row in zip(items, rows, strict=True):
                ids.append(int(conn.execute(stmt, row).fetchone()[0]))
                if it.harvest is not None:
                    self._mark(conn, it.harvest, "queued", it.enqueued_at)
        return ids

    def due_items(
        self, queue: QueueName, *, now: datetime | None, limit: int
    ) -> list[PendingItem]:
        if now is None:
            stmt, params = self._qq(sql.QUEUE_ALL, queue), (limit,)
        else:
            stmt, params = self._qq(sql.QUEUE_DUE, queue), (now, limit)
        rows = self._read(lambda c: c.execute(stmt, params).fetchall())
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
        with self._tx() as conn:
            row = conn.execute(self._qq(sql.QUEUE_LOCK, queue), (item_id,)).fetchone()
            if row is None:
                return "gone"
            item = _pending(queue, row)
            attempts = item.attempts + 1
            if attempts >= max_attempts:
                conn.execute(
                    self._q(sql.FAILED_INSERT),
                    (queue, item.kind, row[2], attempts, error, item.enqueued_at, now),
                )
                conn.execute(self._qq(sql.QUEUE_DELETE, queue), (item_id,))
                return "failed"
            conn.execute(
                self._qq(sql.QUEUE_RESCHEDULE, queue), (attempts, error, retry_at, item_id)
            )
            return "retry"

    def failed_operations(self, *, limit: int = 100) -> list[FailedOperation]:
        rows = self._read(lambda c: c.execute(self._q(sql.FAILED_LIST), (limit,)).fetchall())
        return [_failed(r) for r in rows]

    def retry_failed(self, ids: Sequence[int] | None = None, *, now: datetime) -> int:
        with self._tx() as conn:
            if ids is None:
                rows = conn.execute(self._q(sql.FAILED_ALL_ASC)).fetchall()
            else:
                rows = conn.execute(self._q(sql.FAILED_BY_IDS), ([int(i) for i in ids],)).fetchall()
            for r in rows:
                op = _failed(r)
                conn.execute(
                    self._qq(sql.QUEUE_INSERT, op.queue),
                    (op.kind, r[3], 0, op.error, op.enqueued_at, now),
                )
                conn.execute(self._q(sql.FAILED_DELETE), (op.id,))
        return len(rows)

    def queue_counts(self) -> dict[str, int]:
        def run(c: psycopg.Connection) -> dict[str, int]:
            out = {
                table: int(c.execute(self._qq(sql.QUEUE_COUNT, q)).fetchone()[0])
                for q, table in sql.QUEUE_TABLES.items()
            }
            out["failed_operations"] = int(c.execute(self._q(sql.FAILED_COUNT)).fetchone()[0])
            return out

        return self._read(run)

    # -- the atomic save of one ingested item --------------------------------------------------
    def commit_ingest(self, batch: IngestBatch) -> IngestCommit | None:
        try:
            return self._commit_ingest(batch)
        except _Gone:
            return None

    def _commit_ingest(self, batch: IngestBatch) -> IngestCommit:
        from .store import _memory

        vecs = self._check_vectors(batch.vectors, len(batch.memories))
        now = batch.now
        result = IngestCommit()
        with self._tx() as conn:
            # one ingest commit at a time per mind: the hash check below stays exact
            conn.execute(sql.ADVISORY_LOCK, (self._lock_key + sql.INGEST_LOCK_SUFFIX,))
            if batch.dequeue is not None:
                queue, item_id = batch.dequeue
                if conn.execute(self._qq(sql.QUEUE_DELETE, queue), (item_id,)).fetchone() is None:
                    raise _Gone()  # someone else finished it: roll back, write nothing
            renamed: dict[str, str] = {}
            keep: list[int] = []
            for i, m in enumerate(batch.memories):
                existing = conn.execute(self._q(sql.FIND_BY_HASH), (m.content_hash,)).fetchone()
                if existing is not None:
                    result.duplicates[m.id] = existing[0]
                    renamed[m.id] = existing[0]
                    continue
                if m.parent_id in renamed:
                    m.parent_id = renamed[m.parent_id]
                keep.append(i)
            kept = [batch.memories[i] for i in keep]
            if kept:
                self._insert_rows(conn, kept, vecs[keep] if vecs is not None else None)
            result.saved = [m.id for m in kept]
            retired: list[tuple[str, str]] = []
            for old_id, new_id in batch.supersede:
                new_id = renamed.get(new_id, new_id)
                row = conn.execute(self._q(sql.GET_BY_ID_FOR_UPDATE), (old_id,)).fetchone()
                if row is None or old_id == new_id:
                    continue
                old = _memory(row)
                if old.superseded_by is not None:
                    continue
                old.superseded_by = new_id
                old.updated_at = now or old.updated_at
                self._update_rows(conn, [old], None)
                result.superseded.append(old_id)
                retired.append((old_id, new_id))
            saved = set(result.saved)
            graphs = [g for g in batch.graph if g.memory_id in saved]
            self._write_graph(conn, graphs, supersede=retired, now=now)
            for ev in batch.events:
                mid = renamed.get(ev.memory_id, ev.memory_id) if ev.memory_id else None
                conn.execute(
                    self._q(sql.EVENT_INSERT),
                    (ev.kind, mid, ev.related_id, _dumps(ev.payload), ev.created_at),
                )
            for key, value in batch.meta.items():
                conn.execute(self._q(sql.SET_META), (key, value))
            for mark in batch.harvest:
                self._mark(conn, mark, mark.status, now)
            for queue, item in batch.enqueue:
                conn.execute(self._qq(sql.QUEUE_INSERT, queue), _queue_row(item))
                if item.harvest is not None:
                    self._mark(conn, item.harvest, "queued", item.enqueued_at)
        return result

    def _mark(
        self, conn: psycopg.Connection, mark: HarvestMark, status: str, at: datetime | None
    ) -> None:
        if at is None:
            raise InvalidInput("harvest marks need a timestamp (IngestBatch.now)")
        conn.execute(self._q(sql.HARVEST_MARK), (mark.kind, mark.key, mark.source, status, at))

    # -- harvest sync state --------------------------------------------------------------------
    def harvested(self, kind: str, keys: Sequence[str]) -> set[str]:
        unique = list(dict.fromkeys(keys))
        if not unique:
            return set()
        rows = self._read(lambda c: c.execute(self._q(sql.HARVEST_SEEN), (kind, unique)).fetchall())
        return {r[0] for r in rows}

    def set_harvest_source(
        self, source: str, kind: str, *, now: datetime, state: Mapping[str, Any]
    ) -> None:
        with self._tx() as conn:
            conn.execute(self._q(sql.HARVEST_SOURCE_UPSERT), (source, kind, now, _dumps(state)))

    def harvest_sources(self) -> list[HarvestSource]:
        rows = self._read(lambda c: c.execute(self._q(sql.HARVEST_SOURCES)).fetchall())
        return [
            HarvestSource(
                source=r[0], kind=r[1], last_sync_at=ensure_utc(r[2]) if r[2] else None,
                state=json.loads(r[3]), items=int(r[4]),
            )
            for r in rows
        ]

    # -- events and history ----------------------------------------------------------------------
    def events(self, kind: str | None = None, *, limit: int = 100) -> list[MindEvent]:
        if kind is None:
            stmt, params = self._q(sql.EVENTS_ALL), (limit,)
        else:
            stmt, params = self._q(sql.EVENTS_OF_KIND), (kind, limit)
        rows = self._read(lambda c: c.execute(stmt, params).fetchall())
        return [
            MindEvent(
                id=int(r[0]), kind=r[1], memory_id=r[2], related_id=r[3],
                payload=json.loads(r[4]), created_at=ensure_utc(r[5]),
            )
            for r in rows
        ]

    def superseded_by_id(self, memory_id: str) -> list[Memory]:
        from .store import _memory

        rows = self._read(lambda c: c.execute(self._q(sql.PREDECESSORS), (memory_id,)).fetchall())
        return [_memory(r) for r in rows]

    # -- ai_interactions ------------------------------------------------------------------------
    def record_interactions(self, records: Sequence[InteractionRecord], *, at: datetime) -> None:
        if not records:
            return
        rows = [
            (
                r.started_at or at, r.call_site, r.provider, r.model, int(r.prompt_chars),
                int(r.output_chars), r.prompt_tokens, r.completion_tokens, r.total_tokens,
                float(r.latency_ms), r.outcome, r.error, bool(r.thinking), int(r.attempts),
            )
            for r in records
        ]
        with self._tx() as conn, conn.cursor() as cur:
            cur.executemany(self._q(sql.INTERACTION_INSERT), rows)

    def interactions(self, *, limit: int = 100) -> list[dict[str, Any]]:
        rows = self._read(lambda c: c.execute(self._q(sql.INTERACTIONS_LIST), (limit,)).fetchall())
        out = []
        for r in rows:
            d = dict(zip(("id", *INTERACTION_COLUMNS), r, strict=True))
            d["created_at"] = ensure_utc(d["created_at"])
            d["thinking"] = bool(d["thinking"])
            out.append(d)
        return out

    def purge_interactions(self, before: datetime) -> int:
        with self._tx() as conn:
            return int(conn.execute(self._q(sql.INTERACTIONS_PURGE), (before,)).rowcount)


# -- helpers ------------------------------------------------------------------------------------
def _queue_row(it: QueueItem) -> tuple[Any, ...]:
    due = it.next_attempt_at or it.enqueued_at
    return (it.kind, _dumps(it.payload), 0, None, it.enqueued_at, due)


def _pending(queue: QueueName, r: Sequence[Any]) -> PendingItem:
    return PendingItem(
        id=int(r[0]), queue=queue, kind=r[1], payload=json.loads(r[2]), attempts=int(r[3]),
        last_error=r[4], enqueued_at=ensure_utc(r[5]), next_attempt_at=ensure_utc(r[6]),
    )


def _failed(r: Sequence[Any]) -> FailedOperation:
    return FailedOperation(
        id=int(r[0]), queue=r[1], kind=r[2], payload=json.loads(r[3]), attempts=int(r[4]),
        error=r[5], enqueued_at=ensure_utc(r[6]), failed_at=ensure_utc(r[7]),
    )
