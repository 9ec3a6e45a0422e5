"""Candidate gathering through the Store protocol, stage by stage under a deadline.

Each query (the user's, then its variations) contributes up to three ranked lists: full-text
(stop words stripped, OR-joined, literal), vector (cosine) and entity exact-match (query n-grams
matched against the memories' entities). Lists keep their per-source ranks and raw scores;
ranking happens later, in `salience.search.rank`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..models import Candidate, MemoryFilter, normalize_entity
from .query import query_terms, words

if TYPE_CHECKING:
    import numpy as np

    from ..store.base import Store

EmbedQueries = Callable[[Sequence[str]], "np.ndarray"]
MAX_ENTITY_NGRAM = 4


class Deadline:
    """A time budget measured on a monotonic clock (injectable for tests)."""

    def __init__(
        self, budget_s: float | None, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self._monotonic = monotonic
        self._end = None if budget_s is None else monotonic() + max(budget_s, 0.0)

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None for no budget."""
        return None if self._end is None else max(self._end - self._monotonic(), 0.0)

    def expired(self) -> bool:
        return self._end is not None and self._monotonic() >= self._end


@dataclass(slots=True)
class QuerySpec:
    """One query of a search: its key suffix ("" for the user's query), the text matched by
    full-text and entity search, the text embedded for the vector side, and its depth."""

    key: str
    text: str
    vector_text: str
    pool: int


@dataclass(slots=True)
class Gathered:
    """Ranked candidate lists by source key ("text", "vector", "entity", "text~1", ...)."""

    lists: dict[str, list[Candidate]] = field(default_factory=dict)
    vectors: dict[str, np.ndarray] = field(default_factory=dict)  # query key -> query vector
    skipped: list[str] = field(default_factory=list)  # stages cut by the deadline
    errors: dict[str, str] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def put(self, key: str, cands: list[Candidate]) -> None:
        with self._lock:
            self.lists[key] = cands

    def snapshot(self) -> Gathered:
        """A consistent copy (the worker may still be writing after a timeout)."""
        with self._lock:
            return Gathered(
                dict(self.lists), dict(self.vectors), list(self.skipped), dict(self.errors)
            )


MAX_ENTITY_GRAMS = 1_000  # keys tried per query (bounds SQL parameters; issue 17)


def entity_ngrams(text: str, max_n: int = MAX_ENTITY_NGRAM) -> list[str]:
    """Word n-grams (1..max_n) of `text`, lower-cased: the keys tried against known entities.

    Single stop words are left out (an entity called "the" would match every query)."""
    from .query import STOP_WORDS

    toks = words(text)
    out: dict[str, None] = {}
    for n in range(1, max_n + 1):
        for i in range(len(toks) - n + 1):
            gram = toks[i : i + n]
            if n == 1 and gram[0] in STOP_WORDS:
                continue
            out[" ".join(gram)] = None
            if len(out) >= MAX_ENTITY_GRAMS:  # a huge query: one SQL variable per gram
                return list(out)
    return list(out)


#: an entity named by more than this share of a mind's memories (and by more than
#: `COMMON_ENTITY_MIN` of them) tells no memory apart: a speaker named in every turn, the
#: user's own name in a personal mind. Like a full-text term without IDF, it is not matched.
COMMON_ENTITY_SHARE = 0.2
COMMON_ENTITY_MIN = 20


def selective_entities(
    keys: Sequence[str],
    frequencies: Mapping[str, int],
    total: int,
    *,
    share: float = COMMON_ENTITY_SHARE,
    min_count: int = COMMON_ENTITY_MIN,
) -> list[str]:
    """The keys of `keys` that name few enough of the mind's `total` memories to tell them
    apart (see `COMMON_ENTITY_SHARE`); keys no memory names are dropped too."""
    limit = max(min_count, share * total)
    out = []
    for k in keys:
        n = frequencies.get(normalize_entity(k) or "", 0)
        if 0 < n <= limit:
            out.append(k)
    return out


