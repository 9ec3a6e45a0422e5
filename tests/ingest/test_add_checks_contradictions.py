"""`Mind.add(..., check_contradictions=True)` (the default) runs the triaged paths' check
(`Ingestor.commit_checked` → `_contradictions`): what a new memory contradicts is superseded,
never deleted; `add_many` bulk loads skip it unless asked. Real SQLite, real MiniLM."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from salience import Mind
from salience.clock import FrozenClock
from salience.config import Config
from salience.embed import OnnxEmbedder
from salience.models import MemoryFilter


@pytest.fixture(scope="module")
def minilm() -> OnnxEmbedder:
    return OnnxEmbedder.minilm()


@pytest.fixture
def mind(tmp_path: Path, minilm: OnnxEmbedder) -> Mind:
    clock = FrozenClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    m = Mind.open(tmp_path / "m.db", config=Config(home=tmp_path, embedder="minilm"),
                  embedder=minilm, clock=clock)
    yield m
    m.close()


def test_add_supersedes_what_it_contradicts(mind: Mind) -> None:
    old = mind.add("I live in Lisbon.")
    mind.clock.advance(timedelta(days=20))  # type: ignore[attr-defined]
    new = mind.add("I moved to Berlin.")
    assert mind.get(old).superseded_by == new  # kept, as history
    assert [m.id for m in mind.history(new)] == [old, new]
    assert old not in {m.id for m in mind.list()}


def test_add_leaves_compatible_memories_alone(mind: Mind) -> None:
    a = mind.add("I live in Lisbon.")
    b = mind.add("My sister lives in Porto.")
    c = mind.add("I love Portuguese food.")
    assert {m.id for m in mind.list()} == {a, b, c}


def test_add_can_skip_the_check(mind: Mind) -> None:
    old = mind.add("I live in Lisbon.")
    mind.add("I moved to Berlin.", check_contradictions=False)
    assert mind.get(old).superseded_by is None


def test_add_many_checks_only_when_asked(mind: Mind) -> None:
    old, _ = mind.add_many(["I work at Siemens.", "I started a new job at Stripe."])
    assert mind.get(old).superseded_by is None
    first, second = mind.add_many(["I'm vegetarian.", "I started eating meat again."],
                                  check_contradictions=True)
    assert mind.get(first).superseded_by == second
    assert mind.count(MemoryFilter(include_superseded=True)) == 4


def test_the_replaced_statement_is_found_even_when_it_is_not_a_near_neighbour(
    mind: Mind, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Lisbon news sits nearer to other Lisbon memories than to "I live in Leeds": the
    full-text search on the new memory's slot ("live", "moved", "home", …) brings it in."""
    from salience.ingest import pipeline

    leeds = mind.add("I live in Leeds, in a terraced house in Headingley with my partner Tom.")
    mind.add_many([
        "I found a flat near São Bento in Lisbon, two bedrooms and lots of light.",
        "Biscuit is coming to Portugal with me; the vet sorted his pet passport.",
        "The trams in Lisbon are lovely, the 28 goes right past the flat.",
        "I've started Portuguese lessons with an online tutor called Rita.",
        "Packing the boxes for Portugal this weekend, the movers come on Monday.",
    ])
    news = "Olá from Portugal! The move is done and I now live in Lisbon, in the São Bento flat."
    monkeypatch.setattr(pipeline, "SLOT_CANDIDATES", 0)
    first = mind.add(news, check_contradictions=True)
    missed = mind.get(leeds).superseded_by is None  # the neighbours alone
    mind.update(first, superseded_by=leeds)  # set the first try aside
    monkeypatch.setattr(pipeline, "SLOT_CANDIDATES", 8)
    second = mind.add(news + " Boxes everywhere.")
    assert missed
    assert mind.get(leeds).superseded_by == second
