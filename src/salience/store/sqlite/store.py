"""`SQLiteStore`: one mind in one SQLite file (WAL, FTS5, cached exact or HNSW vector search)."""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ...clock import SystemClock, format_ts, parse_ts
from ...errors import InvalidInput, NotFound, ReadOnlyMind, StoreError
from ...models import (
    SALIENCE_MAX,
    Candidate,
    EmbeddingInfo,
    Memory,
    MemoryFilter,
    normalize_entity,
)
from .. import bm25
from ..base import EMBEDDING_DIM_KEY, EMBEDDING_MODEL_KEY, SCHEMA_VERSION_KEY
from ..maintenance import ScoreUpdate, clamp_scores
from ..migrations import pending
from ..relational.agent import AgentCore
from ..relational.claims import ClaimsCore
from ..relational.columns import memory_encoder
from ..relational.core import AfterCommit, Run
from ..relational.dialect import SQLITE
from ..relational.graph import GraphCore
from ..relational.layers import LayersCore
from ..relational.maintenance import MaintenanceCore
from ..relational.queue import IngestCore
from ..relational.records import RecordsCore
from ..rows import memory_from_row
from . import readonly, sql, textindex
from .filters import chunks as _chunks
from .filters import filter_clause
from .filters import marks as _marks
from .fulltext import Postings, ensure_postings, write_postings
from .hnsw import HnswParams
from .migrations import MIGRATIONS
from .textindex import PoolSource, TextIndex, TextIndexParams
from .vector_search import VectorIndexMode, VectorSearchMixin
from .vectors import from_blob, to_blob, unit_rows

T = TypeVar("T")
log = logging.getLogger(__name__)


