"""Vector search of `SQLiteStore` and the in-memory index cache behind it.

The vectors live in `memory_vectors` (float32 blobs); a search runs on an index cached in the
process: the exact numpy index (`vectors.py`), or the HNSW graph (`hnsw.py`) for large minds
(`sqlite_vector_index`: exact | hnsw | auto, auto switching at `sqlite_hnsw_min_rows`).

Coherence across connections and processes: `PRAGMA data_version` says whether anyone else
committed; if so, the cache loads the rows past its highest pk and replays the `vector_changes`
log (pks whose vector was replaced or deleted) since the last sequence number it saw. Only when
the log was trimmed past that point is the cache rebuilt from scratch. The HNSW graph is saved
beside the database so that a new process does not rebuild it either.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ...errors import EmbedderMismatch, InvalidInput, StoreError
from ...models import Candidate, EmbeddingInfo, MemoryFilter
from . import sql
from .filters import chunks, filter_clause, marks, only_superseded_filter
from .hnsw import HnswIndex, HnswParams, sidecar_dir
from .vectors import VectorIndex, VectorSnapshot, unit_rows

log = logging.getLogger(__name__)

VectorIndexMode = Literal["auto", "exact", "hnsw"]
LOG_TRIMMED_KEY = "vector_log_trimmed"  # the log holds no entries at or below this sequence
MIND_UID_KEY = "mind_uid"  # names this database for the saved HNSW graph
GRAPH_TOKEN_KEY = "hnsw_graph_token"  # the last graph saved for this database
LOG_KEEP = 50_000  # log entries kept when trimming
LOG_TRIM_AT = 100_000  # trim once the log spans this many sequence numbers
SMALL_ALLOWED = 5_000  # filters that leave at most this many rows are scanned exactly
SAVE_FRACTION = 0.1  # save the HNSW graph on close once this fraction of it changed

Index = VectorIndex | HnswIndex


class VectorSearchMixin:
    """Vector search and the vector cache of `SQLiteStore`."""

    _db: sqlite3.Connection
    _lock: threading.RLock
    _mind: str
    _path: Path
    _dim: int | None
    _index: Index | None
    _index_dv: int | None  # data_version when the cache was last synced
    _index_seq: int  # last vector_changes sequence number reflected in the cache
    _vector_mode: VectorIndexMode
    _hnsw_min_rows: int
    _hnsw_params: HnswParams

    if TYPE_CHECKING:  # provided by SQLiteStore

        def get_meta(self, key: str) -> str | None: ...
        def set_meta(self, key: str, value: str) -> None: ...
        def embedding_info(self) -> EmbeddingInfo | None: ...

    def _init_vector_cache(
        self, mode: VectorIndexMode, hnsw_min_rows: int, hnsw_params: HnswParams
    ) -> None:
        self._index = None
        self._index_dv = None
        self._index_seq = 0
        self._vector_mode = mode
        self._hnsw_min_rows = hnsw_min_rows
        self._hnsw_params = hnsw_params

    # -- search ---------------------------------------------------------------------------------
    def search_vector(
        self, vector: np.ndarray, *, limit: int, flt: MemoryFilter | None = None
    ) -> list[Candidate]:
        if limit <= 0:
            return []
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        if self._dim is None:  # another process may have pinned the embedder since we opened
            info = self.embedding_info()
            self._dim = info.dim if info else None
        if self._dim is None:
            return []  # no embedder pinned: this mind holds no vectors
        if q.shape[0] != self._dim:
            raise EmbedderMismatch(
                f"query vector has {q.shape[0]} dimensions; mind {self._mind!r} pins {self._dim}"
            )
        if not np.isfinite(q).all():
            raise InvalidInput("query vector contains NaN or infinite values")
        q = unit_rows(q.reshape(1, -1))[0]  # scores are cosines whatever the query's length
        flt = flt or MemoryFilter()
        post = only_superseded_filter(flt)
        allowed = None
        with self._lock:
            snap = self._synced_index().snapshot()
            if not post:
                where, params = filter_clause(flt)
                allowed = np.fromiter(
                    (r[0] for r in self._db.execute(sql.PKS_MATCHING.format(where=where), params)),
                    dtype=np.int64,
                )
                allowed.sort()
        # The search runs outside the store's lock (numpy and usearch release the GIL), so a
        # full-text query on this store can run at the same time from another thread. After
        # it, one statement per round gives the candidates' ids, applies the filter and (HNSW)
        # reads the float32 vectors the candidates are re-scored on.
        where, params = filter_clause(flt) if post else ("", [])
        if not snap.exact and allowed is not None and len(allowed) <= SMALL_ALLOWED:
            hits = self._scored(q, allowed, limit, len(allowed), "", [])[0]
        else:
            hits = self._index_hits(snap, q, limit, allowed, where, params)
        return [Candidate(id=i, rank=r, score=s) for r, (i, s) in enumerate(hits, start=1)]

    def _index_hits(
        self,
        snap: VectorSnapshot | HnswIndex,
        q: np.ndarray,
        limit: int,
        allowed: np.ndarray | None,
        where: str,
        params: list[Any],
    ) -> list[tuple[str, float]]:
        """Top `limit` (id, cosine) from the index. An exact index's top `limit` are the
        hits; a graph's `want` = max(2·limit, limit + 10) best candidates are re-scored on
        float32. A post filter (`where`: hiding superseded rows) drops rows after the index
        search, which is asked for `want` rows, then 4x as many until `want` pass (the
        default filter rarely drops any: one round reads `want` vectors)."""
        want = limit if snap.exact else max(2 * limit, limit + 10)
        k = want
        while True:
            pks, scores = snap.search(q, k, allowed)
            if snap.exact:
                with self._lock:
                    ids = self._ids_passing(pks.tolist(), where, params)
                hits = [(ids[pk], s) for pk, s in zip(pks.tolist(), scores.tolist(), strict=True)
                        if pk in ids]
                passed, hits = len(hits), hits[:limit]
            else:
                hits, passed = self._scored(q, pks, limit, want, where, params)
            if not where or passed >= want or k >= len(snap):
                return hits
            k *= 4

    def _scored(
        self, q: np.ndarray, pks: np.ndarray, limit: int, want: int, where: str, params: list[Any]
    ) -> tuple[list[tuple[str, float]], int]:
        """Exact cosines of the first `want` rows of `pks` (in order) that pass `where`, from
        the stored float32 vectors, in one statement per chunk: the best `limit` as (id,
        score), and how many rows passed."""
        assert self._dim is not None
        order = pks.tolist()
        rows: dict[int, tuple[str, bytes]] = {}
        with self._lock:
            for chunk in chunks(order):
                qs = sql.VECTOR_HITS.format(marks=marks(chunk), where=where)
                rows.update((int(pk), (i, blob)) for pk, i, blob in
                            self._db.execute(qs, (*chunk, *params)))
        kept = [pk for pk in dict.fromkeys(order) if pk in rows][:want]
        if not kept:
            return [], 0
        mat = np.frombuffer(b"".join(rows[pk][1] for pk in kept), dtype="<f4")
        top, scores = VectorSnapshot(
            np.arange(len(kept), dtype=np.int64),
            mat.reshape(len(kept), self._dim),
            np.ones(len(kept), dtype=bool),
            0,
        ).search(q, limit)
        return [(rows[kept[j]][0], s) for j, s in zip(top.tolist(), scores.tolist(),
                                                      strict=True)], len(rows)

    def _ids_passing(self, pks: list[int], where: str, params: list[Any]) -> dict[int, str]:
        """pk -> id of the rows among `pks` that pass the filter clause `where`."""
        out: dict[int, str] = {}
        for chunk in chunks(pks):
            q = sql.IDS_PASSING.format(marks=marks(chunk), where=where)
            out.update((int(a), b) for a, b in self._db.execute(q, (*chunk, *params)))
        return out

    # -- cache coherence ------------------------------------------------------------------------
    def _data_version(self, db: sqlite3.Connection) -> int:
        return int(db.execute(sql.DATA_VERSION).fetchone()[0])

    def _index_is_fresh(self, db: sqlite3.Connection) -> bool:
        """Inside a write transaction: is the cached index exactly the committed state?"""
        return self._index is not None and self._index_dv == self._data_version(db)

    def _log_position(self, db: sqlite3.Connection) -> int:
        """Inside a write transaction that changed vectors: trim the change log when long; the
        last sequence number, which the (fresh) cache will reflect after this transaction."""
        last = int(db.execute(sql.VECTOR_LOG_LAST).fetchone()[0])
        first = int(db.execute(sql.VECTOR_LOG_FIRST).fetchone()[0])
        row = db.execute(sql.GET_META, (LOG_TRIMMED_KEY,)).fetchone()
        first = max(first, int(row[0]) if row else 0)  # the kept max-pk row may be older
        if last - first > LOG_TRIM_AT:
            db.execute(sql.VECTOR_LOG_TRIM, (last - LOG_KEEP,))
            db.execute(sql.SET_META, (LOG_TRIMMED_KEY, str(last - LOG_KEEP)))
        return last

    def _after_vector_change(
        self,
        fresh: bool,
        seq: int,
        *,
        replaced: list[tuple[int, np.ndarray]] | None = None,
        removed: list[int] | None = None,
    ) -> None:
        """After a commit that replaced or deleted vectors: apply it to a fresh cache in place
        (a stale cache catches up from the log at its next sync)."""
        index = self._index
        if index is None or not fresh:
            return
        for pk, v in replaced or []:
            if not index.replace(pk, v):
                index.append(np.asarray([pk], dtype=np.int64), v.reshape(1, -1))
        if removed:
            index.remove(removed)
        self._index_seq = seq

    def _synced_index(self) -> Index:
        """The vector index, brought up to date with what other connections committed."""
        assert self._dim is not None
        db = self._db
        dv = self._data_version(db)
        if self._index is not None and dv == self._index_dv:
            return self._switched_if_grown(self._index)
        own_tx = not db.in_transaction
        if own_tx:
            db.execute(sql.BEGIN_READ)  # one snapshot for the log, the tail and the changes
        try:
            last = int(db.execute(sql.VECTOR_LOG_LAST).fetchone()[0])
            trimmed = int(self.get_meta(LOG_TRIMMED_KEY) or 0)
            if self._index is not None and self._index_seq < trimmed:
                self._index = None  # the log no longer reaches back to this cache
            built = self._index is None
            if self._index is None:
                self._index, self._index_seq = self._open_index(last, trimmed)
            index = self._index
            built = built and len(index) == 0
            old_max = index.max_pk
            self._load_rows(index, db.execute(sql.VECTORS_AFTER, (old_max,)))
            if self._index_seq < last:
                changed = [
                    r[0] for r in db.execute(sql.VECTOR_LOG_AFTER, (self._index_seq, old_max))
                ]
                index.remove(changed)
                for chunk in chunks(changed):
                    self._load_rows(
                        index, db.execute(sql.VECTORS_BY_PKS.format(marks=marks(chunk)), chunk)
                    )
            self._index_seq = last
        finally:
            if own_tx:
                db.execute(sql.COMMIT)
        self._index_dv = dv
        if isinstance(index, HnswIndex) and built and len(index) >= 1_000:
            self._save_hnsw(index)  # built from scratch: spare the next process the work
        return self._switched_if_grown(index)

    def _switched_if_grown(self, index: Index) -> Index:
        """Auto mode: an exact cache that reached `sqlite_hnsw_min_rows` becomes an HNSW graph."""
        if isinstance(index, VectorIndex) and self._wants_hnsw(len(index)):
            self._index = index = self._build_hnsw(index)
        return index

    def _wants_hnsw(self, rows: int) -> bool:
        if self._vector_mode == "hnsw":
            return True
        return self._vector_mode == "auto" and rows >= self._hnsw_min_rows

    def _open_index(self, last: int, trimmed: int) -> tuple[Index, int]:
        """A new cache: the saved HNSW graph when it matches this database, else empty (its
        sequence number then is the current one: loading every row covers every change)."""
        assert self._dim is not None
        rows = int(self._db.execute(sql.VECTOR_COUNT).fetchone()[0])
        if self._wants_hnsw(rows):
            loaded = HnswIndex.load(sidecar_dir(self._path), self._dim, self._hnsw_params)
            if loaded is not None:
                index, manifest = loaded
                seq = int(manifest.get("seq", -1))
                if (
                    manifest.get("mind_uid") == self.get_meta(MIND_UID_KEY)
                    # the graph this database last saved: not one saved before the file was
                    # replaced by an older copy of itself
                    and manifest.get("token") == self.get_meta(GRAPH_TOKEN_KEY)
                    and trimmed <= seq <= last
                ):
                    return index, seq
                log.info(
                    "saved HNSW graph of %s does not match the database: rebuilding", self._mind
                )
            return HnswIndex(self._dim, self._hnsw_params), last
        return VectorIndex(self._dim), last

    def _build_hnsw(self, exact: VectorIndex) -> HnswIndex:
        """Switch a grown exact cache to HNSW (auto mode), saving the graph for other processes."""
        assert self._dim is not None
        log.info("mind %s has %d vectors: building its HNSW index", self._mind, len(exact))
        index = HnswIndex(self._dim, self._hnsw_params)
        pks, mat = exact.rows()
        index.append(pks, mat)
        self._save_hnsw(index)
        return index

    def _save_hnsw(self, index: HnswIndex) -> None:
        token = uuid.uuid4().hex
        manifest = {"mind_uid": self.get_meta(MIND_UID_KEY), "seq": self._index_seq, "token": token}
        try:
            index.save(sidecar_dir(self._path), manifest)
            self.set_meta(GRAPH_TOKEN_KEY, token)
        except (OSError, RuntimeError, sqlite3.Error, StoreError) as e:
            # only a cache: the next process rebuilds the graph from the database
            log.warning("cannot save the HNSW index of %s: %s", self._mind, e)

    def _close_vector_cache(self) -> None:
        """On close: save an HNSW graph that was built or changed enough since it was loaded."""
        index = self._index
        if (
            isinstance(index, HnswIndex)
            and self._index_dv is not None
            and index.changed > max(1_000, SAVE_FRACTION * len(index))
        ):
            self._save_hnsw(index)
        self._index = None

    def _load_rows(self, index: Index, cur: sqlite3.Cursor) -> None:
        """Append (pk, blob) rows from `cur` to `index` in batches."""
        assert self._dim is not None
        while True:
            rows = cur.fetchmany(20_000)
            if not rows:
                break
            pks = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            mat = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4")
            index.append(pks, mat.reshape(len(rows), self._dim))
