"""Catch-up triggering and selection; the feedback arithmetic."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from salience.models import Memory
from salience.search.catchup import is_catch_up, select_catch_up
from salience.search.feedback import (
    boosted_salience,
    judged,
    lexical_useful,
    retrieved,
    stepped_usefulness,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    "query",
    [
        "Catch me up",
        "where were we?",
        "What did we decide about the venue?",
        "brief me",
        "what's next",
        "What is next on the list",
        "bring me up to speed",
        "quick recap please",
    ],
)
def test_catch_up_triggers(query: str) -> None:
    assert is_catch_up(query)


@pytest.mark.parametrize(
    "query", ["What did Caroline decide to paint?", "where is the key", "next Tuesday's meeting"]
)
def test_catch_up_does_not_trigger(query: str) -> None:
    assert not is_catch_up(query)


def m(content: str, importance: str = "normal", age_days: int = 0) -> Memory:
    return Memory(
        content=content,
        importance=importance,  # type: ignore[arg-type]
        created_at=T0 - timedelta(days=age_days),
    )


def test_select_catch_up_orders_and_dedups() -> None:
    pool = [
        m("We decided to use Postgres", age_days=1),
        m("Critical: the launch moved", "critical", age_days=5),
        m("Important A", "important", age_days=3),
        m("Important B", "important", age_days=1),
        m("small talk", age_days=0),
    ]
    recent = [
        m("small talk"),
        m("tmp note", "temporary"),
        m("Important B", "important"),
        m("r2"),
        m("r3"),
        m("r4"),
    ]
    out = [x.content for x in select_catch_up(pool, recent, limit=10)]
    assert out == [
        "Critical: the launch moved",
        "Important B",
        "Important A",
        "We decided to use Postgres",
        "small talk",
        "r2",
    ]


def test_select_catch_up_decision_prefix() -> None:
    out = select_catch_up([m("Decision: ship Friday"), m("we discussed options")], [], limit=5)
    assert [x.content for x in out] == ["Decision: ship Friday"]


def test_salience_boost_is_dampened() -> None:
    assert boosted_salience(5.0) == pytest.approx(5.15)
    assert boosted_salience(1.0) == pytest.approx(1.27)
    assert boosted_salience(10.0) == 10.0


def test_usefulness_steps_toward_target() -> None:
    assert stepped_usefulness(0.5, True) == pytest.approx(0.55)
    assert stepped_usefulness(0.5, False) == pytest.approx(0.45)
    assert stepped_usefulness(0.9, True) == pytest.approx(0.91)
    u = 0.5
    for _ in range(100):
        u = stepped_usefulness(u, True)
    assert 0.99 < u <= 1.0


def test_retrieved_and_judged_records() -> None:
    r = retrieved(m("x"), T0)
    assert (r.retrieval_count, r.last_retrieved_at, r.salience) == (1, T0, pytest.approx(5.15))
    assert judged(m("x"), False).usefulness == pytest.approx(0.45)


def test_lexical_usefulness() -> None:
    mem = "Caroline adopted a beagle named Rosie last spring"
    assert lexical_useful("Since Caroline adopted Rosie, the beagle walks daily", mem)
    assert not lexical_useful("The weather is nice today", mem)
