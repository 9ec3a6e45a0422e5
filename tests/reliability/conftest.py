"""Fixtures of the reliability suite (crash, concurrency, fuzz, security)."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> random.Random:
    """A seeded RNG (SALIENCE_RELIABILITY_SEED overrides the seed; printed on failure)."""
    seed = int(os.environ.get("SALIENCE_RELIABILITY_SEED", "20260301"))
    request.node.user_properties.append(("seed", seed))
    return random.Random(seed)
