"""One BM25 on every backend (issue 15): full-text scores equal an independent reference
computation, pruning returns what reading every posting returns, and the postings follow
inserts, updates, deletes and re-opening."""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta

import pytest

from salience.models import Memory, MemoryFilter, validate_memory
from salience.store import bm25

T0 = datetime(2026, 1, 1, tzinfo=UTC)
WORDS = [f"w{i}" for i in range(300)]


def mem(text: str, i: int = 0, **kw) -> Memory:
    ts = T0 + timedelta(seconds=i)
    return validate_memory(Memory(content=text, created_at=ts, updated_at=ts, **kw))


def reference(docs: dict[str, str], query: list[str], k1: float, b: float) -> dict[str, float]:
    """Textbook BM25 over whitespace words (the docs here are lower-case words, no stop
    words, nothing to stem), FTS5's IDF, as x / (1 + x)."""
    toks = {i: d.split() for i, d in docs.items()}
    n = len(toks)
    avg = sum(len(t) for t in toks.values()) / n
    out: dict[str, float] = {}
    for i, t in toks.items():
        x = 0.0
        for q in query:
            tf = t.count(q)
            if not tf:
                continue
            df = sum(1 for u in toks.values() if q in u)
            idf = max(math.log((n - df + 0.5) / (df + 0.5)), 1e-6)
            x += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(t) / avg))
        if x > 0:
            out[i] = x / (1 + x)
    return out


def corpus(n: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    weights = [1.0 / (r + 1) for r in range(len(WORDS))]
    out = []
    for _ in range(n):
        words = [*rng.choices(WORDS, weights, k=rng.randint(3, 30)), "ubiq"]
        if rng.random() < 0.7:
            words.append("often")
        out.append(" ".join(words))
    return out


@pytest.fixture
def store(make_store):
    return make_store()


@pytest.mark.parametrize(("k1", "b"), [(None, None), (1.2, 0.75)])
def test_scores_equal_the_reference(store, k1, b):
    ms = [mem(t, i) for i, t in enumerate(corpus(120))]
    docs = {m.id: m.content for m in ms}
    store.insert(ms)
    want_k1 = bm25.DEFAULT_K1 if k1 is None else k1
    want_b = bm25.DEFAULT_B if b is None else b
    for query in (["w20", "w35"], ["w30", "w60", "w150"], ["w299", "w25", "nothing"]):
        ref = reference(docs, query, want_k1, want_b)
        got = store.search_text(query, limit=200, k1=k1, b=b)
        assert ref and {c.id for c in got} == set(ref)
        for c in got:
            assert c.score == pytest.approx(ref[c.id], rel=1e-12)
        assert [c.score for c in got] == sorted((c.score for c in got), reverse=True)
        assert [c.rank for c in got] == list(range(1, len(got) + 1))


def test_pruning_returns_what_reading_everything_returns(store, monkeypatch):
    monkeypatch.setattr(bm25, "PRUNE_MIN_POSTINGS", 10)
    pruned: list[bool] = []
    score = bm25.Scorer.score

    def counting(self, *a, **kw):
        out = score(self, *a, **kw)
        pruned.append(out[1])
        return out

    monkeypatch.setattr(bm25.Scorer, "score", counting)
    store.insert([mem(t, i) for i, t in enumerate(corpus(1200))])
    rng = random.Random(5)
    queries = [rng.sample(WORDS, rng.randint(2, 5)) for _ in range(40)]
    queries += [[*q, "ubiq"] for q in queries[:10]] + [["w0", "w1", "w250"]]
    for q in queries:
        for limit in (5, 20):
            got = store.search_text(q, limit=limit)
            with monkeypatch.context() as m:
                m.setattr(bm25, "PRUNE_MIN_POSTINGS", 10**12)
                want = store.search_text(q, limit=limit)
            assert [(c.id, c.score) for c in got] == [(c.id, c.score) for c in want], q
    # the remembered k-th scores made later queries prune: that path really ran
    assert pruned and sum(pruned) > 10


def test_terms_in_most_rows_carry_no_evidence(store):
    store.insert([mem(t, i) for i, t in enumerate(corpus(300))])
    only_common = store.search_text(["ubiq", "often"], limit=10)
    assert len(only_common) == 10 and all(c.score == 0.0 for c in only_common)
    mixed = store.search_text(["w299", "ubiq"], limit=50)
    assert mixed[0].score > 0 and mixed[-1].score == 0.0
    assert len(store.search_text(["ubiq"], limit=1000)) == 300


def test_postings_follow_updates_deletes_and_filters(store):
    a, b_, c = mem("green tea in Lisbon", 1), mem("coffee in Porto", 2), mem("tea again", 3)
    store.insert([a, b_, c])
    assert {h.id for h in store.search_text(["tea"], limit=5)} == {a.id, c.id}
    store.update([a.copy(content="black coffee in Lisbon")])
    assert {h.id for h in store.search_text(["tea"], limit=5)} == {c.id}
    assert {h.id for h in store.search_text(["coffee"], limit=5)} == {a.id, b_.id}
    store.delete([c.id])
    assert store.search_text(["tea"], limit=5) == []
    got = store.search_text(["coffee"], limit=5, flt=MemoryFilter(ids=[b_.id]))
    assert [h.id for h in got] == [b_.id]


def test_entities_and_summary_are_indexed_at_half_weight(store):
    a = mem("a note", 1, summary="about rockets")
    b_ = mem("rockets rockets", 2)
    c = mem("plain", 3, entities=["Rocket Lab"])
    store.insert([a, b_, c])
    got = {h.id: h.score for h in store.search_text(["rocket"], limit=5)}
    assert set(got) == {a.id, b_.id, c.id}


def test_postings_are_rebuilt_when_stale(make_store):
    s = make_store("rebuild")
    ms = [mem(f"note {i} about lisbon", i) for i in range(5)]
    s.insert(ms)
    want = [(c.id, c.score) for c in s.search_text(["lisbon"], limit=10)]
    s.set_meta("text_index", "an-older-tokenizer")
    again = make_store("rebuild")
    assert again.get_meta("text_index") != "an-older-tokenizer"
    assert [(c.id, c.score) for c in again.search_text(["lisbon"], limit=10)] == want
