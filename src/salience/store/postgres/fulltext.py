"""Full-text search of `PostgresStore`: Salience's BM25 (`store/bm25.py`) over a postings table.

The same postings as SQLite's (`memory_terms`: term, pk, tf, len; `memory_lengths`), written with
each memory, so both backends score a mind identically. A term's postings are one range of the
primary key. The `fts` tsvector column and its GIN index that ranked with `ts_rank` before are
still maintained (a generated column) but no longer read.

Statistics (rows, summed length, document frequencies) are cached for `STATS_TTL_S` and dropped
on this store's own writes, so another process's writes show within that time.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import psycopg
from psycopg import sql as psql

from ...models import Candidate, Memory, MemoryFilter
from .. import bm25
from . import sql

T = TypeVar("T")

STATS_TTL_S = 2.0  # another process's writes change the statistics within this time
TEXT_INDEX_KEY = "text_index"  # meta: the tokenizer that built the postings
TEXT_INDEX_VERSION = "bm25-1"
_BACKFILL_BATCH = 2_000
_DF_CACHE = 4096


class _Source:
    """`bm25.Source` over one connection, with the store's statistics cache."""

    def __init__(self, store: FullTextMixin, conn: psycopg.Connection) -> None:
        self._s = store
        self._c = conn

    def stats(self, terms: Sequence[str]) -> bm25.Stats:
        return self._s._text_stats(self._c, terms)

    def postings(self, term: str) -> Iterable[tuple[int, float, float]]:
        return self._c.execute(self._s._q(sql.TERM_POSTINGS), (term,)).fetchall()

    def postings_for(self, term: str, pks: Sequence[int]) -> Iterable[tuple[int, float, float]]:
        return self._c.execute(self._s._q(sql.TERM_POSTINGS_FOR), (term, list(pks))).fetchall()


class FullTextMixin:
    """`search_text`, `analyze` and the postings write path (see `salience.store.base.Store`)."""

    _schema: str
    _ident: psql.Identifier
    _bm25: bm25.Scorer
    _bm25_stats: tuple[float, int, float, dict[str, int]] | None  # (read at, rows, length, df)

    if TYPE_CHECKING:  # provided by PostgresStore

        def _q(self, template: str, **parts: psql.Composable) -> psql.Composed: ...
        def _filter(self, flt: MemoryFilter | None) -> tuple[Any, list[Any]]: ...
        def _read(self, fn: Callable[[psycopg.Connection], T]) -> T: ...
        def _tx(self) -> Any: ...

    _postings_ddl: tuple[str, ...] = sql.CREATE_POSTINGS  # the layout's own, if it has them

    def _init_text(self) -> None:
        self._bm25 = bm25.Scorer()
        self._bm25_stats = None

    def analyze(self) -> None:
        """Refresh the planner statistics of this mind's memories and postings (`ANALYZE`);
        autovacuum does it as a mind grows; run it after a bulk load to have them at once."""
        with self._tx() as conn:
            conn.execute(self._q(sql.ANALYZE_MEMORIES))

    def search_text(
        self,
        terms: Sequence[str],
        *,
        limit: int,
        flt: MemoryFilter | None = None,
        k1: float | None = None,
        b: float | None = None,
    ) -> list[Candidate]:
        """Full-text candidates for `terms` by Salience's BM25 (`store/bm25.py`): the same
        rows and scores as the SQLite backend."""
        where, params = self._filter(flt)
        ids_q = self._q(sql.TEXT_IDS, where=where)

        def run(c: psycopg.Connection) -> list[tuple[str, float]]:
            def allowed(pks: list[int]) -> dict[int, str]:
                return {int(pk): i for pk, i in c.execute(ids_q, (pks, *params))}

            return bm25.search(self._bm25, _Source(self, c), terms, limit, allowed, k1=k1, b=b)

        return [
            Candidate(id=i, rank=r, score=x) for r, (i, x) in enumerate(self._read(run), start=1)
        ]

    # -- statistics -------------------------------------------------------------------------------
    def _text_stats(self, c: psycopg.Connection, terms: Sequence[str]) -> bm25.Stats:
        now = time.monotonic()
        st = self._bm25_stats
        if st is None or now - st[0] > STATS_TTL_S or len(st[3]) > _DF_CACHE:
            rows = c.execute(self._q(sql.TEXT_STATS), (list(terms),)).fetchall()
            n, total = next((r[1], r[2]) for r in rows if r[0] is None)
            got = {str(r[0]): int(r[1]) for r in rows if r[0] is not None}
            st = self._bm25_stats = (now, int(n), float(total), {t: got.get(t, 0) for t in terms})
        df = st[3]
        missing = [t for t in terms if t not in df]
        if missing:
            got = dict(c.execute(self._q(sql.TERM_DFS), (missing,)).fetchall())
            for t in missing:
                df[t] = int(got.get(t, 0))
        return bm25.Stats(st[1], st[2], {t: df[t] for t in terms})

    # -- write path --------------------------------------------------------------------------------
    def _write_postings(
        self, conn: psycopg.Connection, memories: Sequence[Memory], *, updating: bool = False
    ) -> None:
        """Index the terms of `memories` (already written, inside the caller's transaction)."""
        if not memories:
            return
        rows = conn.execute(self._q(sql.TERMS_OF_IDS), ([m.id for m in memories],)).fetchall()
        self._index_rows(conn, rows, updating=updating)

    def _index_rows(
        self, conn: psycopg.Connection, rows: Sequence[tuple[Any, ...]], *, updating: bool
    ) -> None:
        if updating:
            pks = [int(r[0]) for r in rows]
            conn.execute(self._q(sql.DELETE_TERMS_OF), (pks,))
            conn.execute(self._q(sql.DELETE_LENGTHS_OF), (pks,))
        terms: list[tuple[str, int, float, float]] = []
        lengths: list[tuple[int, float]] = []
        for pk, content, summary, entities in rows:
            post, length = bm25.postings_rows(int(pk), content, summary or "", entities or [])
            terms += post
            lengths.append((int(pk), length))
        with conn.cursor() as cur:
            if terms:
                with cur.copy(self._q(sql.COPY_TERMS)) as copy:
                    copy.set_types(["text", "int8", "float8", "float8"])
                    for r in terms:
                        copy.write_row(r)
            with cur.copy(self._q(sql.COPY_LENGTHS)) as copy:
                copy.set_types(["int8", "float8"])
                for r in lengths:
                    copy.write_row(r)
        self._bm25_stats = None

    def _ensure_postings(self, conn: psycopg.Connection) -> None:
        """Create the postings tables if missing and (re)build them when another tokenizer
        built them or they do not cover every memory (written by an older Salience). Derived
        data like SQLite's: no migration. Runs under the mind's migration lock."""
        for stmt in self._postings_ddl:
            conn.execute(self._q(stmt))
        row = conn.execute(self._q(sql.GET_META), (TEXT_INDEX_KEY,)).fetchone()
        current = row is not None and row[0] == TEXT_INDEX_VERSION
        if current and conn.execute(self._q(sql.POSTINGS_COVER)).fetchone()[0]:
            return
        for stmt in sql.CLEAR_TERMS:
            conn.execute(self._q(stmt))
        last = 0
        while True:
            batch = conn.execute(self._q(sql.TERMS_SOURCE), (last, _BACKFILL_BATCH)).fetchall()
            if not batch:
                break
            self._index_rows(conn, batch, updating=False)
            last = int(batch[-1][0])
        conn.execute(self._q(sql.SET_META), (TEXT_INDEX_KEY, TEXT_INDEX_VERSION))
