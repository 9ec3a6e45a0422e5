"""Stored claims at search time (issue 21; search/stored_claims.py): a search over memories
whose claims are stored parses none of them; a row of an older engine version, of another text
or that does not decode is a miss (parsed, never a crash) and maintenance writes it again;
claims JSON round-trips every field; an old-schema file upgrades and gets its rows."""

from __future__ import annotations

import gzip
import shutil
import sqlite3
from pathlib import Path

import pytest

import salience.llm.heuristic.claims as engine
from salience.config import Config
from salience.maintenance.job import refresh_claims
from salience.mind import Mind
from salience.search.stored_claims import KnownClaims, derive

FACTS = [
    "I live in Leeds.",
    "I now live in Lisbon, I moved last month.",
    "I work at Canva as a designer.",
    "My sister Anna works at Google and has 3 kids.",
    "I no longer eat meat. The kitchen budget is 400 EUR.",
]


@pytest.fixture
def counted(monkeypatch):
    """The number of texts the claims engine parses (every parse goes through `_claims_of`;
    the wrapper bypasses its text cache, so a cached text counts too)."""
    calls: list[str] = []
    inner = engine._claims_of.__wrapped__  # the parse itself, under the text cache

    def parse(text: str):
        calls.append(text)
        return inner(text)

    monkeypatch.setattr(engine, "_claims_of", parse)
    return calls


def _mind(tmp_path: Path) -> Mind:
    return Mind.open(tmp_path / "m.db", config=Config(home=tmp_path / "home", embedder="hash"))


def _search(m: Mind) -> list[str]:
    out = []
    for q in ("where do I live?", "which company do I work for?", "what does Anna do?",
              "what is the kitchen budget?"):
        out.append([h.memory.content for h in m.search(q, limit=5, feedback=False)])
    return out


