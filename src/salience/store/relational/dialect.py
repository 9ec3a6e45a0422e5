"""The few atoms in which the SQLite and PostgreSQL statements and values differ.

Statement text (rendered once per backend by `statements.py`):

| atom | SQLite | PostgreSQL |
|---|---|---|
| `?` (a bound value) | `?` | `%s` |
| `t(name)` (a table) | `name` | `{s}.name` (the mind's schema, filled in by the store) |
| `col(name)` (a memory column read over alias `m`) | `m.name` | `m.name`, the retrieval counters with the side table's pending values |
| `any(expr, typ)` (a list value) | `expr IN ({marks})` (a `?` per value) | `expr = ANY(%s::typ[])` |
| `typed(typ)` (a value whose NULL test needs a type) | `?` | `%s::typ` |
| `for_update` | (BEGIN IMMEDIATE already serialises writers) | ` FOR UPDATE` |
| `returning_id` | (the cursor's `lastrowid`) | ` RETURNING id` |
| `insert_ignore(table, rest)` | `INSERT OR IGNORE …` | `INSERT … ON CONFLICT DO NOTHING` |
| `offset_all` (skip n, keep the rest) | `LIMIT -1 OFFSET ?` | `OFFSET %s` |
| `true` | `1 = 1` | `true` |

Values (the codecs):

| codec | SQLite | PostgreSQL |
|---|---|---|
| `ts` (a timestamp) | ISO-8601 UTC text (`clock.format_ts`) | an aware datetime |
| `obj` (a JSON object column) | JSON text | `Jsonb` |
| `array` (a list of text) | JSON text | `text[]` |
| `flag` (a boolean) | 0 / 1 | bool |

Lists of values (`chunks`, `bind`): SQLite binds one `?` per value and allows 32,766 of them
per statement, so lists are cut into chunks of at most `max_params` values (divided by the
number of times the statement repeats the list); PostgreSQL binds a list as one array value,
cut into chunks of `max_params` values so no single array grows without bound.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...clock import ensure_utc, format_ts


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _pg_jsonb(value: Any) -> Any:
    from psycopg.types.json import Jsonb  # only a PostgreSQL store encodes with it

    return Jsonb(value)


def _pg_ts(value: datetime | None) -> datetime | None:
    return ensure_utc(value) if value is not None else None


#: PostgreSQL: what a read sees of the retrieval counters a search wrote to the side table
#: `memory_retrievals` (pk, retrievals not yet folded in, latest retrieval, salience after them)
#: until maintenance folds them into the memory row (issue 21: the feedback write touches no
#: indexed row). `{r}` is the side table.
_PENDING = {
    "salience": "coalesce((SELECT r.salience FROM {r} r WHERE r.pk = m.pk), m.salience)",
    "retrieval_count": (
        "(m.retrieval_count + coalesce((SELECT r.retrievals FROM {r} r WHERE r.pk = m.pk), 0))"
    ),
    "last_retrieved_at": (
        "coalesce((SELECT r.last_retrieved_at FROM {r} r WHERE r.pk = m.pk), m.last_retrieved_at)"
    ),
}


@dataclass(frozen=True, slots=True)
class Dialect:
    """One backend's atoms (see the module docstring). Two instances: `SQLITE`, `POSTGRES`."""

    name: str
    mark: str
    prefix: str
    max_params: int
    ts: Callable[[datetime | None], Any]
    obj: Callable[[Any], Any]
    array: Callable[[Sequence[str]], Any]
    flag: Callable[[bool], Any]

    @property
    def postgres(self) -> bool:
        return self.name == "postgres"

    # -- statement text -------------------------------------------------------------------
    def t(self, table: str) -> str:
        """A table of the mind."""
        return self.prefix + table

    def col(self, name: str) -> str:
        """Memory column `name` of alias `m` as a read sees it: `m.name`, except PostgreSQL's
        retrieval counters, which add what the side table holds (`_PENDING`)."""
        if self.postgres and name in _PENDING:
            return _PENDING[name].format(r=self.t("memory_retrievals"))
        return f"m.{name}"

    def any(self, expr: str, typ: str | None = "text") -> str:
        """`expr` equals one of a list of values (bound by `bind`)."""
        if not self.postgres:
            return f"{expr} IN ({{marks}})"
        return f"{expr} = ANY(?::{typ}[])" if typ else f"{expr} = ANY(?)"

    def typed(self, typ: str) -> str:
        """A bound value PostgreSQL must know the type of (`? IS NULL OR …`)."""
        return f"?::{typ}" if self.postgres else "?"

    @property
    def for_update(self) -> str:
        return " FOR UPDATE" if self.postgres else ""

    @property
    def returning_id(self) -> str:
        return " RETURNING id" if self.postgres else ""

    def insert_ignore(self, table: str, rest: str) -> str:
        """`INSERT … <rest>` that skips a row whose key exists."""
        if self.postgres:
            return f"INSERT INTO {self.t(table)} {rest} ON CONFLICT DO NOTHING"
        return f"INSERT OR IGNORE INTO {table} {rest}"

    @property
    def offset_all(self) -> str:
        return "OFFSET ?" if self.postgres else "LIMIT -1 OFFSET ?"

    @property
    def true(self) -> str:
        return "true" if self.postgres else "1 = 1"

    def inserted_id(self, cursor: Any) -> int:
        """The id of the row an INSERT ending in `returning_id` wrote."""
        if self.postgres:
            return int(cursor.fetchone()[0])
        return int(cursor.lastrowid or 0)

    def render(self, text: str) -> str:
        """The backend's text of a statement written with `?` marks."""
        return text.replace("?", self.mark) if self.postgres else text

    # -- lists of values --------------------------------------------------------------------
    def chunks(self, values: Sequence[Any], uses: int = 1) -> Iterator[list[Any]]:
        """`values` (duplicates removed, order kept) in pieces one statement can take when it
        names the list `uses` times."""
        unique = list(dict.fromkeys(values))
        size = max(1, self.max_params // max(1, uses))
        for i in range(0, len(unique), size):
            yield unique[i : i + size]

    def bind(self, chunk: Sequence[Any]) -> tuple[Any, ...]:
        """The parameters one list slot takes (splat them: `(*d.bind(c), other)`)."""
        return (list(chunk),) if self.postgres else tuple(chunk)


SQLITE = Dialect(
    name="sqlite",
    mark="?",
    prefix="",
    max_params=900,  # well below SQLite's host-parameter limit (999 before 3.32)
    ts=format_ts,
    obj=_json_text,
    array=_json_text,
    flag=lambda b: int(bool(b)),
)

POSTGRES = Dialect(
    name="postgres",
    mark="%s",
    prefix="{s}.",
    max_params=50_000,
    ts=_pg_ts,
    obj=_pg_jsonb,
    array=list,
    flag=bool,
)
