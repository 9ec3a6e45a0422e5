"""SQL fragments for a `MemoryFilter` and small helpers for parameter lists (SQLite)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ...models import MemoryFilter
from ..relational.dialect import SQLITE
from ..relational.filters import filter_clause as shared_filter_clause
from . import sql

MAX_VARS = 900  # stay below SQLite's host-parameter limit


def filter_clause(flt: MemoryFilter | None) -> tuple[str, list[Any]]:
    """(" AND …" SQL over alias `m`, params) for a `MemoryFilter`; "" when nothing to filter."""
    return shared_filter_clause(flt, SQLITE, _fragment, _id_range)


def _fragment(name: str) -> str:
    return getattr(sql, "F_" + name)


def _id_range(prefix: str) -> list[str]:
    return [prefix, prefix + "\x7f"]  # [prefix, prefix + '\x7f'): ids are hex


def only_superseded_filter(flt: MemoryFilter) -> bool:
    """True when `flt` filters on nothing but (possibly) hiding superseded memories."""
    probe = MemoryFilter(include_superseded=flt.include_superseded)
    return filter_clause(flt) == filter_clause(probe)


def marks(values: Sequence[Any]) -> str:
    return ", ".join("?" for _ in values)


def chunks(values: list[Any], size: int = MAX_VARS) -> Iterator[list[Any]]:
    for i in range(0, len(values), size):
        yield values[i : i + size]
