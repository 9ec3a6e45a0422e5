"""Full-text search of `SQLiteStore`: Salience's BM25 (`store/bm25.py`) over a postings table.

Each memory's terms (Salience's tokenizer) are rows of `memory_terms` (term, pk, tf, len) and
its length a row of `memory_lengths`, written with the memory (`write_postings`); a term's
postings are one range of the table's primary key. The FTS5 table that ranked with bm25()
before is still kept up to date by its triggers but no longer read.

Statistics (rows, summed length, document frequencies) are cached until any connection
commits (`PRAGMA data_version`) or this one writes (`total_changes`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager

from .. import bm25
from . import readonly, sql
from .filters import chunks, marks

#: meta key recording which tokenizer built the postings; another value rebuilds them on open
TEXT_INDEX_KEY = "text_index"
TEXT_INDEX_VERSION = "bm25-1"
FTS_TOKEN_KEY = "fts_index_token"  # textindex.TOKEN_KEY: the saved tantivy index's name
_BACKFILL_BATCH = 2_000


class Postings:
    """`bm25.Source` over one connection (callers hold the store's lock)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self._version: tuple[int, int] | None = None
        self._totals: tuple[int, float] = (0, 0.0)
        self._df: dict[str, int] = {}

    def version(self) -> tuple[int, int]:
        """What the cached statistics are keyed on: (data_version, this connection's
        total_changes)."""
        return (int(self._db.execute(sql.DATA_VERSION).fetchone()[0]), self._db.total_changes)

    def unchanged_by(self, before: tuple[int, int], after: tuple[int, int]) -> None:
        """This connection wrote between `before` and `after` without touching any text
        (retrieval counters): statistics cached at `before` still hold at `after`."""
        if self._version == before:
            self._version = after

    def _fresh(self) -> None:
        v = self.version()
        if v != self._version:
            self._version = v
            n, total = self._db.execute(sql.TEXT_TOTALS).fetchone()
            self._totals = (int(n), float(total))
            self._df.clear()

    def rows(self) -> int:
        """Rows in the mind's text index (every memory)."""
        self._fresh()
        return self._totals[0]

    def stats(self, terms: Sequence[str]) -> bm25.Stats:
        self._fresh()
        if len(self._df) > 4096:
            self._df.clear()
        for t in terms:
            if t not in self._df:
                self._df[t] = int(self._db.execute(sql.TERM_DF, (t,)).fetchone()[0])
        return bm25.Stats(self._totals[0], self._totals[1], {t: self._df[t] for t in terms})

    def postings(self, term: str) -> Iterable[tuple[int, float, float]]:
        return self._db.execute(sql.TERM_POSTINGS, (term,))

    def postings_for(self, term: str, pks: Sequence[int]) -> Iterable[tuple[int, float, float]]:
        for part in chunks(list(pks)):
            q = sql.TERM_POSTINGS_FOR.format(marks=marks(part))
            yield from self._db.execute(q, (term, *part))


def write_postings(
    db: sqlite3.Connection, pk: int, content: str, summary: str, entities: Sequence[str],
    *, updating: bool = False,
) -> None:
    """Index one memory's terms and length (inside the caller's transaction)."""
    if updating:
        db.execute(sql.DELETE_TERMS, (pk,))
    rows, length = bm25.postings_rows(pk, content, summary, entities)
    if rows:
        db.executemany(sql.INSERT_TERMS, rows)
    db.execute(sql.UPSERT_LENGTH, (pk, length))


def ensure_postings(
    tx: Callable[[], AbstractContextManager[sqlite3.Connection]], db: sqlite3.Connection
) -> None:
    """Create the postings tables if missing and (re)build them when they were built by
    another tokenizer or do not cover every memory (a mind written by an older Salience).

    The postings are derived data, like the HNSW files: no migration, so the migrations list
    (and `schema_version`) does not change; a rebuild reads every memory once."""
    with tx():
        for stmt in sql.CREATE_POSTINGS:
            db.execute(stmt)
        if db.execute(sql.HAS_TEXT_LOG).fetchone() is None:
            try:
                for stmt in sql.CREATE_TEXT_LOG:
                    db.execute(stmt)
            except sqlite3.OperationalError as e:
                if not readonly.is_read_only_error(e):
                    raise  # a read-only mind of an older Salience: no log, no text index
        row = db.execute(sql.GET_META, (TEXT_INDEX_KEY,)).fetchone()
        current = row is not None and row[0] == TEXT_INDEX_VERSION
        if current and db.execute(sql.POSTINGS_COVER).fetchone()[0]:
            return
        rebuild_postings(db)
        db.execute(sql.SET_META, (TEXT_INDEX_KEY, TEXT_INDEX_VERSION))
        # every row changed: no saved tantivy index (textindex.py) matches any more
        db.execute(sql.CLEAR_TEXT_LOG)
        db.execute(sql.SET_META, (FTS_TOKEN_KEY, ""))


def rebuild_postings(db: sqlite3.Connection) -> int:
    """Re-index every memory (inside the caller's transaction); the rows indexed."""
    for stmt in sql.CLEAR_TERMS:
        db.execute(stmt)
    last, done = 0, 0
    while True:
        batch = db.execute(sql.TERMS_SOURCE, (last, _BACKFILL_BATCH)).fetchall()
        if not batch:
            return done
        for pk, content, summary, entities in batch:
            ents = json.loads(entities) if entities else []
            write_postings(db, int(pk), content or "", summary or "", ents)
        last, done = int(batch[-1][0]), done + len(batch)
