"""Fixtures of the ingestion tests."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from ingest_helpers import ScriptedBrain, open_mind

from salience.clock import FrozenClock
from salience.config import Config
from salience.mind import Mind


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(datetime(2026, 3, 1, 12, 0, tzinfo=UTC))


@pytest.fixture
def brain() -> ScriptedBrain:
    return ScriptedBrain()


@pytest.fixture
def mind(config: Config, clock: FrozenClock, brain: ScriptedBrain) -> Iterator[Mind]:
    m = open_mind(config, clock, brain)
    yield m
    m.close()


@pytest.fixture
def heuristic_mind(config: Config, clock: FrozenClock) -> Iterator[Mind]:
    """A mind whose brain is the config's default (the heuristic engine)."""
    m = open_mind(config, clock)
    yield m
    m.close()
