"""`SharedPostgresStore`: a mind as rows of one table set keyed by mind (issue 21 item 3).

`postgres_layout = "shared"`. Every mind's rows live in the tables of schema `salience`
(`shared_sql.TABLES`: `mind_id` leads every key and index), so the catalog holds the same
~100 relations whatever the number of minds; `salience.minds` is the directory (name → id).

The store runs the schema-per-mind store's statements (postgres/sql.py, relational/statements.py)
in one mind's form (`shared_sql.for_mind`, rendered once per statement and store): a table a
statement reads becomes `(SELECT * FROM salience.<t> WHERE mind_id = <this mind, a literal>)`
under the statement's alias; a table it writes is the view `salience__mind.<t>` (`SELECT * …
WHERE mind_id = current_setting('salience.mind_id') WITH CHECK OPTION`, `views_ddl`), and every
write transaction starts by setting that mind, transaction-local (`_begin`); a conflict target
gains `mind_id`; COPY writes the table, whose `mind_id` defaults to the transaction's mind.
A statement naming a table anywhere else is refused when rendered. Outside a write
transaction a session has no mind, so a view fails there instead of showing another mind.

Isolation is structural — a literal predicate or a view's, never row-level security (which
superusers bypass) — and checked by `tests/store/test_postgres_shared_layout.py`. Opening a
mind is one read (`OPEN_MIND_ROW`: its directory row with its text-index and embedder meta).

Vectors: the column stays `vector` without a dimension (minds pin different embedders); a
small mind is searched exactly through `(mind_id, pk)`; a mind holding more than
`exact_search_max` vectors gets its own partial HNSW index (`CREATE INDEX CONCURRENTLY …
WHERE mind_id = n` over `embedding::vector(d)`), built after the insert that crosses the
threshold commits and dropped after the delete that takes it below half of it
(`shared_layout.mind_index_action`); `drop_vector_index()` turns that switch off for the mind
(a bulk load), `build_vector_index()` on again.

Layout migrations are the database's (`salience._migrations`, `MIGRATIONS`), not a mind's; a
mind's `meta.schema_version` is the schema-per-mind migrations' count, whose tables and columns
the layout holds.
"""

from __future__ import annotations

import time
import weakref
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg import sql as psql

from ...errors import StoreError
from ..base import EMBEDDING_DIM_KEY, SCHEMA_VERSION_KEY
from ..migrations import Migration, pending
from ..relational.core import Run
from . import pool, sql
from . import shared_sql as lay
from .fulltext import TEXT_INDEX_KEY, TEXT_INDEX_VERSION
from .migrations import MIGRATIONS as MIND_MIGRATIONS
from .shared_layout import mind_index_action
from .store import MIND_KEY, PostgresStore, on_server
from .vector_search import MAX_HALFVEC_DIM

if TYPE_CHECKING:
    import numpy as np

    from ...config import Config

#: the layout's migrations, applied once per database
MIGRATIONS: tuple[Migration, ...] = (
    Migration("0001_shared_layout", (*lay.layout_ddl(), *lay.views_ddl())),
    # idempotent (IF NOT EXISTS / OR REPLACE): adds memory_claims and its view to a layout
    # created before it
    Migration("0002_memory_claims", (*lay.layout_ddl(), *lay.views_ddl())),
)
#: how long a search trusts "no index of its own" (this process's own builds and drops update
#: it at once; another process's build is seen within this time, searches are exact meanwhile)
INDEX_RECHECK_S = 30.0
AUTO_INDEX_KEY = "vector_index_auto"  # meta: "off" after drop_vector_index (a bulk load)

#: the servers (pools) whose database this process has seen the layout complete on
_LAYOUT_READY: weakref.WeakSet[pool.Server] = weakref.WeakSet()


