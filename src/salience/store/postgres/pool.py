"""One connection pool per PostgreSQL DSN per process, shared by every mind opened on it.

The first store opened on a DSN connects once directly (so that a wrong address or password
fails fast with a clear message), makes sure the `vector` extension (and, when the server has it,
`unaccent`) is installed, then opens a `psycopg_pool.ConnectionPool` whose connections have
pgvector's types registered. Stores count references; the pool closes with the last store.
Connections are checked before each use (`check_idle`: a poll of the socket, a round trip only
when the server said something), so a server restart costs the next caller one reconnect rather
than an error.
"""

from __future__ import annotations

import atexit
import logging
import os
import select
import threading
from dataclasses import dataclass, field
from typing import Any

import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql as psql
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool, PoolTimeout

from ...errors import StoreError
from . import sql

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 10  # per connection attempt, unless the DSN sets connect_timeout
POOL_TIMEOUT_S = 15.0  # how long a caller waits for a pooled connection
MIN_PGVECTOR = (0, 7)  # halfvec
ITERATIVE_SCAN_PGVECTOR = (0, 8)


@dataclass(eq=False)
class Server:
    """A shared pool and what was learnt about the server when it was opened."""

    key: tuple[int, str]
    pool: ConnectionPool
    endpoint: str  # "host:port", for messages (never the DSN: it may hold a password)
    secret: str | None
    vector_version: tuple[int, ...]
    unaccent: bool
    refs: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def iterative_scan(self) -> bool:
        """pgvector >= 0.8: HNSW scans can continue until enough rows pass a filter."""
        return self.vector_version >= ITERATIVE_SCAN_PGVECTOR

    def reason(self, error: BaseException) -> str:
        return reason(error, self.secret)


_LOCK = threading.Lock()
_SERVERS: dict[tuple[int, str], Server] = {}


def acquire(dsn: str, *, pool_max: int) -> Server:
    """The shared `Server` for `dsn` (created on first use). Pair with `release`.

    Raises `StoreError` naming host:port (never the password) if the server is unreachable,
    refuses the credentials or lacks pgvector.
    """
    key = (os.getpid(), dsn)  # a forked child must not reuse its parent's sockets
    with _LOCK:
        server = _SERVERS.get(key)
        if server is None:
            server = _open(key, dsn, pool_max)
            if not _SERVERS:
                atexit.register(_close_all)
            _SERVERS[key] = server
        server.refs += 1
        return server


def release(server: Server) -> None:
    """Drop one reference; the pool closes when the last store on it is closed."""
    with _LOCK:
        server.refs -= 1
        if server.refs > 0:
            return
        if _SERVERS.get(server.key) is server:
            del _SERVERS[server.key]
    server.pool.close()


def _close_all() -> None:
    with _LOCK:
        servers = list(_SERVERS.values())
        _SERVERS.clear()
    for s in servers:
        s.pool.close()


def endpoint_of(info: dict[str, Any]) -> str:
    host = str(info.get("host") or info.get("hostaddr") or "localhost")
    port = str(info.get("port") or "5432")
    return f"{host}:{port}"


def reason(error: BaseException, secret: str | None) -> str:
    """A one-line description of a driver error with the password (if any) masked."""
    text = " ".join(str(error).split()) or type(error).__name__
    if secret:
        text = text.replace(secret, "***")
    return text[:500]


