"""One BM25 for every backend: Salience tokenizes, keeps postings and scores (issue 15).

The backends index what this module says a memory's terms are (a postings side table:
term, row, weighted term frequency, row length) and return postings; the score is computed
here, so a mind ranks the same on SQLite and PostgreSQL. Before, SQLite ranked with FTS5's
bm25() (k1 1.2, b 0.75, fixed) and PostgreSQL with ts_rank (no IDF at all).

- Terms: `words` of content (weight 1.0), summary and entities (0.5 each, as FTS5's column
  weights were), stemmed with the light suffix strip the ranking already matches terms with
  (`models.text.stem`); stop words are counted in a row's length but not indexed (no
  query term is a stop word).
- Score: Σ_terms idf · tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen)) with FTS5's IDF
  ln((N − n + 0.5)/(n + 0.5)), clamped to 1e-6 for a term in more than half of the rows (so a
  row matching only such terms carries no keyword evidence, as before). k1 0.9, b 0.4 by
  default: on LoCoMo conversations 0–4 they measured best (short passages; docs/benchmarks.md).
- Pruning (MaxScore): a term adds at most idf·(k1+1) to a row. Terms are taken rarest first;
  the most frequent terms whose summed bound stays below the k-th best score of the rarer
  ones' rows only add to those rows (their postings are read for those rows alone). The check
  runs after the fact; when it fails every posting is read, so results never change.
"""

from __future__ import annotations

import heapq
import math
import threading
import unicodedata
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..models.text import STOP_WORDS, stem, words

DEFAULT_K1 = 0.9
DEFAULT_B = 0.4
FIELD_WEIGHTS = (1.0, 0.5, 0.5)  # content, summary, entities (FTS5's column weights before)
MIN_TEXT_RELEVANCE = 1e-3  # a score below this: only non-informative terms matched
MIN_ROWS_FOR_IDF = 16  # below this many rows, "in more than half the rows" says nothing
PRUNE_MIN_POSTINGS = 5_000  # below this many postings in a query, read them all
_UB_SLACK = 1e-9


def fold(word: str) -> str:
    """`word` without diacritics ("são" → "sao"), as FTS5's remove_diacritics did."""
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def term_of(word: str) -> str | None:
    """The indexed form of one lower-cased word (None for a stop word)."""
    base = word.split("'")[0] if "'" in word else word
    if not base or base in STOP_WORDS or word in STOP_WORDS:
        return None
    return stem(fold(base))


def query_terms(terms: Iterable[str]) -> list[str]:
    """The distinct indexed terms of search terms (a multi-word term counts as its words)."""
    out: dict[str, None] = {}
    for t in terms:
        for w in words(str(t)):
            k = term_of(w)
            if k:
                out[k] = None
    return list(out)


def document(content: str, summary: str = "", entities: Sequence[str] = ()) -> tuple[
    dict[str, float], float
]:
    """(term → weighted frequency, length in tokens) of one memory's indexed text."""
    tf: dict[str, float] = {}
    length = 0
    for text, w in zip((content, summary or "", " ".join(entities)), FIELD_WEIGHTS, strict=True):
        for word in words(text):
            length += 1
            k = term_of(word)
            if k:
                tf[k] = tf.get(k, 0.0) + w
    return tf, float(length)


def postings_rows(pk: int, content: str, summary: str, entities: Sequence[str]) -> tuple[
    list[tuple[str, int, float, float]], float
]:
    """The postings rows (term, pk, tf, len) of one memory and its length."""
    tf, length = document(content, summary, entities)
    return [(t, pk, f, length) for t, f in tf.items()], length


def idf(rows: int, hits: int) -> float:
    """FTS5's IDF of a term found in `hits` of `rows` rows (1e-6 past half of the rows). The
    row count and a term's hits are read at different moments, so concurrent writers can make
    `hits` exceed `rows`: that term is then in (at least) every row."""
    rows = max(rows, hits)
    v = math.log((rows - hits + 0.5) / (hits + 0.5))
    return v if v > 0.0 else 1e-6


