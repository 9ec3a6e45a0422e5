"""Shared fixtures: a temporary data directory, backends for the store conformance suite."""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from salience.config import Config

os.environ.setdefault("HF_HUB_OFFLINE", "1")

BACKENDS = ["sqlite", "postgres"]


@pytest.fixture
def config(tmp_path: Path) -> Config:
    """A config whose data directory is a fresh temporary directory (never ~/.salience)."""
    return Config(home=tmp_path / "home", embedder="hash")


@pytest.fixture(scope="session")
def pg_server():
    """Real PostgreSQL 18 + pgvector: SALIENCE_TEST_PG_DSN, else a throwaway embedded server."""
    from pg_server import start_pg

    server = start_pg()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def pg_dsn(pg_server) -> str:
    """DSN of the session's PostgreSQL server."""
    return str(pg_server.dsn)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "postgres":
        request.getfixturevalue("pg_dsn")
    return str(request.param)


@pytest.fixture
def backend_config(backend: str, config: Config, request: pytest.FixtureRequest) -> Config:
    """`config` pointed at the parametrised backend ("sqlite-hnsw": SQLite as a large mind runs
    it, the HNSW vector index and the tantivy text index)."""
    if backend == "sqlite-hnsw":
        return config.model_copy(
            update={"sqlite_vector_index": "hnsw", "sqlite_text_index": "tantivy"}
        )
    if backend == "postgres":
        dsn = request.getfixturevalue("pg_dsn")
        return config.model_copy(update={"backend": "postgres", "dsn": SecretStr(dsn)})
    return config


@pytest.fixture
def make_store(backend_config: Config, request: pytest.FixtureRequest) -> Iterator[Callable]:
    """Factory: open the store of a mind (unique per test) on the parametrised backend."""
    from salience.store import open_store

    opened = []
    prefix = "t" + format(zlib.crc32(request.node.nodeid.encode()), "d")

    def factory(name: str = "m"):
        store = open_store(backend_config, f"{prefix}-{name}")
        opened.append(store)
        return store

    yield factory
    for s in opened:
        drop = getattr(s, "drop_mind", None)
        if drop is not None:
            drop()
        s.close()
