"""Issue 14 §4, "the graph fills itself": every agent path types the entities a memory mentions,
turns its claims into bitemporal relations, `about()` finds any mentioned entity, and search
feeds design B's contextual signal from the query's entities. On every backend."""

from __future__ import annotations

from datetime import timedelta

import pytest

from salience.graph.extract import USER
from salience.models.graph import AUTO_ENTITY_TYPE


def lives_in(mind, **kw) -> list[tuple[str, str | None]]:
    g = mind.graph
    user = g.resolve(USER)
    rels = g.relations(user.id, relation_type="lives_in", **kw)
    return [(g.get_entity(r.target_id).name, r.memory_id) for r in rels]


def test_ingested_entities_get_real_types(mind):
    mind.remember_turn(
        "My manager Sam approved the budget. I live in Berlin.", "Noted.", defer=False
    )
    mind.save_memory("My dog Rex hates the vet; I work at Siemens.")
    mind.add("The Apollo project kickoff is with Priya.")
    g = mind.graph
    got = {
        n: g.resolve(n).entity_type for n in ("Sam", "Berlin", "Siemens", "Rex", "Apollo", "Priya")
    }
    assert got == {
        "Sam": "person",
        "Berlin": "place",
        "Siemens": "organization",
        "Rex": "pet",
        "Apollo": "project",
        "Priya": "person",
    }
    assert all(e.entity_type != AUTO_ENTITY_TYPE for e in g.entities())


def test_claims_become_bitemporal_relations(mind, clock):
    t0 = clock.now()
    first = mind.save_memory("I live in Berlin.").saved[0]
    clock.advance(days=30)
    moved = mind.remember_turn("I moved to Lisbon last week.", defer=False).saved[0]
    assert lives_in(mind) == [("Lisbon", moved)]
    assert lives_in(mind, as_of=t0 + timedelta(days=1)) == [("Berlin", first)]
    g = mind.graph
    old = next(r for r in mind.store.relations_of([g.resolve(USER).id]) if r.memory_id == first)
    assert old.valid_to == t0 + timedelta(days=30)  # ended when the new statement was made
    assert old.properties["retired_by"] == moved
    # saying it again is not a second fact
    clock.advance(days=1)
    mind.add("I live in Lisbon.")
    assert lives_in(mind) == [("Lisbon", moved)]
    # a negation ends the fact
    clock.advance(days=1)
    mind.add("I work at Siemens.")
    clock.advance(days=1)
    mind.add("I left Siemens.")
    assert g.relations(g.resolve(USER).id, relation_type="works_at") == []


def test_the_speaker_is_the_subject(mind):
    mind.remember_turn("I moved to Sweden last year.", speaker="Caroline", defer=False)
    g = mind.graph
    caroline = g.resolve("Caroline")
    assert caroline.entity_type == "person"
    assert [g.get_entity(n.entity.id).name for n in g.neighbors(caroline.id)] == ["Sweden"]
    assert g.resolve(USER) is None  # nothing was said about the user


def test_superseded_memories_retire_their_relations(mind, clock):
    old = mind.add("My manager is Tom.")
    clock.advance(days=3)
    new = mind.add("Tom is retiring soon, Alex takes over the team.")
    mind.store.write_graph([], supersede=[(old, new)], now=clock.now())
    g = mind.graph
    assert g.relations(g.resolve(USER).id, relation_type="reports_to") == []
    past = g.relations(
        g.resolve(USER).id, relation_type="reports_to", as_of=clock.now() - timedelta(days=1)
    )
    assert [g.get_entity(r.target_id).name for r in past] == ["Tom"]


def test_about_works_for_any_mentioned_entity(mind):
    turn = mind.remember_turn("Lunch with Sam tomorrow at noon.", "Enjoy!", defer=False).saved[0]
    saved = mind.save_memory("Sam is moving to the Lisbon office next month.").saved[0]
    added = mind.add("Sam and Priya shipped the release.")
    mind.add("The weather was nice.")
    g = mind.graph
    for name in ("Sam", "sam", " SAM "):
        assert {m.id for m in g.about(name)} == {turn, saved, added}
    assert [m.id for m in g.about("lisbon")] == [saved]
    g.add_alias(g.resolve("Sam").id, "Samuel")
    assert {m.id for m in g.about("samuel")} == {turn, saved, added}
    assert g.about("Rex") == []
    # the records keep the entities they were given; updating one keeps its mentions
    assert mind.get(added).entities == []
    mind.update(added, tags=["release"])
    assert added in {m.id for m in g.about("Priya")}


def test_search_feeds_the_contextual_signal(mind, monkeypatch):
    sam = mind.add("My manager Sam likes chess.")
    job = mind.add("I work at Siemens.")
    other = mind.add("The quarterly report is due Friday.")
    hits = mind.search("What does Sam like?", preset="rrf-connected", limit=10, feedback=False)
    ctx = {h.memory.id: h.explanation["contextual"] for h in hits}
    assert ctx[sam] == 1.0  # names Sam
    assert ctx[job] == 0.4  # Sam -(reports_to)- User -(works_at)- Siemens
    assert ctx.get(other, 0.0) == 0.0
    # explicit distances win; presets that never read them do not walk the graph
    calls: list[str] = []
    real = mind.graph.distances_for_query
    monkeypatch.setattr(
        mind.graph, "distances_for_query", lambda q, **kw: calls.append(q) or real(q, **kw)
    )
    mind.search("Sam", preset="formula", feedback=False)
    mind.search("Sam", preset="rrf", feedback=False)
    mind.search("Sam", preset="rrf-connected", distances={}, feedback=False)
    assert calls == []
    mind.search("Sam", preset="rrf-balanced", feedback=False)
    assert calls == ["Sam"]


@pytest.mark.parametrize("path", ["add", "save_memory", "turn"])
def test_every_agent_path_fills_the_graph(mind, path):
    text = "I work at Siemens."
    if path == "add":
        mind.add(text)
    elif path == "save_memory":
        mind.save_memory(text)
    else:
        mind.remember_turn(text, defer=False)
    g = mind.graph
    rels = g.relations(g.resolve(USER).id, relation_type="works_at")
    assert [g.get_entity(r.target_id).name for r in rels] == ["Siemens"]
    assert rels[0].memory_id is not None and mind.get(rels[0].memory_id).content.endswith(text)


def test_fill_gives_an_older_mind_its_graph(mind, clock):
    first = mind.add_many(["I live in Berlin. My manager Sam is great."], graph=False)[0]
    clock.advance(days=10)
    moved = mind.add_many(["I moved to Lisbon."], graph=False)[0]
    mind.update(first, superseded_by=moved)
    g = mind.graph
    assert g.resolve(USER) is None and g.about("Sam") == []
    assert g.fill(batch_size=1) == 2
    assert lives_in(mind) == [("Lisbon", moved)]
    assert [m.id for m in g.about("Sam")] == []  # its memory is superseded ...
    assert [m.id for m in g.about("Sam", include_superseded=True)] == [first]
    manager = g.relations(g.resolve(USER).id, relation_type="reports_to")
    assert [g.get_entity(r.target_id).name for r in manager] == ["Sam"]  # ... its job fact holds
    counts = mind.store.graph_counts()
    assert g.fill() == 2 and mind.store.graph_counts() == counts  # idempotent
    # mentions only (a restored mind's relations came with its export)
    other = mind.add_many(["Priya joined the Apollo project."], graph=False)[0]
    g.fill(facts=False)
    assert [m.id for m in g.about("priya")] == [other]
    assert mind.store.graph_counts()["relations"] == counts["relations"]
