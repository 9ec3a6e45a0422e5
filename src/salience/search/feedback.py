"""Feedback loops (design A): retrieval tracking and usefulness, as pure arithmetic plus one
write path through the Store protocol each.

- Every retrieval: retrieval_count += 1, last_retrieved_at = now,
  salience += 0.3 · (1 − salience / 10) (dampened: the boost shrinks towards the ceiling of 10).
- Usefulness: u ← u + 0.1 · (target − u) with target 1.0 (useful) or 0.0 (not useful): a step
  of 10 % of the remaining distance, so the score approaches but never reaches either end and
  one verdict never swings it by more than 0.1.

A retrieval is one atomic statement of the store (`Store.record_retrievals`: the database
computes the boost from the stored salience), so a search rewrites no text or index entry and
concurrent searches lose no bump. On a read-only mind (file, media or PostgreSQL standby) the
search still answers and records nothing; one warning per mind says so.

Retrievals are not recorded inside `feedback_suppressed()`: the HTTP server runs every call
of a read-scope API key that way, so reading never changes what decay and pruning decide
(issue 17: 30 searches with a read key had lifted a memory's salience 2.0 -> 6.79).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from typing import TYPE_CHECKING

from ..errors import ReadOnlyMind
from ..models import SALIENCE_MAX, Memory
from .query import query_terms

if TYPE_CHECKING:
    from ..store.base import Store

RETRIEVAL_BOOST = 0.3
USEFULNESS_STEP = 0.1
OVERLAP_THRESHOLD = 0.3  # share of a memory's content words found in the response
OVERLAP_MIN_TERMS = 2


_SUPPRESSED: ContextVar[bool] = ContextVar("salience_feedback_suppressed", default=False)
_READ_ONLY_WARNED: set[tuple[str, str]] = set()  # (backend, mind) already warned about
log = logging.getLogger(__name__)


@contextmanager
def feedback_suppressed() -> Iterator[None]:
    """Within this block (this thread / task), searches record no retrievals."""
    token = _SUPPRESSED.set(True)
    try:
        yield
    finally:
        _SUPPRESSED.reset(token)


def boosted_salience(salience: float) -> float:
    """salience + 0.3 · (1 − salience/10), capped at 10."""
    return min(salience + RETRIEVAL_BOOST * (1.0 - salience / SALIENCE_MAX), SALIENCE_MAX)


def stepped_usefulness(usefulness: float, useful: bool) -> float:
    """usefulness + 0.1 · (target − usefulness), target 1.0 or 0.0."""
    target = 1.0 if useful else 0.0
    return min(max(usefulness + USEFULNESS_STEP * (target - usefulness), 0.0), 1.0)


def retrieved(memory: Memory, now: datetime) -> Memory:
    """The record after one retrieval at `now`."""
    return memory.copy(
        retrieval_count=memory.retrieval_count + 1,
        last_retrieved_at=now,
        salience=boosted_salience(memory.salience),
    )


def judged(memory: Memory, useful: bool) -> Memory:
    """The record after one usefulness verdict."""
    return memory.copy(usefulness=stepped_usefulness(memory.usefulness, useful))


def lexical_useful(response: str, memory_text: str) -> bool:
    """Offline usefulness verdict: at least 2 and 30 % of the memory's content words appear in
    the response (a memory the answer drew on leaves its words behind)."""
    mem = set(query_terms(memory_text))
    if not mem:
        return False
    shared = mem & set(query_terms(response))
    return len(shared) >= OVERLAP_MIN_TERMS and len(shared) / len(mem) >= OVERLAP_THRESHOLD


def record_retrievals(store: Store, ids: Sequence[str], now: datetime) -> int:
    """Apply one retrieval (`retrieved`'s arithmetic) to each memory of `ids` in one atomic
    store statement; unknown ids are skipped. Returns how many memories were bumped: 0 inside
    `feedback_suppressed()` and on a read-only mind (logged once per mind)."""
    if _SUPPRESSED.get() or not ids:
        return 0
    try:
        return store.record_retrievals(ids, now, boost=RETRIEVAL_BOOST)
    except ReadOnlyMind as e:
        key = (store.backend, store.mind)
        if key not in _READ_ONLY_WARNED:
            _READ_ONLY_WARNED.add(key)
            log.warning("mind %r is read-only: searches record no retrievals (%s)", store.mind, e)
        return 0


def record_usefulness(store: Store, ids: Sequence[str], useful: bool) -> list[Memory]:
    """Apply one usefulness verdict to each memory of `ids`; returns the new records."""
    records = [judged(m, useful) for m in store.get_many(list(dict.fromkeys(ids)))]
    if records:
        store.update(records)
    return records
