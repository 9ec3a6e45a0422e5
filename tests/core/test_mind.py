"""The Mind facade on a real SQLite file with the (fast, deterministic) hash embedder."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from salience import (
    Config,
    ContentTooLarge,
    EmbedderMismatch,
    FrozenClock,
    InvalidInput,
    InvalidMindName,
    Memory,
    MemoryFilter,
    Mind,
    NotFound,
)
from salience.embed import HashEmbedder
from salience.errors import EmbeddingError


@pytest.fixture
def mind(config: Config):
    clock = FrozenClock(datetime(2026, 4, 1, 9, 0, tzinfo=UTC))
    with Mind.open("alice", config=config, clock=clock) as m:
        yield m


def test_open_creates_one_file_per_mind(config: Config):
    with Mind.open("a", config=config) as a, Mind.open("b", config=config) as b:
        a.add("only in a")
        assert b.count() == 0
    assert sorted(p.name for p in config.minds_dir.glob("*.db")) == ["a.db", "b.db"]


def test_open_by_path(tmp_path: Path, config: Config):
    path = tmp_path / "elsewhere" / "my-mind.db"
    with Mind.open(path, config=config) as m:
        m.add("stored by path")
    assert path.exists()
    with Mind.open(path, config=config) as m:
        assert m.count() == 1


def test_embedder_by_name(tmp_path: Path, config: Config):
    with Mind.open(tmp_path / "named.db", config=config, embedder="hash") as m:
        m.add("an embedder named, not built")
        assert "hash" in m.embedder.model
    with pytest.raises(ValueError, match="unknown embedder 'bert'"):
        Mind.open(tmp_path / "other.db", config=config, embedder="bert")


@pytest.mark.parametrize(
    "name", ["../evil", "a/b", "a\\b", "..", ".hidden", "", "x" * 65, "with space", "nul\x00", "é"]
)
def test_bad_mind_names_rejected(config: Config, name: str):
    with pytest.raises(InvalidMindName):
        Mind.open(name, config=config)
    assert not (config.home.parent / "evil.db").exists()


def test_add_get_update_delete(mind: Mind):
    mid = mind.add(
        "Maya is allergic to penicillin.",
        memory_type="fact",
        salience=8,
        tags=["Health"],
        entities=["Maya"],
        source="user_stated",
        importance="critical",
    )
    m = mind.get(mid)
    assert m.content == "Maya is allergic to penicillin."
    assert m.tags == ["health"] and m.entities == ["Maya"]
    assert m.created_at == mind.clock.now()
    mind.clock.advance(hours=1)
    before = mind.store.get_vectors([mid])[mid]
    new = mind.update(mid, content="Maya is allergic to penicillin and ibuprofen.", salience=9)
    assert new.updated_at > new.created_at
    after = mind.store.get_vectors([mid])[mid]
    assert not np.allclose(before, after)  # re-embedded because the content changed
    assert mind.search("ibuprofen", limit=1)[0].memory.id == mid
    mind.update(mid, salience=7)  # no content change: vector untouched
    np.testing.assert_allclose(mind.store.get_vectors([mid])[mid], after)
    mind.delete(mid)
    with pytest.raises(NotFound):
        mind.get(mid)
    with pytest.raises(NotFound):
        mind.delete(mid)


def test_exact_duplicate_returns_existing_id(mind: Mind):
    a = mind.add("I moved to Lisbon.")
    b = mind.add("   I moved to Lisbon.  \n")
    assert a == b
    assert mind.count() == 1
    ids = mind.add_many(["x one", "x two", "x one"])
    assert ids[0] == ids[2] and ids[0] != ids[1]
    assert mind.count() == 3


def test_long_content_is_chunked_and_linked(mind: Mind):
    text = " ".join(f"Sentence number {i} talks about São Paulo and 東京." for i in range(100))
    first = mind.add(text, tags=["travel"])
    chunks = mind.list(MemoryFilter(tags=["travel"]), limit=1000, order="created_asc")
    assert len(chunks) > 1
    assert all(len(c.content.encode()) <= mind.config.chunk_bytes for c in chunks)
    head = mind.get(first)
    assert head.chunk_index == 0 and head.parent_id is None
    rest = [c for c in chunks if c.id != first]
    assert all(c.parent_id == first for c in rest)
    assert sorted(c.chunk_index for c in chunks) == list(range(len(chunks)))
    assert (
        " ".join(c.content for c in sorted(chunks, key=lambda c: c.chunk_index)).split()
        == text.split()
    )


@pytest.mark.parametrize(
    "content, error",
    [
        ("", InvalidInput),
        ("   \n\t ", InvalidInput),
        ("nul \x00 inside", InvalidInput),
        (b"\xff\xfe not utf-8", InvalidInput),
        ("\ud800 lone surrogate", InvalidInput),
        (123, InvalidInput),
    ],
)
def test_bad_content_rejected_and_nothing_lost(mind: Mind, content, error):
    keep = mind.add("something already stored")
    with pytest.raises(error):
        mind.add(content)
    assert mind.count() == 1 and mind.get(keep).content == "something already stored"


def test_valid_utf8_bytes_accepted(mind: Mind):
    mid = mind.add("Olá, José".encode())
    assert mind.get(mid).content == "Olá, José"


def test_content_over_limit_names_the_limit(config: Config):
    cfg = config.model_copy(update={"max_content_bytes": 100})
    with Mind.open("small", config=cfg) as m:
        with pytest.raises(ContentTooLarge, match="100 bytes"):
            m.add("x" * 101)
        assert m.count() == 0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"memory_type": "gossip"},
        {"source": "rumour"},
        {"importance": "meh"},
        {"salience": 11},
        {"salience": float("nan")},
        {"confidence": -0.1},
        {"tags": "notalist"},
    ],
)
def test_bad_fields_rejected(mind: Mind, kwargs):
    with pytest.raises(InvalidInput):
        mind.add("valid text", **kwargs)
    assert mind.count() == 0


def test_unknown_update_field_rejected(mind: Mind):
    mid = mind.add("hello there")
    with pytest.raises(InvalidInput):
        mind.update(mid, retrieval_count=5, colour="red")
    with pytest.raises(InvalidInput):
        mind.update(mid, memory_type="nonsense")
    assert mind.get(mid).memory_type.value == "general"


class BrokenEmbedder(HashEmbedder):
    def __init__(self, vector):
        super().__init__(16)
        self._vector = vector

    @property
    def model(self) -> str:
        return "broken"

    def embed_passages(self, texts):
        from salience.embed import check_vectors

        return check_vectors(
            np.tile(self._vector, (len(texts), 1)), n=len(texts), dim=16, who="broken"
        )


@pytest.mark.parametrize(
    "vector", [np.full(16, np.nan), np.full(16, np.inf), np.ones(8), np.zeros(16)]
)
def test_bad_embeddings_rejected(config: Config, vector):
    with Mind.open(
        "bad", config=config, embedder=BrokenEmbedder(np.asarray(vector, dtype=np.float32))
    ) as m:
        with pytest.raises(EmbeddingError):
            m.add("some text")
        assert m.count() == 0


def test_other_embedder_refused(config: Config):
    with Mind.open("pinned", config=config, embedder=HashEmbedder(64)) as m:
        m.add("pinned to hash-64")
    with pytest.raises(EmbedderMismatch, match="64"):
        Mind.open("pinned", config=config, embedder=HashEmbedder(32))
    with Mind.open("pinned", config=config, embedder=HashEmbedder(64)) as m:
        assert m.count() == 1  # nothing lost


@pytest.mark.parametrize(
    "query",
    [
        '"',
        '"unbalanced',
        "*",
        "NEAR",
        "a AND b",
        "-x",
        "NOT",
        "(",
        "col:val",
        "^start",
        "'",
        "a OR",
        "🙂",
        "....",
    ],
)
def test_search_with_fts_syntax_is_literal(mind: Mind, query: str):
    mind.add("A AND B are NEAR each other (col:val) - not ^start")
    hits = mind.search(query, limit=5)
    assert isinstance(hits, list)


def test_search_finds_by_meaning_and_words(mind: Mind):
    mind.add_many(
        [
            "Maya's dog Biscuit is a beagle.",
            "The clinic app will use PostgreSQL.",
            "Maya runs along the river every Sunday.",
        ]
    )
    hits = mind.search("what database for the clinic app?", limit=3)
    assert "PostgreSQL" in hits[0].memory.content
    assert hits[0].explanation and hits[0].score > 0
    assert hits[0].mind == "alice"
    with pytest.raises(InvalidInput):
        mind.search("", limit=3)
    with pytest.raises(InvalidInput):
        mind.search("x", limit=0)


def test_precomputed_vectors(config: Config):
    emb = HashEmbedder(16)
    with Mind.open("pre", config=config, embedder=emb) as m:
        vecs = emb.embed_passages(["one", "two"])
        ids = m.add_many(["one", "two"], vectors=vecs)
        assert m.search("two", limit=1)[0].memory.id == ids[1]
        with pytest.raises(InvalidInput):
            m.add_many(["a", "b"], vectors=vecs[:1])


def test_memory_dict_roundtrip():
    m = Memory(content="x", tags=["a"], occurred_at=datetime(2026, 1, 1, tzinfo=UTC))
    assert Memory.from_dict(m.to_dict()) == m
    with pytest.raises(InvalidInput):
        Memory.from_dict({**m.to_dict(), "bogus": 1})


def test_reopen_keeps_everything(config: Config):
    with Mind.open("persist", config=config) as m:
        ids = m.add_many([f"fact {i}" for i in range(20)])
    with Mind.open("persist", config=config) as m:
        assert {x.id for x in m.list(limit=100)} == set(ids)
        assert m.search("fact 7", limit=1)[0].memory.content == "fact 7"
        assert m.store.integrity_check() == "ok"


def test_auto_reopens_a_mind_with_the_local_model_it_was_built_with(config: Config):
    cfg = config.model_copy(update={"embedder": "hash", "embed_dim": 48})
    with Mind.open("hashmind", config=cfg) as m:
        m.add("built with the hash embedder")
    auto = config.model_copy(update={"embedder": "auto"})
    with Mind.open("hashmind", config=auto) as m:
        assert m.embedder.dim == 48 and m.embedder.model.startswith("salience-hash")
        assert m.search("hash embedder", limit=1)[0].memory.content == "built with the hash embedder"


def test_recall_model_calls_are_logged(mind: Mind):
    mind.add("Maya's dog Biscuit is a beagle.")
    mind.search("what is the dog called?", limit=3, preset="formula")  # design A rewrites
    sites = {r["call_site"] for r in mind.store.interactions(limit=50)}
    assert "query_rewrite" in sites or any("rewrite" in s for s in sites), sites


def test_ids_increase_within_a_process():
    from salience.models import check_id, new_id

    ids = [new_id() for _ in range(20_000)]  # many share a millisecond
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert all(check_id(i) for i in ids[:5])
