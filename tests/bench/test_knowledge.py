"""The knowledge-update suite (bench/scenarios/knowledge.py) at its quick size, against issue
14's targets: the current value first in >= 90% of the questions, the stale value above the
current one in <= 5%, no stale statement lost (superseded, never deleted), no compatible pair
superseded. Real SQLite minds, the packaged MiniLM embedder, a frozen clock, the agent path
(remember_turn, daily heartbeats, search, prefetch)."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest
from rich.console import Console

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `bench` lives at the repo root, beside src/
    sys.path.insert(0, str(ROOT))

from bench.scenarios import SUITES, knowledge  # noqa: E402
from bench.scenarios._knowledge_cases import COMPATIBLE, UPDATES  # noqa: E402


def test_the_cases_cover_what_the_issue_asks_for() -> None:
    assert len(UPDATES) >= 150 and len(COMPATIBLE) >= 50
    topics = Counter(u.topic for u in UPDATES)
    assert {"move", "job", "manager", "relationship", "children", "pets", "diet", "schedule",
            "number", "budget", "deadline", "decision", "preference"} <= set(topics)
    assert min(topics.values()) >= 8
    assert len({u.new for u in UPDATES}) == len(UPDATES)  # no case twice
    for u in UPDATES:  # the markers tell the two statements apart
        assert u.old_value.lower() not in u.new.lower(), u
        assert u.new_value.lower() not in u.old.lower(), u
    assert "knowledge" in SUITES


@pytest.mark.slow
def test_knowledge_updates_win_and_compatible_facts_stay() -> None:
    r = knowledge.run(console=Console(quiet=True), embedder="minilm", size="quick")
    d = r.details
    why = f"{r.line()}\n{d}\n" + "\n".join(r.failures[:40])
    assert d["updates"] >= 40 and d["compatible_pairs"] >= 15
    assert r.score >= knowledge.TARGET, why
    assert d["stale_above_share"] <= knowledge.STALE_ABOVE_TARGET, why
    assert d["stale_lost"] == 0, why
    assert d["false_supersessions"] == 0, why
    assert d["chatter_superseded"] == 0, why
