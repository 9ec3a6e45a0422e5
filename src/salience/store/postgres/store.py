"""`PostgresStore`: one mind in its own schema on a shared PostgreSQL + pgvector server.

Isolation model — **one schema per mind**. Mind `alice` lives in schema `salience_alice` (names
longer than 54 characters get a truncated name plus a hash; the owning mind is recorded in the
schema's `meta` table and checked on open). Every statement in `sql.py` names its tables through
the `{s}` slot, which a store fills with its own schema identifier and nothing else; no method
takes a mind or schema argument, so nothing reachable through a store can touch another mind.
Each schema holds what one SQLite file holds: `_migrations`, `meta` (schema version, pinned
embedder), `memories` with its indexes, and the mind's text-search configuration.
`drop_mind()` is `DROP SCHEMA … CASCADE`.

Migrations are per mind, like SQLite's per file: the same named `Migration`s, each applied in
its own transaction with its `_migrations` row and `meta.schema_version`, under a transaction-
scoped advisory lock on the mind, so concurrent first opens by several processes serialise.

Vectors live in `memories.embedding`, typed `vector` without a dimension until the mind pins its
embedder; `pin_embedding` then fixes it to `vector(d)` and builds the HNSW (cosine) index —
on the vectors themselves for d ≤ 2000, on their `halfvec(d)` cast for d ≤ 4000 (the column
keeps full float32). Above 4000 dimensions (up to pgvector's 16000) search is exact only.

`search_vector(..., exact=None)` chooses: exact (a scan, identical to SQLite's results) while the
mind holds at most `exact_search_max` vectors or when there is no index; otherwise HNSW with
`hnsw.ef_search` from the config and iterative index scans (pgvector ≥ 0.8), so filters do not
starve results — and if the index still returns fewer than `limit` rows, the query is re-run
exactly. `exact=True` / `exact=False` force either path.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import psycopg
from psycopg import sql as psql
from psycopg.types.json import Json
from psycopg_pool import PoolTimeout

from ...clock import ensure_utc
from ...errors import InvalidInput, NotFound, ReadOnlyMind, StoreError
from ...models import (
    SALIENCE_MAX,
    Candidate,
    EmbeddingInfo,
    Memory,
    MemoryFilter,
    normalize_entity,
)
from .. import check_mind_name
from ..base import EMBEDDING_DIM_KEY, EMBEDDING_MODEL_KEY, SCHEMA_VERSION_KEY
from ..maintenance import ScoreUpdate, clamp_scores
from ..migrations import pending
from ..relational.agent import AgentCore
from ..relational.claims import ClaimsCore
from ..relational.columns import memory_encoder
from ..relational.core import AfterCommit, Run
from ..relational.dialect import POSTGRES
from ..relational.graph import GraphCore
from ..relational.layers import LayersCore
from ..relational.maintenance import MaintenanceCore
from ..relational.queue import IngestCore
from ..relational.records import RecordsCore
from ..rows import memory_from_row
from . import pool, sql
from .filters import filter_clause
from .fulltext import FullTextMixin
from .migrations import MIGRATIONS
from .vector_search import (
    HNSW_EF_CONSTRUCTION,
    HNSW_M,
    MAX_DIM,
    MAX_HALFVEC_DIM,
    VectorSearchMixin,
)

if TYPE_CHECKING:
    from ...config import Config

T = TypeVar("T")

SCHEMA_PREFIX = "salience_"
MIND_KEY = "mind"  # meta: the mind that owns the schema
FTS_UNACCENT_KEY = "fts_unaccent"  # meta: "true" if the mind folds diacritics

_DUP_KEY = re.compile(r"\(id\)=\(([^)]*)\)")
_dumps = partial(json.dumps, ensure_ascii=False)


def schema_name(mind: str) -> str:
    """The schema that holds `mind`: `salience_<mind>`, or for names too long for a PostgreSQL
    identifier (63 bytes) `salience_<first 41 chars>~<12 hex of sha256>`. '~' cannot occur in a
    mind name, so the two forms never collide."""
    name = check_mind_name(mind)
    if len(SCHEMA_PREFIX) + len(name) <= 63:
        return SCHEMA_PREFIX + name
    digest = hashlib.sha256(name.encode()).hexdigest()[:12]
    return f"{SCHEMA_PREFIX}{name[:41]}~{digest}"


class _ConnectionLost(StoreError):
    """The connection broke mid-operation (server restart, network); reads retry once."""


class PostgresRun(AfterCommit):
    """`relational.core.Run` over one pooled connection: statements of `sql.py` by name, with
    the store's schema (and the given fragments) filled in."""

    __slots__ = ("conn", "store")

    def __init__(self, store: PostgresStore, conn: psycopg.Connection) -> None:
        super().__init__()
        self.store = store
        self.conn = conn

    def __call__(
        self, name: str, params: Sequence[Any] = (), *, n: int | None = None, **parts: Any
    ) -> psycopg.Cursor:
        frags = {k: self.store._fragment(v) for k, v in parts.items()}
        return self.conn.execute(self.store._q(getattr(sql, name), **frags), params)

    def many(self, name: str, rows: Sequence[Sequence[Any]]) -> None:
        with self.conn.cursor() as cur:
            cur.executemany(self.store._q(getattr(sql, name)), rows)

    def savepoint(self) -> AbstractContextManager[Any]:
        return self.conn.transaction()