class SharedPostgresStore(PostgresStore):
    """A mind as rows of the shared layout (see the module docstring)."""

    _postings_ddl = ()  # the layout's tables

    def __init__(self, server: pool.Server, mind: str, **kw: Any) -> None:
        self._mind_id: int | None = None
        self._indexed = False  # sticky: the mind's own HNSW index was seen valid
        self._index_seen_at = -INDEX_RECHECK_S  # when a search last looked for it
        super().__init__(server, mind, **kw)

    @classmethod
    def exists(cls, config: Config, mind: str) -> bool:
        """True if `mind` is in the layout's directory (nothing is created)."""
        def found(conn: psycopg.Connection) -> bool:
            if not conn.execute(lay.LAYOUT_EXISTS).fetchone()[0]:
                return False
            return conn.execute(lay.FIND_MIND, (mind,)).fetchone() is not None

        return on_server(config, found)

    @property
    def schema(self) -> str:
        """The schema holding every mind's tables."""
        return lay.SCHEMA

    @property
    def mind_id(self) -> int:
        """This mind's key in every table of the layout."""
        assert self._mind_id is not None
        return self._mind_id

    # -- the hooks of PostgresStore ------------------------------------------------------------
    def _names(self) -> tuple[psql.Identifier, psql.Literal]:
        return psql.Identifier(lay.VIEW_SCHEMA), psql.Literal(f"{lay.SCHEMA}.fts")

    def _text(self, template: str) -> str:
        return lay.for_mind(template, self.mind_id)

    def _begin(self, conn: psycopg.Connection) -> None:
        if self._mind_id is not None:  # opening: only the layout's own tables, never a view
            conn.execute(lay.SET_MIND_LOCAL, (str(self._mind_id),))

    def _open(self) -> None:
        """One read for an existing mind: its directory row with the meta it opens with (the
        layout checked once per pool and process); a new mind is created in one transaction."""
        if self._server not in _LAYOUT_READY:
            self._migrate_layout()
            _LAYOUT_READY.add(self._server)
        keys = (TEXT_INDEX_KEY, EMBEDDING_DIM_KEY, self._mind)
        row = self._read(lambda c: c.execute(lay.OPEN_MIND_ROW, keys).fetchone())
        if row is None:
            row = self._create_mind()
        self._mind_id, text_index, dim = int(row[0]), row[1], row[2]
        self._indexed, self._index_seen_at = bool(row[3]), time.monotonic()
        self._where = (
            f"mind {self._mind!r} (id {self._mind_id}, shared layout on {self._server.endpoint})"
        )
        if text_index != TEXT_INDEX_VERSION:  # postings of another tokenizer: rebuilt
            with self._tx() as conn:
                conn.execute(sql.ADVISORY_LOCK, (self._lock_key,))
                self._ensure_postings(conn)
        self._dim = int(dim) if dim else None

    def _migrate_layout(self) -> None:
        """The layout's pending migrations, each in its own transaction under a lock."""
        while True:
            with self._tx() as conn:
                conn.execute(sql.ADVISORY_LOCK, ("salience:shared-layout",))
                ready = conn.execute(lay.LAYOUT_EXISTS).fetchone()[0]
                done = [r[0] for r in conn.execute(lay.LAYOUT_APPLIED)] if ready else []
                todo = pending(done, MIGRATIONS, where=f"the shared layout on {self._server.endpoint}")
                if not todo:
                    return
                mig = todo[0]
                try:
                    for stmt in mig.statements:
                        conn.execute(stmt)
                except psycopg.Error as e:
                    raise StoreError(
                        f"migration {mig.name} of the shared layout failed on "
                        f"{self._server.endpoint}: {self._server.reason(e)}"
                    ) from e
                conn.execute(lay.RECORD_LAYOUT_MIGRATION, (mig.name,))

    def _create_mind(self) -> tuple[Any, ...]:
        with self._tx() as conn:
            conn.execute(sql.ADVISORY_LOCK, (self._lock_key,))
            row = conn.execute(lay.FIND_MIND, (self._mind,)).fetchone()
            if row is not None:  # another process created it meanwhile
                keys = (TEXT_INDEX_KEY, EMBEDDING_DIM_KEY, self._mind)
                return tuple(conn.execute(lay.OPEN_MIND_ROW, keys).fetchone())
            version = len(MIND_MIGRATIONS)
            (mid,) = conn.execute(lay.CREATE_MIND_ROW, (self._mind, version)).fetchone()
            conn.execute(lay.INIT_META, (mid, MIND_KEY, self._mind))
            conn.execute(lay.INIT_META, (mid, SCHEMA_VERSION_KEY, str(version)))
            conn.execute(lay.INIT_META, (mid, TEXT_INDEX_KEY, TEXT_INDEX_VERSION))  # no rows yet
            return (mid, TEXT_INDEX_VERSION, None, False)

    def _pin_vectors(self, conn: psycopg.Connection, dim: int) -> None:
        """Nothing: the column stays `vector` (any dimension); a mind's own index comes with
        its size."""

    def _db_bytes(self, c: psycopg.Connection) -> int:
        """Approximate: the bytes of the mind's memory and postings rows."""
        return int(c.execute(self._q(lay.MIND_BYTES)).fetchone()[0])

    def analyze(self) -> None:
        """Refresh the planner statistics of the layout's memories and postings tables."""
        with self._tx() as conn:
            conn.execute(lay.ANALYZE_TABLES)

    # -- lifecycle ------------------------------------------------------------------------------
    def drop_mind(self) -> None:
        """Delete this mind's rows from every table, its directory row and its own HNSW index,
        and close."""
        with self._tx() as conn:
            conn.execute(sql.ADVISORY_LOCK, (self._lock_key,))
            for stmt in lay.DROP_MIND_ROWS:
                conn.execute(stmt, (self.mind_id,))
        if self._read(self._index_row) is not None:
            with self._conn(tx=False) as conn:
                conn.execute(lay.drop_mind_index(self.mind_id))
        self.close()

    # -- the mind's own HNSW index ---------------------------------------------------------------
    def _index_name(self, build: bool = False) -> str:
        return lay.mind_index_name(self.mind_id) + ("_build" if build else "")

    def _index_row(self, c: psycopg.Connection, build: bool = False) -> Any:
        return c.execute(lay.MIND_INDEX, (f"{lay.SCHEMA}.{self._index_name(build)}",)).fetchone()

    def vector_index(self) -> dict[str, str] | None:
        """This mind's own HNSW index: {"name", "opclass", "definition"}, or None (a small
        mind, searched exactly)."""
        row = self._read(self._index_row)
        if row is None or not row[0]:
            return None
        definition = str(row[1])
        opclass = "halfvec_cosine_ops" if "halfvec_cosine_ops" in definition else "vector_cosine_ops"
        return {"name": self._index_name(), "opclass": opclass, "definition": definition}

    def drop_vector_index(self) -> None:
        """Drop this mind's HNSW index (`CONCURRENTLY`: the table is every mind's) and keep it
        off until `build_vector_index()` (a bulk load: drop, load, build once)."""
        self.set_meta(AUTO_INDEX_KEY, "off")
        with self._conn(tx=False) as conn:
            conn.execute(lay.drop_mind_index(self.mind_id))
        self._indexed = False

    def _rebuild_statements(self, dim: int, m: int, ef_construction: int) -> list[Any]:
        """`build_vector_index()`: this mind's partial index, built `CONCURRENTLY` beside the
        old one (reads and writes of every mind go on), then swapped in; the automatic switch
        is turned back on."""
        if self.get_meta(AUTO_INDEX_KEY) == "off":
            self.set_meta(AUTO_INDEX_KEY, "on")
        build = self._index_name(build=True)
        mid = self.mind_id
        return [
            lay.drop_mind_index(mid, suffix="_build"),
            lay.create_mind_index(mid, dim, m=m, ef_construction=ef_construction, name=build),
            lay.drop_mind_index(mid),
            lay.rename_mind_index(mid),
        ]

    def _index_built(self) -> None:
        self._indexed = True

    def _maintain_index(self) -> None:
        """After a commit that changed the mind's vector count: build or drop its own index
        when it crossed the threshold (`mind_index_action`)."""
        dim = self._pinned_dim()
        if dim is None or dim > MAX_HALFVEC_DIM:
            return
        cap = self.exact_search_max
        has = self._read(lambda c: bool((r := self._index_row(c)) and r[0]))
        upto = cap // 2 if has else cap + 1
        n = self._read(lambda c: c.execute(self._q(sql.VECTOR_COUNT_UPTO), (upto,)).fetchone())
        action = mind_index_action(int(n[0]), has, cap)
        if action is None or self.get_meta(AUTO_INDEX_KEY) == "off":
            self._indexed = has
            return
        if action == "build":
            self.build_vector_index()
        else:
            with self._conn(tx=False) as conn:
                conn.execute(lay.drop_mind_index(self.mind_id))
            self._indexed = False
            self._large = False

    def _insert_rows(self, run: Run, memories: Any, vecs: np.ndarray | None) -> None:
        super()._insert_rows(run, memories, vecs)
        if vecs is not None and not self._indexed:
            run.on_commit(self._maintain_index)

    def _rows_deleted(self, run: Run, pks: list[int]) -> None:
        super()._rows_deleted(run, pks)
        if self._indexed:
            run.on_commit(self._maintain_index)

    # -- vector search over the mind's own index ----------------------------------------------
    def _use_index(self, dim: int, exact: bool | None) -> bool:
        if exact or dim > MAX_HALFVEC_DIM:
            return False
        if exact is False or self._indexed:
            return True
        now = time.monotonic()
        if now - self._index_seen_at > INDEX_RECHECK_S:  # another process may have built it
            self._indexed = self._read(lambda c: bool((r := self._index_row(c)) and r[0]))
            self._index_seen_at = now
        return self._indexed

    def _index_walk(
        self, dim: int, where: psql.Composable
    ) -> tuple[psql.Composable, psql.Composable]:
        """The mind's own partial index: its literal predicate (the planner matches a partial
        index only on a constant) and its expression, the column cast to the mind's dimension."""
        order = psql.SQL(lay.MIND_INDEX_ORDER.format(typ=lay.index_type(dim), dim=int(dim)))
        mine = psql.Composed([where, psql.SQL(lay.MIND_PREDICATE.format(mind_id=self.mind_id))])
        return mine, order


def list_minds(conn: psycopg.Connection) -> list[str]:
    """The minds in the layout's directory on `conn`'s database (none before the layout)."""
    if not conn.execute(lay.LAYOUT_EXISTS).fetchone()[0]:
        return []
    return [str(r[0]) for r in conn.execute(lay.LIST_MINDS)]


__all__ = ["MIGRATIONS", "SharedPostgresStore", "list_minds"]
