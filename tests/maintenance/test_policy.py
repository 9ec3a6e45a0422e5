"""Pure maintenance decisions: decay curves, regression, prune/compaction rules, triggers,
clustering — hand-computed values."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from salience.config import Config
from salience.maintenance.heartbeat import parse_interval
from salience.maintenance.policy import (
    Policy,
    compaction_reason,
    decay_factor,
    decayed_salience,
    pframes_to_drop,
    prune_reason,
    regressed_usefulness,
)
from salience.maintenance.triggers import cluster_vectors, cognitive_trigger, reflection_groups
from salience.models import Memory, MemoryType, Source

T0 = datetime(2026, 1, 1, tzinfo=UTC)
P = Policy()


def mem(**kw) -> Memory:
    kw.setdefault("created_at", T0)
    kw.setdefault("updated_at", kw["created_at"])
    return Memory(content=kw.pop("content", "x"), **kw)


def days(n: float) -> datetime:
    return T0 + timedelta(days=n)


def test_policy_from_config_has_the_design_defaults():
    assert Policy.from_config(Config()) == Policy()


def test_standard_decay_matches_the_formula():
    m = mem(salience=8.0, retrieval_count=1, last_retrieved_at=T0)
    # retrieved at T0: decay starts one day later
    assert decayed_salience(m, days(11), None, P) == pytest.approx(8 * 0.977**10)
    never = mem(salience=8.0)
    assert decayed_salience(never, days(10), None, P) == pytest.approx(8 * 0.977**10)


def test_accelerated_decay_after_14_days_for_never_retrieved():
    m = mem(salience=8.0)
    assert decayed_salience(m, days(20), None, P) == pytest.approx(8 * 0.977**14 * 0.954**6)
    assert decay_factor(days(15), days(20), T0, True, P) == pytest.approx(0.954**5)
    assert decay_factor(days(15), days(20), T0, False, P) == pytest.approx(0.977**5)


def test_decay_is_split_exactly_over_runs():
    m = mem(salience=9.0)
    once = decayed_salience(m, days(40), None, P)
    step = m
    prev = None
    for d in range(1, 41):
        step = step.copy(salience=decayed_salience(step, days(d), prev, P))
        prev = days(d)
    assert step.salience == pytest.approx(once)


def test_decay_floor_skip_and_idempotence():
    assert decayed_salience(mem(salience=1.2), days(200), None, P) == 1.0
    assert decayed_salience(mem(salience=1.0), days(200), None, P) == 1.0
    recent = mem(salience=6.0, retrieval_count=3, last_retrieved_at=days(9.5))
    assert decayed_salience(recent, days(10), days(5), P) == 6.0  # accessed in the last day
    assert decayed_salience(mem(salience=6.0), days(10), days(10), P) == 6.0  # same instant


def test_usefulness_regression_per_tick_after_30_days():
    m = mem(usefulness=0.1)
    assert regressed_usefulness(m, days(30), None, P) == pytest.approx(0.1)
    assert regressed_usefulness(m, days(31), None, P) == pytest.approx(0.5 - 0.4 * 0.95)
    assert regressed_usefulness(m, days(33), days(31), P) == pytest.approx(0.5 - 0.4 * 0.95**2)
    hi = mem(usefulness=0.9, retrieval_count=1, last_retrieved_at=days(10))
    assert regressed_usefulness(hi, days(41), None, P) == pytest.approx(0.5 + 0.4 * 0.95)


def test_prune_rules_and_exemptions():
    now = days(100)
    inferred = Source.AGENT_INFERRED
    stale = mem(salience=1.0, source=inferred)
    assert prune_reason(stale, 1.0, now, P) == "stale"
    assert prune_reason(stale, 1.0, days(89), P) is None  # not stale yet
    assert prune_reason(stale, 1.5, now, P) is None  # salience above 1
    used = mem(salience=1.0, retrieval_count=2, source=inferred)
    assert prune_reason(used, 1.0, now, P) is None  # retrieved and not superseded
    sup = mem(salience=9.0, superseded_by="a" * 32, updated_at=days(93), source=inferred)
    assert prune_reason(sup, 9.0, now, P) is None  # superseded memories are history
    design_a = Policy(prune_superseded=True)
    assert prune_reason(sup, 9.0, now, design_a) == "superseded"  # grace of 7 days passed
    assert prune_reason(sup, 9.0, days(99.9), design_a) is None
    for exempt in (
        mem(salience=1.0, pinned=True, source=inferred),
        mem(salience=1.0, memory_type=MemoryType.IDENTITY, source=inferred),
        mem(salience=1.0, memory_type=MemoryType.EPISODE, superseded_by="a" * 32),
        mem(salience=1.0, memory_type=MemoryType.REFLECTION, source=inferred),
        mem(salience=1.0, importance="critical", source=inferred),
        mem(salience=1.0, importance="important", source=inferred),
        mem(salience=1.0, usefulness=0.6, source=inferred),  # it answered something
        mem(salience=1.0),  # what the user stated is not pruned as stale
    ):
        assert prune_reason(exempt, 1.0, now, P) is None
        assert prune_reason(exempt, 1.0, now, design_a) is None
    loose = Policy(prune_pinned=True, exempt_types=frozenset())
    assert prune_reason(mem(salience=1.0, pinned=True, source=inferred), 1.0, now, loose) == "stale"


def test_a_critical_memory_never_retrieved_survives_and_decays_at_the_standard_rate():
    """Issue 13: "I'm allergic to penicillin." (critical, salience 10, never retrieved) was
    pruned on day 91."""
    allergy = mem(salience=10.0, importance="critical", content="I'm allergic to penicillin.")
    after = decayed_salience(allergy, days(91), None, P)
    assert after == pytest.approx(10 * 0.977**91)  # never the accelerated 0.954
    assert prune_reason(allergy, after, days(91), P) is None
    assert prune_reason(allergy, 1.0, days(400), P) is None


def test_compaction_rules():
    assert compaction_reason(mem(importance="temporary"), days(30), P) == "temporary"
    assert compaction_reason(mem(importance="temporary"), days(29), P) is None
    assert compaction_reason(mem(importance="deprecated"), days(90), P) == "deprecated"
    assert compaction_reason(mem(importance="deprecated"), days(89), P) is None
    assert compaction_reason(mem(importance="temporary", pinned=True), days(99), P) is None
    retrieved = mem(importance="temporary", retrieval_count=40, last_retrieved_at=days(59))
    assert compaction_reason(retrieved, days(60), P) is None  # a retrieved slide lives on
    assert compaction_reason(retrieved, days(89), P) == "temporary"


def test_pframes_to_drop_keeps_the_five_most_recent():
    patches = [mem(t=i + 2, frame_type="P") for i in range(9)]
    assert pframes_to_drop(patches, P) is None
    patches.append(mem(t=11, frame_type="P"))
    drop = pframes_to_drop(list(reversed(patches)), P)
    assert drop == [p.id for p in patches[:5]]


def test_cognitive_trigger_buffer_lull_ceiling():
    t = cognitive_trigger(unreflected=21, idle_s=1200, since_last_run_s=60)
    assert t.fire and t.reason.startswith("buffer")
    assert not cognitive_trigger(unreflected=20, idle_s=9999, since_last_run_s=60).fire
    assert not cognitive_trigger(unreflected=21, idle_s=1199, since_last_run_s=60).fire
    c = cognitive_trigger(unreflected=1, idle_s=0, since_last_run_s=4 * 3600)
    assert c.fire and c.reason.startswith("ceiling")
    assert not cognitive_trigger(unreflected=0, idle_s=None, since_last_run_s=99_999).fire
    assert cognitive_trigger(unreflected=25, idle_s=None, since_last_run_s=None).fire


def test_cluster_vectors_by_cosine_threshold():
    a = np.array([1.0, 0.0, 0.0])
    b = np.array([0.8, 0.6, 0.0])  # cos(a, b) = 0.8 >= 0.7
    c = np.array([0.0, 0.0, 1.0])
    d = np.array([0.0, 0.6, 0.8])  # cos(c, d) = 0.8
    e = np.array([0.0, 1.0, 0.0])  # cos to everything < 0.7 ... except d (0.6): alone
    assert cluster_vectors(np.stack([a, c, b, d, e]), 0.7) == [[0, 2], [1, 3], [4]]
    assert cluster_vectors(np.stack([a, b]), 0.9) == [[0], [1]]


def test_reflection_groups_need_five():
    ms = [mem(source=Source.USER_STATED) for _ in range(5)] + [mem(source=Source.IMPORT)] * 4
    groups = reflection_groups(ms, 5)
    assert list(groups) == ["user_stated/general"] and len(groups["user_stated/general"]) == 5


def test_parse_interval():
    assert parse_interval("5m") == 300 and parse_interval("30s") == 30
    assert parse_interval("1h") == 3600 and parse_interval("120") == 120
    with pytest.raises(ValueError):
        parse_interval("0m")
