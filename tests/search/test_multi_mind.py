"""Recall over several minds fused by rank (issue 14, item 6): RRF (K=60) across the minds'
ranked lists, every hit keeping its mind. What was seen: merging raw scores let the personal
mind's high-salience memories crowd the workspace's team decision out of the top 5."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from salience.clock import FrozenClock
from salience.config import Config
from salience.embed import E5Embedder
from salience.mind import Mind
from salience.models import Memory, SearchHit
from salience.search.multi import fuse_minds
from salience.search.rank import RRF_K

T0 = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
DECISION = "Team decision: onboarding option C ships next sprint."
PERSONAL = [  # what the user said about onboarding, all remembered as important
    "I'm onboarding two new hires on my team next week.",
    "My own onboarding at this company took three months.",
    "I want the onboarding checklist to include a buddy system.",
    "I find long onboarding documents exhausting to read.",
    "I promised Dana I would review her onboarding slides.",
    "My manager asked me to shorten the onboarding for contractors.",
    "I think onboarding should start before the first day.",
]
WORKSPACE = [
    DECISION,
    "The design team prefers option B for the sign-up flow.",
    "Sprint planning is on Monday at ten.",
    "The analytics dashboard shows fewer sign-ups in April.",
]


def hit(content: str, score: float, mind: str) -> SearchHit:
    return SearchHit(memory=Memory(content=content), score=score, mind=mind)


# -- the pure fusion ------------------------------------------------------------------------------
def test_fusion_ignores_the_scale_of_each_minds_scores() -> None:
    personal = [hit(f"p{i}", 100.0 - i, "me") for i in range(5)]
    workspace = [hit(f"w{i}", 0.01 - i / 1000, "team") for i in range(5)]
    out = fuse_minds([personal, workspace], limit=4)
    assert [(h.memory.content, h.mind) for h in out] == [
        ("p0", "me"), ("w0", "team"), ("p1", "me"), ("w1", "team")
    ]
    assert out[0].score == pytest.approx(1 / (RRF_K + 1))
    assert out[0].explanation["mind_rank"] == 1.0
    assert out[0].explanation["mind_score"] == 100.0


def test_a_memory_in_two_minds_counts_once_with_both_ranks() -> None:
    personal = [hit("a", 0.9, "me"), hit("shared", 0.8, "me")]
    workspace = [hit("shared", 0.7, "team"), hit("b", 0.6, "team")]
    out = fuse_minds([personal, workspace], limit=10)
    assert [h.memory.content for h in out] == ["shared", "a", "b"]
    assert out[0].mind == "me"  # the first mind holding it
    assert out[0].score == pytest.approx(1 / (RRF_K + 2) + 1 / (RRF_K + 1))


def test_fusion_of_one_mind_keeps_its_order() -> None:
    hits = [hit(c, s, "me") for c, s in (("x", 0.2), ("y", 0.5), ("z", 0.1))]
    assert [h.memory.content for h in fuse_minds([hits], limit=2)] == ["x", "y"]


def test_empty_lists() -> None:
    assert fuse_minds([[], []], limit=5) == []


# -- two real minds ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def e5() -> E5Embedder:
    embedder = E5Embedder(threads=2, batch_size=16)
    embedder.load()
    return embedder


@pytest.fixture(params=["relevance", "formula", "rrf-important", "rrf-balanced"])
def minds(
    tmp_path: Path, e5: E5Embedder, request: pytest.FixtureRequest
) -> Iterator[tuple[Mind, Mind]]:
    config = Config(home=tmp_path / "home", embedder="hash", search_preset=request.param)
    clock = FrozenClock(T0)
    with (
        Mind.open("personal", config=config, embedder=e5, clock=clock) as me,
        Mind.open("workspace", config=config, embedder=e5, clock=clock) as team,
    ):
        me.add_many(
            {"content": c, "salience": 9.5, "importance": "important", "confidence": 0.9,
             "occurred_at": T0 - timedelta(days=i)}
            for i, c in enumerate(PERSONAL)
        )
        team.add_many(
            {"content": c, "salience": 4.0, "occurred_at": T0 - timedelta(days=2)}
            for c in WORKSPACE
        )
        yield me, team


@pytest.mark.slow
def test_workspace_decision_is_in_the_top_five(minds: tuple[Mind, Mind]) -> None:
    me, team = minds
    query = "What did the team pick for onboarding?"
    hits = me.recall(query, others=[team], limit=5)
    assert len(hits) == 5
    assert DECISION in [h.memory.content for h in hits]
    by_content = {h.memory.content: h.mind for h in hits}
    assert by_content[DECISION] == "workspace"
    assert {h.mind for h in hits} == {"personal", "workspace"}
    assert all(by_content[c] == "personal" for c in PERSONAL if c in by_content)
    # each mind on its own ranks its best memory first; the fusion keeps both near the top
    assert team.search(query, limit=1, feedback=False)[0].memory.content == DECISION
    assert {h.mind for h in hits[:2]} == {"personal", "workspace"}
