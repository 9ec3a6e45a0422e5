"""Conformance suite of the graph write path (`Store.write_graph`, `IngestBatch.graph`): typed
mentions, facts as bitemporal relations with their source memory, retirement by later, negated
and superseding statements — on every backend."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from salience.graph.extract import Fact, MemoryGraph, Mention
from salience.models import EmbeddingInfo, Memory, validate_memory
from salience.models.graph import AUTO_ENTITY_TYPE, Entity, Relation
from salience.store.ingest import IngestBatch, QueueItem

DIM = 8
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
USER = Mention("User", "person")


def at(days: float) -> datetime:
    return T0 + timedelta(days=days)


def vec(i: int) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[i % DIM] = 1.0
    return v


def mem(content: str, day: float = 0, **kw) -> Memory:
    kw.setdefault("created_at", at(day))
    kw.setdefault("updated_at", kw["created_at"])
    return validate_memory(Memory(content=content, **kw))


def lives(place: str, *, negated: bool = False) -> Fact:
    return Fact(USER, "lives_in", Mention(place, "place"), "residence", True, negated)


def graph(m: Memory, *facts: Fact, mentions: tuple[Mention, ...] = (), **kw) -> MemoryGraph:
    return MemoryGraph(m.id, m.occurred_at or m.created_at, mentions, facts, **kw)


@pytest.fixture
def store(make_store):
    s = make_store()
    s.pin_embedding(EmbeddingInfo("test-model", DIM))
    return s


def open_targets(store, name: str = "User", rtype: str = "lives_in", when=None) -> list[str]:
    user = store.find_entities([name.lower()])[0]
    rels = [r for r in store.relations_of([user.id], as_of=when) if r.relation_type == rtype]
    if when is None:
        rels = [r for r in rels if r.valid_to is None]
    ends = store.get_entities([r.target_id for r in rels])
    return [ends[r.target_id].name for r in rels]


def test_relations_carry_their_source_memory(store):
    a, b = (Entity(name=n, entity_type="person", valid_from=T0, recorded_at=T0) for n in "AB")
    store.insert_entity(a)
    store.insert_entity(b)
    r = Relation(a.id, b.id, "knows", valid_from=T0, recorded_at=T0, memory_id="m-1")
    store.insert_relation(r)
    assert store.get_relation(r.id).memory_id == "m-1"
    assert store.relations_of([a.id])[0].memory_id == "m-1"
    r.memory_id = None
    store.update_relation(r)
    assert store.get_relation(r.id).memory_id is None


def test_mentions_are_typed_and_generic_types_upgraded(store):
    m = mem("Sam met Rex in Berlin.", entities=["Sam", "Rex", "Berlin"])
    store.insert([m], np.stack([vec(0)]))
    assert {e.entity_type for e in store.find_entities(["sam", "rex", "berlin"])} == {
        AUTO_ENTITY_TYPE
    }
    mentions = (Mention("Sam", "person"), Mention("Rex", "pet"), Mention("Berlin", "place"))
    w = store.write_graph([graph(m, mentions=mentions)], now=T0)
    got = {e.name: e.entity_type for e in store.find_entities(["sam", "rex", "berlin"])}
    assert got == {"Sam": "person", "Rex": "pet", "Berlin": "place"}
    assert len(w.retyped) == 3 and w.entities == []
    # a specific type is never overwritten
    store.write_graph([graph(m, mentions=(Mention("Berlin", "organization"),))], now=T0)
    assert store.find_entities(["berlin"])[0].entity_type == "place"
    # aliases: "my name is Ada"
    store.write_graph([graph(m, aliases=(("User", "Ada"),))], now=T0)
    assert store.find_entities(["ada"])[0].name == "User"


def test_mention_links_outlive_updates_of_the_memory(store):
    m = mem("Lunch with Sam and Ada.", entities=["Lunch", "Ada"])
    store.insert([m], np.stack([vec(0)]))
    mentions = (Mention("Sam", "person"), Mention("Ada", "person"))
    store.write_graph([graph(m, mentions=mentions)], now=T0)
    sam, lunch, ada = (store.find_entities([k])[0] for k in ("sam", "lunch", "ada"))
    assert sorted(store.memory_entity_ids([m.id])[m.id]) == sorted([sam.id, lunch.id, ada.id])
    # the record's own entities are replaced on update; what it mentions stays linked
    m.entities = []
    store.update([m])
    assert sorted(store.memory_entity_ids([m.id])[m.id]) == sorted([sam.id, ada.id])
    assert store.get(m.id).entities == []
    store.delete([m.id])
    assert store.entity_memory_links([sam.id]) == []


def test_a_new_value_retires_the_old_one_and_restating_changes_nothing(store):
    m1, m2, m3 = mem("I live in Berlin.", 0), mem("I moved to Lisbon.", 10), mem("Lisbon!", 12)
    store.write_graph([graph(m1, lives("Berlin"))], now=at(0))
    w = store.write_graph([graph(m2, lives("Lisbon"))], now=at(10))
    assert len(w.asserted) == 1 and len(w.retired) == 1
    assert open_targets(store) == ["Lisbon"]
    assert open_targets(store, when=at(5)) == ["Berlin"]
    old = store.get_relation(w.retired[0])
    assert old.valid_to == at(10) and old.memory_id == m1.id
    assert old.properties["retired_by"] == m2.id and old.properties["slot"] == "residence"
    assert store.write_graph([graph(m3, lives("Lisbon"))], now=at(12)).asserted == []
    # a non-functional fact keeps its siblings
    pets = [Fact(USER, "owns", Mention(n, "pet"), "dog") for n in ("Rex", "Fido")]
    store.write_graph([graph(m3, *pets)], now=at(12))
    assert sorted(open_targets(store, rtype="owns")) == ["Fido", "Rex"]


def test_negation_ends_the_fact_and_never_creates_entities(store):
    m1, m2 = mem("I live in Berlin.", 0), mem("I don't live in Berlin anymore.", 3)
    store.write_graph([graph(m1, lives("Berlin"))], now=at(0))
    w = store.write_graph(
        [graph(m2, lives("Berlin", negated=True), lives("Atlantis", negated=True))], now=at(3)
    )
    assert open_targets(store) == [] and len(w.retired) == 1
    assert store.find_entities(["atlantis"]) == []


def test_a_denied_value_ends_whatever_relation_held_it(store):
    m1, m2 = mem("I work at Siemens.", 0), mem("I quit Siemens.", 4)
    works = Fact(USER, "works_at", Mention("Siemens", "organization"), "employer", True)
    store.write_graph([graph(m1, works)], now=at(0))
    denial = Fact(USER, "*", Mention("Siemens"), "*", negated=True)
    assert len(store.write_graph([graph(m2, denial)], now=at(4)).retired) == 1
    assert open_targets(store, rtype="works_at") == []


def test_an_older_denial_imported_later_ends_nothing_newer(store):
    again, left = mem("I joined Siemens again.", 10), mem("I left Siemens.", 11, occurred_at=at(5))
    works = Fact(USER, "works_at", Mention("Siemens", "organization"), "employer", True)
    store.write_graph([graph(again, works)], now=at(10))
    store.write_graph([graph(left, replace(works, negated=True))], now=at(11))
    assert open_targets(store, rtype="works_at") == ["Siemens"]


def test_an_older_statement_imported_later_is_already_over(store):
    new, old = mem("I moved to Lisbon.", 10), mem("I live in Berlin.", 11, occurred_at=at(2))
    store.write_graph([graph(new, lives("Lisbon"))], now=at(10))
    store.write_graph([graph(old, lives("Berlin"))], now=at(11))
    assert open_targets(store) == ["Lisbon"]
    assert open_targets(store, when=at(11)) == ["Lisbon"]  # known then, valid 2..10
    user = store.find_entities(["user"])[0]
    berlin = next(r for r in store.relations_of([user.id]) if r.memory_id == old.id)
    assert (berlin.valid_from, berlin.valid_to) == (at(2), at(10))


def test_commit_ingest_writes_the_graph_with_the_memories(store):
    m = mem("I live in Berlin.", 0)
    dup = mem("I live in Berlin.", 1)  # same content: deduplicated, its graph skipped
    done = store.commit_ingest(
        IngestBatch(
            memories=[m], vectors=np.stack([vec(0)]), graph=[graph(m, lives("Berlin"))], now=at(0)
        )
    )
    assert done.saved == [m.id] and open_targets(store) == ["Berlin"]
    store.commit_ingest(
        IngestBatch(
            memories=[dup],
            vectors=np.stack([vec(0)]),
            graph=[graph(dup, lives("Paris"))],
            now=at(1),
        )
    )
    assert open_targets(store) == ["Berlin"]
    # atomic with the dequeue: a batch whose queue item is gone writes no graph either
    qid = store.enqueue("triage", [QueueItem(kind="conversation", payload={}, enqueued_at=T0)])[0]
    store.commit_ingest(IngestBatch(dequeue=("triage", qid), now=at(1)))
    late = mem("I moved to Oslo.", 2)
    gone = store.commit_ingest(
        IngestBatch(
            memories=[late],
            vectors=np.stack([vec(1)]),
            graph=[graph(late, lives("Oslo"))],
            dequeue=("triage", qid),
            now=at(2),
        )
    )
    assert (
        gone is None and open_targets(store) == ["Berlin"] and store.find_entities(["oslo"]) == []
    )


def test_supersession_retires_the_old_memorys_relations(store):
    old = mem("I live in Berlin and work at Siemens.", 0)
    store.commit_ingest(
        IngestBatch(
            memories=[old],
            vectors=np.stack([vec(0)]),
            graph=[
                graph(
                    old,
                    lives("Berlin"),
                    Fact(USER, "works_at", Mention("Siemens", "organization"), "employer", True),
                )
            ],
            now=at(0),
        )
    )
    # the new memory speaks about where the user lives: only that slot changes
    moved = mem("I moved to Lisbon.", 5)
    done = store.commit_ingest(
        IngestBatch(
            memories=[moved],
            vectors=np.stack([vec(1)]),
            graph=[graph(moved, lives("Lisbon"))],
            supersede=[(old.id, moved.id)],
            now=at(5),
        )
    )
    assert done.superseded == [old.id]
    assert open_targets(store) == ["Lisbon"] and open_targets(store, rtype="works_at") == [
        "Siemens"
    ]
    # a supersession the graph cannot explain ends everything the old memory said
    vague = mem("Forget what I said about work.", 7)
    store.commit_ingest(
        IngestBatch(
            memories=[vague],
            vectors=np.stack([vec(2)]),
            graph=[graph(vague)],
            supersede=[(moved.id, vague.id)],
            now=at(7),
        )
    )
    assert open_targets(store) == []
    assert open_targets(store, rtype="works_at") == ["Siemens"]  # said by `old`, not `moved`
    user = store.find_entities(["user"])[0]
    lisbon = next(r for r in store.relations_of([user.id]) if r.memory_id == moved.id)
    assert lisbon.valid_to == at(7) and lisbon.properties["retired_by"] == vague.id


def test_deleting_a_memory_deletes_the_facts_it_was_the_evidence_of(store):
    """A hard delete leaves nothing of the memory behind: "User lives in Lisbon" stated only
    by the deleted memory is gone from the graph; another memory's facts stay."""
    lisbon = mem("I live in Lisbon.", 0, entities=["Lisbon"])
    dog = mem("I have a dog called Rex.", 1, entities=["Rex"])
    store.insert([lisbon, dog], np.stack([vec(0), vec(1)]))
    owns = Fact(USER, "owns", Mention("Rex", "pet"), "own", False, False)
    store.write_graph([graph(lisbon, lives("Lisbon")), graph(dog, owns)], now=T0)
    assert open_targets(store) == ["Lisbon"]
    assert store.delete([lisbon.id]) == 1
    assert open_targets(store) == []
    assert open_targets(store, rtype="owns") == ["Rex"]
