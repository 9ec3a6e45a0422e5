"""The hooks the shared store logic runs on, and its list helpers.

The queue, layers, graph, maintenance and record methods in this package are written once.
A backend mixes them in and provides the named hooks below — the only places the engines
differ in behaviour (the statement text differs only by the dialect's atoms):

- `_write()` — a write transaction yielding a `Run` (SQLite: BEGIN IMMEDIATE under the
  connection lock; PostgreSQL: a pooled transaction);
- `_read_with(fn)` — `fn(run)` as one read (SQLite: under the lock; PostgreSQL: retried once on
  a fresh connection if the first one broke);
- `_serialize(run, scope)` — serialise writers of one mind for `scope` ("ingest", "layers")
  until the transaction ends (PostgreSQL: a transaction-scoped advisory lock; SQLite: nothing,
  BEGIN IMMEDIATE already serialises every writer);
- `_lock_rows(run, name, params)` — lock rows a read-modify-write will change (PostgreSQL:
  the `FOR UPDATE` statement `name`; SQLite: nothing, for the same reason);
- `_is_unique(error)` with `_integrity_errors` — which driver errors are constraint
  violations, and which of them a duplicate key;
- `_memory(row)` — the backend's memory-row decoder (`rows.memory_from_row` with its codecs);
- `_insert_rows` / `_update_rows` — the memory writes themselves (SQLite: one INSERT per row
  with its postings and side tables; PostgreSQL: binary COPY), returning the new row keys
  when the backend knows them;
- `_rows_inserted(run, pks, vectors)` — after-commit upkeep of what a process caches (SQLite:
  append the new vectors to the cached index once the transaction commits; PostgreSQL: none).

A `Run` executes a statement of the backend's `sql.py` by name: `run(name, params, n=..., **parts)`
where `n` is the length of the statement's list slot (SQLite needs one `?` per value) and
`parts` fills its other slots (`{where}`, `{order}`, `{q}`); `run.many` is `executemany`;
`run.savepoint()` is a nested transaction (PostgreSQL) or nothing (SQLite, where a failed
statement does not abort the transaction).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol, Self, TypeVar

from .dialect import Dialect

if TYPE_CHECKING:
    import numpy as np

    from ...models import Memory

T = TypeVar("T")


class Run(Protocol):
    """Statements by name inside one transaction or read (see the module docstring)."""

    conn: Any

    def __call__(
        self, name: str, params: Sequence[Any] = (), *, n: int | None = None, **parts: Any
    ) -> Any: ...

    def many(self, name: str, rows: Sequence[Sequence[Any]]) -> None: ...

    def savepoint(self) -> AbstractContextManager[Any]: ...

    def on_commit(self, fn: Callable[[], None]) -> None: ...


class AfterCommit:
    """The after-commit half of a `Run`: callbacks a backend runs once its transaction
    committed (`committed()`), dropped with a rollback."""

    __slots__ = ("_after",)

    def __init__(self) -> None:
        self._after: list[Callable[[], None]] = []

    def on_commit(self, fn: Callable[[], None]) -> None:
        self._after.append(fn)

    def committed(self) -> None:
        for fn in self._after:
            fn()


class RelationalCore:
    """The hooks (implemented by each backend) and helpers shared by the core mixins."""

    _dialect: Dialect
    _mind: str
    _integrity_errors: tuple[type[BaseException], ...]

    # -- lifecycle ---------------------------------------------------------------------------
    @property
    def mind(self) -> str:
        """The mind this store is bound to."""
        return self._mind

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- hooks ------------------------------------------------------------------------------
    def _write(self) -> AbstractContextManager[Run]:
        raise NotImplementedError

    def _read_with(self, fn: Callable[[Run], T]) -> T:
        raise NotImplementedError

    def _serialize(self, run: Run, scope: str) -> None:
        raise NotImplementedError

    def _lock_rows(self, run: Run, name: str, params: Sequence[Any]) -> None:
        raise NotImplementedError

    def _is_unique(self, error: BaseException) -> bool:
        raise NotImplementedError

    def _memory(self, row: Sequence[Any]) -> Memory:
        raise NotImplementedError

    def _insert_rows(
        self, run: Run, memories: Sequence[Memory], vecs: np.ndarray | None
    ) -> list[int] | None:
        raise NotImplementedError

    def _update_rows(self, run: Run, memories: Sequence[Memory], vecs: np.ndarray | None) -> Any:
        raise NotImplementedError

    def _rows_inserted(self, run: Run, pks: list[int] | None, vecs: np.ndarray | None) -> None:
        raise NotImplementedError

    # -- helpers ------------------------------------------------------------------------------
    def _all(self, name: str, params: Sequence[Any] = (), **parts: Any) -> list[Any]:
        """Every row of one read statement."""
        return self._read_with(lambda run: run(name, params, **parts).fetchall())

    def _first(self, name: str, params: Sequence[Any] = (), **parts: Any) -> Any:
        """The first row of one read statement, or None."""
        return self._read_with(lambda run: run(name, params, **parts).fetchone())

    def _all_in(
        self,
        name: str,
        values: Sequence[Any],
        *,
        before: Sequence[Any] = (),
        after: Sequence[Any] = (),
        uses: int = 1,
        run: Run | None = None,
        **parts: Any,
    ) -> list[Any]:
        """The rows of statement `name` for every value of `values` (its list slot, named
        `uses` times, between the `before` and `after` parameters), chunked so no statement
        exceeds the dialect's parameter budget. Duplicates are removed; empty in, empty out."""
        d = self._dialect

        def go(r: Run) -> list[Any]:
            out: list[Any] = []
            for chunk in d.chunks(values, uses):
                params = (*before, *(d.bind(chunk) * uses), *after)
                out.extend(r(name, params, n=len(chunk), **parts).fetchall())
            return out

        if not values:
            return []
        return go(run) if run is not None else self._read_with(go)
