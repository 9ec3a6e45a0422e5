"""SQLite full-text top-k: frequent-term pruning returns what scoring every match returns, and
the row-count / document-frequency caches follow commits from any connection."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from salience.config import Config
from salience.models import Candidate, Memory, validate_memory
from salience.store import open_store
from salience.store.sqlite import fulltext
from salience.store.sqlite.fulltext import MIN_TEXT_RELEVANCE, fts_phrases, plan

T0 = datetime(2026, 1, 1, tzinfo=UTC)
WORDS = [f"w{i}" for i in range(300)]


def _mem(text: str, i: int = 0) -> Memory:
    ts = T0 + timedelta(seconds=i)
    return validate_memory(Memory(content=text, created_at=ts, updated_at=ts))


def _corpus(n: int, seed: int = 3) -> list[str]:
    """Zipf-like text; "everyone" is in every row, "often" in about 70% (both have no IDF)."""
    rng = random.Random(seed)
    weights = [1.0 / (r + 1) for r in range(len(WORDS))]
    out = []
    for _ in range(n):
        words = [*rng.choices(WORDS, weights, k=rng.randint(3, 30)), "everyone"]
        if rng.random() < 0.7:
            words.append("often")
        out.append(" ".join(words))
    return out


def _plain(store, terms, limit, monkeypatch) -> list[Candidate]:
    with monkeypatch.context() as m:
        m.setattr(fulltext, "MIN_ROWS_TO_PRUNE", 10**12)
        return store.search_text(terms, limit=limit)


def _same(a: list[Candidate], b: list[Candidate]) -> bool:
    """Same scored hits in the same order, and as many zero-score ones (rows that matched only
    terms found in most rows are listed unscored, so which of them come back may differ)."""
    sa, sb = [c for c in a if c.score > 0], [c for c in b if c.score > 0]
    return (
        len(a) == len(b)
        and [c.id for c in sa] == [c.id for c in sb]
        and all(abs(x.score - y.score) <= 1e-12 for x, y in zip(sa, sb, strict=True))
        and a[: len(sa)] == sa
    )


@pytest.fixture
def big(config: Config, monkeypatch):
    monkeypatch.setattr(fulltext, "MIN_ROWS_TO_PRUNE", 100)
    monkeypatch.setattr(fulltext, "MIN_PRUNED_POSTINGS", 10)
    store = open_store(config, "fts")
    store.insert([_mem(t, i) for i, t in enumerate(_corpus(1200))])
    yield store
    store.close()


def test_pruned_top_k_equals_scoring_every_match(big, monkeypatch):
    rng = random.Random(5)
    queries = [rng.sample(WORDS, rng.randint(2, 5)) for _ in range(60)]
    queries += [[*q, "everyone"] for q in queries[:20]] + [["w0", "w1", "w250"], ["w299", "w1"]]
    pruned = 0
    for q in queries:
        for limit in (5, 20):
            expected = _plain(big, q, limit, monkeypatch)
            got = big.search_text(q, limit=limit)
            assert _same(got, expected), q
    # the recent k-th scores make later queries split: the pruned path really ran
    for q in queries:
        p = plan(
            fts_phrases(q),
            [big._text.hits(x) for x in fts_phrases(q)],
            big._text.rows(),
            big._text._guess(5 * 2 + 8),
        )
        pruned += bool(p.frequent and p.rare)
    assert pruned > 10


def test_rows_matching_only_no_idf_terms_are_listed_unscored(big, monkeypatch):
    # one rare word plus terms in most rows: fewer rare rows than asked for
    hits = big.search_text(["w299", "everyone", "often"], limit=30)
    expected = _plain(big, ["w299", "everyone", "often"], 30, monkeypatch)
    scored = [c for c in expected if c.score > 0]
    assert 0 < len(scored) < 30 and len(hits) == len(expected) == 30
    assert _same(hits[: len(scored)], scored)
    assert all(c.score == 0.0 for c in hits[len(scored) :])
    assert len({c.id for c in hits}) == 30


def test_all_terms_frequent_still_returns_matches(big, monkeypatch):
    hits = big.search_text(["everyone", "often"], limit=10)
    assert len(hits) == 10 and all(c.score == 0.0 for c in hits)
    assert len(_plain(big, ["everyone", "often"], 10, monkeypatch)) == 10
    assert len(big.search_text(["everyone"], limit=2000)) == big.count()


def test_syntax_is_still_literal_on_the_pruned_path(big):
    big.insert([_mem('say "NEAR" w0 AND (x) -y ^z *', 99_999)])
    for term in ['"', "AND", "NEAR(", "*", "-", "^", "(", "a:b", "w0 OR", 'x" OR "y']:
        big.search_text([term, "everyone", "often", "w1"], limit=5)  # never raises
    assert big.search_text(["NEAR", "everyone"], limit=1)[0].score > 0


def test_row_count_and_hits_follow_other_connections(config: Config, monkeypatch):
    monkeypatch.setattr(fulltext, "MIN_ROWS_TO_PRUNE", 100)
    monkeypatch.setattr(fulltext, "MIN_PRUNED_POSTINGS", 10)
    a = open_store(config, "two")
    b = open_store(config, "two")
    try:
        a.insert([_mem(t, i) for i, t in enumerate(_corpus(300))])
        assert a._fts_rows() == 300 and a._text.hits('"rarest"') == 0
        b.insert([_mem(f"rarest w1 everyone {i}", 1000 + i) for i in range(200)])
        assert a._fts_rows() == 500  # another connection's commit invalidates the cache
        assert a._text.hits('"rarest"') == 200
        a.insert([_mem("rarest once more", 5000)])
        assert a._fts_rows() == 501 and b._fts_rows() == 501  # own writes too
        assert a._text.hits('"rarest"') == 201
        # "rarest" is now in 40% of rows: results still match scoring everything
        for q in (["rarest", "w3"], ["w1", "rarest", "w200"], ["everyone", "rarest"]):
            assert _same(a.search_text(q, limit=10), _plain(a, q, 10, monkeypatch))
        b.delete([c.id for c in b.search_text(["rarest"], limit=500)])
        assert a._fts_rows() == 300 and a._text.hits('"rarest"') == 0
    finally:
        a.close()
        b.close()


def test_plan_prunes_only_what_cannot_reach_the_guess():
    phrases = ['"a"', '"b"', '"c"']
    # no guess: only terms in most rows (no IDF) are set aside
    p = plan(phrases, [10, 300, 900], 1000, None)
    assert p.rare == ['"a"', '"b"'] and p.frequent == ['"c"'] and p.bound <= MIN_TEXT_RELEVANCE
    # with a guess, the most frequent terms whose summed bound stays below it
    p = plan(phrases, [10, 3000, 2], 100_000, 20.0)
    assert p.rare == ['"c"', '"a"'] and p.frequent == ['"b"'] and 0 < p.bound < 20.0
    # every term frequent: nothing is rare
    assert plan(phrases, [900, 950, 990], 1000, None).rare == []
    # nothing to gain: the plain query
    assert plan(phrases, [1, 2, 3], 1000, None).frequent == []
