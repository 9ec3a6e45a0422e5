"""Prompt context assembly and token budgeting."""

from __future__ import annotations

import pytest

from salience import InvalidInput
from salience.layers.context import profile_budget, split_budget
from salience.llm.brain import IdentityProfile
from salience.models.tokens import approx_tokens, fit_lines, truncate


def test_token_helpers_are_documented_approximations():
    assert approx_tokens("") == 0
    assert approx_tokens("abcd") == 1 and approx_tokens("abcde") == 2
    assert truncate("hello world", 100) == "hello world"
    assert truncate("x" * 100, 5) == "x" * 19 + "…"
    assert truncate("anything", 0) == ""
    assert fit_lines(["aaaa", "bbbb", "c" * 100], 3) == "aaaa\nbbbb"
    assert fit_lines(["a" * 100], 10) == "a" * 39 + "…"
    assert fit_lines([], 10) == ""


def test_split_budget():
    assert split_budget(2000) == (500, 500)
    assert split_budget(1000) == (300, 250)
    assert profile_budget(2000) == 300 and profile_budget(1000) == 150
    assert profile_budget(10_000) == 400


def test_sections_in_order_each_within_budget(mind, clock):
    mind.identity.create("Ada", role="assistant", personality="warm and precise")
    mind.awareness.add("prepare the launch plan", status="in_progress")
    mind.awareness.add("low disk", category="flag")
    for i in range(30):
        mind.add(
            f"Launch note {i}: the Apollo launch is planned for May, venue {i}.",
            entities=["Apollo"],
        )
    ctx = mind.context("when is the Apollo launch?", budget_tokens=400)
    assert [s.name for s in ctx.sections] == ["identity", "self_awareness", "memories"]
    for s in ctx.sections:
        assert s.tokens <= s.budget_tokens
    assert ctx.tokens <= 400
    assert ctx.text.startswith("# Identity\nYou are Ada.")
    aware = ctx.section("self_awareness").text
    assert aware.startswith("# Self-Awareness\nMemory: 31 memories, ")  # entities: graph extraction
    assert "## Active Tasks\n- prepare the launch plan [in_progress]" in aware
    assert ctx.section("memories").text.startswith("# Context From Your Memory\n- [2026-04-01]")
    assert ctx.hits and str(ctx) == ctx.text
    assert all(h.memory.memory_type != "identity" for h in ctx.hits)
    assert "You are Ada." not in ctx.section("memories").text


def test_context_is_deterministic_and_identity_cached(mind, clock):
    mind.identity.create("Ada")
    mind.add("The launch is in May.")
    a = mind.context("launch", budget_tokens=300)
    b = mind.context("launch", budget_tokens=300)
    assert a.text == b.text
    builder = mind._layers["_context_builder"]
    cached = builder._identity_cache
    mind.context("launch", budget_tokens=300)
    assert builder._identity_cache is cached  # unchanged row: cache reused
    clock.advance(minutes=1)
    mind.identity.update(role="planner")
    assert "Role: planner" in mind.context("launch", budget_tokens=300).text
    assert builder._identity_cache is not cached


@pytest.mark.parametrize("budget", [60, 120, 800, 5000])
def test_any_budget_is_respected(mind, clock, budget):
    mind.identity.create("Ada", personality="x " * 3000)
    mind.profile.write(
        IdentityProfile(profile="Likes: " + "w " * 3000, attributes={"likes": "w"}),
        source_ids=[], now=clock.now(),
    )
    for i in range(10):
        mind.awareness.add(f"task {i} " + "y" * 200)
    for i in range(20):
        mind.add(f"memory {i} about the launch " + "z" * 300)
    ctx = mind.context("launch", budget_tokens=budget)
    assert ctx.tokens <= budget
    assert all(s.tokens <= s.budget_tokens for s in ctx.sections)


def test_no_query_no_identity(mind):
    ctx = mind.context(budget_tokens=200)
    assert [s.name for s in ctx.sections] == ["self_awareness"]
    assert ctx.hits == ()
    with pytest.raises(InvalidInput):
        mind.context("q", budget_tokens=10)
    with pytest.raises(InvalidInput):
        mind.context("q", limit=0)
