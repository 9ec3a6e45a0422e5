"""Conformance at the boundaries: every list-taking store method with 1,000+ ids or keys, and
a long text naming hundreds of entity n-grams, on every backend.

SQLite binds one parameter per list value (statements are chunked under its limit);
PostgreSQL binds a list as one array (chunked too, so no array grows without bound). Before
the shared relational core, SQLite's `find_entities` silently kept only the first 300 keys, so
`graph.distances_for_query()` differed by backend for a 150-word message.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import pairwise

import numpy as np
import pytest

from salience.clock import FrozenClock
from salience.graph.kg import KnowledgeGraph
from salience.models import EmbeddingInfo, Memory, MemoryFilter, normalize_entity, validate_memory
from salience.models.graph import Entity, Relation
from salience.store.ingest import HarvestMark, QueueItem
from salience.store.maintenance import ScoreUpdate
from salience.store.relational.dialect import POSTGRES, SQLITE

DIM = 8
N = 1_000  # over SQLite's 900-value chunks (300 for a list named three times)
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
LINKED = range(0, N, 50)  # the memories that name an entity (`e<i>`): 20, spread over chunks


def _mem(i: int, **kw) -> Memory:
    kw.setdefault("created_at", T0 + timedelta(seconds=i))
    kw.setdefault("updated_at", kw["created_at"])
    return validate_memory(Memory(content=f"note number {i}", **kw))


@pytest.fixture
def store(make_store):
    s = make_store()
    s.pin_embedding(EmbeddingInfo("test-model", DIM))
    return s


def test_lists_of_1000_ids_and_keys(store):
    mems = [_mem(i, entities=[f"e{i}"] if i in LINKED else []) for i in range(N)]
    store.insert(mems, np.eye(DIM, dtype=np.float32)[np.arange(N) % DIM])
    ids = [m.id for m in mems]
    linked = [mems[i].id for i in LINKED]
    wanted = [*reversed(ids), "missing-id", ids[0]]  # order kept, unknown skipped, repeats kept
    assert [m.id for m in store.get_many(wanted)] == [*reversed(ids), ids[0]]
    assert set(store.get_vectors(ids)) == set(ids)
    assert store.find_by_hashes([m.content_hash for m in mems]) == {
        m.content_hash: m.id for m in mems
    }
    assert store.visible_as_of(ids, T0 + timedelta(days=1)) == set(ids)
    assert store.count(MemoryFilter(ids=ids)) == N
    assert len(store.list(MemoryFilter(ids=ids), limit=N)) == N
    assert store.record_retrievals([*ids, *ids], T0, boost=0.5) == N
    assert {m.retrieval_count for m in store.get_many(ids)} == {1}
    assert store.set_scores([ScoreUpdate(i, 3.0, 0.25) for i in ids]) == N
    assert {(m.salience, m.usefulness) for m in store.get_many(ids)} == {(3.0, 0.25)}

    links = store.memory_entity_ids(ids)
    assert sorted(links) == sorted(linked) and all(len(v) == 1 for v in links.values())
    entity_ids = [f"unknown-{i}" for i in range(N)] + [v[0] for v in links.values()]
    assert sorted(m for m, _ in store.entity_memory_links(entity_ids)) == sorted(linked)
    assert len(store.get_entities(entity_ids)) == len(LINKED)
    names = [f"e{i}" for i in range(N)]  # 1,000 keys, 20 of them known, the last at 950
    assert store.entity_frequencies(names) == {normalize_entity(f"e{i}"): 1 for i in LINKED}
    assert len(store.search_entities(names, limit=N)) == len(LINKED)
    # every key past the 300th is still looked up (SQLite used to drop them)
    found = store.find_entities([normalize_entity(n) for n in names])
    assert sorted(e.name for e in found) == sorted(f"e{i}" for i in LINKED)

    assert store.delete([*ids, "missing-id"]) == N
    assert store.count() == 0
    assert store.get_many(ids) == []


def test_find_entities_orders_across_chunks(store):
    """Name matches first, then open entities, then oldest — over the whole list, however it
    is chunked: the alias match (early key) ranks below the name match (late key)."""
    t1 = T0 + timedelta(seconds=1)
    late = Entity(name="zed", entity_type="person", valid_from=t1, recorded_at=t1)
    early = Entity(
        name="ann", entity_type="person", aliases=["zed"], valid_from=T0, recorded_at=T0
    )
    store.insert_entity(early)
    store.insert_entity(late)
    keys = ["zed", *(f"k{i}" for i in range(N)), "ann"]  # zed's chunk finds ann by alias
    got = [e.name for e in store.find_entities(keys)]
    assert got == ["ann", "zed"]  # both by name (a later chunk), the older first
    got = [e.name for e in store.find_entities(["zed", *(f"k{i}" for i in range(N))])]
    assert got == ["zed", "ann"]  # zed by name, ann by its alias


def test_relations_of_1000_entities(store):
    ents = [Entity(name=f"p{i}", entity_type="person", valid_from=T0, recorded_at=T0)
            for i in range(4)]
    for e in ents:
        store.insert_entity(e)
    for a, b in pairwise(ents):
        store.insert_relation(Relation(a.id, b.id, "knows", valid_from=T0, recorded_at=T0))
    # each relation's two ends in different chunks: found once, ordered over all chunks
    ids = [ents[0].id, ents[2].id, *(f"unknown-{i}" for i in range(N)), ents[1].id, ents[3].id]
    rels = store.relations_of(ids)
    assert len(rels) == 3 == len({r.id for r in rels})
    assert [(r.recorded_at, r.id) for r in rels] == sorted((r.recorded_at, r.id) for r in rels)


def test_harvest_and_failed_lists_of_1000(store):
    marks = [HarvestMark("mbox", f"msg-{i}", "inbox") for i in range(N)]
    store.enqueue(
        "triage", [QueueItem("x", {"i": i}, T0, harvest=m) for i, m in enumerate(marks)]
    )
    keys = [m.key for m in marks]
    assert store.harvested("mbox", [*keys, "unseen"]) == set(keys)
    for item in store.due_items("triage", now=None, limit=3):
        assert store.fail_item(
            "triage", item.id, "boom", now=T0, retry_at=T0, max_attempts=1
        ) == "failed"
    failed = [op.id for op in store.failed_operations(limit=N)]
    unknown = [10**9 + i for i in range(N)]
    assert store.retry_failed([failed[0], *unknown, *failed[1:]], now=T0) == 3
    assert store.queue_counts()["pending_triage"] == N


def test_long_text_with_hundreds_of_entity_ngrams(store):
    """A 400-word message makes ~1,200 n-gram keys; the entities it names near its end are
    found on every backend."""
    names = ["Rex", "Berlin", "Sam"]
    m = _mem(0, entities=names)
    store.insert([m], np.eye(DIM, dtype=np.float32)[:1])
    filler = " ".join(f"word{i}" for i in range(400))
    kg = KnowledgeGraph(store, FrozenClock(T0 + timedelta(days=1)))
    assert kg.distances_for_query(f"{filler} Rex met Sam in Berlin") == {m.id: 0}
    assert len(kg.anchors(f"{filler} and Berlin")) == 1


@pytest.mark.parametrize("dialect", [SQLITE, POSTGRES], ids=lambda d: d.name)
def test_chunks_respect_the_parameter_budget(dialect):
    values = [f"v{i}" for i in range(70_000)] + ["v0"]
    for uses in (1, 2, 3):
        chunks = list(dialect.chunks(values, uses))
        assert [v for c in chunks for v in c] == values[:-1]  # duplicates removed, order kept
        assert max(len(c) for c in chunks) * uses <= dialect.max_params


def test_get_many_beyond_65535_ids(store):
    """More ids than PostgreSQL's 65,535 bind parameters (and any single array should hold)."""
    mems = [_mem(i) for i in range(3)]
    store.insert(mems)
    ids = [mems[0].id, *(f"unknown-{i}" for i in range(70_000)), mems[2].id, mems[1].id]
    assert [m.id for m in store.get_many(ids)] == [mems[0].id, mems[2].id, mems[1].id]
