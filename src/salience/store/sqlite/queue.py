"""The SQLite side of ingestion: durable queues, failed operations, harvest sync state, mind
events and the ai_interactions log. Mixed into `SQLiteStore` (it uses its connection, lock and
transaction helper)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ...clock import format_ts, parse_ts
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
    import threading

    from ...models.interactions import InteractionRecord

_MAX_VARS = 900


def _table(queue: str) -> str:
    try:
        return sql.QUEUE_TABLES[queue]
    except KeyError:
        raise InvalidInput(f"unknown queue {queue!r}; expected one of: {', '.join(QUEUES)}") from None


def _dumps(payload: Mapping[str, Any]) -> str:
    try:
        return json.dumps(payload, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise InvalidInput(f"queue payload must be JSON-serialisable: {e}") from None


class IngestStoreMixin:
    """Ingestion tables of `SQLiteStore` (see `salience.store.base.Store` for the contract)."""

    _db: sqlite3.Connection
    _lock: threading.RLock
    _mind: str
    _index: Any

    if TYPE_CHECKING:  # provided by SQLiteStore

        def _tx(self) -> AbstractContextManager[sqlite3.Connection]: ...
        def _check_vectors(self, vectors: Any, n: int) -> np.ndarray | None: ...
        def _index_is_fresh(self, db: sqlite3.Connection) -> bool: ...
        def _insert_rows(
            self, db: sqlite3.Connection, memories: Sequence[Memory], vecs: np.ndarray | None
        ) -> list[int]: ...
        def _update_rows(
            self, db: sqlite3.Connection, memories: Sequence[Memory], vecs: np.ndarray | None
        ) -> list[tuple[int, np.ndarray]]: ...
        def _write_graph(
            self, db: sqlite3.Connection, graphs: Sequence[Any], *,
            supersede: Sequence[tuple[str, str]], now: datetime | None,
        ) -> Any: ...

    # -- queues -------------------------------------------------------------------------------
    def enqueue(self, queue: QueueName, items: Sequence[QueueItem]) -> list[int]:
        table = _table(queue)
        rows = [_queue_row(it) for it in items]
        ids: list[int] = []
        with self._tx() as db:
            for it, row in zip(items, rows, strict=True):
                cur = db.execute(sql.QUEUE_INSERT.format(q=table), row)
                ids.append(int(cur.lastrowid or 0))
                if it.harvest is not None:
                    _mark(db, it.harvest, "queued", it.enqueued_at)
        return ids

    def due_items(
        self, queue: QueueName, *, now: datetime | None, limit: int
    ) -> list[PendingItem]:
        table = _table(queue)
        with self._lock:
            if now is None:
                rows = self._db.execute(sql.QUEUE_ALL.format(q=table), (limit,)).fetchall()
            else:
                rows = self._db.execute(
                    sql.QUEUE_DUE.format(q=table), (format_ts(now), limit)
                ).fetchall()
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
        table = _table(queue)
        with self._tx() as db:
            row = db.execute(sql.QUEUE_LOCK.format(q=table), (item_id,)).fetchone()
            if row is None:
                return "gone"
            item = _pending(queue, row)
            attempts = item.attempts + 1
            if attempts >= max_attempts:
                db.execute(
                    sql.FAILED_INSERT,
                    (
                        queue, item.kind, row[2], attempts, error,
                        format_ts(item.enqueued_at), format_ts(now),
                    ),
                )
                db.execute(sql.QUEUE_DELETE.format(q=table), (item_id,))
                return "failed"
            db.execute(
                sql.QUEUE_RESCHEDULE.format(q=table),
                (attempts, error, format_ts(retry_at), item_id),
            )
            return "retry"

    def failed_operations(self, *, limit: int = 100) -> list[FailedOperation]:
        with self._lock:
            rows = self._db.execute(sql.FAILED_LIST, (limit,)).fetchall()
        return [_failed(r) for r in rows]

    def retry_failed(self, ids: Sequence[int] | None = None, *, now: datetime) -> int:
        moved = 0
        with self._tx() as db:
            if ids is None:
                rows = db.execute(sql.FAILED_ALL_ASC).fetchall()
            else:
                rows = [r for i in ids if (r := db.execute(sql.FAILED_BY_IDS.format(marks="?"), (i,)).fetchone())]
            for r in rows:
                op = _failed(r)
                db.execute(
                    sql.QUEUE_INSERT.format(q=_table(op.queue)),
                    (op.kind, r[3], 0, op.error, format_ts(op.enqueued_at), format_ts(now)),
                )
                db.execute(sql.FAILED_DELETE, (op.id,))
                moved += 1
        return moved

    def queue_counts(self) -> dict[str, int]:
        with self._lock:
            out = {
                table: int(self._db.execute(sql.QUEUE_COUNT.format(q=table)).fetchone()[0])
                for table in sql.QUEUE_TABLES.values()
            }
            out["failed_operations"] = int(self._db.execute(sql.FAILED_COUNT).fetchone()[0])
        return out

    # -- the atomic save of one ingested item --------------------------------------------------
    def commit_ingest(self, batch: IngestBatch) -> IngestCommit | None:
        try:
            with self._lock:  # the vector cache follows the commit before another thread looks
                return self._commit_ingest(batch)
        except _Gone:
            return None

    def _commit_ingest(self, batch: IngestBatch) -> IngestCommit:
        from .store import _memory  # the one row decoder of this backend

        vecs = self._check_vectors(batch.vectors, len(batch.memories))
        now = batch.now
        result = IngestCommit()
        new_pks: list[int] = []
        with self._tx() as db:
            fresh = self._index_is_fresh(db)
            if batch.dequeue is not None:
                queue, item_id = batch.dequeue
                cur = db.execute(sql.QUEUE_DELETE.format(q=_table(queue)), (item_id,))
                if cur.rowcount == 0:
                    raise _Gone()  # someone else finished it: roll back, write nothing
            renamed: dict[str, str] = {}
            keep: list[int] = []
            for i, m in enumerate(batch.memories):
                existing = db.execute(sql.FIND_BY_HASH, (m.content_hash,)).fetchone()
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
                new_pks = self._insert_rows(db, kept, kept_vecs)
            result.saved = [m.id for m in kept]
            retired: list[tuple[str, str]] = []
            for old_id, new_id in batch.supersede:
                new_id = renamed.get(new_id, new_id)
                row = db.execute(sql.GET_BY_ID, (old_id,)).fetchone()
                if row is None or old_id == new_id:
                    continue
                old = _memory(row)
                if old.superseded_by is not None:
                    continue
                old.superseded_by = new_id
                old.updated_at = now or old.updated_at
                self._update_rows(db, [old], None)
                result.superseded.append(old_id)
                retired.append((old_id, new_id))
            saved = set(result.saved)
            graphs = [g for g in batch.graph if g.memory_id in saved]
            self._write_graph(db, graphs, supersede=retired, now=now)
            for ev in batch.events:
                mid = renamed.get(ev.memory_id, ev.memory_id) if ev.memory_id else None
                db.execute(
                    sql.EVENT_INSERT,
                    (ev.kind, mid, ev.related_id, _dumps(ev.payload), format_ts(ev.created_at)),
                )
            for key, value in batch.meta.items():
                db.execute(sql.SET_META, (key, value))
            for mark in batch.harvest:
                _mark(db, mark, mark.status, now)
            for queue, item in batch.enqueue:
                db.execute(sql.QUEUE_INSERT.format(q=_table(queue)), _queue_row(item))
                if item.harvest is not None:
                    _mark(db, item.harvest, "queued", item.enqueued_at)
        if kept_vecs is not None and new_pks and fresh and self._index is not None:
            self._index.append(np.asarray(new_pks, dtype=np.int64), kept_vecs)
        return result

    # -- harvest sync state --------------------------------------------------------------------
    def harvested(self, kind: str, keys: Sequence[str]) -> set[str]:
        found: set[str] = set()
        unique = list(dict.fromkeys(keys))
        with self._lock:
            for chunk in _chunks(unique):
                q = sql.HARVEST_SEEN.format(marks=", ".join("?" for _ in chunk))
                found.update(r[0] for r in self._db.execute(q, (kind, *chunk)))
        return found

    def set_harvest_source(
        self, source: str, kind: str, *, now: datetime, state: Mapping[str, Any]
    ) -> None:
        with self._tx() as db:
            db.execute(sql.HARVEST_SOURCE_UPSERT, (source, kind, format_ts(now), _dumps(state)))

    def harvest_sources(self) -> list[HarvestSource]:
        with self._lock:
            rows = self._db.execute(sql.HARVEST_SOURCES).fetchall()
        return [
            HarvestSource(
                source=r[0], kind=r[1], last_sync_at=parse_ts(r[2]), state=json.loads(r[3]),
                items=int(r[4]),
            )
            for r in rows
        ]

    # -- events and history ----------------------------------------------------------------------
    def events(self, kind: str | None = None, *, limit: int = 100) -> list[MindEvent]:
        with self._lock:
            if kind is None:
                rows = self._db.execute(sql.EVENTS_ALL, (limit,)).fetchall()
            else:
                rows = self._db.execute(sql.EVENTS_OF_KIND, (kind, limit)).fetchall()
        return [
            MindEvent(
                id=int(r[0]), kind=r[1], memory_id=r[2], related_id=r[3],
                payload=json.loads(r[4]), created_at=_ts(r[5]),
            )
            for r in rows
        ]

    def superseded_by_id(self, memory_id: str) -> list[Memory]:
        from .store import _memory

        with self._lock:
            rows = self._db.execute(sql.PREDECESSORS, (memory_id,)).fetchall()
        return [_memory(r) for r in rows]

    # -- ai_interactions ------------------------------------------------------------------------
    def record_interactions(self, records: Sequence[InteractionRecord], *, at: datetime) -> None:
        if not records:
            return
        rows = [
            (
                format_ts(r.started_at or at), r.call_site, r.provider, r.model,
                int(r.prompt_chars), int(r.output_chars), r.prompt_tokens, r.completion_tokens,
                r.total_tokens, float(r.latency_ms), r.outcome, r.error, int(bool(r.thinking)),
                int(r.attempts),
            )
            for r in records
        ]
        with self._tx() as db:
            db.executemany(sql.INTERACTION_INSERT, rows)

    def interactions(self, *, limit: int = 100) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(sql.INTERACTIONS_LIST, (limit,)).fetchall()
        out = []
        for r in rows:
            d = dict(zip(("id", *INTERACTION_COLUMNS), r, strict=True))
            d["created_at"] = parse_ts(d["created_at"])
            d["thinking"] = bool(d["thinking"])
            out.append(d)
        return out

    def purge_interactions(self, before: datetime) -> int:
        with self._tx() as db:
            return int(db.execute(sql.INTERACTIONS_PURGE, (format_ts(before),)).rowcount)


class _Gone(Exception):
    """Internal: the dequeued item vanished; the transaction is rolled back."""


# -- helpers ------------------------------------------------------------------------------------
def _queue_row(it: QueueItem) -> tuple[Any, ...]:
    due = it.next_attempt_at or it.enqueued_at
    return (it.kind, _dumps(it.payload), 0, None, format_ts(it.enqueued_at), format_ts(due))


def _mark(db: sqlite3.Connection, mark: HarvestMark, status: str, at: datetime | None) -> None:
    if at is None:
        raise InvalidInput("harvest marks need a timestamp (IngestBatch.now)")
    db.execute(sql.HARVEST_MARK, (mark.kind, mark.key, mark.source, status, format_ts(at)))


def _ts(value: str) -> datetime:
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


def _chunks(values: list[Any], size: int = _MAX_VARS) -> Iterator[list[Any]]:
    for i in range(0, len(values), size):
        yield values[i : i + size]