@dataclass(frozen=True, slots=True)
class Stats:
    """What scoring needs about the whole mind: rows, their summed length, and each query
    term's document frequency."""

    rows: int
    total_length: float
    df: Mapping[str, int]

    @property
    def avg_length(self) -> float:
        return self.total_length / self.rows if self.rows else 1.0


def term_weights(stats: Stats, terms: Sequence[str]) -> dict[str, float]:
    return {t: idf(stats.rows, stats.df.get(t, 0)) for t in terms if stats.df.get(t, 0) > 0}


def split_frequent(
    stats: Stats, terms: Sequence[str], k1: float, theta: float | None
) -> tuple[list[str], list[str], float]:
    """(terms read in full, rarest first; terms read only for rows the first ones found;
    the most a row matching only the second kind can score). Pure.

    Without a guess `theta` of the k-th score nothing is pruned unless the frequent terms
    carry no IDF (bound below `MIN_TEXT_RELEVANCE`)."""
    present = sorted((t for t in terms if stats.df.get(t, 0) > 0), key=lambda t: (stats.df[t], t))
    limit = MIN_TEXT_RELEVANCE if theta is None else max(theta, MIN_TEXT_RELEVANCE)
    cut, bound = len(present), 0.0
    while cut > 1:
        ub = idf(stats.rows, stats.df[present[cut - 1]]) * (k1 + 1.0) * (1 + _UB_SLACK)
        if bound + ub >= limit:
            break
        cut -= 1
        bound += ub
    return present[:cut], present[cut:], bound


def accumulate(
    scores: dict[int, float],
    postings: Iterable[tuple[int, float, float]],
    weight: float,
    avg_length: float,
    k1: float,
    b: float,
) -> None:
    """Add one term's contribution for each (pk, tf, len) posting to `scores`."""
    for pk, tf, length in postings:
        norm = k1 * (1.0 - b + b * length / avg_length)
        scores[pk] = scores.get(pk, 0.0) + weight * tf * (k1 + 1.0) / (tf + norm)


