"""The server's own database (API keys, the mind registry, tenants, embedding usage) on the
store machinery (issue 16 item 4): one statement list (`sql.py`) for SQLite and PostgreSQL,
the shared migration runner (`store.migrations.pending`, with its newer-version guard), and
two small backends behind one interface — statements run by name, writes in one transaction
that excludes every other writer (SQLite: `BEGIN IMMEDIATE`; PostgreSQL: an advisory lock).

Where it lives (`open_server_store`): with `backend=postgres` (or `server_db=postgres`) in the
`salience_server` schema of the minds' PostgreSQL database, so every HTTP replica over that
database shares keys, tenants and quota counters; otherwise `<home>/server.db`.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ...clock import SystemClock, format_ts
from ...errors import StoreError
from ..migrations import pending
from . import sql

if TYPE_CHECKING:
    from ...config import Config

SERVER_DB = "server.db"


@dataclass(frozen=True, slots=True)
class Result:
    """What one statement returned: its rows and how many rows it changed."""

    rows: list[tuple[Any, ...]]
    rowcount: int

    def one(self) -> tuple[Any, ...] | None:
        return self.rows[0] if self.rows else None


class Tx(Protocol):
    """One open write transaction: run statements of `sql.py` by name (`run_text`: a
    statement's text, for the migrations)."""

    def run(self, name: str, params: Sequence[Any] = ()) -> Result: ...

    def run_text(self, text: str, params: Sequence[Any] = ()) -> Result: ...


class ServerStore(Protocol):
    """The server database of one deployment."""

    backend: str
    where: str  # for messages: a path, or host:port/schema (never a password)

    def run(self, name: str, params: Sequence[Any] = ()) -> Result:
        """Run one statement (a read) outside any transaction."""
        ...

    def tx(self) -> AbstractContextManager[Tx]:
        """One write transaction, exclusive among writers (of every process)."""
        ...

    def close(self) -> None: ...


def open_server_store(config: Config) -> ServerStore:
    """The server database `config` selects: PostgreSQL (`salience_server` schema of
    `config.dsn`) when `config.server_db` is "postgres", or "auto" with the postgres backend;
    else SQLite at `<home>/server.db`. Migrated on open. Raises `StoreError`."""
    choice = config.server_db
    if choice == "postgres" or (choice == "auto" and config.backend == "postgres"):
        return PostgresServerStore(config)
    return SQLiteServerStore(Path(config.home) / SERVER_DB)


def _migrate(store: ServerStore) -> None:
    """Apply the server migrations not applied yet, one transaction each (with its record).
    Raises `SchemaVersionError` for a database a newer Salience migrated."""
    while True:
        with store.tx() as tx:
            tx.run("CREATE_MIGRATIONS")
            applied = [r[0] for r in tx.run("APPLIED_MIGRATIONS").rows]
            todo = pending(applied, sql.MIGRATIONS, where=f"server database {store.where}")
            if not todo:
                return
            for statement in todo[0].statements:
                tx.run_text(statement)
            tx.run("RECORD_MIGRATION", (todo[0].name, format_ts(SystemClock().now())))


class _SQLiteTx:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def run_text(self, text: str, params: Sequence[Any] = ()) -> Result:
        cur = self._db.execute(text.format(p=""), tuple(params))
        return Result(cur.fetchall(), cur.rowcount)

    def run(self, name: str, params: Sequence[Any] = ()) -> Result:
        return self.run_text(getattr(sql, name), params)


class SQLiteServerStore:
    """`<home>/server.db`. Thread-safe (one connection behind a lock)."""

    backend = "sqlite"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.where = str(self.path)
        self._lock = threading.RLock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                str(self.path), isolation_level=None, check_same_thread=False
            )
            self._db.execute(sql.BUSY_TIMEOUT.format(ms=10_000))
            for p in sql.PRAGMAS:
                self._db.execute(p)
            _migrate(self)
        except (OSError, sqlite3.Error) as e:
            raise StoreError(f"cannot open server database {self.path}: {e}") from e

    def run(self, name: str, params: Sequence[Any] = ()) -> Result:
        with self._lock:
            return _SQLiteTx(self._db).run(name, params)

    @contextmanager
    def tx(self) -> Iterator[_SQLiteTx]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield _SQLiteTx(self._db)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()


class _PostgresTx:
    def __init__(self, conn: Any) -> None:
        self._conn = conn

    def run_text(self, text: str, params: Sequence[Any] = ()) -> Result:
        cur = self._conn.execute(
            text.format(p=f"{sql.SCHEMA}.").replace("?", "%s"), tuple(params)
        )
        rows = cur.fetchall() if cur.description is not None else []
        return Result(rows, cur.rowcount)

    def run(self, name: str, params: Sequence[Any] = ()) -> Result:
        return self.run_text(getattr(sql, name), params)


class PostgresServerStore:
    """The `salience_server` schema of the minds' PostgreSQL database, on the shared pool:
    every server process over that database sees the same keys, tenants and counters."""

    backend = "postgres"

    def __init__(self, config: Config) -> None:
        import psycopg

        from ..postgres import pool
        from ..postgres.store import _dsn_text

        self._psycopg_error = psycopg.Error
        self._pool = pool
        self._server = pool.acquire(_dsn_text(config), pool_max=config.pg_pool_max)
        self.where = f"{self._server.endpoint}/{sql.SCHEMA}"
        try:
            with self._server.pool.connection() as conn, conn.transaction():
                conn.execute(sql.WRITE_LOCK)
                conn.execute(sql.CREATE_SCHEMA)
            _migrate(self)
        except BaseException:
            pool.release(self._server)
            raise

    def _fail(self, e: BaseException) -> StoreError:
        return StoreError(f"server database {self.where} failed: {self._server.reason(e)}")

    def run(self, name: str, params: Sequence[Any] = ()) -> Result:
        try:
            with self._server.pool.connection() as conn:
                return _PostgresTx(conn).run(name, params)
        except self._psycopg_error as e:
            raise self._fail(e) from None

    @contextmanager
    def tx(self) -> Iterator[_PostgresTx]:
        try:
            with self._server.pool.connection() as conn, conn.transaction():
                conn.execute(sql.WRITE_LOCK)
                yield _PostgresTx(conn)
        except self._psycopg_error as e:
            raise self._fail(e) from None

    def close(self) -> None:
        if self._server is not None:
            self._pool.release(self._server)
            self._server = None  # type: ignore[assignment]
