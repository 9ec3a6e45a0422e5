"""MemoryFilter → SQL for the PostgreSQL store, and the literal search terms of full text."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from psycopg import sql as psql

from ...models import MemoryFilter
from ..relational.dialect import POSTGRES
from ..relational.filters import filter_clause as shared_filter_clause
from . import sql


def literal_terms(terms: Sequence[str]) -> list[str]:
    """The terms worth searching: NULs removed, trimmed, at least one letter or digit, distinct.

    Each is bound as a parameter of `phraseto_tsquery`, which reads plain text: quotes,
    `&`, `|`, `!`, `<->`, `:*` and parentheses are never query syntax.
    """
    out: list[str] = []
    for t in terms:
        t = str(t).replace("\x00", "").strip()
        if t and any(ch.isalnum() for ch in t):
            out.append(t)
    return list(dict.fromkeys(out))


def filter_clause(
    flt: MemoryFilter | None,
    schema: psql.Composable,
    shape: Callable[[str], str] = str,
) -> tuple[psql.Composable, list[Any]]:
    """(" AND …" over alias `m`, params) for a `MemoryFilter` on the mind in `schema`; empty SQL
    when nothing to filter (the same semantics as SQLite's: relational/filters.py). `shape`:
    the store's layout's form of the text (`PostgresStore._text`)."""
    text, params = shared_filter_clause(flt, POSTGRES, _fragment, lambda prefix: [prefix])
    return psql.SQL(shape(text)).format(s=schema), params


def _fragment(name: str) -> str:
    return getattr(sql, "F_" + name)
