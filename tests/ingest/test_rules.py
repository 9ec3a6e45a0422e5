"""The pure decisions of the ingestion paths."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from salience.ingest import rules
from salience.ingest.rules import Thresholds, should_save
from salience.llm.brain import Quality
from salience.models import Importance, Memory, MemoryType, Source


@pytest.mark.parametrize(
    ("salience", "grounded", "expected"),
    [(2, True, False), (3, True, True), (4, False, False), (5, False, True), (10, False, True)],
)
def test_conversation_thresholds(salience, grounded, expected):
    assert should_save("conversation", salience, tool_grounded=grounded) is expected


def test_conversation_ignores_the_models_own_save_opinion():
    assert should_save("conversation", 6, model_save=False)


@pytest.mark.parametrize("path", ["email", "calendar"])
def test_email_saves_from_one_unless_the_model_says_no(path):
    assert should_save(path, 1)
    assert not should_save(path, 9, model_save=False)


def test_save_memory_saves_everything_and_archive_keeps_facts_from_five():
    assert should_save("save_memory", 1)
    assert not should_save("archive", 4)
    assert should_save("archive", 5)


def test_thresholds_are_configurable():
    t = Thresholds(grounded=6, parametric=8)
    assert not should_save("conversation", 5, tool_grounded=True, thresholds=t)
    assert should_save("conversation", 8, thresholds=t)


def test_unknown_path_is_an_error():
    with pytest.raises(ValueError, match="unknown ingestion path"):
        should_save("fax", 5)


@pytest.mark.parametrize(
    ("s", "spec", "uniq", "expected"),
    [(5, 1.0, 1.0, 5.5), (5, 0.0, 0.0, 5.0), (9, 1.0, 0.0, 9.05), (10, 1.0, 1.0, 10.0)],
)
def test_quality_boost_matches_design_a_and_the_brain(s, spec, uniq, expected):
    assert rules.quality_boost(s, spec, uniq) == pytest.approx(expected)
    assert Quality(spec, uniq, 0.5).boost(s) == pytest.approx(expected)


def test_importance_bands_follow_the_rubric():
    assert [rules.importance_for(s) for s in (1, 3.9, 4, 6.9, 7, 8.9, 9, 10)] == [
        Importance.NORMAL, Importance.NORMAL, Importance.NORMAL, Importance.NORMAL,
        Importance.IMPORTANT, Importance.IMPORTANT, Importance.CRITICAL, Importance.CRITICAL,
    ]


def test_sources_and_types_per_path():
    assert rules.source_for("conversation", tool_grounded=True) is Source.TOOL_VERIFIED
    assert rules.source_for("conversation") is Source.AGENT_INFERRED
    assert rules.source_for("email") is Source.IMPORT
    assert rules.source_for("conversation", imported=True) is Source.IMPORT
    assert rules.source_for("archive") is Source.SYSTEM
    assert rules.memory_type_for("email", MemoryType.FACT) is MemoryType.EMAIL
    assert rules.memory_type_for("calendar", MemoryType.EVENT) is MemoryType.CALENDAR
    assert rules.memory_type_for("conversation", MemoryType.PREFERENCE) is MemoryType.PREFERENCE


def test_contradiction_candidates_top3_within_distance():
    scored = [("a", 0.95), ("b", 0.71), ("c", 0.69), ("d", 0.99)]
    assert rules.contradiction_candidates(scored) == ["a", "b"]
    assert rules.contradiction_candidates(scored, limit=4) == ["a", "b", "d"]
    assert rules.contradiction_candidates(scored, max_distance=0.5) == ["a", "b", "c"]


def test_paradigm_shift_needs_identity_or_preference_at_high_salience():
    pref = Memory("I love jazz", memory_type=MemoryType.PREFERENCE, salience=8)
    assert rules.is_paradigm_shift(pref)
    assert not rules.is_paradigm_shift(pref.copy(salience=6))
    assert not rules.is_paradigm_shift(Memory("Lunch at noon", salience=9))
    assert rules.is_paradigm_shift(Memory("I am vegan", tags=["identity"], salience=7))
    assert rules.is_paradigm_shift(pref.copy(salience=6), min_salience=5)


def test_retry_delay_doubles_and_caps():
    assert [rules.retry_delay(n, base_s=10).total_seconds() for n in (1, 2, 3)] == [10, 20, 40]
    assert rules.retry_delay(40, base_s=10, cap_s=100) == timedelta(seconds=100)


def test_retention_cutoff():
    now = datetime(2026, 3, 1, tzinfo=UTC)
    assert rules.retention_cutoff(now, 30) == now - timedelta(days=30)
