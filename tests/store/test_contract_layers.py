"""Conformance suite for the layer storage (identity, awareness, sessions/frames, knowledge
graph, time travel), run against every backend through `make_store`."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest

from salience.errors import ConflictError, InvalidInput, NotFound
from salience.models import FrameType, Memory, new_id, validate_memory
from salience.models.graph import Entity, Relation
from salience.models.layers import (
    AwarenessCategory,
    AwarenessFull,
    AwarenessItem,
    Identity,
    Session,
    SessionStatus,
)

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def mem(content: str, i: int = 0, **kw) -> Memory:
    kw.setdefault("created_at", T0 + timedelta(minutes=i))
    kw.setdefault("updated_at", kw["created_at"])
    return validate_memory(Memory(content=content, **kw))


@pytest.fixture
def store(make_store):
    return make_store()


# -- identity -------------------------------------------------------------------------------
def test_identity_single_row(store):
    assert store.get_identity() is None
    with pytest.raises(NotFound):
        store.update_identity(Identity(name="x", created_at=T0, updated_at=T0))
    ident = Identity(
        name="Ada", role="assistant", traits={"curious": 0.9}, created_at=T0, updated_at=T0
    )
    store.create_identity(ident)
    with pytest.raises(ConflictError):
        store.create_identity(Identity(name="Second", created_at=T0, updated_at=T0))
    got = store.get_identity()
    assert got == ident
    ident.role = "researcher"
    ident.updated_at = T0 + timedelta(hours=1)
    store.update_identity(ident)
    assert store.get_identity().role == "researcher"
    assert store.get_identity().name == "Ada"


# -- awareness ------------------------------------------------------------------------------
def aw(content: str, priority: int = 0, **kw) -> AwarenessItem:
    kw.setdefault("created_at", T0)
    kw.setdefault("updated_at", T0)
    return AwarenessItem(content=content, priority=priority, **kw)


def test_awareness_cap_enforced_on_write(store):
    for i in range(10):
        store.add_awareness(aw(f"item {i}", i), now=T0, cap=10)
    with pytest.raises(AwarenessFull, match="10"):
        store.add_awareness(aw("eleventh"), now=T0, cap=10)
    assert len(store.list_awareness(now=T0, limit=100)) == 10


def test_awareness_expired_items_free_the_cap_and_are_never_read(store):
    store.add_awareness(aw("soon gone", expires_at=T0 + timedelta(minutes=5)), now=T0, cap=2)
    store.add_awareness(aw("stays"), now=T0, cap=2)
    with pytest.raises(AwarenessFull):
        store.add_awareness(aw("third"), now=T0, cap=2)
    later = T0 + timedelta(minutes=5)
    assert [i.content for i in store.list_awareness(now=later)] == ["stays"]
    store.add_awareness(aw("third"), now=later, cap=2)  # the expired one no longer counts
    assert store.purge_awareness(later) == 1


def test_awareness_order_category_update_delete(store):
    a = aw("low", 1, category=AwarenessCategory.TASK)
    b = aw("high", 5, category=AwarenessCategory.FLAG, metadata={"status": "blocked"})
    c = aw("mid", 3, category=AwarenessCategory.TASK)
    for x in (a, b, c):
        store.add_awareness(x, now=T0, cap=10)
    assert [i.content for i in store.list_awareness(now=T0)] == ["high", "mid", "low"]
    tasks = store.list_awareness(now=T0, category=AwarenessCategory.TASK)
    assert [i.content for i in tasks] == ["mid", "low"]
    assert store.get_awareness(b.id).metadata == {"status": "blocked"}
    b.content = "higher"
    store.update_awareness(b)
    assert store.get_awareness(b.id).content == "higher"
    assert store.delete_awareness(a.id) is True
    assert store.delete_awareness(a.id) is False
    with pytest.raises(NotFound):
        store.update_awareness(a)


def test_awareness_cap_holds_under_concurrent_writers(make_store, store):
    handles = [store, make_store()]  # same mind name: a second handle on the same data
    errors: list[BaseException] = []
    full = []

    def work(h, k):
        for i in range(8):
            try:
                h.add_awareness(aw(f"w{k}-{i}"), now=T0, cap=10)
            except AwarenessFull:
                full.append(1)
            except BaseException as e:
                errors.append(e)

    threads = [threading.Thread(target=work, args=(h, k)) for k, h in enumerate(handles)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(store.list_awareness(now=T0, limit=100)) == 10
    assert len(full) == 6


# -- sessions and frames ----------------------------------------------------------------------
def test_sessions_crud(store):
    s = Session(id="s-1", project_id="p", opened_at=T0, updated_at=T0)
    store.create_session(s)
    with pytest.raises(ConflictError):
        store.create_session(s)
    assert store.get_session("s-1") == s
    s.status = SessionStatus.CLOSED
    s.summary = "done"
    s.closed_at = T0 + timedelta(hours=1)
    store.update_session(s)
    assert store.get_session("s-1").status is SessionStatus.CLOSED
    store.create_session(Session(id="s-2", opened_at=T0 + timedelta(hours=2), updated_at=T0))
    assert [x.id for x in store.list_sessions()] == ["s-2", "s-1"]
    assert [x.id for x in store.list_sessions(project_id="p")] == ["s-1"]
    assert [x.id for x in store.list_sessions(status=SessionStatus.OPEN)] == ["s-2"]
    with pytest.raises(NotFound):
        store.update_session(Session(id="nope", opened_at=T0, updated_at=T0))


def test_session_t_assigned_monotonically_and_session_registered(store):
    ms = [mem(f"turn {i}", i, session_id="gop") for i in range(3)]
    store.insert(ms[:2])
    store.insert(ms[2:])
    assert [m.t for m in ms] == [1, 2, 3]
    assert [store.get(m.id).t for m in ms] == [1, 2, 3]
    assert store.get_session("gop").status is SessionStatus.OPEN
    explicit = mem("explicit", 9, session_id="gop", t=10)
    store.insert([explicit])
    nxt = mem("next", 10, session_id="gop")
    store.insert([nxt])
    assert nxt.t == 11
    with pytest.raises(InvalidInput, match="already used"):
        store.insert([mem("dup t", 11, session_id="gop", t=10)])
    # the chunks of one item share its `t`; another item at that `t` is still refused
    head = mem("long turn, part 1", 12, session_id="gop", t=20)
    tail = mem("long turn, part 2", 13, session_id="gop", t=20, parent_id=head.id, chunk_index=1)
    store.insert([head, tail])
    assert store.get(tail.id).t == 20
    with pytest.raises(InvalidInput, match="already used"):
        store.insert([mem("another turn", 14, session_id="gop", t=20)])


def test_concurrent_writers_never_share_t(make_store, store):
    other = make_store()
    handles = [store, other]

    def work(h, k):
        for i in range(15):
            h.insert([mem(f"w{k} {i}", i, session_id="shared")])

    threads = [threading.Thread(target=work, args=(h, k)) for k, h in enumerate(handles)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ts = [m.t for m in store.session_frames("shared")]
    assert sorted(ts) == list(range(1, 31))


def test_frame_rules_on_write(store):
    i1 = mem("snapshot", 0, session_id="a")
    other = mem("other session", 1, session_id="b")
    store.insert([i1, other])
    p1 = mem("patch", 2, session_id="a", frame_type=FrameType.P, base_frame_id=i1.id)
    store.insert([p1])
    with pytest.raises(InvalidInput, match="must be an I-frame"):
        store.insert([mem("p on p", 3, session_id="a", frame_type="P", base_frame_id=p1.id)])
    with pytest.raises(InvalidInput, match="same session"):
        store.insert([mem("p across", 4, session_id="b", frame_type="P", base_frame_id=i1.id)])
    with pytest.raises(InvalidInput, match="same session"):
        store.insert([mem("p no session", 5, frame_type="P", base_frame_id=i1.id)])
    with pytest.raises(InvalidInput, match="not found"):
        store.insert([mem("p dangling", 6, session_id="a", frame_type="P", base_frame_id=new_id())])
    with pytest.raises(InvalidInput, match="needs a base"):
        store.insert([mem("b none", 7, frame_type="B")])
    with pytest.raises(InvalidInput, match="standalone"):
        store.insert([mem("i with base", 8, base_frame_id=i1.id)])
    b = mem("branch", 9, session_id="b", frame_type="B", base_frame_id=p1.id)
    store.insert([b])  # a B-frame may branch from any frame, any session
    assert store.count() == 4


def test_session_frames_filters_and_order(store):
    i1 = mem("v1", 0, session_id="s")
    store.insert([i1])
    p = [mem(f"p{k}", k + 1, session_id="s", frame_type="P", base_frame_id=i1.id) for k in range(3)]
    store.insert(p)
    got = store.session_frames("s", frame_type=FrameType.P, base_frame_id=i1.id)
    assert [m.content for m in got] == ["p0", "p1", "p2"]
    assert [m.frame_type for m in store.session_frames("s")] == ["I", "P", "P", "P"]


def test_session_turns_is_a_window_of_one_session(store):
    store.insert([mem(f"a{k}", k, session_id="a", t=k) for k in range(6)]
                 + [mem("b2", 9, session_id="b", t=2)])
    assert [m.content for m in store.session_turns("a", 2, 4)] == ["a2", "a3", "a4"]
    assert [m.content for m in store.session_turns("b", -1, 3)] == ["b2"]
    assert store.session_turns("a", 7, 9) == []


def test_orphaned_patch_stays_updatable(store):
    i1 = mem("v1", 0, session_id="s")
    store.insert([i1])
    p = mem("p", 1, session_id="s", frame_type="P", base_frame_id=i1.id)
    store.insert([p])
    store.delete([i1.id])
    store.update([p.copy(salience=9.0)])
    assert store.get(p.id).salience == 9.0


# -- time travel ------------------------------------------------------------------------------
def test_visible_as_of_follows_superseded_at(store):
    old = mem("lives in Porto", 0)
    store.insert([old])
    new = mem("lives in Lisbon", 60)
    store.insert([new])
    store.update([old.copy(superseded_by=new.id, updated_at=T0 + timedelta(minutes=61))])
    ids = [old.id, new.id]
    assert store.visible_as_of(ids, T0 + timedelta(minutes=30)) == {old.id}
    assert store.visible_as_of(ids, T0 + timedelta(minutes=60)) == {old.id, new.id}
    assert store.visible_as_of(ids, T0 + timedelta(minutes=61)) == {new.id}
    # a later update keeps the first supersession time
    store.update([store.get(old.id).copy(salience=2.0, updated_at=T0 + timedelta(days=3))])
    assert store.visible_as_of(ids, T0 + timedelta(minutes=60, seconds=30)) == set(ids)
    # clearing superseded_by makes it visible again
    store.update([store.get(old.id).copy(superseded_by=None)])
    assert store.visible_as_of(ids, T0 + timedelta(days=9)) == set(ids)


# -- knowledge graph --------------------------------------------------------------------------
def ent(name: str, etype: str = "person", **kw) -> Entity:
    kw.setdefault("valid_from", T0)
    kw.setdefault("recorded_at", T0)
    return Entity(name=name, entity_type=etype, **kw)


def rel(a: Entity, rtype: str, b: Entity, **kw) -> Relation:
    kw.setdefault("valid_from", T0)
    kw.setdefault("recorded_at", T0)
    return Relation(source_id=a.id, target_id=b.id, relation_type=rtype, **kw)


def test_entities_roundtrip_aliases_and_find(store):
    bob = ent("Robert", aliases=["Bob", "Bobby"], properties={"age": 40}, confidence=0.9)
    store.insert_entity(bob)
    got = store.get_entity(bob.id)
    assert got.name == "Robert" and got.properties == {"age": 40} and got.confidence == 0.9
    assert sorted(got.aliases) == ["Bob", "Bobby"]
    assert [e.id for e in store.find_entities(["bob"])] == [bob.id]
    assert [e.id for e in store.find_entities(["robert"])] == [bob.id]
    assert store.find_entities(["alice"]) == []
    with pytest.raises(ConflictError):
        store.insert_entity(bob)
    bob.aliases = ["Rob"]
    store.update_entity(bob)
    assert store.find_entities(["bob"]) == []
    assert store.get_entity(bob.id).aliases == ["Rob"]
    with pytest.raises(NotFound):
        store.update_entity(ent("ghost"))


def test_entity_and_relation_validity_as_of(store):
    alice, acme, beta = ent("Alice"), ent("Acme", "organization"), ent("Beta", "organization")
    for e in (alice, acme, beta):
        store.insert_entity(e)
    r1 = rel(alice, "works_at", acme, valid_to=T0 + timedelta(days=10))
    r2 = rel(
        alice,
        "works_at",
        beta,
        valid_from=T0 + timedelta(days=10),
        recorded_at=T0 + timedelta(days=11),
    )
    store.insert_relation(r1)
    store.insert_relation(r2)
    at = lambda d: T0 + timedelta(days=d)  # noqa: E731
    assert [r.target_id for r in store.relations_of([alice.id], as_of=at(5))] == [acme.id]
    assert store.relations_of([alice.id], as_of=at(10.5)) == []  # Beta not yet recorded
    assert [r.target_id for r in store.relations_of([alice.id], as_of=at(12))] == [beta.id]
    assert len(store.relations_of([alice.id])) == 2  # no as_of: all history
    assert [r.id for r in store.relations_of([acme.id], as_of=at(5))] == [r1.id]
    assert store.relations_of([alice.id], as_of=at(12), relation_type="knows") == []
    assert [e.name for e in store.list_entities(as_of=at(1))] == ["Acme", "Alice", "Beta"]
    assert [e.name for e in store.list_entities(entity_type="organization")] == ["Acme", "Beta"]
    beta.valid_to = at(20)
    store.update_entity(beta)
    assert [e.name for e in store.list_entities(as_of=at(21))] == ["Acme", "Alice"]


def test_relation_to_unknown_entity_and_bad_interval_rejected(store):
    alice = ent("Alice")
    store.insert_entity(alice)
    with pytest.raises(NotFound, match="unknown entity"):
        store.insert_relation(
            Relation(
                source_id=alice.id,
                target_id=new_id(),
                relation_type="knows",
                valid_from=T0,
                recorded_at=T0,
            )
        )
    r = rel(alice, "knows", alice)
    store.insert_relation(r)
    assert store.get_relation(r.id).relation_type == "knows"
    r.valid_to = T0 - timedelta(days=1)  # the schema refuses valid_to < valid_from
    with pytest.raises(InvalidInput):
        store.update_relation(r)
    bad = ent("Backwards", valid_to=T0 - timedelta(days=1))
    with pytest.raises(InvalidInput):
        store.insert_entity(bad)
    with pytest.raises(NotFound):
        store.update_relation(rel(alice, "knows", alice))


def test_ingestion_links_memory_entities(store):
    m1 = mem("Robert (Bob) joined Acme", 0, entities=["Robert (Bob)", "Acme"])
    m2 = mem("bob likes tea", 1, entities=["bob "])
    m3 = mem("Alice met Bob", 2, entities=["Alice", "Bob"])
    store.insert([m1, m2, m3])
    robert = store.find_entities(["robert"])
    assert len(robert) == 1 and robert[0].aliases == ["Bob"]
    rid = robert[0].id
    linked = {mid for mid, eid in store.entity_memory_links([rid])}
    assert linked == {m1.id, m2.id, m3.id}
    assert len(store.memory_entity_ids([m3.id])[m3.id]) == 2
    # update replaces links; delete removes them
    store.update([m2.copy(entities=["Acme"])])
    assert {mid for mid, _ in store.entity_memory_links([rid])} == {m1.id, m3.id}
    store.delete([m1.id])
    assert {mid for mid, _ in store.entity_memory_links([rid])} == {m3.id}
    counts = store.graph_counts()
    assert counts["entities"] == 3 and counts["entity_links"] == 3
