"""Full-text top-k over FTS5 that scores fewer rows, with the same results as scoring them all.

FTS5 ranks an OR query by computing bm25() for every row that matches any term, and at 100k
rows that per-row work is most of a search. Each term adds at most ``idf * (k1 + 1)`` to a
row's score, so once the k-th best score among rows that match the rarer terms is known to
beat the summed maximum of the frequent terms, no row that matches only frequent terms can
enter the top k (the MaxScore argument). The frequent terms are then scored only where they
co-occur with a rarer one: ``(rare) AND (frequent)``, which FTS5 evaluates by skipping through
the long doclists instead of walking them. The result is verified after the fact and the plain
query runs whenever the check fails, so ranking never changes; the guess of the k-th score
comes from this store's recent searches.

Terms found in more than half of the rows have no IDF in FTS5 (clamped to 1e-6); rows matching
only such terms score below `MIN_TEXT_RELEVANCE` and are reported with score 0 by the store,
so they are listed without scoring them at all.
"""

from __future__ import annotations

import math
import sqlite3
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from . import sql

BM25_K1 = 1.2  # FTS5's built-in bm25() constants
MIN_TEXT_RELEVANCE = 1e-3  # raw -bm25() below this means only non-informative terms matched
MIN_ROWS_TO_PRUNE = 2_000  # below this, every query is cheap: run the plain one
MIN_PRUNED_POSTINGS = 1_000  # pruning saves nothing unless the frequent terms match this many
THETA_HISTORY = 32  # k-th scores remembered per k
THETA_QUANTILE = 0.1  # guess the k-th score low: a wrong guess costs a second query
THETA_SAFETY = 0.9
_UB_SLACK = 1e-9  # rounding margin on the bound (the store and FTS5 count rows the same way)


def fts_phrases(terms: Sequence[str]) -> list[str]:
    """Each usable term as a literal FTS5 string (embedded quotes doubled), deduplicated.

    Terms with no word characters are dropped; operators such as AND, NEAR, *, - or ^ inside
    a quoted string are plain text.
    """
    out: list[str] = []
    for t in terms:
        t = str(t).replace("\x00", "").strip()
        if not t or not any(ch.isalnum() for ch in t):
            continue
        out.append('"' + t.replace('"', '""') + '"')
    return list(dict.fromkeys(out))


def idf(rows: int, hits: int) -> float:
    """FTS5's bm25() IDF of a phrase found in `hits` of `rows` rows."""
    v = math.log((rows - hits + 0.5) / (hits + 0.5))
    return v if v > 0.0 else 1e-6


def max_contribution(rows: int, hits: int) -> float:
    """The most one phrase can add to a row's -bm25(): its term-frequency factor is below k1+1
    whatever the column weights (non-negative) and the row's length."""
    return idf(rows, hits) * (BM25_K1 + 1.0) * (1.0 + _UB_SLACK) + _UB_SLACK


@dataclass(frozen=True, slots=True)
class Plan:
    """`rare` are scored everywhere; `frequent` only where a rare phrase also matches.
    `bound` is the most a row matching only frequent phrases could score."""

    rare: list[str]
    frequent: list[str]
    bound: float


def plan(phrases: Sequence[str], hits: Sequence[int], rows: int, guess: float | None) -> Plan:
    """Split phrases into rare and frequent: the most frequent ones whose summed maximum
    contribution stays below `guess` (a cautious guess of the k-th best score), or below
    `MIN_TEXT_RELEVANCE` without a guess. Pure; `frequent` is empty when pruning won't pay."""
    order = sorted(range(len(phrases)), key=lambda i: (hits[i], i))
    ubs = [max_contribution(rows, hits[i]) for i in order]
    limit = MIN_TEXT_RELEVANCE if guess is None else max(guess, MIN_TEXT_RELEVANCE)
    cut, bound = len(order), 0.0
    while cut > 0 and bound + ubs[cut - 1] < limit:
        cut -= 1
        bound += ubs[cut]
    frequent = order[cut:]
    # rows matching only no-IDF phrases are worth listing unscored even when few; otherwise
    # the frequent phrases must be long enough to be worth a second statement
    if not frequent or (
        bound > MIN_TEXT_RELEVANCE and sum(hits[i] for i in frequent) < MIN_PRUNED_POSTINGS
    ):
        return Plan(list(phrases), [], 0.0)
    return Plan([phrases[i] for i in order[:cut]], [phrases[i] for i in frequent], bound)


