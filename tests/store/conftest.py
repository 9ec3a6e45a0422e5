"""The store conformance suite also runs on SQLite with its HNSW vector index, and on
PostgreSQL's shared layout (one table set keyed by mind, issue 21)."""

from __future__ import annotations

import pytest

from salience.config import Config

STORE_BACKENDS = ["sqlite", "sqlite-hnsw", "postgres", "postgres-shared"]


@pytest.fixture(params=STORE_BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    if request.param.startswith("postgres"):
        request.getfixturevalue("pg_dsn")
    return str(request.param)


@pytest.fixture
def backend_config(backend_config: Config, backend: str, request: pytest.FixtureRequest) -> Config:
    """The parent's config; "postgres-shared": PostgreSQL with `postgres_layout = "shared"`."""
    if backend == "postgres-shared":
        from pydantic import SecretStr

        dsn = request.getfixturevalue("pg_dsn")
        return backend_config.model_copy(
            update={"backend": "postgres", "dsn": SecretStr(dsn), "postgres_layout": "shared"}
        )
    return backend_config