def _open(key: tuple[int, str], dsn: str, pool_max: int) -> Server:
    try:
        info = conninfo_to_dict(dsn)
    except psycopg.Error:
        # the parser's message may quote parts of the DSN, password included
        raise StoreError("invalid PostgreSQL DSN (not shown: it may contain a password)") from None
    endpoint = endpoint_of(info)
    secret = str(info["password"]) if info.get("password") else None
    kwargs: dict[str, Any] = {"autocommit": True}
    if "connect_timeout" not in info:
        kwargs["connect_timeout"] = CONNECT_TIMEOUT_S
    try:
        with psycopg.connect(dsn, **kwargs) as conn:
            version, unaccent = _prepare_database(conn, endpoint)
    except psycopg.OperationalError as e:
        raise StoreError(
            f"cannot connect to PostgreSQL at {endpoint}: {reason(e, secret)}"
        ) from None
    except psycopg.Error as e:
        raise StoreError(
            f"PostgreSQL at {endpoint} cannot host Salience minds: {reason(e, secret)}"
        ) from None
    pool = ConnectionPool(
        dsn,
        min_size=1,
        max_size=max(1, pool_max),
        kwargs=kwargs,
        configure=register_vector,
        check=check_idle,
        timeout=POOL_TIMEOUT_S,
        name=f"salience@{endpoint}",
        open=False,
    )
    try:
        pool.open(wait=True, timeout=POOL_TIMEOUT_S)
    except PoolTimeout:
        pool.close()
        raise StoreError(
            f"cannot open a connection pool to PostgreSQL at {endpoint} "
            f"within {POOL_TIMEOUT_S:.0f}s"
        ) from None
    return Server(
        key=key,
        pool=pool,
        endpoint=endpoint,
        secret=secret,
        vector_version=version,
        unaccent=unaccent,
    )


def check_idle(conn: psycopg.Connection) -> None:
    """The pool's check of a connection it hands out, without a round trip when it can: an
    idle connection the server has said nothing on is taken as alive (a restart or a crash
    closes the backend's socket, which then reads as ready: EOF or a termination notice), and
    only then, or when the socket cannot be polled, is `ConnectionPool.check_connection`'s
    round trip run (raising for a dead connection, which the pool replaces). The round trip
    on every checkout was one per store call: 4 of a search's ~12 (issue 21)."""
    try:
        ready = bool(select.select([conn.pgconn.socket], [], [], 0)[0])
    except (OSError, ValueError, psycopg.Error):
        ready = True
    if ready or conn.closed or conn.broken:
        ConnectionPool.check_connection(conn)


def _prepare_database(conn: psycopg.Connection, endpoint: str) -> tuple[tuple[int, ...], bool]:
    """Install `vector` (required) and `unaccent` (optional) if missing; return
    (pgvector version, unaccent installed)."""
    installed = dict(conn.execute(sql.INSTALLED_EXTENSIONS).fetchall())
    if "vector" not in installed or "unaccent" not in installed:
        available = {r[0] for r in conn.execute(sql.AVAILABLE_EXTENSIONS)}
        if "vector" not in installed:
            if "vector" not in available:
                raise StoreError(
                    f"PostgreSQL at {endpoint} has no pgvector extension; install pgvector "
                    "(>= 0.7) on the server (see docs/postgres.md)"
                )
            if not _create_extension(conn, sql.CREATE_EXTENSION_VECTOR):
                raise StoreError(
                    f"the pgvector extension is not enabled in this database on {endpoint} and "
                    "this role may not enable it; ask an administrator to run "
                    "CREATE EXTENSION vector (see docs/postgres.md)"
                )
        if (
            "unaccent" not in installed
            and "unaccent" in available
            and not _create_extension(conn, sql.CREATE_EXTENSION_UNACCENT)
        ):
            log.warning(
                "PostgreSQL at %s: cannot enable the unaccent extension; new minds will "
                "not fold diacritics in full-text search (run CREATE EXTENSION unaccent)",
                endpoint,
            )
        installed = dict(conn.execute(sql.INSTALLED_EXTENSIONS).fetchall())
    version = _version(installed["vector"])
    if version < MIN_PGVECTOR:
        raise StoreError(
            f"PostgreSQL at {endpoint} has pgvector {installed['vector']}; Salience needs >= 0.7 "
            "(ALTER EXTENSION vector UPDATE)"
        )
    return version, "unaccent" in installed


def _create_extension(conn: psycopg.Connection, statement: str) -> bool:
    """Create an extension under an advisory lock (concurrent CREATE EXTENSION IF NOT EXISTS
    can collide); False if this role lacks the privilege."""
    try:
        with conn.transaction():
            conn.execute(sql.ADVISORY_LOCK, ("salience:extensions",))
            conn.execute(psql.SQL(statement))
    except psycopg.errors.InsufficientPrivilege:
        return False
    return True


def _version(text: str) -> tuple[int, ...]:
    parts: list[int] = []
    for p in text.split("."):
        digits = "".join(ch for ch in p if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)
