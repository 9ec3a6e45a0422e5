"""Issue 14, more kinds of knowledge update, the claims they give: diet synonyms, an ordinal
child, the size of a household, named pets, memberships. The update pairs and their near-misses
(someone else's pet, a family at the next table, a baby still on the way, another person's
membership) are MORE_UPDATES / MORE_COMPATIBLE in test_heuristic_contradiction.py."""

from __future__ import annotations

import pytest

from salience.llm import HeuristicBrain
from salience.llm.heuristic.claims import claims

brain = HeuristicBrain()


def _turn(text: str, reply: str = "Got it.") -> str:
    """A conversation memory as `remember_turn` stores it."""
    return f"User: {text}\nAssistant: {reply}"


def _one(text: str, attribute: str) -> tuple[str, str, bool]:
    (c,) = [c for c in claims(text) if c.attribute == attribute]
    return c.subject, c.value, c.negated


def test_the_new_patterns_name_slot_and_value() -> None:
    assert _one("I'm veggie now.", "diet") == ("user", "vegetarian", False)
    assert _one("I'm pescy these days.", "diet") == ("user", "pescatarian", False)
    assert _one("Our fourth was born on Tuesday!", "children") == ("user", "4", False)
    assert _one("Baby number three arrived last night.", "children") == ("user", "3", False)
    assert _one("We're a family of five now.", "household") == ("user", "5", False)
    assert _one("Miso died last week.", "own") == ("user", "miso", True)
    assert _one("Our dog Pepper loves the beach.", "own") == ("user", "pepper", False)
    assert _one("We had to rehome Clover.", "own") == ("user", "clover", True)
    assert _one("I have a membership at PureGym.", "use") == ("user", "puregym", False)


def test_near_misses_make_no_claim() -> None:
    assert [c for c in claims("We're expecting our fourth in May.")
            if c.attribute == "children"] == []
    assert [c for c in claims("A family of five sat at the next table.")
            if c.attribute == "household"] == []
    assert [c for c in claims("My friend's dog Max died.")
            if c.attribute == "own" and c.subject == "user"] == []
    assert [c for c in claims("My wife cancelled her PureGym membership.")
            if c.subject == "user"] == []


def test_the_household_is_compared_with_the_children() -> None:
    # two parents or one, and the children: four or three people are two kids, five are not
    assert brain.contradicts(_turn("We're a family of four now."), [_turn("We have two kids.")]) == []
    assert brain.contradicts(_turn("We're a family of three now."), [_turn("I have two kids.")]) == []
    assert brain.contradicts(_turn("We're a family of six now."),
                             [_turn("We have two kids.")]) == [0]



@pytest.mark.parametrize("text", ["Back when I was at uni I worked at a Pret.",
                                  "In my twenties I worked for Deloitte."])
def test_an_employer_in_a_past_period_is_no_claim(text: str) -> None:
    assert not [c for c in claims(text) if c.attribute == "employer"]


@pytest.mark.parametrize("text", ["I've worked at Siemens for years.", "I work at Siemens."])
def test_a_current_employer_still_is(text: str) -> None:
    assert [c.value for c in claims(text) if c.attribute == "employer"] == ["siemens"]