class TextIndex:
    """Per-connection helper for the FTS5 top-k: caches of the row count and of phrase
    document frequencies (valid until any connection commits), and the recent k-th scores.

    Callers hold the store's lock.
    """

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self._version: tuple[int, int] | None = None
        self._rows = 0
        self._hits: dict[str, int] = {}
        self._thetas: dict[int, deque[float]] = {}

    def _fresh(self) -> None:
        # data_version moves when another connection commits; total_changes when this one writes
        v = (int(self._db.execute(sql.DATA_VERSION).fetchone()[0]), self._db.total_changes)
        if v != self._version:
            self._version = v
            self._rows = int(self._db.execute(sql.COUNT_MEMORIES).fetchone()[0])
            self._hits.clear()

    def rows(self) -> int:
        """Rows in the mind (= rows in the FTS index, which triggers keep in step)."""
        self._fresh()
        return self._rows

    def hits(self, phrase: str) -> int:
        """Rows matching one phrase (FTS5's document frequency for its IDF)."""
        self._fresh()
        n = self._hits.get(phrase)
        if n is None:
            if len(self._hits) > 4096:
                self._hits.clear()
            n = self._hits[phrase] = int(self._db.execute(sql.TEXT_HITS, (phrase,)).fetchone()[0])
        return n

    def top(self, phrases: Sequence[str], k: int) -> list[tuple[int, float]]:
        """The k best (pk, -bm25) rows for the OR of `phrases`, best first (ties by pk):
        the same rows and scores as ranking every match."""
        expr = " OR ".join(phrases)
        rows = self.rows()
        if rows < MIN_ROWS_TO_PRUNE:
            return self._plain(expr, k)
        hits = [self.hits(p) for p in phrases]
        p = plan(phrases, hits, rows, self._guess(k))
        if not p.frequent:
            return self._plain(expr, k)
        if not p.rare:  # every phrase is in most rows: nothing would score above zero
            return self._unscored(expr, k, [])
        rare = " OR ".join(p.rare)
        both = f"({rare}) AND ({' OR '.join(p.frequent)})"
        top = [(int(a), float(b)) for a, b in self._db.execute(sql.TEXT_TOP_SPLIT, (rare, both, k))]
        if len(top) >= k and top[k - 1][1] > p.bound:
            self._remember(k, top[k - 1][1])
            return top
        if len(top) < k and p.bound <= MIN_TEXT_RELEVANCE:
            return self._unscored(f"({' OR '.join(p.frequent)}) NOT ({rare})", k, top)
        return self._plain(expr, k)

    def _plain(self, expr: str, k: int) -> list[tuple[int, float]]:
        top = [(int(a), float(b)) for a, b in self._db.execute(sql.TEXT_TOP, (expr, k))]
        if len(top) >= k:
            self._remember(k, top[k - 1][1])
        return top

    def _unscored(self, expr: str, k: int, top: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """`top`, then rows matching `expr` (all below MIN_TEXT_RELEVANCE), newest first."""
        more = self._db.execute(sql.TEXT_UNSCORED, (expr, k - len(top))).fetchall()
        return top + [(int(r[0]), 0.0) for r in more]

    def _guess(self, k: int) -> float | None:
        seen = self._thetas.get(k)
        if not seen:
            return None
        return sorted(seen)[int(THETA_QUANTILE * (len(seen) - 1))] * THETA_SAFETY

    def _remember(self, k: int, theta: float) -> None:
        if theta > MIN_TEXT_RELEVANCE:
            self._thetas.setdefault(k, deque(maxlen=THETA_HISTORY)).append(theta)