def ranked(scores: Mapping[int, float], n: int | None = None) -> list[tuple[int, float]]:
    """(pk, score) best first, ties by pk (the order every backend returns); the first `n`."""
    if n is not None and n < len(scores):
        return heapq.nsmallest(n, scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def kth(scores: Mapping[int, float], k: int) -> float:
    """The k-th best score (0 when fewer rows scored)."""
    if len(scores) < k:
        return 0.0
    return heapq.nlargest(k, scores.values())[-1]


class Source(Protocol):
    """What a backend gives the scorer: statistics and postings (pk, tf, len) of a term."""

    def stats(self, terms: Sequence[str]) -> Stats: ...

    def postings(self, term: str) -> Iterable[tuple[int, float, float]]: ...

    def postings_for(self, term: str, pks: Sequence[int]) -> Iterable[tuple[int, float, float]]:
        ...


THETA_HISTORY = 32  # k-th scores remembered per k
THETA_QUANTILE = 0.1  # guess the k-th score low: a wrong guess costs reading every posting
THETA_SAFETY = 0.9


class Scorer:
    """BM25 over a `Source` with MaxScore pruning; remembers recent k-th scores per k (the
    guess that decides which terms are frequent). One per store; thread-safe (the guesses
    are behind a lock; the reads are the caller's)."""

    def __init__(self) -> None:
        self._thetas: dict[int, deque[float]] = {}
        self._lock = threading.Lock()

    def score(
        self,
        src: Source,
        terms: Sequence[str],
        k: int,
        *,
        k1: float = DEFAULT_K1,
        b: float = DEFAULT_B,
        prune: bool = True,
    ) -> tuple[dict[int, float], bool]:
        """(pk → score of every row scored, whether pruning left rows unscored). With
        pruning, the k best rows are exact; rows matching only the frequent terms are
        missing (they cannot reach the top k)."""
        stats = src.stats(terms)
        weights = term_weights(stats, terms)
        avg = stats.avg_length
        full, frequent, bound = split_frequent(stats, terms, k1, self._guess(k) if prune else 0.0)
        if not prune or sum(stats.df[t] for t in frequent) < PRUNE_MIN_POSTINGS:
            full, frequent = [*full, *frequent], []
        scores: dict[int, float] = {}
        for t in full:
            accumulate(scores, src.postings(t), weights[t], avg, k1, b)
        if frequent:
            base = dict(scores)
            pks = list(scores)
            for t in frequent:
                accumulate(scores, src.postings_for(t, pks), weights[t], avg, k1, b)
            if len(scores) >= k and kth(scores, k) > bound:
                self._remember(k, kth(scores, k))
                return scores, True
            scores = base  # the guess was too high: read the frequent terms in full
            for t in frequent:
                accumulate(scores, src.postings(t), weights[t], avg, k1, b)
        if len(scores) >= k:
            self._remember(k, kth(scores, k))
        return scores, False

    def _guess(self, k: int) -> float | None:
        with self._lock:
            seen = sorted(self._thetas.get(k, ()))
        if not seen:
            return None
        return seen[int(THETA_QUANTILE * (len(seen) - 1))] * THETA_SAFETY

    def _remember(self, k: int, theta: float) -> None:
        if theta > MIN_TEXT_RELEVANCE:
            with self._lock:
                self._thetas.setdefault(k, deque(maxlen=THETA_HISTORY)).append(theta)


def squash(x: float) -> float:
    """The Store protocol's relevance in [0, 1): x / (1 + x) of the raw BM25."""
    x = max(x, 0.0)
    return x / (1.0 + x)


def search(
    scorer: Scorer,
    src: Source,
    terms: Sequence[str],
    limit: int,
    allowed: Callable[[list[int]], Mapping[int, str]],
    *,
    k1: float | None = None,
    b: float | None = None,
) -> list[tuple[str, float]]:
    """The `limit` best (memory id, relevance) for search `terms`, the store-protocol way:
    relevance = x / (1 + x) of the raw BM25, or 0 for a row that matched only terms found in
    more than half of a mind's rows (no keyword evidence). `allowed(pks)` maps the pks that
    pass the search's filter to their ids; rows are walked best first until `limit` pass
    (pruning is given up when the filter leaves too few)."""
    qt = query_terms(terms)
    if not qt or limit <= 0:
        return []
    k1 = DEFAULT_K1 if k1 is None else float(k1)
    b = DEFAULT_B if b is None else float(b)
    for prune in (True, False):
        scores, pruned = scorer.score(src, qt, limit, k1=k1, b=b, prune=prune)
        got = _walk(scores, limit, allowed)
        if len(got) >= limit or not pruned:
            break
    rows = src.stats(()).rows
    zero = rows >= MIN_ROWS_FOR_IDF and any(x <= MIN_TEXT_RELEVANCE for _, x in got)
    return [(i, 0.0 if zero and x <= MIN_TEXT_RELEVANCE else squash(x)) for i, x in got]


def _walk(
    scores: Mapping[int, float], limit: int, allowed: Callable[[list[int]], Mapping[int, str]]
) -> list[tuple[str, float]]:
    step = max(limit * 2 + 8, 64)
    order = ranked(scores, step)
    out: list[tuple[str, float]] = []
    start = 0
    while start < len(scores) and len(out) < limit:
        if start + step > len(order) and len(order) < len(scores):
            order = ranked(scores)
        part = order[start : start + step]
        ids = allowed([pk for pk, _ in part])
        out += [(ids[pk], x) for pk, x in part if pk in ids]
        start += step
    return out[:limit]
