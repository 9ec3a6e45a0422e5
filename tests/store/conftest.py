"""The store conformance suite also runs on SQLite with its HNSW vector index."""

from __future__ import annotations

import pytest

STORE_BACKENDS = ["sqlite", "sqlite-hnsw", "postgres"]


@pytest.fixture(params=STORE_BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "postgres":
        request.getfixturevalue("pg_dsn")
    return str(request.param)
