"""Heuristic query rewriting, re-ranking and usefulness."""

from __future__ import annotations

import pytest

from salience.llm import HeuristicBrain

brain = HeuristicBrain()


@pytest.mark.parametrize(
    ("query", "statement"),
    [
        ("What is my sister's name?", "my sister's name is"),
        ("Where do I live?", "i live in"),
        ("When is the dentist appointment?", "the dentist appointment is on"),
        ("Do I like sushi?", "i like sushi"),
        ("How old is Anna?", "anna is years old"),
        ("What did we decide about the database?", "we decided the database"),
        ("Who is my manager?", "my manager is"),
        ("Where does Caroline work?", "caroline work in"),
        ("Tell me about my job", "my job"),
    ],
)
def test_question_becomes_a_statement(query: str, statement: str) -> None:
    variations = brain.rewrite_query(query)
    assert variations[0].lower() == statement


@pytest.mark.parametrize(
    "query",
    [
        "What is my sister's name?",
        "favourite movie",
        "When did Melanie paint a sunrise?",
        "Which restaurants does Tom like?",
        "trip to Japan",
    ],
)
def test_three_distinct_variations_never_the_query(query: str) -> None:
    variations = brain.rewrite_query(query, n=3)
    assert len(variations) == 3
    normalised = {v.lower().rstrip("?") for v in variations}
    assert len(normalised) == 3
    assert query.lower().rstrip("?") not in normalised


def test_keywords_and_synonyms() -> None:
    variations = brain.rewrite_query("What is my favourite movie?")
    assert "favourite movie" in variations
    assert any("film" in v for v in variations)
    assert brain.rewrite_query("hi") == []  # nothing to vary
    assert len(brain.rewrite_query("Where do I work?", n=1)) == 1


def test_rerank_puts_the_answer_first() -> None:
    candidates = [
        "I had pizza with Tom on Friday.",
        "The weather was nice at the beach.",
        "My sister Anna is a nurse in Porto.",
        "Anna called about the wedding plans.",
    ]
    order = brain.rerank("What does my sister do for work?", candidates)
    assert sorted(order) == [0, 1, 2, 3]
    assert order[0] == 2
    assert brain.rerank("Who is Anna?", candidates)[:2] == [2, 3]


def test_rerank_keeps_the_incoming_order_without_evidence() -> None:
    candidates = ["alpha one", "beta two", "gamma three"]
    assert brain.rerank("zeta", candidates) == [0, 1, 2]
    assert brain.rerank("anything", []) == []
    assert brain.rerank("anything", ["only"]) == [0]


def test_rerank_uses_synonyms() -> None:
    candidates = ["We bought a new sofa.", "I saw a great film with Priya yesterday."]
    assert brain.rerank("what movie did I watch", candidates)[0] == 1


@pytest.mark.parametrize(
    ("response", "memory", "useful"),
    [
        ("Since you're allergic to peanuts, skip the satay.", "I'm allergic to peanuts.", True),
        ("Say hi to Anna for me!", "My sister Anna is a nurse in Porto.", True),
        (
            "Your flight JL44 leaves at 11:05, so leave home by 8.",
            "Flight JL44 to Tokyo departs 11:05 on March 14.",
            True,
        ),
        ("The capital of France is Paris.", "I'm allergic to peanuts.", False),
        ("Sure, here is a recipe for banana bread.", "My sister Anna is a nurse in Porto.", False),
        ("I'd recommend a window seat.", "The meeting is at 3pm.", False),
        ("", "I like tea.", False),
    ],
)
def test_usefulness(response: str, memory: str, useful: bool) -> None:
    assert brain.is_useful(response, memory) is useful