class PostgresStore(
    FullTextMixin,
    VectorSearchMixin,
    RecordsCore,
    ClaimsCore,
    IngestCore,
    MaintenanceCore,
    LayersCore,
    GraphCore,
    AgentCore,
):
    """A mind stored in its own schema of a PostgreSQL database with pgvector.

    Thread-safe: every call borrows a connection from the process-wide pool of its DSN.
    Open with `PostgresStore.open(config, mind)` (or `salience.store.open_store`).
    """

    backend = "postgres"
    _dialect = POSTGRES
    _integrity_errors = (psycopg.errors.IntegrityError,)

    def __init__(
        self,
        server: pool.Server,
        mind: str,
        *,
        ef_search: int = 100,
        exact_search_max: int = 10_000,
        hnsw_m: int = HNSW_M,
        hnsw_ef_construction: int = HNSW_EF_CONSTRUCTION,
    ) -> None:
        self._server = server
        self._mind = check_mind_name(mind)
        self._schema = schema_name(mind)
        self._ident, self._cfg = self._names()
        self._lock_key = f"salience:mind:{self._schema}"
        self._where = f"mind {self._mind!r} (schema {self._schema} on {server.endpoint})"
        self._cache: dict[str, psql.Composed] = {}
        self._closed = False
        self.ef_search = ef_search
        self.exact_search_max = exact_search_max  # above this many vectors, HNSW is used
        self.hnsw_m = hnsw_m  # the HNSW build parameters (pin_embedding, build_vector_index)
        self.hnsw_ef_construction = hnsw_ef_construction
        self._large = False  # sticky: the mind was seen above exact_search_max
        self._init_text()  # BM25 scorer and statistics (fulltext.py)
        self._dim: int | None = None
        self._open()

    def _open(self) -> None:
        """Migrate the mind, build its postings when missing, read its pinned dimension."""
        self._migrate()
        with self._tx() as conn:  # the postings are derived: built on open when missing
            conn.execute(sql.ADVISORY_LOCK, (self._lock_key,))
            self._ensure_postings(conn)
        info = self.embedding_info()
        self._dim = info.dim if info else None

    @classmethod
    def open(cls, config: Config, mind: str) -> PostgresStore:
        """Open (creating if needed) `mind` on the server of `config.dsn`.

        Raises `StoreError` (naming host:port, never the password) if the server cannot be
        reached or used, `SchemaVersionError` if the mind was written by a newer Salience.
        """
        server = pool.acquire(_dsn_text(config), pool_max=config.pg_pool_max)
        try:
            return cls(
                server,
                mind,
                ef_search=config.pg_hnsw_ef_search,
                hnsw_m=config.pg_hnsw_m,
                hnsw_ef_construction=config.pg_hnsw_ef_construction,
            )
        except BaseException:
            pool.release(server)
            raise

    @classmethod
    def exists(cls, config: Config, mind: str) -> bool:
        """True if `mind` has a schema on the server of `config.dsn` (nothing is created); with
        `postgres_layout = "shared"`: `SharedPostgresStore.exists` (`postgres.store_class`
        picks the class)."""
        def found(conn: psycopg.Connection) -> bool:
            row = conn.execute(sql.SCHEMA_EXISTS, (schema_name(mind),)).fetchone()
            return bool(row and row[0])

        return on_server(config, found)

    # -- lifecycle ------------------------------------------------------------------------------
    @property
    def schema(self) -> str:
        """The PostgreSQL schema holding this mind."""
        return self._schema

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            pool.release(self._server)

    def drop_mind(self) -> None:
        """Delete this mind — its schema with every record, vector and index — and close."""
        with self._tx() as conn:
            conn.execute(sql.ADVISORY_LOCK, (self._lock_key,))
            conn.execute(self._q(sql.DROP_SCHEMA))
        self.close()

    # -- plumbing -------------------------------------------------------------------------------
    def _names(self) -> tuple[psql.Identifier, psql.Literal]:
        """What fills the statements' `{s}` (the mind's schema) and `{cfg}` (its text-search
        configuration)."""
        return psql.Identifier(self._schema), psql.Literal(
            f"{psql.Identifier(self._schema).as_string()}.fts"
        )

    def _text(self, template: str) -> str:
        """A statement of `sql.py` as this layout runs it (here: as written)."""
        return template

    def _begin(self, conn: psycopg.Connection) -> None:
        """The first statement of each of this store's transactions (here: none)."""

    def _fragment(self, part: Any) -> psql.Composable:
        """A `{…}` slot's value: SQL as it is, or text (which may name this mind's `{s}`)."""
        if isinstance(part, psql.Composable):
            return part
        if "{s}" in part:
            return psql.SQL(self._text(part)).format(s=self._ident)
        return psql.SQL(part)

    def _q(self, template: str, **parts: psql.Composable) -> psql.Composed:
        """`template` with this mind's schema (and the given fragments) filled in."""
        if parts:
            return psql.SQL(self._text(template)).format(s=self._ident, cfg=self._cfg, **parts)
        q = self._cache.get(template)
        if q is None:
            q = psql.SQL(self._text(template)).format(s=self._ident, cfg=self._cfg)
            self._cache[template] = q
        return q

    @contextmanager
    def _conn(self, *, tx: bool) -> Iterator[psycopg.Connection]:
        """A pooled connection (in a transaction if `tx`); driver errors become StoreErrors."""
        if self._closed:
            raise StoreError(f"the store of {self._where} is closed")
        srv = self._server
        try:
            with srv.pool.connection() as conn:
                try:
                    if tx:
                        with conn.transaction():
                            self._begin(conn)
                            yield conn
                    else:
                        yield conn
                except psycopg.OperationalError as e:
                    if conn.closed or conn.broken:
                        raise _ConnectionLost(
                            f"lost the connection to PostgreSQL at {srv.endpoint} "
                            f"({self._where}): {srv.reason(e)}"
                        ) from None
                    raise
        except PoolTimeout:
            raise StoreError(
                f"no connection to PostgreSQL at {srv.endpoint} within {pool.POOL_TIMEOUT_S:.0f}s "
                f"(server down, or all {srv.pool.max_size} pooled connections busy)"
            ) from None
        except psycopg.OperationalError as e:
            raise StoreError(
                f"PostgreSQL at {srv.endpoint} failed for {self._where}: {srv.reason(e)}"
            ) from None
        except psycopg.errors.ReadOnlySqlTransaction as e:
            raise ReadOnlyMind(
                f"PostgreSQL refused a write for {self._where} (read-only): {srv.reason(e)}"
            ) from e
        except psycopg.Error as e:
            raise StoreError(
                f"PostgreSQL error for {self._where}: {srv.reason(e)}"
            ) from e

    def _tx(self) -> Any:
        return self._conn(tx=True)

    def _read(self, fn: Callable[[psycopg.Connection], T]) -> T:
        """Run a read; if the connection broke under it, once more on a fresh connection."""
        try:
            with self._conn(tx=False) as conn:
                return fn(conn)
        except _ConnectionLost:
            with self._conn(tx=False) as conn:
                return fn(conn)

    # -- the hooks of the relational core (relational/core.py) --------------------------------
    @contextmanager
    def _write(self) -> Iterator[Run]:
        with self._tx() as conn:
            run = PostgresRun(self, conn)
            yield run
        run.committed()

    def _read_with(self, fn: Callable[[Run], T]) -> T:
        return self._read(lambda c: fn(PostgresRun(self, c)))

    def _serialize(self, run: Run, scope: str) -> None:
        run.conn.execute(sql.ADVISORY_LOCK, (f"{self._lock_key}:{scope}",))

    def _lock_rows(self, run: Run, name: str, params: Sequence[Any]) -> None:
        run(name, params)

    def _is_unique(self, error: BaseException) -> bool:
        return isinstance(error, psycopg.errors.UniqueViolation)

    def _memory(self, row: Sequence[Any]) -> Memory:
        return _memory(row)

    def _filter(self, flt: MemoryFilter | None) -> tuple[Any, list[Any]]:
        return filter_clause(flt, self._ident, self._text)

    def _rows_deleted(self, run: Run, pks: list[int]) -> None:
        """Full-text statistics change (the postings go by cascade)."""
        self._bm25_stats = None
        run.on_commit(self._forget_text_stats)

    def _forget_text_stats(self) -> None:
        self._bm25_stats = None

    def _set_score_rows(self, run: Run, updates: Sequence[ScoreUpdate]) -> int:
        """Maintenance's scores, after the pending retrievals are folded in (they were read
        with them, and the scores replace the folded salience)."""
        self._fold_retrievals(run)
        scores = [clamp_scores(u) for u in updates]
        params = ([u.id for u in updates], [s for s, _ in scores], [u for _, u in scores])
        return int(run("SET_SCORES", params).rowcount)

    def _migrate(self) -> None:
        applied = self._read(self._applied)
        if applied is not None and not pending(applied, MIGRATIONS, where=self._where):
            owner = self.get_meta(MIND_KEY)
            if owner == self._mind:
                return
        while True:
            with self._tx() as conn:
                conn.execute(sql.ADVISORY_LOCK, (self._lock_key,))
                conn.execute(self._q(sql.CREATE_SCHEMA))
                conn.execute(self._q(sql.CREATE_MIGRATIONS))
                done = [r[0] for r in conn.execute(self._q(sql.APPLIED_MIGRATIONS))]
                todo = pending(done, MIGRATIONS, where=self._where)
                if not todo:
                    conn.execute(self._q(sql.CLAIM_META), (MIND_KEY, self._mind))
                    row = conn.execute(self._q(sql.GET_META), (MIND_KEY,)).fetchone()
                    if row[0] != self._mind:
                        raise StoreError(
                            f"schema {self._schema} belongs to mind {row[0]!r}, not {self._mind!r}"
                        )
                    return
                mig = todo[0]
                try:
                    for stmt in mig.statements:
                        conn.execute(self._q(stmt))
                except psycopg.Error as e:
                    raise StoreError(
                        f"migration {mig.name} failed for {self._where}: "
                        f"{self._server.reason(e)}"
                    ) from e
                conn.execute(self._q(sql.RECORD_MIGRATION), (mig.name,))
                conn.execute(self._q(sql.SET_META), (SCHEMA_VERSION_KEY, str(len(done) + 1)))

    def _applied(self, conn: psycopg.Connection) -> list[str] | None:
        table = f"{self._ident.as_string()}._migrations"
        if not conn.execute(sql.TABLE_EXISTS, (table,)).fetchone()[0]:
            return None
        return [r[0] for r in conn.execute(self._q(sql.APPLIED_MIGRATIONS))]

    # -- meta -----------------------------------------------------------------------------------
    def pin_embedding(self, info: EmbeddingInfo) -> None:
        """Pin `info`; on first pin, fix the vector column to `vector(dim)` and build the HNSW
        index (halfvec for 2000 < dim <= 4000, none above). Raises `EmbedderMismatch` if another
        embedder is pinned, `InvalidInput` for a dimension pgvector cannot store."""
        with self._write() as run:
            conn = run.conn
            conn.execute(sql.ADVISORY_LOCK, (self._lock_key,))
            pinned = self._pinned(run, info)
            if pinned is not None:
                self._dim = pinned.dim
                return
            dim = info.dim
            if not isinstance(dim, int) or not 1 <= dim <= MAX_DIM:
                raise InvalidInput(
                    f"embedding dimension {dim!r} is outside what pgvector stores (1-{MAX_DIM})"
                )
            conn.execute(self._q(sql.SET_META), (EMBEDDING_MODEL_KEY, info.model))
            conn.execute(self._q(sql.SET_META), (EMBEDDING_DIM_KEY, str(dim)))
            self._pin_vectors(conn, dim)
        self._dim = dim

    def _pin_vectors(self, conn: psycopg.Connection, dim: int) -> None:
        """The first pin's schema change: the column typed `vector(dim)`, the HNSW index."""
        conn.execute(self._q(sql.PIN_VECTOR_TYPE, dim=psql.SQL(str(dim))))
        if dim <= MAX_HALFVEC_DIM:
            # the mind holds no vectors yet: the build is instant, so it stays in the pin's
            # transaction (a rebuild is concurrent: build_vector_index)
            conn.execute(self._create_index_sql(dim, self.hnsw_m, self.hnsw_ef_construction))

    def _pinned_dim(self) -> int | None:
        if self._dim is None:  # another handle or process may have pinned since we opened
            info = self.embedding_info()
            self._dim = info.dim if info else None
        return self._dim

    # -- records --------------------------------------------------------------------------------
    def _check_vectors(self, vectors: np.ndarray | None, n: int) -> np.ndarray | None:
        arr = self._checked_vectors(vectors, n, self._pinned_dim() if vectors is not None else None)
        return None if arr is None else np.ascontiguousarray(arr)

    def insert(self, memories: Sequence[Memory], vectors: np.ndarray | None = None) -> None:
        vecs = self._check_vectors(vectors, len(memories))
        if not memories:
            return
        with self._write() as run:
            self._insert_rows(run, memories, vecs)

    def _rows_inserted(self, run: Run, pks: list[int] | None, vecs: np.ndarray | None) -> None:
        """Nothing to do: the server's HNSW index is the only index."""

    def _insert_rows(
        self, run: Run, memories: Sequence[Memory], vecs: np.ndarray | None
    ) -> None:
        """Insert records (with their vectors) inside the caller's transaction."""
        conn = run.conn
        rows = [_params(m) for m in memories]
        stmt = sql.COPY_MEMORIES if vecs is None else sql.COPY_MEMORIES_VEC
        types = [*sql.COPY_TYPES, *(() if vecs is None else ("vector",))]
        try:
            with conn.cursor() as cur, cur.copy(self._q(stmt)) as copy:
                copy.set_types(types)
                for i, row in enumerate(rows):
                    copy.write_row(row if vecs is None else (*row, vecs[i]))
        except psycopg.errors.UniqueViolation as e:
            found = _DUP_KEY.search(e.diag.message_detail or "")
            which = found.group(1) if found else "(unknown)"
            raise InvalidInput(f"a memory with id {which} already exists") from None
        except (psycopg.errors.IntegrityError, psycopg.errors.DataError) as e:
            raise InvalidInput(f"a memory violates a constraint: {_first_line(e)}") from None
        except psycopg.errors.ProgramLimitExceeded as e:
            raise InvalidInput(f"a memory is too large to index: {_first_line(e)}") from None
        self._write_layers(run, memories)  # sessions, t, frames, links
        self._write_claims(run, memories)  # derived claims, same transaction
        self._write_postings(conn, memories)

    def update(self, memories: Sequence[Memory], vectors: np.ndarray | None = None) -> None:
        vecs = self._check_vectors(vectors, len(memories))
        if not memories:
            return
        with self._write() as run:
            self._update_rows(run, memories, vecs)

    def _update_rows(
        self, run: Run, memories: Sequence[Memory], vecs: np.ndarray | None
    ) -> None:
        """Replace records by id inside the caller's transaction (`NotFound` if one is absent)."""
        conn = run.conn
        ids = [m.id for m in memories]
        if vecs is None:
            rows = [(*_params(m)[1:], m.id) for m in memories]
            stmt = sql.UPDATE_MEMORY
        else:
            rows = [(*_params(m)[1:], vecs[i], m.id) for i, m in enumerate(memories)]
            stmt = sql.UPDATE_MEMORY_VEC
        found = {r[0] for r in conn.execute(self._q(sql.LOCK_IDS), (ids,))}
        for i in ids:
            if i not in found:
                raise NotFound(f"memory {i} not found in mind {self._mind!r}")
        conn.execute(self._q(sql.DROP_RETRIEVALS_OF), (ids,))  # the record carries them
        try:
            with conn.cursor() as cur:
                cur.executemany(self._q(stmt), rows)
        except (psycopg.errors.IntegrityError, psycopg.errors.DataError) as e:
            raise InvalidInput(f"a memory violates a constraint: {_first_line(e)}") from None
        except psycopg.errors.ProgramLimitExceeded as e:
            raise InvalidInput(f"a memory is too large to index: {_first_line(e)}") from None
        self._write_layers(run, memories, updating=True)
        self._write_claims(run, memories, updating=True)
        self._write_postings(conn, memories, updating=True)

    def record_retrievals(self, ids: Sequence[str], now: datetime, *, boost: float) -> int:
        """One retrieval per memory of `ids`, an upsert into the side table `memory_retrievals`
        (no index of the memory row is touched; see sql.RECORD_RETRIEVALS)."""
        uniq = list(dict.fromkeys(ids))
        if not uniq:
            return 0
        top = SALIENCE_MAX
        with self._tx() as conn:
            conn.execute(sql.ADVISORY_LOCK_SHARED, (f"{self._lock_key}:retrievals",))
            cur = conn.execute(
                self._q(sql.RECORD_RETRIEVALS), (_ts(now), boost, top, top, uniq, boost, top, top)
            )
            return int(cur.rowcount)

    def fold_retrievals(self) -> int:
        """Fold the pending retrieval counters into the memory rows (maintenance does it before
        it sets scores); returns how many memories had some. Reads see the same values before
        and after."""
        with self._write() as run:
            return self._fold_retrievals(run)

    def _fold_retrievals(self, run: Run) -> int:
        run.conn.execute(sql.ADVISORY_LOCK, (f"{self._lock_key}:retrievals",))
        folded = int(run("FOLD_RETRIEVALS").rowcount)
        run("CLEAR_RETRIEVALS")
        return folded

    def pending_retrievals(self) -> int:
        """How many memories have retrievals not yet folded into their row."""
        return int(self._first("PENDING_RETRIEVALS")[0])

    def get_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        wanted = list(dict.fromkeys(ids))
        if not wanted or self._pinned_dim() is None:
            return {}

        def run(c: psycopg.Connection) -> list[Any]:
            with c.cursor(binary=True) as cur:
                return cur.execute(self._q(sql.VECTORS_BY_IDS), (wanted,)).fetchall()

        return {mid: _array(v) for mid, v in self._read(run)}

    def iter_memories(self, batch_size: int = 1000) -> Iterator[tuple[Memory, np.ndarray | None]]:
        """Every memory with its vector, in insertion order, in batches of `batch_size`
        (each batch one short read, so a long export holds no transaction open)."""
        last = 0
        q = self._q(sql.ITER_MEMORIES)

        def run(c: psycopg.Connection) -> list[Any]:
            with c.cursor(binary=True) as cur:
                return cur.execute(q, (last, max(1, batch_size))).fetchall()

        while True:
            rows = self._read(run)
            if not rows:
                return
            for r in rows:
                yield _memory(r), (_array(r[-1]) if r[-1] is not None else None)
            last = int(rows[-1][0])

    # -- candidates -----------------------------------------------------------------------------
    def search_entities(
        self, entities: Sequence[str], *, limit: int, flt: MemoryFilter | None = None
    ) -> list[Candidate]:
        keys = list(dict.fromkeys(k for k in (normalize_entity(e) for e in entities) if k))
        if not keys or limit <= 0:
            return []
        where, params = self._filter(flt)
        q = self._q(sql.ENTITY_SEARCH, where=where)
        rows = self._read(lambda c: c.execute(q, (keys, keys, *params, limit)).fetchall())
        return [Candidate(id=r[0], rank=i, score=float(r[1])) for i, r in enumerate(rows, start=1)]

    def entity_frequencies(self, entities: Sequence[str]) -> dict[str, int]:
        keys = list(dict.fromkeys(k for k in (normalize_entity(e) for e in entities) if k))
        if not keys:
            return {}
        q = self._q(sql.ENTITY_FREQUENCIES)
        rows = self._read(lambda c: c.execute(q, (keys, keys)).fetchall())
        return {str(k): int(n) for k, n in rows}

    # -- stats ----------------------------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        def run(c: psycopg.Connection) -> dict[str, Any]:
            by_type = {r[0]: int(r[1]) for r in c.execute(self._q(sql.STATS_BY_TYPE))}
            hist = {int(b) + 1: int(n) for b, n in c.execute(self._q(sql.STATS_SALIENCE_HIST))}
            return {
                "by_type": by_type,
                "salience_histogram": hist,
                "superseded": int(c.execute(self._q(sql.STATS_SUPERSEDED)).fetchone()[0]),
                "vectors": int(c.execute(self._q(sql.STATS_VECTORS)).fetchone()[0]),
                "db_bytes": self._db_bytes(c),
            }

        got = self._read(run)
        info = self.embedding_info()
        index = self.vector_index()
        return {
            "backend": self.backend,
            "mind": self._mind,
            "schema": self._schema,
            "server": self._server.endpoint,
            "schema_version": self.schema_version(),
            "memories": sum(got["by_type"].values()),
            "by_type": got["by_type"],
            "superseded": got["superseded"],
            "vectors": got["vectors"],
            "salience_histogram": got["salience_histogram"],
            "embedding": {"model": info.model, "dim": info.dim} if info else None,
            "db_bytes": got["db_bytes"],
            "vector_index": index["opclass"] if index else None,
            "fts_unaccent": self.get_meta(FTS_UNACCENT_KEY) == "true",
        }


    def _db_bytes(self, c: psycopg.Connection) -> int:
        """The mind's size on disk (its schema's tables with their indexes and TOAST)."""
        return int(c.execute(sql.STATS_BYTES, (self._ident.as_string(),)).fetchone()[0])


