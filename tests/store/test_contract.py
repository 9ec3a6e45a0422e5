"""The store conformance suite: every store behaviour, run against every backend."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from salience.errors import EmbedderMismatch, InvalidInput, NotFound, SalienceError
from salience.models import (
    EmbeddingInfo,
    Importance,
    Memory,
    MemoryFilter,
    MemoryType,
    Source,
    new_id,
    validate_memory,
)

DIM = 8
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def unit(*xs: float) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[: len(xs)] = xs
    return v / np.linalg.norm(v)


def mem(content: str, i: int = 0, **kw) -> Memory:
    kw.setdefault("created_at", T0 + timedelta(minutes=i))
    kw.setdefault("updated_at", kw["created_at"])
    return validate_memory(Memory(content=content, **kw))


@pytest.fixture
def store(make_store):
    s = make_store()
    s.pin_embedding(EmbeddingInfo("test-model", DIM))
    return s


def test_schema_version_and_meta(store):
    assert store.schema_version() >= 1
    assert store.get_meta("nope") is None
    store.set_meta("k", "v1")
    store.set_meta("k", "v2")
    assert store.get_meta("k") == "v2"


def test_pin_embedding_refuses_other_model(store):
    store.pin_embedding(EmbeddingInfo("test-model", DIM))  # same: fine
    assert store.embedding_info() == EmbeddingInfo("test-model", DIM)
    with pytest.raises(EmbedderMismatch, match="test-model"):
        store.pin_embedding(EmbeddingInfo("other-model", DIM))
    with pytest.raises(EmbedderMismatch):
        store.pin_embedding(EmbeddingInfo("test-model", DIM * 2))


def test_roundtrip_every_field(store):
    base = mem("Alice lives in Leeds.", session_id="s-1", t=1)  # the I-frame the P-frame patches
    store.insert([base])
    m = mem(
        "Alice moved to Lisbon in May.",
        summary="Alice moved",
        memory_type=MemoryType.FACT,
        importance=Importance.IMPORTANT,
        source=Source.TOOL_VERIFIED,
        salience=7.25,
        confidence=0.8,
        usefulness=0.6,
        retrieval_count=3,
        last_retrieved_at=T0 + timedelta(days=1),
        tags=["Travel", "home"],
        entities=["Alice", "Lisbon"],
        related_ids=[new_id()],
        parent_id=new_id(),
        chunk_index=2,
        session_id="s-1",
        t=4,
        frame_type="P",
        base_frame_id=base.id,
        pinned=True,
        occurred_at=datetime(2026, 5, 1, tzinfo=UTC),
        metadata={"speaker": "Alice", "n": [1, 2], "ü": "ñ"},
    )
    store.insert([m], np.stack([unit(1, 0)]))
    got = store.get(m.id)
    assert got is not None
    assert got.to_dict() == m.to_dict()
    assert got.created_at.tzinfo is not None


def test_insert_is_all_or_nothing(store):
    a = mem("first")
    store.insert([a], np.stack([unit(1)]))
    b = mem("second")
    dup = mem("third", id=a.id)
    with pytest.raises(InvalidInput, match="already exists"):
        store.insert([b, dup], np.stack([unit(1), unit(0, 1)]))
    assert store.get(b.id) is None
    assert store.count() == 1


def test_wrong_dimension_and_nan_vectors_rejected(store):
    with pytest.raises(EmbedderMismatch):
        store.insert([mem("x")], np.ones((1, DIM + 1), dtype=np.float32))
    bad = np.stack([unit(1)])
    bad[0, 0] = np.nan
    with pytest.raises(InvalidInput):
        store.insert([mem("y")], bad)
    with pytest.raises(InvalidInput):
        store.insert([mem("z"), mem("w")], np.stack([unit(1)]))
    assert store.count() == 0


def test_get_many_keeps_order_and_skips_unknown(store):
    ms = [mem(f"m{i}", i) for i in range(5)]
    store.insert(ms)
    ids = [ms[3].id, new_id(), ms[0].id]
    assert [m.id for m in store.get_many(ids)] == [ms[3].id, ms[0].id]


def test_update_replaces_fields_and_index(store):
    m = mem("the cat sat on the mat", tags=["pets"], entities=["Tom"])
    store.insert([m], np.stack([unit(1)]))
    changed = m.copy(content="the dog barked loudly", tags=["dogs"], entities=["Rex"], salience=9.0)
    validate_memory(changed)
    store.update([changed], np.stack([unit(0, 1)]))
    assert store.get(m.id).content == "the dog barked loudly"
    assert store.search_text(["cat"], limit=5) == []
    assert [c.id for c in store.search_text(["dog"], limit=5)] == [m.id]
    assert store.search_entities(["tom"], limit=5) == []
    assert [c.id for c in store.search_entities(["REX"], limit=5)] == [m.id]
    assert store.list(MemoryFilter(tags=["pets"])) == []
    top = store.search_vector(unit(0, 1), limit=1)
    assert top[0].id == m.id and top[0].score == pytest.approx(1.0, abs=1e-5)


def test_update_unknown_id_changes_nothing(store):
    a = mem("kept")
    store.insert([a])
    ghost = mem("ghost")
    with pytest.raises(NotFound):
        store.update([a.copy(salience=9.0), ghost])
    assert store.get(a.id).salience == 5.0


def test_delete(store):
    ms = [mem(f"note {i}", i) for i in range(3)]
    store.insert(ms, np.stack([unit(1), unit(0, 1), unit(0, 0, 1)]))
    assert store.delete([ms[0].id, new_id()]) == 1
    assert store.get(ms[0].id) is None
    assert store.delete([ms[0].id]) == 0
    assert store.search_text(["note"], limit=10) and all(
        c.id != ms[0].id for c in store.search_text(["note"], limit=10)
    )
    assert all(c.id != ms[0].id for c in store.search_vector(unit(1), limit=10))
    assert store.count() == 2


def test_find_by_hash(store):
    m = mem("  hello world  ")
    store.insert([m])
    assert store.find_by_hash(m.content_hash) == m.id
    assert store.find_by_hash("0" * 64) is None


def test_find_by_hashes_batches_and_prefers_the_oldest(store):
    ms = [mem(f"text {i}", i) for i in range(1200)]  # more than one SQL parameter batch
    twin = mem("text 5", 2000)  # the same content stored again later
    store.insert(ms)
    store.insert([twin])
    hashes = [m.content_hash for m in ms[::-1]] + ["0" * 64, ms[5].content_hash]
    got = store.find_by_hashes(hashes)
    assert got == {m.content_hash: m.id for m in ms}
    assert store.find_by_hashes([]) == {}


def test_text_search_is_literal_and_ranked(store):
    docs = [
        "Alice likes green tea",
        "Bob prefers coffee with milk",
        'she said "NEAR" AND OR NOT * - ^ are operators',
        "tea tea tea, always tea",
    ]
    ms = [mem(d, i) for i, d in enumerate(docs)]
    store.insert(ms)
    hits = store.search_text(["tea"], limit=10)
    assert {h.id for h in hits} == {ms[0].id, ms[3].id}
    assert hits[0].id == ms[3].id  # more occurrences in a shorter text ranks first
    assert [h.rank for h in hits] == [1, 2]
    assert all(0 <= h.score < 1 for h in hits)
    nasty = ['"', "*", "NEAR", "AND", "-", '"unbalanced', "a*b", "(x", "NEAR(a b)", "^", ":", "col:x", "'"]
    for term in nasty:
        store.search_text([term], limit=5)  # never raises
    assert [h.id for h in store.search_text(["NEAR"], limit=5)] == [ms[2].id]
    assert {h.id for h in store.search_text(["coffee", "green"], limit=5)} == {ms[0].id, ms[1].id}
    assert store.search_text([], limit=5) == []


def test_text_search_stems_and_folds_diacritics(store):
    m = mem("Running to São Paulo tomorrow")
    store.insert([m])
    assert [h.id for h in store.search_text(["runs"], limit=5)] == [m.id]
    assert [h.id for h in store.search_text(["sao"], limit=5)] == [m.id]


def test_vector_search_exact_order(store):
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(200, DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    ms = [mem(f"v{i}", i) for i in range(200)]
    store.insert(ms, vecs)
    q = vecs[17] + 0.1 * vecs[3]
    q /= np.linalg.norm(q)
    got = store.search_vector(q, limit=10)
    expect = np.argsort(-(vecs @ q), kind="stable")[:10]
    assert [c.id for c in got] == [ms[i].id for i in expect]
    assert got[0].score == pytest.approx(float(vecs[expect[0]] @ q), abs=1e-4)
    with pytest.raises(EmbedderMismatch):
        store.search_vector(np.ones(DIM + 2, dtype=np.float32), limit=3)


def test_vector_search_respects_filters(store):
    a = mem("a", 0, memory_type=MemoryType.FACT, session_id="s1")
    b = mem("b", 1, memory_type=MemoryType.EVENT, session_id="s2")
    c = mem("c", 2, memory_type=MemoryType.FACT)
    store.insert([a, b, c], np.stack([unit(1), unit(1, 0.1), unit(1, 0.2)]))
    got = store.search_vector(unit(1), limit=5, flt=MemoryFilter(memory_types=[MemoryType.EVENT]))
    assert [x.id for x in got] == [b.id]
    got = store.search_vector(unit(1), limit=5, flt=MemoryFilter(session_id="s1"))
    assert [x.id for x in got] == [a.id]


def test_superseded_hidden_by_default(store):
    new = mem("I live in Lisbon", 1)
    old = mem("I live in Leeds", 0, superseded_by=new.id)
    store.insert([old, new], np.stack([unit(1), unit(1, 0.1)]))
    assert {m.id for m in store.list()} == {new.id}
    assert {m.id for m in store.list(MemoryFilter(include_superseded=True))} == {old.id, new.id}
    assert [c.id for c in store.search_vector(unit(1), limit=5)] == [new.id]
    assert [c.id for c in store.search_text(["live"], limit=5)] == [new.id]
    assert store.count() == 2
    assert store.count(MemoryFilter()) == 1


def test_entity_search(store):
    a = mem("Alice and Bob went hiking", entities=["Alice", "Bob"])
    b = mem("Alice reads", 1, entities=["alice"])
    c = mem("Carol", 2, entities=["Carol"])
    store.insert([a, b, c])
    got = store.search_entities(["ALICE ", "bob"], limit=10)
    assert [x.id for x in got] == [a.id, b.id]
    assert [x.score for x in got] == [2.0, 1.0]
    assert store.search_entities(["nobody"], limit=10) == []


def test_entity_frequencies(store):
    store.insert([mem("a", 0, entities=["Alice", "Bob"]), mem("b", 1, entities=["alice"]),
                  mem("c", 2, entities=["Carol"])])
    assert store.entity_frequencies(["ALICE ", "bob", "nobody", ""]) == {"alice": 2, "bob": 1}
    assert store.entity_frequencies([]) == {}


def test_list_filters_and_order(store):
    ms = [
        mem("one", 0, memory_type="fact", tags=["x"], salience=2.0, source="import"),
        mem("two", 1, memory_type="event", tags=["y"], salience=8.0, importance="critical"),
        mem("three", 2, memory_type="fact", tags=["x", "y"], salience=5.0),
    ]
    store.insert(ms)
    ids = [m.id for m in ms]
    assert [m.id for m in store.list()] == ids[::-1]
    assert [m.id for m in store.list(order="created_asc")] == ids
    assert [m.id for m in store.list(order="salience_desc")] == [ids[1], ids[2], ids[0]]
    assert [m.id for m in store.list(MemoryFilter(memory_types=[MemoryType.FACT]), order="created_asc")] == [ids[0], ids[2]]
    assert {m.id for m in store.list(MemoryFilter(tags=["y"]))} == {ids[1], ids[2]}
    assert [m.id for m in store.list(MemoryFilter(sources=[Source.IMPORT]))] == [ids[0]]
    assert [m.id for m in store.list(MemoryFilter(importance=[Importance.CRITICAL]))] == [ids[1]]
    assert [m.id for m in store.list(MemoryFilter(min_salience=5.0), order="created_asc")] == ids[1:]
    since = MemoryFilter(since=T0 + timedelta(minutes=1), until=T0 + timedelta(minutes=2))
    assert [m.id for m in store.list(since)] == [ids[1]]
    assert [m.id for m in store.list(limit=1, offset=1)] == [ids[1]]
    assert store.count(MemoryFilter(tags=["x"])) == 2
    with pytest.raises(InvalidInput):
        store.list(order="random")


def test_iter_memories_and_get_vectors(store):
    vecs = np.stack([unit(1), unit(0, 1), unit(0, 0, 1)])
    ms = [mem(f"it {i}", i) for i in range(3)]
    store.insert(ms[:2], vecs[:2])
    store.insert(ms[2:])  # no vector
    got = list(store.iter_memories(batch_size=2))
    assert [m.id for m, _ in got] == [m.id for m in ms]
    assert got[2][1] is None
    np.testing.assert_allclose(got[1][1], vecs[1], atol=1e-6)
    vs = store.get_vectors([ms[0].id, ms[2].id])
    assert set(vs) == {ms[0].id}


def test_two_handles_see_each_others_writes(make_store, store):
    other = make_store()  # same mind, second handle (another process would behave alike)
    a = mem("from handle one")
    store.insert([a], np.stack([unit(1)]))
    assert [c.id for c in other.search_vector(unit(1), limit=1)] == [a.id]
    b = mem("from handle two", 1)
    other.insert([b], np.stack([unit(0, 1)]))
    assert [c.id for c in store.search_vector(unit(0, 1), limit=1)] == [b.id]
    other.delete([b.id])
    assert [c.id for c in store.search_vector(unit(0, 1), limit=2)] == [a.id]
    other.update([a.copy(content="changed")], np.stack([unit(0, 0, 1)]))
    assert store.search_vector(unit(0, 0, 1), limit=1)[0].score == pytest.approx(1.0, abs=1e-5)


def test_concurrent_writers_lose_nothing(make_store, store):
    handles = [make_store() for _ in range(4)]
    errors: list[BaseException] = []

    def work(h, k):
        try:
            for i in range(25):
                h.insert([mem(f"writer {k} item {i}", i)], np.stack([unit(1, k, i)]))
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(h, k)) for k, h in enumerate(handles)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.count() == 100
    assert len(store.search_vector(unit(1), limit=200)) == 100


def test_stats(store):
    store.insert([mem("s1"), mem("s2", 1, memory_type="fact")], np.stack([unit(1), unit(0, 1)]))
    st = store.stats()
    assert st["memories"] == 2
    assert st["vectors"] == 2
    assert st["by_type"] == {"general": 1, "fact": 1}
    assert st["embedding"] == {"model": "test-model", "dim": DIM}
    assert st["backend"] == store.backend


def test_errors_are_salience_errors(store):
    with pytest.raises(SalienceError):
        store.list(order="nope")
