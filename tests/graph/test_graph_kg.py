"""The knowledge graph through `mind.graph` on every backend."""

from __future__ import annotations

from datetime import timedelta

import pytest

from salience import InvalidInput, NotFound
from salience.graph import OntologyViolation
from salience.models import new_id


def test_entities_relations_and_ontology(mind):
    g = mind.graph
    alice = g.add_entity("Alice", "person", properties={"email": "a@x.org"})
    acme = g.add_entity("Acme", "organization")
    r = g.add_relation(alice.id, "works_at", acme.id, confidence=0.8)
    assert g.get_relation(r.id).confidence == 0.8
    with pytest.raises(OntologyViolation, match="target of type 'person'"):
        g.add_relation(alice.id, "works_at", alice.id)
    with pytest.raises(OntologyViolation, match="unknown relation type"):
        g.add_relation(alice.id, "haunts", acme.id)
    with pytest.raises(OntologyViolation, match="unknown entity type"):
        g.add_entity("Zorg", "alien")
    g.ontology.register_entity("invoice", required=["amount"])
    with pytest.raises(OntologyViolation, match="requires properties: amount"):
        g.add_entity("INV-1", "invoice")
    g.add_entity("INV-1", "invoice", properties={"amount": 10})
    with pytest.raises(OntologyViolation):
        g.update_entity(alice.id, entity_type="alien")
    with pytest.raises(NotFound, match="unknown entity"):
        g.add_relation(alice.id, "knows", new_id())
    with pytest.raises(NotFound):
        g.get_entity(new_id())
    assert [e.name for e in g.entities(entity_type="person")] == ["Alice"]


def test_valid_to_before_valid_from_is_rejected(mind, clock):
    g = mind.graph
    now = clock.now()
    with pytest.raises(InvalidInput, match="before valid_from"):
        g.add_entity("Alice", "person", valid_from=now, valid_to=now - timedelta(days=1))
    a = g.add_entity("Alice", "person", valid_from=now)
    b = g.add_entity("Bob", "person")
    with pytest.raises(InvalidInput, match="before valid_from"):
        g.add_relation(a.id, "knows", b.id, valid_from=now, valid_to=now - timedelta(seconds=1))
    with pytest.raises(InvalidInput, match="before valid_from"):
        g.retire_entity(a.id, at=now - timedelta(days=1))


def test_normaliser_resolves_one_entity(mind):
    g = mind.graph
    robert = g.add_entity("Robert (Bob)", "person")
    assert robert.name == "Robert" and robert.aliases == ["Bob"]
    for name in ("Bob", "bob ", "ROBERT", "Robert (Bob)"):
        assert g.resolve(name).id == robert.id
    assert g.resolve("Alice") is None
    g.add_alias(robert.id, "Rob")
    assert g.resolve("rob").id == robert.id


def test_retire_and_time_travel_neighbors(mind, clock):
    g = mind.graph
    alice = g.add_entity("Alice", "person")
    acme = g.add_entity("Acme", "organization")
    beta = g.add_entity("Beta", "organization")
    t1 = clock.now()
    job = g.add_relation(alice.id, "works_at", acme.id)
    clock.advance(days=30)
    g.retire_relation(job.id)
    g.add_relation(alice.id, "works_at", beta.id)
    clock.advance(days=1)
    assert [n.entity.name for n in g.neighbors(alice.id)] == ["Beta"]
    assert [n.entity.name for n in g.neighbors(alice.id, as_of=t1 + timedelta(days=1))] == ["Acme"]
    assert g.neighbors(alice.id, as_of=t1 - timedelta(days=1)) == []
    (n,) = g.neighbors(acme.id, as_of=t1 + timedelta(days=1))
    assert n.direction == "in" and n.entity.id == alice.id
    assert g.neighbors(alice.id, direction="in") == []
    g.retire_entity(beta.id)
    assert g.neighbors(alice.id) == []  # a retired neighbour is not current
    assert g.resolve("Beta") is None
    assert g.resolve("Beta", as_of=t1 + timedelta(days=30, hours=1)).id == beta.id
    with pytest.raises(InvalidInput):
        g.neighbors(alice.id, direction="sideways")  # type: ignore[arg-type]


