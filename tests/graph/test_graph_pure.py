"""The knowledge graph's pure parts: normaliser, ontology, BFS."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from salience import InvalidInput
from salience.graph.ontology import Ontology, OntologyViolation, default_ontology
from salience.graph.traverse import bfs, closest_memory_distances
from salience.models.graph import Entity, check_interval, validate_entity, visible_at
from salience.models.names import clean_name, entity_key, mention_keys, parse_name

T = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("raw", "canonical", "aliases"),
    [
        ("Bob", "Bob", ()),
        ("  bob  ", "bob", ()),
        ("Robert (Bob)", "Robert", ("Bob",)),
        ('Robert "Bob" Smith', "Robert Smith", ("Bob",)),
        ("Robert aka Bob", "Robert", ("Bob",)),
        ("“Alice”.", "Alice", ()),
        ("Bob (bob)", "Bob", ()),  # an alias equal to the name is no alias
        ("ACME (Europe) Ltd", "ACME (Europe) Ltd", ()),
    ],
)
def test_parse_name(raw, canonical, aliases):
    p = parse_name(raw)
    assert (p.canonical, p.aliases) == (canonical, aliases)


def test_keys_fold_case_and_whitespace():
    assert entity_key("  BOB\t ") == entity_key("bob") == "bob"
    assert entity_key("Ａlice") == "alice"  # NFKC
    assert parse_name("Robert (Bob)").keys == ("robert", "bob")
    assert clean_name("a\n  b") == "a b"
    with pytest.raises(InvalidInput):
        clean_name(3)
    with pytest.raises(InvalidInput):
        clean_name("x" * 300)
    assert mention_keys("Where does Ada Lovelace live?", 2)[:2] == ["where does", "does ada"]
    assert "ada lovelace" in mention_keys("Where does Ada Lovelace live?")


def test_ontology_checks():
    o = default_ontology()
    o.check_entity("person", {})
    o.check_relation("works_at", "person", "organization")
    with pytest.raises(OntologyViolation, match="unknown entity type 'spaceship'"):
        o.check_entity("spaceship", {})
    with pytest.raises(OntologyViolation, match="does not allow a target of type 'person'"):
        o.check_relation("works_at", "person", "person")
    with pytest.raises(OntologyViolation, match="unknown relation type"):
        o.check_relation("teleports_to", "person", "place")
    o.register_entity("invoice", required=["amount", "due"])
    with pytest.raises(OntologyViolation, match="requires properties: due"):
        o.check_entity("invoice", {"amount": 3})
    loose = Ontology(strict=False)
    loose.check_entity("anything", {})
    loose.check_relation("whatever", "a", "b")
    assert "entity" in loose.entity_types


def test_validity_and_intervals():
    assert visible_at(T, None, T, T)
    assert not visible_at(T, T + timedelta(days=1), T, T + timedelta(days=1))
    assert not visible_at(T, None, T + timedelta(days=1), T)  # not recorded yet
    check_interval(T, T)
    with pytest.raises(InvalidInput, match="before valid_from"):
        check_interval(T, T - timedelta(seconds=1))
    with pytest.raises(InvalidInput):
        validate_entity(Entity(name="x", confidence=2))
    with pytest.raises(InvalidInput):
        validate_entity(Entity(name="x", entity_type="no spaces!"))


def test_bfs_is_cycle_safe_and_deterministic():
    graph = {"a": ["b", "c"], "b": ["a", "c", "d"], "c": ["a", "b"], "d": ["b", "d"]}
    calls = []

    def nb(frontier):
        calls.append(list(frontier))
        return {n: graph.get(n, []) for n in frontier}

    assert bfs(["a"], nb, 10) == {"a": 0, "b": 1, "c": 1, "d": 2}
    assert len(calls) <= 3  # stops when the frontier is empty
    assert bfs(["a"], nb, 0) == {"a": 0}
    assert bfs(["d", "a"], nb, 1) == {"d": 0, "a": 0, "b": 1, "c": 1}


def test_closest_memory_distance():
    links = [("m1", "a"), ("m1", "b"), ("m2", "b"), ("m3", "z")]
    assert closest_memory_distances({"a": 2, "b": 1}, links) == {"m1": 1, "m2": 1}
