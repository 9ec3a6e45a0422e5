"""What a memory adds to the graph (`salience.graph.extract`): pure, no store."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from salience.graph import default_ontology
from salience.graph.extract import USER, extract, prepare, statements
from salience.models import Memory
from salience.models.graph import AUTO_ENTITY_TYPE, Relation
from salience.store.graph_writer import supersession_retirements

T0 = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)


def facts(text: str, **kw) -> set[tuple[str, str, str, bool]]:
    g = extract(Memory(content=text, created_at=T0, **kw))
    return {(f.subject.name, f.relation_type, f.obj.name, f.negated) for f in g.facts}


def types(text: str, **kw) -> dict[str, str]:
    g = extract(Memory(content=text, created_at=T0, **kw))
    return {m.name: m.entity_type for m in g.mentions}


def test_statements_know_who_says_what():
    assert statements("I live in Berlin.") == [(USER, "I live in Berlin.")]
    assert statements("User: I live in Berlin.\nAssistant: I live in the cloud.") == [
        ("User", "I live in Berlin.")
    ]
    assert statements("Caroline: I moved to Sweden.") == [("Caroline", "I moved to Sweden.")]
    mail = "Subject: News\nFrom: Anna Berg <anna@x.org>\nTo: me@x.org\n\nI moved to Munich.\nBye"
    assert statements(mail) == [("Anna Berg", "I moved to Munich."), ("Anna Berg", "Bye")]
    # an email from a bare address: who "I" is stays unknown
    assert statements("Subject: x\nFrom: bot@x.org\n\nI live in Oslo.") == []
    assert statements("Event: Dentist\nWhen: 2026-05-01 10:00\nWhere: Berlin") == []
    assert statements("Note: I am vegetarian now.") == [(USER, "Note: I am vegetarian now.")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I live in Berlin.", {(USER, "lives_in", "Berlin", False)}),
        ("I moved to Lisbon.", {(USER, "lives_in", "Lisbon", False)}),
        ("I work at Siemens.", {(USER, "works_at", "Siemens", False)}),
        ("I am a software engineer.", {(USER, "works_as", "software engineer", False)}),
        ("My manager is Sam.", {(USER, "reports_to", "Sam", False)}),
        ("My manager Sam approved the budget.", {(USER, "reports_to", "Sam", False)}),
        ("My dog is called Rex.", {(USER, "owns", "Rex", False)}),
        ("My sister Anna is visiting.", {(USER, "family_of", "Anna", False)}),
        ("Anna works at Google.", {("Anna", "works_at", "Google", False)}),
        ("Caroline: I moved to Sweden.", {("Caroline", "lives_in", "Sweden", False)}),
        ("My favourite food is sushi.", {(USER, "favourite", "sushi", False)}),
        ("I report to Priya.", {(USER, "reports_to", "Priya", False)}),
        ("I am dating Alex.", {(USER, "family_of", "Alex", False)}),
        ("I use Notion for notes.", {(USER, "uses", "Notion", False)}),
        (
            "I switched from vim to VS Code.",
            {(USER, "*", "vim", True), (USER, "uses", "VS Code", False)},
        ),
    ],
)
def test_claims_and_appositions_become_facts(text, expected):
    assert expected <= facts(text)


def test_a_relative_without_a_name_gets_a_node():
    got = facts("My sister lives in Lisbon.")
    assert {
        (USER, "family_of", "User's sister", False),
        ("User's sister", "lives_in", "Lisbon", False),
    } <= got


def test_negations_end_facts_and_questions_state_none():
    assert (USER, "works_at", "Siemens", True) in facts("I left Siemens.")
    assert facts("Do you live in Berlin?") == set()
    assert facts("If I lived in Paris I would cycle.") == set()
    # the assistant's first person is not the user's
    assert facts("User: thanks!\nAssistant: I work at OpenAI.") == set()


def test_entities_get_real_types():
    got = types("My manager Sam and my dog Rex met at the Apollo project kickoff in Berlin.")
    assert got["Sam"] == "person" and got["Rex"] == "pet"
    assert got["Apollo"] == "project" and got["Berlin"] == "place"
    assert types("I work at Siemens.")["Siemens"] == "organization"
    assert types("Pay 40 EUR by 12 May to anna@x.org")["anna@x.org"] == "email"
    # given entities (the LLM triage's names) are typed too
    assert types("We met Zorblat at lunch.", entities=["Zorblat"]) == {"Zorblat": AUTO_ENTITY_TYPE}
    assert types("I work at Zorblat.", entities=["Zorblat"]) == {"Zorblat": "organization"}


def test_fact_types_satisfy_the_default_ontology():
    onto = default_ontology()
    text = (
        "I live in Berlin. I work at Siemens. I am a nurse. My manager is Sam. My dog is called "
        "Rex. My sister Anna works at Google. I am vegan. My favourite colour is blue."
    )
    g = extract(Memory(content=text, created_at=T0))
    assert len(g.facts) >= 8
    for f in g.facts:
        onto.check_relation(f.relation_type, f.subject.entity_type, f.obj.entity_type)
    for m in g.mentions:
        onto.check_entity(m.entity_type, {})


def test_a_memory_is_linked_to_what_it_mentions():
    given = Memory(content="Lunch with Sam in Berlin.", entities=["Zorblat"], created_at=T0)
    empty = Memory(content="Sam is moving to the Lisbon office.", created_at=T0)
    graphs = prepare([given, empty])
    assert given.entities == ["Zorblat"] and empty.entities == []  # records are not changed
    assert graphs[0].names == ["Zorblat", "Sam", "Berlin"]
    assert {"Sam", "Lisbon"} <= set(graphs[1].names)
    assert [g.memory_id for g in graphs] == [given.id, empty.id]
    assert graphs[0].valid_from == T0
    # what Caroline says is about Caroline (and about whom she names)
    turn = extract(Memory(content="Caroline: Thanks, Melanie! See you.", created_at=T0))
    assert turn.names == ["Caroline", "Melanie"]
    occurred = datetime(2025, 1, 1, tzinfo=UTC)
    g = extract(Memory(content="I live in Oslo.", created_at=T0, occurred_at=occurred))
    assert g.valid_from == occurred  # valid from the statement's time
    # "my name is Ada": an alias of the speaker, and the memory is linked to the speaker
    ada = extract(Memory(content="My name is Ada.", created_at=T0))
    assert ada.aliases == ((USER, "Ada"),) and ada.names == [USER]


def test_supersession_retires_only_what_the_new_memory_does_not_restate():
    lives = Relation("u", "berlin", "lives_in", properties={"slot": "residence"})
    works = Relation("u", "siemens", "works_at", properties={"slot": "employer"})
    # the new memory speaks about where the user lives: the fact rules handled that slot,
    # the job stays
    assert supersession_retirements([lives, works], {("u", "lives_in", "residence")}) == []
    # the new memory says nothing the graph understands: trust the supersession
    assert supersession_retirements([lives, works], set()) == [lives, works]
    assert supersession_retirements([lives, works], None) == [lives, works]
    works.valid_to = T0  # already ended: nothing to do
    assert supersession_retirements([lives, works], None) == [lives]
