"""Heuristic entity extraction and quality scoring on realistic sentences."""

from __future__ import annotations

import pytest

from salience.llm import HeuristicBrain
from salience.llm.heuristic.entities import find_entities

brain = HeuristicBrain()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I met John Smith at Acme Corp. yesterday in Berlin.",
            ["John Smith", "Acme Corp", "Berlin"],
        ),
        (
            "Sarah called. She said Dr. Watson will operate on March 14th, 2026.",
            ["Sarah", "Dr. Watson", "March 14th, 2026"],
        ),
        ("Call John tomorrow about the $1,200 invoice.", ["John", "$1,200"]),
        (
            "Email me at tom.becker@example.com or see https://example.com/docs.",
            ["tom.becker@example.com", "https://example.com/docs"],
        ),
        (
            "Yesterday we visited New York and the University of Lisbon.",
            ["New York", "University of Lisbon"],
        ),
        ("i moved to lisbon last year", ["Lisbon"]),
        ("Quarterly sync with NASA and IBM on Monday.", ["NASA", "IBM", "Monday"]),
        ("Hi Anna! Thanks for the Bank of America tip.", ["Anna", "Bank of America"]),
        ("My sister Anna lives in Paris, France since 2019.", ["Anna", "Paris", "France", "2019"]),
        ("The rent is 950 EUR, due on 2026-04-01.", ["950 EUR", "2026-04-01"]),
        ("Ping @maria_dev about the PR.", ["@maria_dev"]),
        ("We're flying with Lufthansa to São Paulo on 3 May.", ["Lufthansa", "São Paulo", "3 May"]),
        ("Jean-Luc Picard joined Starfleet Academy.", ["Jean-Luc Picard", "Starfleet Academy"]),
    ],
)
def test_entities(text: str, expected: list[str]) -> None:
    found = brain.extract_entities(text)
    assert found == expected, found


@pytest.mark.parametrize(
    "text",
    [
        "The meeting went well. Thanks for everything!",
        "I think we should go. Maybe later?",
        "OK. Sounds good. See you Monday.",  # only the weekday is an entity
        "I'M SO HAPPY RIGHT NOW",
    ],
)
def test_no_sentence_start_words_or_shouting(text: str) -> None:
    found = brain.extract_entities(text)
    assert all(e in {"Monday"} for e in found), found


def test_a_word_seen_mid_sentence_counts_at_sentence_start_too() -> None:
    found = brain.extract_entities("Tesla stock rose. I bought more Tesla shares.")
    assert found == ["Tesla"]


def test_entity_kinds() -> None:
    kinds = {
        e.text: e.kind
        for e in find_entities(
            "Dr. Chen from St Mary Hospital met Priya in Lisbon on Friday; the bill was €80, "
            "receipt at billing@stmary.example."
        )
    }
    assert kinds == {
        "Dr. Chen": "person",
        "St Mary Hospital": "org",
        "Priya": "person",
        "Lisbon": "place",
        "Friday": "date",
        "€80": "money",
        "billing@stmary.example": "email",
    }


# -- quality ------------------------------------------------------------------------------------


def test_specificity_rewards_concrete_details() -> None:
    vague = brain.quality("Something happened with some stuff at some point.")
    concrete = brain.quality(
        "Dr. Chen confirmed my MRI on 2026-03-14 at 9:30am at St Mary Hospital; it cost $450."
    )
    middling = brain.quality("My brother lives in Lisbon.")
    assert vague.specificity < 0.1
    assert concrete.specificity > 0.9
    assert vague.specificity < middling.specificity < concrete.specificity
    assert "St Mary Hospital" in concrete.entities


def test_uniqueness_against_existing_memories() -> None:
    existing = ["I like coffee.", "We had a meeting about the budget.", "My sister lives in Paris."]
    assert brain.quality("I like coffee.", existing=existing).uniqueness == 0.0
    assert brain.quality("  i like COFFEE. ", existing=existing).uniqueness == 0.0
    near = brain.quality("I like coffee with oat milk.", existing=existing).uniqueness
    new = brain.quality("My passport expires in October.", existing=existing).uniqueness
    assert 0.0 < near < new <= 1.0
    assert brain.quality("Anything at all.").uniqueness == 1.0  # nothing to compare with


def test_confidence_follows_hedging() -> None:
    sure = brain.quality("The contract is definitely signed.").confidence
    plain = brain.quality("The contract is signed.").confidence
    hedged = brain.quality("I think the contract is probably signed.").confidence
    question = brain.quality("Maybe the contract is signed?").confidence
    assert sure > plain > hedged > question > 0


def test_quality_boost_follows_design_a() -> None:
    q = brain.quality(
        "Dr. Chen confirmed my MRI on 2026-03-14 at 9:30am.", existing=["I like tea."]
    )
    expected = 6 + (q.specificity + q.uniqueness) / 2 * (1 - 6 / 10)
    assert q.boost(6) == pytest.approx(expected)
    assert q.boost(10) == 10
