"""Ranking functions on hand-computed cases."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from salience.models import Candidate, Importance, Memory
from salience.search import rank as R
from salience.search.config import PROFILES, Profile

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def mem(**kw: object) -> Memory:
    base: dict[str, object] = {"content": "x", "created_at": NOW}
    base.update(kw)
    return Memory(**base)  # type: ignore[arg-type]


def test_rrf_fuse_sums_reciprocal_ranks() -> None:
    fused = R.rrf_fuse(
        {
            "text": [Candidate("a", 1, 0.9), Candidate("b", 2, 0.5)],
            "vector": [Candidate("b", 1, 0.8)],
        },
        k=60,
    )
    assert [i for i, _, _ in fused] == ["b", "a"]
    assert fused[0][1] == pytest.approx(1 / 62 + 1 / 61)
    assert fused[1][1] == pytest.approx(1 / 61)
    assert fused[0][2]["vector_rank"] == 1.0 and fused[0][2]["text_score"] == 0.5


def test_rrf_fuse_weights() -> None:
    fused = R.rrf_fuse({"text": [Candidate("a", 1, 1.0)]}, k=10, weights={"text": 0.5})
    assert fused[0][1] == pytest.approx(0.5 / 11)


def test_temporal_signal_full_then_half_life() -> None:
    assert R.temporal_signal(NOW - timedelta(days=7), NOW) == 1.0
    assert R.temporal_signal(NOW - timedelta(days=37), NOW) == pytest.approx(0.5)
    assert R.temporal_signal(NOW - timedelta(days=67), NOW) == pytest.approx(0.25)
    assert R.temporal_signal(None, NOW) == 1.0


def test_popularity_contextual_importance() -> None:
    assert R.popularity_signal(0) == 1.0
    assert R.popularity_signal(9) == pytest.approx(1.1)
    assert R.popularity_signal(999) == pytest.approx(1.3)
    assert [R.contextual_signal(d) for d in (0, 1, 2, 3, 4, None)] == [1.0, 0.7, 0.4, 0.2, 0.0, 0.0]
    assert R.importance_signal("critical") == 2.0
    assert R.importance_signal(Importance.DEPRECATED) == 0.3


def test_relevance_balanced_by_hand() -> None:
    m = mem(created_at=NOW - timedelta(days=37), retrieval_count=9, importance="important")
    value, terms = R.relevance(m, PROFILES["balanced"], NOW, distance=1)
    # 0.4*0.5 + 0.2*1.1 + 0.2*0.7 + 0.2*1.5
    assert value == pytest.approx(0.2 + 0.22 + 0.14 + 0.3)
    assert terms["temporal"] == pytest.approx(0.5) and terms["relevance"] == value


def test_relevance_uses_last_retrieval_over_creation() -> None:
    m = mem(created_at=NOW - timedelta(days=400), last_retrieved_at=NOW - timedelta(days=1))
    assert R.relevance(m, PROFILES["recent"], NOW)[1]["temporal"] == 1.0


def test_empty_profile_is_plain_rrf() -> None:
    assert R.relevance(mem(), Profile(0, 0, 0, 0), NOW)[0] == 1.0


def test_rrf_rank_multiplies() -> None:
    memories = {"a": mem(id="a" * 32), "b": mem(id="b" * 32, importance="critical")}
    memories = {"a": memories["a"], "b": memories["b"]}
    fused = [("a", 0.03, {"rrf": 0.03}), ("b", 0.02, {"rrf": 0.02})]
    out = R.rrf_rank(fused, memories, PROFILES["important"], NOW)
    # a: 0.03 * (0.1 + 0.1 + 0 + 0.6*1.0) = 0.024; b: 0.02 * (0.1 + 0.1 + 1.2) = 0.028
    assert [i for i, _, _ in out] == ["b", "a"]
    assert out[0][1] == pytest.approx(0.028) and out[1][1] == pytest.approx(0.024)


def test_formula_by_hand() -> None:
    m = mem(
        salience=6.0,
        usefulness=0.8,
        confidence=0.5,
        retrieval_count=3,
        created_at=NOW - timedelta(days=30),
    )
    value, terms = R.formula_score(m, cosine=0.6, bm25=0.05, entity_match=True, now=NOW)
    expected = 0.4 / (1 + 0.5) - 0.6 - 0.12 - 0.5 * 0.03 - 0.015 - math.log(4) * 0.02 - 0.2
    assert value == pytest.approx(expected)
    assert terms["formula"] == value and terms["recency"] == pytest.approx(0.5)


def test_formula_missing_vector_is_orthogonal() -> None:
    value, terms = R.formula_score(mem(), cosine=None, bm25=0.0, entity_match=False, now=NOW)
    assert terms["cosine_distance"] == 1.0
    assert value == pytest.approx(1.0 - 0.5 - 0.075 - 0.03 - 0.015)


def test_formula_rank_lower_is_better_score_negated() -> None:
    a, b = mem(id="a" * 32), mem(id="b" * 32)
    out = R.formula_rank(
        {a.id: a, b.id: b}, cosine={a.id: 0.2, b.id: 0.9}, bm25={}, entity_ids=frozenset(), now=NOW
    )
    assert [i for i, _, _ in out] == [b.id, a.id]
    assert out[0][1] == pytest.approx(-out[0][2]["formula"])


def test_normalise_bm25_inverts_saturation_and_scales() -> None:
    # s = x/(1+x): x=4 -> 0.8, x=1 -> 0.5
    out = R.normalise_bm25({"a": 0.8, "b": 0.5, "c": 0.0}, scale=0.1)
    assert out == {"a": pytest.approx(0.1), "b": pytest.approx(0.025)}


def test_scale_score_demotes_both_signs() -> None:
    assert R.scale_score(1.0, 0.8) == pytest.approx(0.8)
    assert R.scale_score(-1.0, 0.8) == pytest.approx(-1.25)


def test_spread_context_adds_share_of_best_neighbour() -> None:
    ranked = [("a", 1.0, {}), ("b", 0.5, {}), ("c", 0.45, {})]
    out = R.spread_context(ranked, {"c": ["a", "zz"], "b": []}, weight=0.1)
    assert [i for i, _, _ in out] == ["a", "c", "b"]
    assert dict((i, s) for i, s, _ in out)["c"] == pytest.approx(0.55)
