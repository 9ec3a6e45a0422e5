"""The scale backend: minds as schemas on a shared PostgreSQL server with pgvector.

Needs the `postgres` extra (psycopg 3 with its pool, and pgvector). See docs/postgres.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .shared_store import SharedPostgresStore
from .store import PostgresStore, schema_name

if TYPE_CHECKING:
    from ...config import Config


def store_class(config: Config) -> type[PostgresStore]:
    """The store of the configured layout: one schema per mind (`PostgresStore`), or one table
    set keyed by mind (`postgres_layout = "shared"`: `SharedPostgresStore`)."""
    return SharedPostgresStore if config.postgres_layout == "shared" else PostgresStore


__all__ = ["PostgresStore", "SharedPostgresStore", "schema_name", "store_class"]
