"""Heuristic contradiction detection: contradictions found both ways, compatible facts left alone."""

from __future__ import annotations

import pytest

from salience.llm import HeuristicBrain
from salience.llm.heuristic.claims import claims

brain = HeuristicBrain()

CONTRADICTIONS = [
    # negation flips
    ("I don't like sushi.", "I love sushi."),
    ("I hate coffee now.", "I really like coffee."),
    ("I can't stand jazz.", "I enjoy jazz."),
    ("I no longer drink coffee.", "I drink coffee every morning."),
    ("I stopped smoking.", "I smoke."),
    ("I'm not vegetarian anymore.", "I am vegetarian."),
    ("I eat meat again.", "I'm vegan."),
    ("Anna doesn't eat fish.", "Anna eats fish."),
    # value change of the same attribute
    ("My favourite colour is green.", "My favorite colour is blue."),
    ("I moved to Lisbon last month.", "I live in Berlin."),
    ("I live in Lisbon now.", "I live in Berlin with my wife."),
    ("Anna moved to Rome.", "Anna lives in Paris."),
    ("I now work at Meta.", "I work at Google as an engineer."),
    ("I left Google last week.", "I work at Google."),
    ("I work as a nurse.", "I'm a teacher."),
    ("My name is Robert.", "My name is Bob."),
    ("My dog is called Rex.", "My dog's name is Max."),
    ("I'm single now.", "I am married."),
    ("My sister is a teacher.", "My sister is a doctor."),
    ("My car is red.", "My car is blue."),
    ("Sarah's birthday is May 5.", "Sarah's birthday is March 3."),
    ("The meeting was moved to Friday.", "The meeting is on Thursday."),
    # numeric change
    ("I'm 35 years old.", "I am 34 years old."),
    ("I have 3 kids.", "I have 2 kids."),
    ("The meeting is at 4pm.", "The meeting is at 3pm."),
    ("My phone number is 555-9876.", "My phone number is 555-1234."),
    ("My rent is $1,500 a month.", "My rent is $1,200 a month."),
]

COMPATIBLE = [
    ("I like tea.", "I like coffee."),
    ("I love sushi.", "I love sushi and ramen."),
    ("I visited Lisbon last week.", "I live in Berlin."),
    ("I moved to Lisbon.", "I live in Lisbon."),
    ("I live in Berlin, Germany.", "I live in Berlin."),
    ("I lived in Berlin for five years.", "I live in Lisbon."),
    ("My brother lives in Madrid.", "I live in Berlin."),
    ("My favourite food is pizza.", "My favourite colour is blue."),
    ("My sister works at Meta.", "I work at Google."),
    ("I work at Google.", "I don't work on weekends."),
    ("I have a cat named Luna.", "I have a dog named Max."),
    ("Tom's birthday is May 5.", "Sarah's birthday is March 3."),
    ("My sister is Anna.", "My sister is a doctor."),
    ("My boss is nice.", "My boss is demanding."),
    ("I don't like horror movies.", "I like comedies."),
    ("I drink coffee every morning.", "I don't drink coffee after 6pm."),
    ("I love my job.", "I love my wife."),
    ("I'm learning Spanish.", "I speak French."),
    ("The meeting is in room 4.", "The meeting is at 3pm."),
    ("The flight is on March 3.", "The meeting is on March 5."),
    ("I ran 10km today.", "I ran 5km today."),
    ("We had dinner at 8pm.", "We had dinner at 7pm yesterday."),
    ("If I lived in Paris I would walk more.", "I live in Berlin."),
    ("Do I like sushi?", "I love sushi."),
    ("I used to work at Google.", "I work at Meta."),
    ("Hi! Thanks for the help.", "I live in Berlin."),
]


@pytest.mark.parametrize(("new", "old"), CONTRADICTIONS)
def test_contradiction_is_found(new: str, old: str) -> None:
    assert brain.contradicts(new, [old]) == [0], (claims(new), claims(old))


@pytest.mark.parametrize(("new", "old"), CONTRADICTIONS)
def test_contradiction_is_symmetric(new: str, old: str) -> None:
    assert brain.contradicts(old, [new]) == [0], (claims(old), claims(new))


@pytest.mark.parametrize(("new", "old"), COMPATIBLE)
def test_compatible_facts_are_not_contradictions(new: str, old: str) -> None:
    assert brain.contradicts(new, [old]) == [], (claims(new), claims(old))
    assert brain.contradicts(old, [new]) == [], (claims(old), claims(new))


def test_positions_map_back_to_the_candidates() -> None:
    candidates = [
        "I live in Berlin.",  # 0: contradicted (moved)
        "My sister Anna lives in Porto.",  # 1: other subject
        "I love Portuguese food.",  # 2: compatible
        "My favourite city is Berlin.",  # 3: other attribute
        "I work at Siemens in Berlin.",  # 4: compatible
    ]
    assert brain.contradicts("I moved to Lisbon in May.", candidates) == [0]
    assert brain.contradicts(
        "I don't love Portuguese food anymore, and I'm living in Porto.", candidates
    ) == [0, 2]
    assert brain.contradicts("Nothing to see here.", candidates) == []
    assert brain.contradicts("I live in Lisbon.", []) == []


def test_longer_memories_are_compared_sentence_by_sentence() -> None:
    old = (
        "Had a great weekend. We went hiking near Sintra. I still work at Acme Corp, which is fine."
    )
    new = "Big news: I quit my job at Acme Corp. Starting at Globex Inc. next month!"
    assert brain.contradicts(new, [old]) == [0]


def test_claims_of_a_sentence() -> None:
    (c,) = [
        c for c in claims("I live in New York City with my wife.") if c.attribute == "residence"
    ]
    assert (c.subject, c.value, c.negated) == ("user", "new york city", False)
    polar = [
        c for c in claims("I really don't like horror movies anymore.") if c.attribute == "polar"
    ]
    assert polar and polar[0].negated and polar[0].value == "horror like movi"
