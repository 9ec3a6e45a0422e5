"""The scale backend: minds as schemas on a shared PostgreSQL server with pgvector.

Needs the `postgres` extra (psycopg 3 with its pool, and pgvector). See docs/postgres.md.
"""

from .store import PostgresStore, schema_name

__all__ = ["PostgresStore", "schema_name"]