def informative_entities(store: Store, keys: Sequence[str]) -> list[str]:
    """`selective_entities` of `keys` in `store` (one lookup; the memory count only when some
    key is frequent)."""
    if not keys:
        return []
    freqs = store.entity_frequencies(keys)
    total = store.count() if any(n > COMMON_ENTITY_MIN for n in freqs.values()) else 0
    return selective_entities(keys, freqs, total)


def source_key(source: str, query_key: str) -> str:
    return source if not query_key else f"{source}~{query_key}"


def gather(
    store: Store,
    queries: Sequence[QuerySpec],
    *,
    sources: Sequence[str],
    embed: EmbedQueries | None,
    flt: MemoryFilter | None = None,
    deadline: Deadline | None = None,
    out: Gathered | None = None,
    bm25: tuple[float, float] | None = None,
) -> Gathered:
    """Run the candidate stages in order (cheap first), skipping the rest once `deadline`
    expires. Stages: for each query, text then entity; then one batched embedding of every
    query's vector text, then a vector search per query. `bm25` = (k1, b) of the full text
    (the store's defaults when None)."""
    k1, b = bm25 if bm25 is not None else (None, None)
    out = out if out is not None else Gathered()
    deadline = deadline or Deadline(None)

    def stage(name: str, run: Callable[[], list[Candidate]]) -> None:
        if deadline.expired():
            out.skipped.append(name)
            return
        out.put(name, run())

    for q in queries:
        if "text" in sources:
            terms = query_terms(q.text)
            stage(
                source_key("text", q.key),
                lambda t=terms, p=q.pool: informative(
                    store.search_text(t, limit=p, flt=flt, k1=k1, b=b)
                ),
            )
        if "entity" in sources:
            grams = entity_ngrams(q.text)
            stage(
                source_key("entity", q.key),
                lambda g=grams, p=q.pool: store.search_entities(
                    informative_entities(store, g), limit=p, flt=flt
                ),
            )
    if "vector" in sources and embed is not None and store.embedding_info() is not None:
        if deadline.expired():
            out.skipped.extend(source_key("vector", q.key) for q in queries)
            return out
        vecs = embed([q.vector_text for q in queries])
        with out._lock:
            for q, v in zip(queries, vecs, strict=True):
                out.vectors[q.key] = v
        for q, v in zip(queries, vecs, strict=True):
            stage(
                source_key("vector", q.key),
                lambda v=v, p=q.pool: store.search_vector(v, limit=p, flt=flt),
            )
    return out


def gather_within(
    executor: object,
    store: Store,
    queries: Sequence[QuerySpec],
    *,
    sources: Sequence[str],
    embed: EmbedQueries | None,
    flt: MemoryFilter | None,
    deadline: Deadline,
    bm25: tuple[float, float] | None = None,
) -> Gathered:
    """`gather` on a worker thread, returning what it has when the deadline passes.

    A stage that is still running at the deadline (a slow embedder, a locked database) is
    abandoned: its result is discarded and the remaining stages are skipped.
    """
    from concurrent.futures import ThreadPoolExecutor
    from concurrent.futures import TimeoutError as FutureTimeout

    assert isinstance(executor, ThreadPoolExecutor)
    box = Gathered()
    fut = executor.submit(
        gather, store, queries, sources=sources, embed=embed, flt=flt, deadline=deadline,
        out=box, bm25=bm25,
    )
    try:
        fut.result(timeout=deadline.remaining())
    except FutureTimeout:
        snap = box.snapshot()
        snap.skipped.append("deadline")
        return snap
    return box.snapshot()


def informative(cands: list[Candidate]) -> list[Candidate]:
    """Full-text candidates that carry keyword evidence: a store reports score 0 for a row that
    matched only terms found in most of the mind (no IDF), which would otherwise enter the
    fusion as an arbitrary "keyword match". Ranks are renumbered."""
    kept = [c for c in cands if c.score > 0]
    if len(kept) == len(cands):
        return cands
    return [Candidate(id=c.id, rank=i, score=c.score) for i, c in enumerate(kept, start=1)]