def _claims_rows(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT pk, version, claims FROM memory_claims ORDER BY pk").fetchall()


def test_round_trip_keeps_every_field():
    for text in FACTS:
        found = tuple(engine.claims(text))
        back = engine.claims_from_json(engine.claims_to_json(found))
        assert back == found
        assert [c.kind for c in back] == [c.kind for c in found]  # kind is compare=False
    assert any(c.numbers for t in FACTS for c in engine.claims(t))  # the case is exercised
    assert any(c.marked for t in FACTS for c in engine.claims(t))
    assert any(c.negated for t in FACTS for c in engine.claims(t))


@pytest.mark.parametrize("bad", ["", "{", "{}", "[1]", '[["a","b"]]',
                                 '[["a","b","c","no","",[],false,""]]',
                                 '[["a","b","c",false,"",[1],false,""]]'])
def test_corrupt_payloads_raise_value_error(bad):
    with pytest.raises(ValueError):
        engine.claims_from_json(bad)


def test_a_search_over_stored_claims_parses_nothing(tmp_path, counted):
    with _mind(tmp_path) as m:
        for f in FACTS:
            m.add(f)
        rows = _claims_rows(tmp_path / "m.db")
        assert len(rows) == m.store.count() and all(v == engine.CLAIMS_VERSION for _, v, _ in rows)
        counted.clear()
        results = _search(m)
        stored = [t for t in counted if t in FACTS]
        assert stored == []  # no memory's text parsed: every claim came from its row
        # the same searches with the rows gone parse the candidates, and rank the same
        with sqlite3.connect(tmp_path / "m.db") as db:
            db.execute("DELETE FROM memory_claims")
        counted.clear()
        assert _search(m) == results
        assert [t for t in counted if t in FACTS]  # the test can fail: misses are parsed


def test_old_version_corrupt_and_other_text_rows_are_misses(tmp_path, counted):
    with _mind(tmp_path) as m:
        for f in FACTS:
            m.add(f)
        results = _search(m)
        with sqlite3.connect(tmp_path / "m.db") as db:
            pks = [r[0] for r in db.execute("SELECT pk FROM memory_claims ORDER BY pk")]
            db.execute("UPDATE memory_claims SET version = version - 1 WHERE pk = ?", (pks[0],))
            db.execute("UPDATE memory_claims SET claims = '[[not json' WHERE pk = ?", (pks[1],))
            db.execute("UPDATE memory_claims SET claims = '{}' WHERE pk = ?", (pks[2],))
            db.execute("UPDATE memory_claims SET text_key = 'general:x' WHERE pk = ?", (pks[3],))
        counted.clear()
        assert _search(m) == results  # misses parsed, no crash, same answers
        parsed = {t for t in counted if t in FACTS}
        assert parsed and parsed <= set(FACTS[:4])  # the intact row of FACTS[4] is not parsed
        # maintenance re-derives the old-version and other-text rows (version/key mismatch)
        assert refresh_claims(m.store) == 2
        assert refresh_claims(m.store) == 0
        total, current = m.store.claims_counts(engine.CLAIMS_VERSION)
        assert total == current == m.store.count()


def test_a_version_bump_makes_every_row_a_miss_until_maintenance(tmp_path, counted, monkeypatch):
    with _mind(tmp_path) as m:
        for f in FACTS:
            m.add(f)
        results = _search(m)
        monkeypatch.setattr(engine, "CLAIMS_VERSION", engine.CLAIMS_VERSION + 1)
        counted.clear()
        assert _search(m) == results
        assert [t for t in counted if t in FACTS]  # parsed: the rows are of the old engine
        assert refresh_claims(m.store) == m.store.count()  # every row re-derived, at the new version
        assert {v for _, v, _ in _claims_rows(tmp_path / "m.db")} == {engine.CLAIMS_VERSION}
        counted.clear()
        assert _search(m) == results
        assert [t for t in counted if t in FACTS] == []


def test_an_edit_rewrites_the_row_and_a_delete_removes_it(tmp_path):
    with _mind(tmp_path) as m:
        mid = m.add("I live in Leeds.")
        m.update(mid, content="I live in York.")
        got = m.store.stored_claims([mid])[mid]
        assert [c.value for c in engine.claims_from_json(got[2])] == ["york"]
        m.delete(mid)
        assert m.store.stored_claims([mid]) == {}
        assert _claims_rows(tmp_path / "m.db") == []


def test_known_claims_without_a_stored_reader_parses():
    class Bare:
        pass

    known = KnownClaims(Bare())
    assert list(known.prime([])("I live in Leeds.")) == engine.claims("I live in Leeds.")
    assert known.misses == 1


def test_derive_is_what_the_engine_says():
    from salience.models import Memory

    v, payload = derive(Memory(content="I live in Leeds."))
    assert v == engine.CLAIMS_VERSION
    assert engine.claims_from_json(payload) == tuple(engine.claims("I live in Leeds."))


def test_a_mind_at_schema_7_upgrades_and_maintenance_fills_its_rows(tmp_path):
    fixture = Path(__file__).parents[1] / "store" / "data" / "mind_schema7.db.gz"
    path = tmp_path / "old.db"
    with gzip.open(fixture, "rb") as src, open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
    cfg = Config(home=tmp_path / "home", embedder="hash")
    with Mind.open(path, config=cfg) as m:
        assert _claims_rows(path) == []  # the migration creates the table, derives nothing
        assert m.search("penicillin", limit=1)[0].memory.content.startswith("My sister Maya")
        assert refresh_claims(m.store) == m.store.count()
        assert m.store.claims_counts(engine.CLAIMS_VERSION) == (m.store.count(),) * 2


@pytest.mark.postgres
@pytest.mark.parametrize("layout", ["schema", "shared"])
def test_a_search_over_stored_claims_parses_nothing_on_postgres(pg_dsn, tmp_path, counted, layout):
    from pydantic import SecretStr

    cfg = Config(home=tmp_path / "home", embedder="hash", backend="postgres",
                 dsn=SecretStr(pg_dsn), postgres_layout=layout)
    with Mind.open(f"claims-{layout}", config=cfg) as m:
        try:
            for f in FACTS:
                m.add(f)
            assert m.store.claims_counts(engine.CLAIMS_VERSION) == (m.store.count(),) * 2
            counted.clear()
            results = _search(m)
            assert [t for t in counted if t in FACTS] == []
            with m.store._write() as run:  # the rows gone: every search parses (misses)
                run.conn.execute(m.store._q("DELETE FROM {s}.memory_claims"))
            counted.clear()
            assert _search(m) == results
            assert [t for t in counted if t in FACTS]
            assert refresh_claims(m.store) == m.store.count()
        finally:
            m.store.drop_mind()
