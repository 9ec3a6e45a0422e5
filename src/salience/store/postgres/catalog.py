"""The minds a PostgreSQL server holds (one schema per mind; its meta `mind` is the name)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import psycopg
from psycopg import sql as psql

from ...errors import StoreError
from . import pool, sql
from .store import MIND_KEY, _dsn_text

if TYPE_CHECKING:
    from ...config import Config


def list_minds(config: Config) -> list[str]:
    """Sorted names of the minds on the server of `config.dsn`. Raises `StoreError`."""
    server = pool.acquire(_dsn_text(config), pool_max=config.pg_pool_max)
    try:
        names = []
        with server.pool.connection() as conn:
            if config.postgres_layout == "shared":
                from .shared_store import list_minds as shared_minds

                return shared_minds(conn)
            for (schema,) in conn.execute(sql.MIND_SCHEMAS).fetchall():
                q = psql.SQL(sql.GET_META).format(s=psql.Identifier(schema))
                row = conn.execute(q, (MIND_KEY,)).fetchone()
                if row and row[0]:
                    names.append(str(row[0]))
        return sorted(names)
    except psycopg.Error as e:
        raise StoreError(f"PostgreSQL at {server.endpoint} failed: {server.reason(e)}") from None
    finally:
        pool.release(server)
