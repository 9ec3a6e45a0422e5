"""`SalienceStore` against LangGraph's store contract.

The cases are ported from LangGraph's own store test suites (the SQLite and in-memory stores'
tests: batch order and op kinds, basic operations, namespace listing, search with filters and
pagination, index fields per store and per put, `index=False`, edge-case queries, namespace
validation and literal matching, TTL) and run against a real mind on disk with the hash
embedder. Where LangGraph's tests assert cosine thresholds of their toy embedding, these
assert the order the hybrid search must produce.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import zlib
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

pytest.importorskip("langgraph")

from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)

from salience import Config, FrozenClock, Mind
from salience.integrations.langgraph import SalienceStore, matches


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock()


@pytest.fixture
def mind(backend_config: Config, clock: FrozenClock, request: pytest.FixtureRequest) -> Iterator[Mind]:
    """A mind on each backend (SQLite file, PostgreSQL schema), dropped afterwards."""
    name = "lg" + format(zlib.crc32(request.node.nodeid.encode()), "d")
    m = Mind.open(name, config=backend_config, clock=clock)
    try:
        yield m
    finally:
        drop = getattr(m.store, "drop_mind", None)
        if drop is not None:
            drop()
        m.close()


@pytest.fixture
def store(mind: Mind) -> SalienceStore:
    return SalienceStore(mind)


def fields_store(mind: Mind, fields: list[str]) -> SalienceStore:
    return SalienceStore(mind, index={"fields": fields})


def test_batch_order(store: SalienceStore) -> None:
    store.put(("test", "foo"), "key1", {"data": "value1"})
    store.put(("test", "bar"), "key2", {"data": "value2"})
    results = store.batch([
        GetOp(("test", "foo"), "key1"),
        PutOp(("test", "bar"), "key2", {"data": "value2"}),
        SearchOp(("test",), filter={"data": "value1"}, limit=10, offset=0),
        ListNamespacesOp(match_conditions=None, max_depth=None, limit=10, offset=0),
        GetOp(("test",), "key3"),
    ])
    assert len(results) == 5
    assert isinstance(results[0], Item) and results[0].value == {"data": "value1"}
    assert results[0].key == "key1" and results[0].namespace == ("test", "foo")
    assert results[1] is None
    assert [i.key for i in results[2]] == ["key1"]
    assert {("test", "foo"), ("test", "bar")} <= set(results[3])
    assert results[4] is None
    again = store.batch([
        SearchOp(("test",), None, 5, 0),
        GetOp(("test", "bar"), "key2"),
        ListNamespacesOp(None, None, 5, 0),
        PutOp(("test",), "key3", {"data": "value3"}),
        GetOp(("test", "foo"), "key1"),
    ])
    assert len(again[0]) == 2 and again[1].value == {"data": "value2"}
    assert again[3] is None and again[4].value == {"data": "value1"}
    assert store.get(("test",), "key3").value == {"data": "value3"}


def test_batch_put_and_delete_ops(store: SalienceStore) -> None:
    results = store.batch([
        PutOp(("test",), "key1", {"data": "value1"}),
        PutOp(("test",), "key2", {"data": "value2"}),
        PutOp(("test",), "key3", None),
    ])
    assert results == [None, None, None]
    assert store.get(("test",), "key1").value == {"data": "value1"}
    assert store.get(("test",), "key2").value == {"data": "value2"}
    assert store.get(("test",), "key3") is None
    store.batch([PutOp(("test",), "key1", None), GetOp(("test",), "key1")])
    assert store.get(("test",), "key1") is None


def test_batch_search_ops(store: SalienceStore) -> None:
    for ns, key, value in [
        (("test", "foo"), "key1", {"data": "value1", "tag": "a"}),
        (("test", "bar"), "key2", {"data": "value2", "tag": "a"}),
        (("test", "baz"), "key3", {"data": "value3", "tag": "b"}),
    ]:
        store.put(ns, key, value)
    tagged, first_two, foo = store.batch([
        SearchOp(("test",), filter={"tag": "a"}, limit=10, offset=0),
        SearchOp(("test",), filter=None, limit=2, offset=0),
        SearchOp(("test", "foo"), filter=None, limit=10, offset=0),
    ])
    assert len(tagged) == 2 and all(i.value["tag"] == "a" for i in tagged)
    assert len(first_two) == 2
    assert [i.namespace for i in foo] == [("test", "foo")]


def test_basic_operations_update_keeps_created_at(store: SalienceStore, clock: FrozenClock) -> None:
    ns = ("test", "documents")
    store.put(ns, "doc1", {"title": "Test Document", "content": "Hello, World!"})
    item = store.get(ns, "doc1")
    assert item.namespace == ns and item.key == "doc1"
    assert item.value == {"title": "Test Document", "content": "Hello, World!"}
    clock.advance(seconds=5)
    store.put(ns, "doc1", {"title": "Updated Document", "content": "Hello, Updated!"})
    updated = store.get(ns, "doc1")
    assert updated.value["title"] == "Updated Document"
    assert updated.created_at == item.created_at and updated.updated_at > item.updated_at
    assert store.get(("test", "other_documents"), "doc1") is None
    assert len(store.search(ns)) == 1  # the update replaced the item, it did not add one
    store.delete(ns, "doc1")
    assert store.get(ns, "doc1") is None
    assert store.mind.count() == 0  # every row of the item is gone


def test_list_namespaces(store: SalienceStore) -> None:
    namespaces = [
        ("test", "documents", "public"), ("test", "documents", "private"),
        ("test", "images", "public"), ("test", "images", "private"),
        ("prod", "documents", "public"), ("prod", "documents", "private"),
    ]
    for ns in namespaces:
        store.put(ns, "dummy", {"content": "dummy"})  # equal values: still six items
    assert sorted(store.list_namespaces()) == sorted(namespaces)
    assert len(store.list_namespaces(prefix=("test",))) == 4
    public = store.list_namespaces(suffix=("public",))
    assert len(public) == 3 and all(ns[-1] == "public" for ns in public)
    assert store.list_namespaces(max_depth=2) == [
        ("prod", "documents"), ("test", "documents"), ("test", "images")
    ]
    assert store.list_namespaces(prefix=("test", "*", "public")) == [
        ("test", "documents", "public"), ("test", "images", "public")
    ]
    assert len(store.list_namespaces(limit=3)) == 3
    assert store.list_namespaces(limit=3, offset=3) == sorted(namespaces)[3:]
    both = store.batch([ListNamespacesOp(
        match_conditions=(MatchCondition("prefix", ("test",)), MatchCondition("suffix", ("private",))),
    )])[0]
    assert both == [("test", "documents", "private"), ("test", "images", "private")]
    for ns in namespaces:
        store.delete(ns, "dummy")
    assert store.list_namespaces() == []


def test_search_namespaces_filters_and_pages(store: SalienceStore) -> None:
    data = [
        (("test", "docs"), "doc1", {"title": "First Doc", "author": "Alice", "tags": ["important"]}),
        (("test", "docs"), "doc2", {"title": "Second Doc", "author": "Bob", "tags": ["draft"]}),
        (("test", "images"), "img1", {"title": "Image 1", "author": "Alice", "tags": ["final"]}),
    ]
    for ns, key, value in data:
        store.put(ns, key, value)
    assert len(store.search(("test",))) == 3
    docs = store.search(("test", "docs"))
    assert len(docs) == 2 and all(i.namespace == ("test", "docs") for i in docs)
    alice = store.search(("test",), filter={"author": "Alice"})
    assert {i.key for i in alice} == {"doc1", "img1"}
    assert len(store.search(("test",), limit=2)) == 2
    assert len(store.search(("test",), offset=2)) == 1
    assert [i.key for i in store.search(("test",), filter={"tags": ["draft"]})] == ["doc2"]
    assert store.search((), filter={"author": {"$ne": "Alice"}})[0].key == "doc2"


def test_query_search_finds_and_updates_rank(mind: Mind) -> None:
    store = fields_store(mind, ["text"])
    for key, text in [
        ("doc1", "zany zebra Xerxes"), ("doc2", "something about dogs"),
        ("doc3", "text about birds"),
    ]:
        store.put(("test",), key, {"text": text})
    first = store.search(("test",), query="Zany Xerxes")
    assert first[0].key == "doc1" and first[0].score is not None
    store.put(("test",), "doc1", {"text": "new text about dogs"})
    after = store.search(("test",), query="Zany Xerxes")
    assert all(r.key != "doc1" or r.score < first[0].score for r in after)
    assert store.search(("test",), query="new text about dogs")[0].key == "doc1"
    store.put(("test",), "doc4", {"text": "new text about dogs"}, index=False)
    top3 = store.search(("test",), query="new text about dogs", limit=3)
    assert "doc4" not in {r.key for r in top3}  # not indexed: never ranked
    listed = store.search(("test",), query="new text about dogs", limit=10)
    assert listed[-1].key == "doc4" and listed[-1].score is None  # unscored, after the ranked


def test_query_search_with_filters(mind: Mind) -> None:
    store = fields_store(mind, ["text"])
    for key, value in [
        ("doc1", {"text": "red apple", "color": "red", "score": 4.5}),
        ("doc2", {"text": "red car", "color": "red", "score": 3.0}),
        ("doc3", {"text": "green apple", "color": "green", "score": 4.0}),
        ("doc4", {"text": "blue car", "color": "blue", "score": 3.5}),
    ]:
        store.put(("test",), key, value)
    red_apple = store.search(("test",), query="apple", filter={"color": "red"})
    assert [r.key for r in red_apple] == ["doc1", "doc2"]
    assert store.search(("test",), query="car", filter={"color": "red"})[0].key == "doc2"
    high = store.search(("test",), query="blue", filter={"score": {"$gt": 3.2}})
    assert high[0].key == "doc4" and {r.key for r in high} == {"doc1", "doc3", "doc4"}
    both = store.search(("test",), query="apple", filter={"score": {"$gte": 4.0}, "color": "green"})
    assert [r.key for r in both] == ["doc3"]


def test_query_search_pagination_is_consistent(mind: Mind) -> None:
    store = fields_store(mind, ["text"])
    for i in range(5):
        store.put(("test",), f"doc{i}", {"text": f"test document number {i}"})
    page1 = store.search(("test",), query="test", limit=2)
    page2 = store.search(("test",), query="test", limit=2, offset=2)
    everything = store.search(("test",), query="test", limit=10)
    assert len(page1) == len(page2) == 2 and len(everything) == 5
    assert not {r.key for r in page1} & {r.key for r in page2}
    assert [r.key for r in everything[:4]] == [r.key for r in page1 + page2]
    scores = [r.score for r in everything]
    assert scores == sorted(scores, reverse=True)


def test_query_edge_cases(store: SalienceStore) -> None:
    store.put(("test",), "doc1", {"text": "test document"})
    for q in ["", None, "test " * 100, "test!@#$%^&*()", "\"quoted\" AND NEAR(x) -y *"]:
        assert len(store.search(("test",), query=q)) == 1, q


def test_index_fields_of_the_store_and_of_a_put(mind: Mind) -> None:
    store = fields_store(mind, ["key0", "key1", "key3"])
    store.put(("test",), "doc1", {"key1": "xxx", "key2": "yyy", "key3": "zzz"})  # key0 missing
    store.put(("test",), "doc2", {"key0": "uuu", "key1": "vvv", "key2": "www", "key3": "xxx"})
    assert store.search(("test",), query="uuu")[0].key == "doc2"
    assert store.search(("test",), query="zzz")[0].key == "doc1"
    assert {r.key for r in store.search(("test",), query="xxx")[:2]} == {"doc1", "doc2"}
    assert mind.get(store.mind.list()[0].id).content in {"xxx\nzzz", "uuu\nvvv\nxxx"}
    per_put = fields_store(mind, ["key17"])
    per_put.put(("ops",), "doc3", {"key0": "aaa", "key1": "bbb", "key2": "ccc"}, index=["key0", "key1"])
    per_put.put(("ops",), "doc4", {"key0": "eee", "key1": "bbb", "key3": "ggg"}, index=["key1", "key3"])
    assert per_put.search(("ops",), query="aaa")[0].key == "doc3"
    assert per_put.search(("ops",), query="ggg")[0].key == "doc4"
    assert len(per_put.search(("ops",), query="bbb")) == 2
    per_put.put(("ops",), "doc5", {"key0": "hhh"}, index=False)
    assert len(per_put.search(("ops",))) == 3


def test_namespaces_are_validated_and_matched_literally(store: SalienceStore) -> None:
    for bad in [(), ("langgraph", "x"), ("a.b",), ("",), ("a", "\x00")]:
        with pytest.raises(InvalidNamespaceError):
            store.put(bad, "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        store.batch([PutOp(("a.b",), "k", {"v": 1})])  # ops given directly are checked too
    store.put(("a", "b"), "k", {"v": 1})
    store.put(("a", "bc"), "k", {"v": 2})
    store.put(("A", "b"), "k", {"v": 3})
    store.put(("a%", "_*"), "k", {"v": 4})
    assert [i.value["v"] for i in store.search(("a", "b"))] == [1]  # segment boundary
    assert [i.value["v"] for i in store.search(("A",))] == [3]  # case-sensitive
    assert [i.value["v"] for i in store.search(("a%",))] == [4]  # no wildcard in labels
    assert store.search(("a_",)) == []
    assert store.list_namespaces(prefix=("a",)) == [("a", "b"), ("a", "bc")]
    assert len(store.search(())) == 4  # the empty prefix is every namespace


def test_filter_values_are_data_not_syntax(store: SalienceStore) -> None:
    store.put(("t",), "k1", {"name": "x'; DROP TABLE memories; --", "n": 5, "ok": True,
                             "my-key": 1, "2nd": "b", "emoji": "🦜 café"})
    store.put(("t",), "k2", {"name": "y", "n": "5", "ok": False})
    assert [i.key for i in store.search(("t",), filter={"name": "x'; DROP TABLE memories; --"})] == ["k1"]
    assert [i.key for i in store.search(("t",), filter={"n": 5})] == ["k1"]  # 5 is not "5"
    assert [i.key for i in store.search(("t",), filter={"ok": True})] == ["k1"]
    assert [i.key for i in store.search(("t",), filter={"my-key": 1, "2nd": "b"})] == ["k1"]
    assert store.get(("t",), "k1").value["emoji"] == "🦜 café"
    assert store.mind.count() == 2
    assert matches({"a": {"b": 2}}, {"a": {"b": {"$lt": 3}}})
    assert not matches({"a": "x"}, {"a": {"$gt": 1}})
    with pytest.raises(ValueError):
        matches({"a": 1}, {"a": {"$regex": "x"}})


def test_ttl_expiry_refresh_and_sweep(mind: Mind, clock: FrozenClock) -> None:
    store = SalienceStore(mind, ttl={"default_ttl": None, "refresh_on_read": True})
    store.put(("s",), "short", {"v": 1}, ttl=10)
    store.put(("s",), "long", {"v": 2}, ttl=60)
    store.put(("s",), "forever", {"v": 3})
    clock.advance(minutes=8)
    assert store.get(("s",), "short").value == {"v": 1}  # read: refreshed to 8 + 10
    clock.advance(minutes=5)
    assert store.get(("s",), "short", refresh_ttl=False) is not None  # 13 < 18
    clock.advance(minutes=6)  # 19: short expired (not refreshed by the last read)
    assert store.get(("s",), "short") is None
    assert {i.key for i in store.search(("s",))} == {"long", "forever"}
    clock.advance(minutes=60)
    assert store.list_namespaces() == [("s",)]
    assert store.sweep_ttl() == 2
    assert [i.key for i in store.search(("s",))] == ["forever"] and mind.count() == 1
    default = SalienceStore(mind, ttl={"default_ttl": 1})
    default.put(("d",), "k", {"v": 1})  # the store's default TTL applies
    clock.advance(minutes=2)
    assert default.get(("d",), "k") is None
    assert default.start_ttl_sweeper(0.001).is_alive()
    assert default.stop_ttl_sweeper(timeout=60)


def test_async_api(store: SalienceStore) -> None:
    async def main() -> tuple[Item | None, list[Item], list[tuple[str, ...]]]:
        await asyncio.gather(*(store.aput(("a", str(i % 2)), f"k{i}", {"n": i}) for i in range(10)))
        got = await store.aget(("a", "1"), "k3")
        found = await store.asearch(("a",), filter={"n": {"$gte": 8}})
        spaces = await store.alist_namespaces()
        await store.adelete(("a", "1"), "k3")
        return got, found, spaces

    got, found, spaces = asyncio.run(main())
    assert got.value == {"n": 3}
    assert {i.key for i in found} == {"k8", "k9"}
    assert spaces == [("a", "0"), ("a", "1")]
    assert store.get(("a", "1"), "k3") is None and store.mind.count() == 9


def test_items_are_memories_of_the_mind_and_persist(tmp_path: Path) -> None:
    cfg = Config(home=tmp_path / "home", embedder="hash")
    with Mind.open("p", config=cfg) as m:
        store = SalienceStore(m, index={"fields": ["content"]})
        store.put(("memories", "u1"), "m1", {"content": "Maya is allergic to penicillin", "kind": "fact"})
        hit = m.search("penicillin")[0]
        assert hit.memory.content == "Maya is allergic to penicillin" and hit.memory.pinned
        assert m.graph.about("Maya")  # the graph learnt from the item's text
    with Mind.open("p", config=cfg) as m:
        again = SalienceStore(m).get(("memories", "u1"), "m1")
        assert again.value == {"content": "Maya is allergic to penicillin", "kind": "fact"}


def test_import_salience_does_not_import_frameworks() -> None:
    code = (
        "import sys, salience, salience.aio, salience.integrations; "
        "bad = [m for m in ('langgraph', 'langchain_core', 'agents', 'anthropic', "
        "'opentelemetry', 'langmem') if m in sys.modules]; print(bad); assert not bad"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_ttl_rejected_without_support_is_not_our_case(store: SalienceStore, clock: FrozenClock) -> None:
    # SalienceStore supports TTL: BaseStore.put must not refuse it
    store.put(("x",), "k", {"v": 1}, ttl=1)
    clock.advance(timedelta(seconds=30))
    assert store.get(("x",), "k") is not None
