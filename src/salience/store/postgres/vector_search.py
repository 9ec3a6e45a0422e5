"""The HNSW index and vector search of `PostgresStore` (pgvector).

`search_vector(..., exact=None)` chooses: exact (a scan) while the mind holds at most
`exact_search_max` vectors or when there is no index; otherwise HNSW with `hnsw.ef_search` from
the config and iterative index scans (pgvector >= 0.8), re-run exactly if a selective filter
leaves the index short of `limit` rows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import psycopg
from psycopg import sql as psql

from ...errors import EmbedderMismatch, InvalidInput
from ...models import Candidate, MemoryFilter
from . import sql

T = TypeVar("T")

MAX_INDEXED_DIM = 2000  # pgvector HNSW limit for `vector`
MAX_HALFVEC_DIM = 4000  # pgvector HNSW limit for `halfvec`
MAX_DIM = 16000  # pgvector's storage limit for `vector`
HNSW_M = 24  # Config.pg_hnsw_m; 16 / 64 gave recall@10 0.74 at 1M (issue 21)
HNSW_EF_CONSTRUCTION = 200  # Config.pg_hnsw_ef_construction
MAX_EF_SEARCH = 1000  # pgvector's upper bound for hnsw.ef_search


class VectorSearchMixin:
    """HNSW index management and vector search (see `salience.store.base.Store`)."""

    _mind: str
    _schema: str
    _ident: psql.Identifier
    _lock_key: int
    _server: Any
    _large: bool
    ef_search: int
    exact_search_max: int
    hnsw_m: int
    hnsw_ef_construction: int

    if TYPE_CHECKING:  # provided by PostgresStore

        def _q(self, template: str, **parts: psql.Composable) -> psql.Composed: ...
        def _filter(self, flt: MemoryFilter | None) -> tuple[Any, list[Any]]: ...
        def _tx(self) -> AbstractContextManager[psycopg.Connection]: ...
        def _conn(self, *, tx: bool) -> AbstractContextManager[psycopg.Connection]: ...
        def _read(self, fn: Callable[[psycopg.Connection], T]) -> T: ...
        def _pinned_dim(self) -> int | None: ...

    # -- the vector index -----------------------------------------------------------------------
    def _create_index_sql(
        self, dim: int, m: int, ef_construction: int, *, concurrently: bool = False
    ) -> psql.Composed:
        template = sql.CREATE_HNSW_VECTOR if dim <= MAX_INDEXED_DIM else sql.CREATE_HNSW_HALFVEC
        how, name = (
            ("INDEX CONCURRENTLY", sql.HNSW_BUILD_NAME)
            if concurrently
            else ("INDEX", sql.HNSW_INDEX_NAME)
        )
        return self._q(
            template,
            how=psql.SQL(how),
            name=psql.Identifier(name),
            dim=psql.SQL(str(int(dim))),
            m=psql.SQL(str(int(m))),
            efc=psql.SQL(str(int(ef_construction))),
        )

    def vector_index(self) -> dict[str, str] | None:
        """The HNSW index of this mind: {"name", "opclass", "definition"}, or None (no pinned
        embedder, more than 4000 dims, or dropped with `drop_vector_index`)."""
        row = self._read(lambda c: c.execute(sql.VECTOR_INDEX_DEF, (self._schema,)).fetchone())
        if row is None:
            return None
        definition = str(row[0])
        opclass = (
            "halfvec_cosine_ops" if "halfvec_cosine_ops" in definition else "vector_cosine_ops"
        )
        return {"name": sql.HNSW_INDEX_NAME, "opclass": opclass, "definition": definition}

    def drop_vector_index(self) -> None:
        """Drop the HNSW index (e.g. before a bulk load; searches are exact until rebuilt)."""
        with self._tx() as conn:
            conn.execute(sql.ADVISORY_LOCK, (self._lock_key,))
            conn.execute(self._q(sql.DROP_HNSW))

    def build_vector_index(
        self,
        *,
        m: int | None = None,
        ef_construction: int | None = None,
        maintenance_work_mem: str | None = None,
        parallel_workers: int | None = None,
    ) -> None:
        """(Re)build the HNSW index, replacing any existing one, without blocking the mind.

        `m` / `ef_construction` default to the store's (`Config.pg_hnsw_m`, 24, and
        `pg_hnsw_ef_construction`, 200). The new index is built `CREATE INDEX CONCURRENTLY`
        beside the old one, outside any transaction: searches and writes go on during the build
        (searches use the old index, or scan exactly when there is none), then the old index is
        dropped `CONCURRENTLY` and the new one renamed into place. A build a crash interrupted
        leaves an invalid index, dropped by the next build. Two builds of one mind serialise on
        a session advisory lock.

        `maintenance_work_mem` (e.g. "2GB") should hold the whole graph for a fast build;
        `parallel_workers` sets max_parallel_maintenance_workers for this build.
        Raises `InvalidInput` if the mind has no pinned embedder or more than 4000 dims.
        """
        statements = self._rebuild_statements(
            self._indexable_dim(),
            self.hnsw_m if m is None else m,
            self.hnsw_ef_construction if ef_construction is None else ef_construction,
        )
        self._build_concurrently(
            statements, maintenance_work_mem=maintenance_work_mem, parallel_workers=parallel_workers
        )
        self._index_built()

    def _rebuild_statements(
        self, dim: int, m: int, ef_construction: int
    ) -> list[psql.Composable | str]:
        """A rebuild, each outside a transaction: drop a build a crash left (invalid), build
        the new index beside the old, drop the old without blocking reads, rename the new."""
        drop = partial(self._q, sql.DROP_HNSW_CONCURRENTLY)
        return [
            drop(name=psql.Identifier(sql.HNSW_BUILD_NAME)),
            self._create_index_sql(dim, m, ef_construction, concurrently=True),
            drop(name=psql.Identifier(sql.HNSW_INDEX_NAME)),
            self._q(sql.RENAME_HNSW_BUILD),
        ]

    def _index_built(self) -> None:
        """After a rebuild (here: nothing)."""

    def _indexable_dim(self) -> int:
        """The pinned dimension, if an HNSW index can hold it; else `InvalidInput`."""
        dim = self._pinned_dim()
        if dim is None or dim > MAX_HALFVEC_DIM:
            raise InvalidInput(
                f"mind {self._mind!r} cannot have an HNSW index "
                f"({'no pinned embedder' if dim is None else f'{dim} dims > {MAX_HALFVEC_DIM}'})"
            )
        return dim

    def _build_concurrently(
        self,
        statements: Sequence[psql.Composable | str],
        *,
        maintenance_work_mem: str | None,
        parallel_workers: int | None,
    ) -> None:
        """`statements` of an index rebuild, in order, outside any transaction (CONCURRENTLY
        refuses one), under the mind's session advisory lock and the build's settings."""
        settings = {
            k: v
            for k, v in (
                ("maintenance_work_mem", maintenance_work_mem),
                ("max_parallel_maintenance_workers", parallel_workers),
            )
            if v is not None
        }
        key = f"{self._lock_key}:vector-index"
        with self._conn(tx=False) as conn:  # autocommit: pooled connections are
            conn.execute(sql.ADVISORY_SESSION_LOCK, (key,))
            try:
                for name, value in settings.items():
                    conn.execute(sql.SET_SESSION, (name, str(value)))
                for statement in statements:
                    conn.execute(statement)
            finally:
                for name in settings:
                    conn.execute(psql.SQL(sql.RESET_SETTING).format(name=psql.Identifier(name)))
                conn.execute(sql.ADVISORY_SESSION_UNLOCK, (key,))

    # -- search ----------------------------------------------------------------------------------
    def search_vector(
        self,
        vector: np.ndarray,
        *,
        limit: int,
        flt: MemoryFilter | None = None,
        exact: bool | None = None,
    ) -> list[Candidate]:
        """Nearest neighbours by cosine similarity (`score` = 1 - cosine distance).

        `exact`: None (default) chooses — exact while the mind holds at most
        `exact_search_max` vectors, else HNSW, falling back to exact if the index yields fewer
        than `limit` rows; True always scans exactly; False always uses the index (when the
        mind has one), as a benchmark comparing the two needs.
        """
        if limit <= 0:
            return []
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        dim = self._pinned_dim()
        if dim is None:
            return []
        if q.shape[0] != dim:
            raise EmbedderMismatch(
                f"query vector has {q.shape[0]} dimensions; mind {self._mind!r} pins {dim}"
            )
        if not np.isfinite(q).all():
            raise InvalidInput("query vector contains NaN or infinite values")
        where, params = self._filter(flt)
        rows: list[Any] | None = None
        if self._use_index(dim, exact):
            rows = self._read(lambda c: self._hnsw(c, q, dim, where, params, limit))
            if exact is None and len(rows) < limit:
                rows = None  # the index ran dry (a selective filter): answer exactly
        if rows is None:
            query = self._q(sql.VECTOR_EXACT, where=where)
            rows = self._read(lambda c: c.execute(query, (q, *params, limit)).fetchall())
        return [
            Candidate(id=r[0], rank=i, score=1.0 - float(r[1])) for i, r in enumerate(rows, start=1)
        ]

    def _use_index(self, dim: int, exact: bool | None) -> bool:
        if exact or dim > MAX_HALFVEC_DIM:
            return False
        if exact is False or self._large:
            return True
        cap = self.exact_search_max
        n = self._read(lambda c: c.execute(self._q(sql.VECTOR_COUNT_UPTO), (cap + 1,)).fetchone())
        self._large = int(n[0]) > cap
        return self._large

    def _index_walk(
        self, dim: int, where: psql.Composable
    ) -> tuple[psql.Composable, psql.Composable]:
        """(the filter, the order) of an HNSW search: the order is the indexed expression."""
        if dim <= MAX_INDEXED_DIM:
            return where, psql.SQL(sql.INDEX_ORDER_VECTOR)
        return where, psql.SQL(sql.INDEX_ORDER_HALFVEC).format(dim=psql.SQL(str(int(dim))))

    def _hnsw(
        self,
        conn: psycopg.Connection,
        q: np.ndarray,
        dim: int,
        where: psql.Composable,
        params: list[Any],
        limit: int,
    ) -> list[Any]:
        where, order = self._index_walk(dim, where)
        query = self._q(sql.VECTOR_HNSW, where=where, index_order=order)
        ef = min(MAX_EF_SEARCH, max(self.ef_search, limit))
        with conn.transaction():
            conn.execute(sql.SET_LOCAL, ("hnsw.ef_search", str(ef)))
            if self._server.iterative_scan:
                conn.execute(sql.SET_LOCAL, ("hnsw.iterative_scan", "relaxed_order"))
            return conn.execute(query, (q, *params, q, limit)).fetchall()