# -- helpers ------------------------------------------------------------------------------------
def on_server(config: Config, fn: Callable[[psycopg.Connection], T]) -> T:
    """`fn` on a pooled connection to the server of `config.dsn` (driver errors become a
    `StoreError` naming host:port, never the password)."""
    server = pool.acquire(_dsn_text(config), pool_max=config.pg_pool_max)
    try:
        with server.pool.connection() as conn:
            return fn(conn)
    except psycopg.Error as e:
        raise StoreError(f"PostgreSQL at {server.endpoint} failed: {server.reason(e)}") from None
    finally:
        pool.release(server)


def _dsn_text(config: Config) -> str:
    if config.dsn is None:
        raise InvalidInput("backend 'postgres' needs a DSN (config dsn / SALIENCE_DSN / --dsn)")
    dsn = config.dsn
    return dsn.get_secret_value() if hasattr(dsn, "get_secret_value") else str(dsn)


def _first_line(e: BaseException) -> str:
    return (str(e).splitlines() or [type(e).__name__])[0]


def _array(value: Any) -> np.ndarray:
    return np.array(value.to_numpy(), dtype=np.float32)


def _ts(value: datetime | None) -> datetime | None:
    return ensure_utc(value) if value is not None else None


#: a memory's column values as PostgreSQL stores them (relational/columns.py: one spec)
_columns = memory_encoder(POSTGRES, obj=lambda v: Json(v, dumps=_dumps))


def _params(m: Memory) -> tuple[Any, ...]:
    """The column values, then the derived ones (`sql.DERIVED_COLUMNS`)."""
    keys = list(dict.fromkeys(k for k in (normalize_entity(e) for e in m.entities) if k))
    return (*_columns(m), keys, " ".join(m.entities))


def _memory(row: Sequence[Any]) -> Memory:
    return memory_from_row(row, ts=_ts, array=list, obj=lambda m: m)
