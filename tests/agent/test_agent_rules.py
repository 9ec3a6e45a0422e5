"""The pure decisions about agent records: running averages, best version, actionable
signals, the evolution gate, retention cut-offs, the self-awareness lines."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from salience.agent import rules
from salience.agent.awareness import (
    check_capabilities,
    signal_line,
    signals_that_fit,
)
from salience.errors import InvalidInput
from salience.models import agent as agent_records
from salience.models.agent import ImprovementSignal, Procedure, SignalCategory

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_running_mean_matches_the_batch_mean():
    xs = [3.0, 1.5, 8.25, 0.0, 4.0]
    m = 0.0
    for n, x in enumerate(xs):
        m = agent_records.running_mean(m, n, x)
    assert m == pytest.approx(sum(xs) / len(xs))


def test_apply_outcome_is_incremental_and_pure():
    p = Procedure(name="s", template="t")
    q = agent_records.apply_outcome(p, success=True, cost=2.0, now=T0)
    q = agent_records.apply_outcome(q, success=False, cost=4.0, now=T0 + timedelta(seconds=1))
    assert (p.runs, p.success_rate) == (0, 0.0)  # the input is not changed
    assert (q.runs, q.successes, q.success_rate, q.avg_cost) == (2, 1, 0.5, 3.0)
    assert q.updated_at == T0 + timedelta(seconds=1)


def _v(version: int, runs: int, rate: float, cost: float = 1.0, active: bool = False):
    return Procedure(name="s", template="t", version=version, runs=runs, success_rate=rate,
                     avg_cost=cost, active=active)


def test_best_procedure():
    assert rules.best_procedure([]) is None
    untried = [_v(1, 0, 0), _v(2, 1, 1.0)]
    assert rules.best_procedure(untried).version == 2  # none tried enough: the newest
    tried = [_v(1, 10, 0.6), _v(2, 5, 0.8, cost=3), _v(3, 5, 0.8, cost=2), _v(4, 1, 1.0)]
    assert rules.best_procedure(tried).version == 3  # best rate, then cheaper
    assert rules.best_procedure([*tried, _v(5, 0, 0, active=True)]).version == 5  # promoted


def sig(key: str, count: int, surfaced: bool = False, minutes: int = 0) -> ImprovementSignal:
    return ImprovementSignal(category=SignalCategory.CORRECTION, pattern_key=key, count=count,
                             surfaced=surfaced, last_seen_at=T0 + timedelta(minutes=minutes))


def test_actionable_signals():
    assert not rules.is_actionable(sig("a", 2))
    assert rules.is_actionable(sig("a", 3))
    assert not rules.is_actionable(sig("a", 9, surfaced=True))
    assert rules.is_actionable(sig("a", 2), threshold=2)
    got = rules.actionable([sig("a", 3), sig("b", 5), sig("c", 3, minutes=5), sig("d", 1)])
    assert [s.pattern_key for s in got] == ["b", "c", "a"]
    assert rules.normalize_pattern_key("  Date \t Format\n") == "date format"


def test_gate_verdicts():
    g = rules.Gate()
    assert rules.gate_verdict({"success_rate": 0.5}, {"success_rate": 0.7}, g).accepted
    tie = rules.gate_verdict({"success_rate": 0.5}, {"success_rate": 0.5}, g)
    assert not tie.accepted and "does not beat" in tie.reason
    costly = rules.gate_verdict(
        {"success_rate": 0.5, "avg_cost": 1.0}, {"success_rate": 0.9, "avg_cost": 2.0}, g
    )
    assert not costly.accepted and "avg_cost" in costly.reason
    few = rules.gate_verdict({"success_rate": 0.1}, {"success_rate": 0.9, "samples": 2},
                             rules.Gate(min_samples=5))
    assert not few.accepted and "too few" in few.reason
    lower = rules.Gate(metric="latency_ms", higher_is_better=False, cost_metric=None)
    assert rules.gate_verdict({"latency_ms": 900}, {"latency_ms": 400}, lower).accepted
    assert not rules.gate_verdict({}, {"success_rate": 1}, g).accepted  # no baseline metric
    assert "candidate has no" in rules.gate_verdict({"success_rate": 1}, {}, g).reason


@pytest.mark.parametrize(
    "metrics", [{"x": float("nan")}, {"x": float("inf")}, {"x": "1"}, {"x": True}, {"": 1}, [1]]
)
def test_metrics_must_be_finite_numbers(metrics):
    with pytest.raises(InvalidInput):
        rules.check_metrics(metrics, "baseline")


def test_retention_cutoff():
    assert rules.retention_cutoff(T0, rules.Retention()) is None
    assert rules.retention_cutoff(T0, rules.Retention(max_age_days=2)) == T0 - timedelta(days=2)


def test_signal_lines_and_what_fits():
    s = ImprovementSignal(category=SignalCategory.CAPABILITY_GAP, pattern_key="pdf export",
                          note="  users ask\nfor PDFs ", count=4)
    assert signal_line(s) == "- [capability gap ×4] pdf export: users ask for PDFs"
    many = [sig(f"key {i}", 3) for i in range(20)]
    assert signals_that_fit(many, 0) == []
    fit = signals_that_fit(many, 40)
    assert 0 < len(fit) < 20 and fit == list(range(len(fit)))


def test_declared_capabilities_are_checked():
    caps = check_capabilities(["search", "search", "email"], None, "local", "agent 1.2")
    assert caps.tools == ("search", "email") and caps.skills == ()
    for bad in ("search", [1], ["x" * 201], ["a\nb"], ["\ud800"]):
        with pytest.raises(InvalidInput):
            check_capabilities(bad, None, None, None)
    with pytest.raises(InvalidInput):
        check_capabilities([f"t{i}" for i in range(101)], None, None, None)
