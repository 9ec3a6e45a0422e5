"""Full-text search of `PostgresStore`: frequent terms rank rows but do not choose them.

`ts_rank` has to be computed for every row that matches any OR-ed term, and a term found in a
large share of the mind (a name, a common word that is no stop word) makes that most of the
table: the GIN scan, the heap fetch of each row's tsvector and the rank all grow with it. Such
a term also carries little evidence of relevance (an IDF near zero), so rows matching only it
are poor candidates. The rule is the common-terms query of Lucene: a term estimated in at
least `frequent_term_rows` rows is *frequent*; rows must match a rarer term of the query, and
frequent terms only add to their `ts_rank` (scores keep their meaning: `ts_rank` over every
term). When every term is frequent, rows must match all of them. When that leaves fewer than
`limit` rows, the list is topped up from the plain query (any term), so it is never shorter
than before — each step is one statement, tried in that order.

Document frequencies come from what ANALYZE (or autovacuum) keeps for the `fts` column:
`pg_stats.most_common_elems` are the ~1,000 most common lexemes (statistics target × 10) with
the fraction of rows holding each; a lexeme absent from that list is rarer than all of them,
and the frequent lexemes are exactly the ones listed. Rows = `pg_class.reltuples`. A mind
never analysed has neither, and searches it with the plain query. The statistics are re-read
every `STATS_TTL_S` seconds and after `analyze()`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import psycopg
from psycopg import sql as psql

from ...models import Candidate, MemoryFilter
from . import sql
from .filters import filter_clause, literal_terms

T = TypeVar("T")

FREQUENT_TERM_ROWS = 1_000  # a term in at least this many rows (estimated) is frequent
STATS_TTL_S = 60.0  # re-read pg_stats this often (autovacuum's default naptime)
_LEXEME_CACHE = 4096  # terms whose lexemes are remembered (the text-search config is fixed)


@dataclass(frozen=True, slots=True)
class TermPlan:
    """`rare` terms choose rows; `frequent` ones (estimated in many rows) only rank them."""

    rare: list[str]
    frequent: list[str]


def plan_terms(
    terms: Sequence[str],
    lexemes: Mapping[str, Sequence[str]],
    freqs: Mapping[str, float],
    rows: float,
    frequent_rows: float,
) -> TermPlan:
    """Split `terms` by estimated document frequency. Pure.

    `lexemes[t]` are the lexemes of term t (none: only stop words, so t matches nothing and is
    left out); `freqs` the fraction of rows holding each common lexeme (absent: rarer than any
    listed); `rows` the rows in the mind. A phrase is at most as frequent as its rarest word,
    so that word's estimate is the phrase's (an upper bound).
    """
    rare: list[str] = []
    frequent: list[str] = []
    for t in terms:
        lx = lexemes.get(t) or ()
        if not lx:
            continue
        est = min(freqs.get(x, 0.0) for x in lx) * rows
        (frequent if est >= frequent_rows else rare).append(t)
    return TermPlan(rare, frequent)


class FullTextMixin:
    """`search_text` and `analyze` (see `salience.store.base.Store`)."""

    _schema: str
    _cfg: psql.Literal
    frequent_term_rows: float
    _fts_stats: tuple[float, float, dict[str, float]] | None  # (read at, rows, lexeme → freq)
    _lexemes: dict[str, tuple[str, ...]]

    if TYPE_CHECKING:  # provided by PostgresStore

        def _q(self, template: str, **parts: psql.Composable) -> psql.Composed: ...
        def _read(self, fn: Callable[[psycopg.Connection], T]) -> T: ...
        def _tx(self) -> Any: ...

    def analyze(self) -> None:
        """Refresh the planner statistics of this mind's memories (`ANALYZE`), which full-text
        search reads to find frequent terms. Autovacuum does it as a mind grows; run it after a
        bulk load to have them at once."""
        with self._tx() as conn:
            conn.execute(self._q(sql.ANALYZE_MEMORIES))
        self._fts_stats = None

    def search_text(
        self, terms: Sequence[str], *, limit: int, flt: MemoryFilter | None = None
    ) -> list[Candidate]:
        """Full-text candidates for literal `terms`, OR-joined (each term a phrase of its words,
        English-stemmed and, where `unaccent` is installed, with diacritics folded). `score` is
        x / (1 + x) of `ts_rank` over every term (content weighted 1.0, summary and entities
        0.5). Rows matching a rare term come first when the query has frequent ones (module
        docstring)."""
        words = literal_terms(terms)
        if not words or limit <= 0:
            return []
        where, params = filter_clause(flt)
        rank_q = self._tsquery(len(words), sql.TSQUERY_OR)

        def run(c: psycopg.Connection) -> list[tuple[str, float]]:
            steps = self._match_steps(c, words)
            got: list[tuple[str, float]] = []
            seen: set[str] = set()
            for match_words, op in steps:
                q = self._q(
                    sql.TEXT_SEARCH,
                    tsquery=rank_q,
                    match=self._tsquery(len(match_words), op),
                    where=where,
                )
                for mid, score in c.execute(q, (*words, *match_words, *params, limit)):
                    if mid not in seen and len(got) < limit:
                        seen.add(mid)
                        got.append((mid, float(score)))
                if len(got) >= limit:
                    break
            return got

        return [
            Candidate(id=mid, rank=i, score=_squash(score))
            for i, (mid, score) in enumerate(self._read(run), start=1)
        ]

    # -- planning -------------------------------------------------------------------------------
    def _tsquery(self, n: int, op: str) -> psql.Composable:
        term = psql.SQL(sql.TSQUERY_TERM).format(cfg=self._cfg)
        return psql.SQL(op).join([term] * n)

    def _match_steps(self, c: psycopg.Connection, words: list[str]) -> list[tuple[list[str], str]]:
        """The match queries to try in order, as (terms, operator); the last is always the
        plain OR of every term."""
        plain = [(words, sql.TSQUERY_OR)]
        rows, freqs = self._stats(c)
        if rows < self.frequent_term_rows or not freqs:
            return plain
        p = plan_terms(words, self._lexemes_of(c, words), freqs, rows, self.frequent_term_rows)
        if not p.frequent:
            return plain
        steps: list[tuple[list[str], str]] = []
        if p.rare:
            steps.append((p.rare, sql.TSQUERY_OR))
        if len(p.frequent) > 1:
            steps.append((p.frequent, sql.TSQUERY_AND))
        return steps + plain

    def _stats(self, c: psycopg.Connection) -> tuple[float, dict[str, float]]:
        """(rows, lexeme → fraction of rows) from ANALYZE, re-read every STATS_TTL_S."""
        now = time.monotonic()
        st = self._fts_stats
        if st is None or now - st[0] > STATS_TTL_S:
            row = c.execute(sql.FTS_STATS, (self._schema,)).fetchone()
            rows, elems, fr = (row[0], row[1], row[2]) if row else (0.0, None, None)
            # the frequencies list ends with min, max and null fraction: zip stops before them
            freqs = dict(zip(elems or (), fr or (), strict=False))
            st = self._fts_stats = (now, max(float(rows or 0.0), 0.0), freqs)
        return st[1], st[2]

    def _lexemes_of(self, c: psycopg.Connection, words: list[str]) -> dict[str, tuple[str, ...]]:
        missing = [w for w in words if w not in self._lexemes]
        if missing:
            if len(self._lexemes) > _LEXEME_CACHE:
                self._lexemes.clear()
            for w, lx in c.execute(self._q(sql.TEXT_LEXEMES), (missing,)):
                self._lexemes[w] = tuple(lx or ())
        return {w: self._lexemes.get(w, ()) for w in words}


def _squash(x: float) -> float:
    x = max(x, 0.0)
    return x / (1.0 + x)
