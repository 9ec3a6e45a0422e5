"""A `Mind` on each backend (hash embedder, frozen clock), shared by the suites that test the
facade's layers (tests/layers, tests/graph, tests/agent): their conftest.py imports `clock` and
`mind` from here."""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from salience import Config, FrozenClock, Mind

T0 = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(T0)


@pytest.fixture
def mind(
    backend_config: Config, clock: FrozenClock, request: pytest.FixtureRequest
) -> Iterator[Mind]:
    name = "L" + format(zlib.crc32(request.node.nodeid.encode()), "d")
    m = Mind.open(name, config=backend_config, clock=clock)
    try:
        yield m
    finally:
        drop = getattr(m.store, "drop_mind", None)
        if drop is not None:
            drop()
        m.close()
