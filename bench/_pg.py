"""PostgreSQL for the benchmarks: a given DSN, or an embedded server (tests/pg_server.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from pydantic import SecretStr

from salience.config import Config


@contextmanager
def with_postgres(
    cfg: Config, backends: Sequence[str], dsn: str | None, **settings: str
) -> Iterator[Config]:
    """`cfg` with a PostgreSQL DSN when "postgres" is among `backends`: `dsn`, else a throwaway
    embedded server (`settings` are its postgresql.conf values) stopped on exit."""
    if "postgres" not in backends:
        yield cfg
        return
    server = None
    if dsn is None:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        from pg_server import start_pg

        server = start_pg(settings=settings) if settings else start_pg()
        dsn = server.dsn
    try:
        yield cfg.model_copy(update={"dsn": SecretStr(dsn)})
    finally:
        if server is not None:
            server.stop()