def test_traversal_with_cycles_and_distances(mind):
    g = mind.graph
    a, b, c, d = (g.add_entity(n, "person") for n in ("Ann", "Ben", "Cid", "Dee"))
    g.add_relation(a.id, "knows", b.id)
    g.add_relation(b.id, "knows", c.id)
    g.add_relation(c.id, "knows", a.id)  # cycle a-b-c-a
    g.add_relation(c.id, "knows", d.id)
    g.add_relation(d.id, "knows", d.id)  # self-loop
    assert g.traverse(a.id, 5) == {a.id: 0, b.id: 1, c.id: 1, d.id: 2}
    assert g.traverse(a.id, 1) == {a.id: 0, b.id: 1, c.id: 1}
    assert g.bfs_distances([d.id, b.id], max_depth=1) == {d.id: 0, b.id: 0, c.id: 1, a.id: 1}
    with pytest.raises(NotFound, match="unknown entity"):
        g.traverse(new_id(), 2)
    with pytest.raises(NotFound):
        g.bfs_distances([a.id, new_id()])
    with pytest.raises(InvalidInput):
        g.traverse(a.id, -1)


def test_ingested_entities_link_memories_and_feed_recall(mind):
    g = mind.graph
    m1 = mind.add("Robert (Bob) started at Acme.", entities=["Robert (Bob)", "Acme"])
    m2 = mind.add("bob prefers green tea.", entities=["bob "])
    m3 = mind.add("Alice is Bob's manager.", entities=["Alice", "Bob"])
    mind.add("The weather was nice.")
    about_bob = [m.id for m in g.about("Bob")]
    assert set(about_bob) == {m1, m2, m3}
    assert [m.id for m in g.about("Alice")] == [m3]
    assert g.about("Nobody") == []  # an unknown entity: nothing remembered, not an error
    alice, acme = g.resolve("Alice"), g.resolve("Acme")
    assert {e.name for e in g.entities_of(m3)} == {"Alice", "Robert"}
    g.update_entity(alice.id, entity_type="person")
    g.update_entity(acme.id, entity_type="organization")
    g.add_relation(alice.id, "works_at", acme.id)
    # depth 1: Acme's memory comes in through Alice → Acme
    assert {m.id for m in g.about("Alice", depth=1)} == {m1, m3}
    dist = g.memory_distances([alice.id], max_depth=2)
    assert dist == {m3: 0, m1: 1}  # m1 through Alice -works_at-> Acme; m2, m4 unconnected
    q = g.distances_for_query("what does Alice do?")
    assert q[m3] == 0
    hits = mind.search("green tea", distances=q)
    assert hits and hits[0].memory.id == m2
    mind.delete(m2)
    assert m2 not in {m.id for m in g.about("Bob")}


def test_relink_memories_rebuilds_links(mind):
    m1 = mind.add("Ada wrote the notes.", entities=["Ada"])
    mind.add("No entities here.")
    ada = mind.graph.resolve("Ada")
    pk_links = mind.store.entity_memory_links([ada.id])
    assert pk_links == [(m1, ada.id)]
    assert mind.graph.relink_memories(batch_size=1) == 1
    assert mind.store.entity_memory_links([ada.id]) == [(m1, ada.id)]
    with pytest.raises(InvalidInput):
        mind.graph.relink_memories(batch_size=0)


def test_about_as_of(mind, clock):
    t0 = clock.now()
    old = mind.add("Maya wrote a poem about Porto.", entities=["Maya"])
    clock.advance(days=2)
    new = mind.add("Maya wrote a poem about Lisbon.", entities=["Maya"])
    clock.advance(days=1)
    mind.update(old, superseded_by=new)
    assert [m.id for m in mind.graph.about("Maya")] == [new]
    assert [m.id for m in mind.graph.about("Maya", as_of=t0 + timedelta(days=1))] == [old]
    assert [m.id for m in mind.graph.about("Maya", as_of=t0 + timedelta(days=2, hours=1))] == [
        new,
        old,
    ]
