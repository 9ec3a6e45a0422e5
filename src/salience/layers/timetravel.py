"""Time travel over memories: what the mind knew at a past time.

A memory is *visible as of* `t` when it was created at or before `t` and was not yet superseded
at `t` (`superseded_at`, stamped by the store's write path when `superseded_by` is first set).
So a memory superseded last week is visible as of two weeks ago, and one created yesterday is
not. Content is the current content: updates overwrite in place (there is no content history);
superseding — a new memory replacing an old one — is how facts change over time.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from ..clock import ensure_utc
from ..errors import InvalidInput
from ..models import MemoryFilter, SearchHit

if TYPE_CHECKING:
    from ..store.base import Store

    class Mind(Protocol):
        """What `search_as_of` uses of a mind (the `Mind` facade is one)."""

        @property
        def store(self) -> Store: ...

        def search(
            self, query: str, *, limit: int = 10, flt: MemoryFilter | None = None,
            feedback: bool = True,
        ) -> list[SearchHit]: ...

OVERFETCH = 4  # search this many times `limit` before dropping what was not visible yet


def as_of_filter(flt: MemoryFilter | None, as_of: datetime) -> MemoryFilter:
    """`flt` widened to superseded memories and narrowed to those created by `as_of`; the
    superseded-at-that-time check is `Store.visible_as_of` (see `search_as_of`)."""
    base = replace(flt) if flt is not None else MemoryFilter()
    until = as_of + timedelta(microseconds=1)  # `until` is exclusive; as_of is inclusive
    base.until = until if base.until is None else min(base.until, until)
    base.include_superseded = True
    return base


def search_as_of(
    mind: Mind,
    query: str,
    as_of: datetime,
    *,
    limit: int = 10,
    flt: MemoryFilter | None = None,
) -> list[SearchHit]:
    """`mind.search` restricted to what the mind held at `as_of` (see the module docstring).
    Retrieval feedback is not recorded for historical queries."""
    if not isinstance(as_of, datetime):
        raise InvalidInput("as_of must be a datetime")
    if limit <= 0:
        raise InvalidInput("limit must be positive")
    as_of = ensure_utc(as_of)
    hits = mind.search(query, limit=limit * OVERFETCH, flt=as_of_filter(flt, as_of), feedback=False)
    visible = mind.store.visible_as_of([h.memory.id for h in hits], as_of)
    return [h for h in hits if h.memory.id in visible][:limit]
