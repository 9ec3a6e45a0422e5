"""A mind on each backend for the integration suites (hash embedder), dropped afterwards."""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import pytest

from salience import Config, Mind


@pytest.fixture
def backend_mind(backend_config: Config, request: pytest.FixtureRequest) -> Iterator[Mind]:
    """A fresh mind on the parametrised backend (SQLite file, PostgreSQL schema)."""
    name = "it" + format(zlib.crc32(request.node.nodeid.encode()), "d")
    m = Mind.open(name, config=backend_config)
    try:
        yield m
    finally:
        drop = getattr(m.store, "drop_mind", None)
        if drop is not None:
            drop()
        m.close()