class SQLiteRun(AfterCommit):
    """`relational.core.Run` over one SQLite connection: statements of `sql.py` by name."""

    __slots__ = ("conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__()
        self.conn = conn

    def __call__(
        self, name: str, params: Sequence[Any] = (), *, n: int | None = None, **parts: Any
    ) -> sqlite3.Cursor:
        text = getattr(sql, name)
        if n is not None:
            parts["marks"] = ", ".join(["?"] * n)
        return self.conn.execute(text.format(**parts) if parts else text, params)

    def many(self, name: str, rows: Sequence[Sequence[Any]]) -> None:
        self.conn.executemany(getattr(sql, name), rows)

    def savepoint(self) -> AbstractContextManager[None]:
        return nullcontext()  # a failed statement does not abort an SQLite transaction


class SQLiteStore(
    VectorSearchMixin,
    RecordsCore,
    ClaimsCore,
    IngestCore,
    LayersCore,
    GraphCore,
    MaintenanceCore,
    AgentCore,
):
    """A mind stored in one SQLite file. Thread-safe (one connection behind a lock)."""

    backend = "sqlite"
    _dialect = SQLITE
    _integrity_errors = (sqlite3.IntegrityError,)

    def __init__(
        self,
        path: str | Path,
        *,
        mind: str,
        busy_timeout_ms: int = 10_000,
        vector_index: VectorIndexMode = "auto",
        hnsw_min_rows: int = 100_000,
        hnsw: HnswParams | None = None,
        text_index: TextIndexParams | None = None,
    ) -> None:
        self._path = Path(path)
        self._mind = mind
        self._lock = threading.RLock()
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                str(self._path), isolation_level=None, check_same_thread=False
            )
        except (OSError, sqlite3.Error) as e:
            raise StoreError(f"cannot open mind database {self._path}: {e}") from e
        try:
            self._db.execute(sql.BUSY_TIMEOUT.format(ms=int(busy_timeout_ms)))
            try:
                for p in sql.PRAGMAS:
                    self._db.execute(p)
            except sqlite3.OperationalError as e:  # e.g. a directory it may not write
                if not (readonly.is_read_only_error(e) and self._path.is_file()):
                    raise
                self._db.close()
                self._db = readonly.connect_read_only(self._path)
            self._migrate()
        except sqlite3.DatabaseError as e:
            self._db.close()
            raise StoreError(f"{self._path} is not a usable Salience mind: {e}") from e
        except Exception:
            self._db.close()
            raise
        self._init_vector_cache(vector_index, hnsw_min_rows, hnsw or HnswParams())
        info = self.embedding_info()
        self._dim = info.dim if info else None
        self._postings = Postings(self._db)  # BM25 statistics and postings (fulltext.py)
        self._bm25 = bm25.Scorer()
        self._text = TextIndex(self._path, text_index or TextIndexParams())  # tantivy (large)
        self._pool_bm25 = bm25.Scorer()

    # -- lifecycle --------------------------------------------------------------------------
    @property
    def path(self) -> Path:
        return self._path

    def close(self) -> None:
        with self._lock:
            try:
                self._close_vector_cache()
                self._text.close(self._db)
                self._record_text_token()
            finally:
                self._db.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE … COMMIT); rolls back on any error."""
        with self._lock:
            try:
                self._db.execute(sql.BEGIN_WRITE)
            except sqlite3.OperationalError as e:
                raise _write_error(f"cannot start a write on {self._path}: {e}", e) from e
            try:
                yield self._db
                self._db.execute(sql.COMMIT)
            except BaseException as e:
                # SQLite may already have rolled back (SQLITE_FULL, SQLITE_IOERR): a second
                # ROLLBACK would fail and mask the real reason ("database or disk is full")
                if self._db.in_transaction:
                    with suppress(sqlite3.Error):
                        self._db.execute(sql.ROLLBACK)
                if isinstance(e, sqlite3.OperationalError):
                    raise _write_error(f"write on {self._path} failed: {e}", e) from e
                raise

    # -- the hooks of the relational core (relational/core.py) --------------------------------
    @contextmanager
    def _write(self) -> Iterator[Run]:
        with self._lock:  # callbacks run after the commit, before another thread looks
            run = SQLiteRun(self._db)
            with self._tx():
                yield run
            run.committed()

    def _read_with(self, fn: Callable[[Run], T]) -> T:
        with self._lock:
            return fn(SQLiteRun(self._db))

    def _serialize(self, run: Run, scope: str) -> None:
        """Nothing to do: BEGIN IMMEDIATE already serialises every writer of the file."""

    def _lock_rows(self, run: Run, name: str, params: Sequence[Any]) -> None:
        """Nothing to do: BEGIN IMMEDIATE already serialises every writer of the file."""

    def _is_unique(self, error: BaseException) -> bool:
        return "UNIQUE" in str(error)

    def _memory(self, row: Sequence[Any]) -> Memory:
        return _memory(row)

    def _filter(self, flt: MemoryFilter | None) -> tuple[str, list[Any]]:
        return filter_clause(flt)

    def _rows_deleted(self, run: Run, pks: list[int]) -> None:
        """The vector cache drops the deleted rows after the commit (a stale one catches up
        from the change log)."""
        fresh = self._index_is_fresh(run.conn)
        seq = self._log_position(run.conn)
        run.on_commit(lambda: self._after_vector_change(fresh, seq, removed=pks))

    def _set_score_rows(self, run: Run, updates: Sequence[ScoreUpdate]) -> int:
        return sum(run("SET_SCORES", (*clamp_scores(u), u.id)).rowcount for u in updates)

    def _migrate(self) -> None:
        db = self._db
        db.execute(sql.CREATE_MIGRATIONS)
        applied = [r[0] for r in db.execute(sql.APPLIED_MIGRATIONS)]
        todo = pending(applied, MIGRATIONS, where=str(self._path))
        for i, mig in enumerate(todo, start=len(applied) + 1):
            with self._tx():
                for stmt in mig.statements:
                    db.execute(stmt)
                db.execute(sql.RECORD_MIGRATION, (mig.name, format_ts(SystemClock().now())))
                db.execute(sql.SET_META, (SCHEMA_VERSION_KEY, str(i)))
        ensure_postings(self._tx, db)

    # -- meta -------------------------------------------------------------------------------
    def pin_embedding(self, info: EmbeddingInfo) -> None:
        with self._write() as run:
            pinned = self._pinned(run, info)
            if pinned is not None:
                self._dim = pinned.dim  # pinned by another process after this one opened
                return
            run("SET_META", (EMBEDDING_MODEL_KEY, info.model))
            run("SET_META", (EMBEDDING_DIM_KEY, str(info.dim)))
        self._dim = info.dim

    # -- records ----------------------------------------------------------------------------
    def _check_vectors(self, vectors: np.ndarray | None, n: int) -> np.ndarray | None:
        arr = self._checked_vectors(vectors, n, self._dim)
        return None if arr is None else unit_rows(arr)  # unit vectors: a dot product is a cosine

    def insert(self, memories: Sequence[Memory], vectors: np.ndarray | None = None) -> None:
        vecs = self._check_vectors(vectors, len(memories))
        with self._write() as run:
            self._rows_inserted(run, self._insert_rows(run, memories, vecs), vecs)

    def _rows_inserted(self, run: Run, pks: list[int] | None, vecs: np.ndarray | None) -> None:
        """After the commit, append the new vectors to the cached index if it was fresh (the
        cache follows the commit before any other thread looks at it)."""
        if vecs is None or not pks or not self._index_is_fresh(run.conn):
            return
        index = self._index
        run.on_commit(lambda: index.append(np.asarray(pks, dtype=np.int64), vecs))

    def _insert_rows(
        self, run: Run, memories: Sequence[Memory], vecs: np.ndarray | None
    ) -> list[int]:
        """Insert records (side tables, vectors) inside the caller's transaction; their pks."""
        db = run.conn
        new_pks: list[int] = []
        for i, m in enumerate(memories):
            try:
                cur = db.execute(sql.INSERT_MEMORY, _params(m))
            except sqlite3.IntegrityError as e:
                if "UNIQUE" in str(e):
                    raise InvalidInput(f"a memory with id {m.id} already exists") from None
                raise InvalidInput(f"memory {m.id} violates a constraint: {e}") from None
            pk = int(cur.lastrowid or 0)
            self._write_side_tables(db, pk, m)
            if vecs is not None:
                db.execute(sql.UPSERT_VECTOR, (pk, to_blob(vecs[i])))
            new_pks.append(pk)
        self._write_layers(run, memories, new_pks)  # sessions, t, frames, links
        self._write_claims(run, memories)  # derived claims, same transaction
        return new_pks

    def update(self, memories: Sequence[Memory], vectors: np.ndarray | None = None) -> None:
        vecs = self._check_vectors(vectors, len(memories))
        with self._lock:
            with self._tx() as db:
                fresh = self._index_is_fresh(db)
                replaced = self._update_rows(SQLiteRun(db), memories, vecs)
                seq = self._log_position(db) if replaced else 0
            if replaced:
                self._after_vector_change(fresh, seq, replaced=replaced)

    def _update_rows(
        self, run: Run, memories: Sequence[Memory], vecs: np.ndarray | None
    ) -> list[tuple[int, np.ndarray]]:
        """Replace records inside the caller's transaction; the (pk, vector) pairs replaced."""
        db = run.conn
        replaced: list[tuple[int, np.ndarray]] = []
        pks: list[int] = []
        for i, m in enumerate(memories):
            row = db.execute(sql.PK_BY_ID, (m.id,)).fetchone()
            if row is None:
                raise NotFound(f"memory {m.id} not found in mind {self._mind!r}")
            pk = int(row[0])
            p = _params(m)
            try:
                db.execute(sql.UPDATE_MEMORY, (*p[1:], m.id))
            except sqlite3.IntegrityError as e:
                raise InvalidInput(f"memory {m.id} violates a constraint: {e}") from None
            db.execute(sql.DELETE_TAGS, (pk,))
            db.execute(sql.DELETE_ENTITIES, (pk,))
            self._write_side_tables(db, pk, m, updating=True)
            pks.append(pk)
            if vecs is not None:
                db.execute(sql.UPSERT_VECTOR, (pk, to_blob(vecs[i])))
                replaced.append((pk, vecs[i]))
        self._write_layers(run, memories, pks, updating=True)
        self._write_claims(run, memories, updating=True)
        return replaced

    def record_retrievals(self, ids: Sequence[str], now: datetime, *, boost: float) -> int:
        uniq = list(dict.fromkeys(ids))
        if not uniq:
            return 0
        bumped = 0
        with self._lock:
            with self._tx() as db:
                before = self._postings.version()  # inside the write lock: the committed state
                for chunk in _chunks(uniq):
                    q = sql.RECORD_RETRIEVALS.format(marks=_marks(chunk))
                    params = (format_ts(now), boost, SALIENCE_MAX, SALIENCE_MAX, *chunk)
                    bumped += db.execute(q, params).rowcount
                after = (before[0], db.total_changes)
            self._postings.unchanged_by(before, after)  # no text changed: keep BM25 statistics
        return bumped

    def _write_side_tables(
        self, db: sqlite3.Connection, pk: int, m: Memory, *, updating: bool = False
    ) -> None:
        write_postings(db, pk, m.content, m.summary, m.entities, updating=updating)
        if m.tags:
            db.executemany(sql.INSERT_TAG, [(pk, t) for t in m.tags])
        if m.entities:
            db.executemany(sql.INSERT_ENTITY, [(pk, normalize_entity(e)) for e in m.entities])

    def get_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        dim = self._dim
        if dim is None:
            return out
        with self._lock:
            for chunk in _chunks(list(dict.fromkeys(ids))):
                q = sql.VECTORS_BY_IDS.format(marks=_marks(chunk))
                for mid, blob in self._db.execute(q, chunk):
                    out[mid] = from_blob(blob, dim).copy()
        return out

    def iter_memories(self, batch_size: int = 1000) -> Iterator[tuple[Memory, np.ndarray | None]]:
        last = 0
        while True:
            with self._lock:
                rows = self._db.execute(sql.ITER_MEMORIES, (last, batch_size)).fetchall()
                vecs: dict[int, bytes] = {}
                if rows and self._dim is not None:
                    for r in rows:
                        v = self._db.execute(sql.VECTOR_BY_PK, (r[0],)).fetchone()
                        if v is not None:
                            vecs[int(r[0])] = v[0]
            if not rows:
                return
            for r in rows:
                blob = vecs.get(int(r[0]))
                yield (
                    _memory(r),
                    (from_blob(blob, self._dim).copy() if blob and self._dim else None),
                )
            last = int(rows[-1][0])

    # -- candidates ---------------------------------------------------------------------------
    def search_text(
        self,
        terms: Sequence[str],
        *,
        limit: int,
        flt: MemoryFilter | None = None,
        k1: float | None = None,
        b: float | None = None,
    ) -> list[Candidate]:
        where, params = filter_clause(flt or MemoryFilter())
        with self._lock:

            def allowed(pks: list[int]) -> dict[int, str]:
                return self._text_ids(pks, where, params)

            got = self._indexed_text(terms, limit, allowed, k1, b)
            if got is None:
                got = bm25.search(self._bm25, self._postings, terms, limit, allowed, k1=k1, b=b)
        return [Candidate(id=i, rank=r, score=x) for r, (i, x) in enumerate(got, start=1)]

    def _indexed_text(
        self,
        terms: Sequence[str],
        limit: int,
        allowed: Callable[[list[int]], dict[int, str]],
        k1: float | None,
        b: float | None,
    ) -> list[tuple[str, float]] | None:
        """Full text through the tantivy index (textindex.py): its candidates re-scored with
        the mind's BM25; None when the index is not used here or its pool ran out under the
        filter (the caller then scores every posting)."""
        if limit <= 0 or not self._text.wanted(self._postings.rows()):
            return None
        if not textindex.serves(
            bm25.DEFAULT_K1 if k1 is None else k1, bm25.DEFAULT_B if b is None else b
        ):
            return None  # the index's candidates are shaped for BM25 near the default
        tv = self._text.synced(self._db)
        self._record_text_token()
        qt = bm25.query_terms(terms)
        if tv is None or not qt:
            return None
        weights = bm25.term_weights(self._postings.stats(qt), qt)
        if not weights:
            return []
        pool, full = self._text.candidates(tv, weights, limit)
        got = bm25.search(
            self._pool_bm25, PoolSource(self._postings, pool), terms, limit, allowed, k1=k1, b=b
        )
        return None if full and len(got) < limit else got

    def _record_text_token(self) -> None:
        """Name a just-saved text index in the database (a read-only mind cannot: its next
        process rebuilds the index instead)."""
        if not self._text.pending_token:
            return
        try:
            with self._tx() as db:
                self._text.record_token(db)
        except StoreError as e:
            self._text.forget_token()
            log.debug("text index token not recorded: %s", e)

    def _text_ids(self, pks: list[int], where: str, params: list[Any]) -> dict[int, str]:
        """pk -> id of the rows among `pks` that pass the filter clause."""
        out: dict[int, str] = {}
        for chunk in _chunks(pks):
            q = sql.TEXT_IDS.format(marks=_marks(chunk), where=where)
            out.update((int(a), b) for a, b in self._db.execute(q, (*chunk, *params)))
        return out

    def search_entities(
        self, entities: Sequence[str], *, limit: int, flt: MemoryFilter | None = None
    ) -> list[Candidate]:
        keys = list(dict.fromkeys(k for k in (normalize_entity(e) for e in entities) if k))
        if not keys or limit <= 0:
            return []
        where, params = filter_clause(flt)
        q = sql.ENTITY_SEARCH.format(marks=_marks(keys), where=where)
        with self._lock:
            rows = self._db.execute(q, (*keys, *params, limit)).fetchall()
        return [Candidate(id=r[0], rank=i, score=float(r[1])) for i, r in enumerate(rows, start=1)]

    def entity_frequencies(self, entities: Sequence[str]) -> dict[str, int]:
        keys = list(dict.fromkeys(k for k in (normalize_entity(e) for e in entities) if k))
        out: dict[str, int] = {}
        with self._lock:
            for chunk in _chunks(keys):
                q = sql.ENTITY_FREQUENCIES.format(marks=_marks(chunk))
                out.update((k, int(n)) for k, n in self._db.execute(q, chunk))
        return out

    # -- stats ----------------------------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        with self._lock:
            db = self._db
            by_type = dict(db.execute(sql.STATS_BY_TYPE).fetchall())
            hist = {int(b) + 1: int(c) for b, c in db.execute(sql.STATS_SALIENCE_HIST)}
            pages = int(db.execute(sql.PAGE_COUNT).fetchone()[0])
            page_size = int(db.execute(sql.PAGE_SIZE).fetchone()[0])
            return {
                "backend": self.backend,
                "mind": self._mind,
                "path": str(self._path),
                "schema_version": self.schema_version(),
                "memories": sum(by_type.values()),
                "by_type": by_type,
                "superseded": int(db.execute(sql.STATS_SUPERSEDED).fetchone()[0]),
                "vectors": int(db.execute(sql.STATS_VECTORS).fetchone()[0]),
                "salience_histogram": hist,
                "embedding": (lambda i: {"model": i.model, "dim": i.dim} if i else None)(
                    self.embedding_info()
                ),
                "db_bytes": pages * page_size,
                "vector_cache_bytes": self._index.nbytes() if self._index else 0,
                "vector_index": (
                    None if self._index is None else "exact" if self._index.exact else "hnsw"
                ),
            }

    def integrity_check(self) -> str:
        with self._lock:
            return str(self._db.execute(sql.INTEGRITY_CHECK).fetchone()[0])


# -- helpers ------------------------------------------------------------------------------------
def _write_error(message: str, e: sqlite3.OperationalError) -> StoreError:
    """`ReadOnlyMind` when SQLite refused the write as read-only (SQLITE_READONLY and its
    extended codes), else `StoreError`."""
    if getattr(e, "sqlite_errorcode", 0) & 0xFF == sqlite3.SQLITE_READONLY:
        return ReadOnlyMind(f"{message} (the mind is read-only)")
    return StoreError(message)


#: a memory's column values as SQLite stores them (relational/columns.py: one spec)
_params = memory_encoder(SQLITE, obj=partial(json.dumps, ensure_ascii=False))


def _json_list(value: Any) -> Any:
    return [] if value == "[]" else json.loads(value)  # most tag / link lists are empty


def _json_object(value: Any) -> Any:
    return {} if value == "{}" else json.loads(value)


def _memory(row: Sequence[Any]) -> Memory:
    return memory_from_row(row, ts=parse_ts, array=_json_list, obj=_json_object)
