"""SQLite's tantivy text index (issue 21): coherence with the database and agreement with the
exact BM25 scorer.

The conformance suite already runs every store behaviour with `sqlite_text_index=tantivy` (the
sqlite-hnsw variant); these tests cover what only the index beside the file has: the change log
across a crash, a corrupted or foreign index, and candidates that must come from tantivy alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from salience.models import Memory, validate_memory
from salience.store.sqlite import SQLiteStore, textindex
from salience.store.sqlite.textindex import TextIndexParams, sidecar_dir

T0 = datetime(2026, 3, 1, tzinfo=UTC)
VOCAB = [f"w{i}" for i in range(60)]


def texts(n: int, seed: int = 0) -> list[str]:
    """Zipf-like word lists over a small vocabulary (deterministic)."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, len(VOCAB) + 1)
    p /= p.sum()
    return [
        " ".join(VOCAB[j] for j in rng.choice(len(VOCAB), size=int(rng.integers(3, 15)), p=p))
        for _ in range(n)
    ]


def mems(contents: list[str], start: int = 0) -> list[Memory]:
    return [
        validate_memory(
            Memory(
                content=c,
                created_at=T0 + timedelta(seconds=start + i),
                updated_at=T0 + timedelta(seconds=start + i),
            )
        )
        for i, c in enumerate(contents)
    ]


def open_store(path: Path, mode: str = "tantivy", **kw) -> SQLiteStore:
    return SQLiteStore(path, mind="m", text_index=TextIndexParams(mode=mode, **kw))  # type: ignore[arg-type]


def hits(store: SQLiteStore, terms: list[str], k: int = 10) -> list[tuple[str, float]]:
    return [(c.id, round(c.score, 12)) for c in store.search_text(terms, limit=k)]


QUERIES = [[VOCAB[a], VOCAB[b]] for a, b in zip(range(0, 60, 3), range(59, 0, -3), strict=True)]


@pytest.fixture
def tantivy_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Candidates from tantivy (and the change log) alone: no term is read in full."""
    monkeypatch.setattr(textindex, "FULL_READ_DF", 0)


def test_same_rows_and_scores_as_the_exact_scorer(tmp_path: Path, tantivy_only: None):
    path = tmp_path / "m.db"
    s = open_store(path, pool=20, commit_every=50)
    s.insert(mems(texts(400)))
    exact = open_store(path, mode="exact")
    assert [hits(s, q) for q in QUERIES] == [hits(exact, q) for q in QUERIES]  # exact: building
    s._text.wait()  # the first search started the build in the background
    assert [hits(s, q) for q in QUERIES] == [hits(exact, q) for q in QUERIES]
    assert s._text.dirty == 0  # tantivy alone found them
    s.insert(mems(texts(30, seed=1), start=400))  # dirty, not yet committed
    assert [hits(s, q) for q in QUERIES] == [hits(exact, q) for q in QUERIES]
    assert s._text.dirty == 30
    s.insert(mems(texts(40, seed=2), start=430))  # past commit_every: one index commit
    assert [hits(s, q) for q in QUERIES] == [hits(exact, q) for q in QUERIES]
    s._text.wait()
    assert s._text.dirty == 0
    assert [hits(s, q) for q in QUERIES] == [hits(exact, q) for q in QUERIES]
    s.close()
    exact.close()


def test_deletes_updates_and_supersessions_are_reflected(tmp_path: Path, tantivy_only: None):
    path = tmp_path / "m.db"
    s = open_store(path, commit_every=2)
    ms = mems(["apple pie recipe", "banana bread", "apple cider", *texts(50)])
    s.insert(ms)
    assert {i for i, _ in hits(s, ["apple"])} == {ms[0].id, ms[2].id}
    s._text.wait()
    s.delete([ms[0].id])
    s.update([validate_memory(replace(ms[1], content="apple crumble", content_hash=""))])
    newer = replace(ms[2], superseded_by=ms[1].id)
    s.update([newer])
    assert [i for i, _ in hits(s, ["apple"])] == [ms[1].id]
    s.close()  # commits the dirty rows into the index
    again = open_store(path)
    hits(again, ["apple"])
    again._text.wait()  # the saved index loaded
    assert [i for i, _ in hits(again, ["apple"])] == [ms[1].id]
    assert again._text.dirty == 0 and again._text._tv is not None
    again.close()


_CRASH = """
import os, signal, sys
from pathlib import Path
sys.path[:0] = {paths!r}
from salience.store.sqlite import textindex
from tests.store.test_sqlite_text_index import mems, open_store, texts
def die(*a, **k):
    os.kill(os.getpid(), signal.SIGKILL)
s = open_store(Path({db!r}), commit_every=1)
s.insert(mems(texts(40)))
s.search_text(["w1"], limit=5)  # builds and commits the index (in the background)
s._text.wait()
s.insert(mems(["zebra crossing"], start=100))  # committed to SQLite only
setattr(textindex.TantivyText, {hook!r}, die)
s.search_text(["w1"], limit=5)  # the index commit of the zebra row: killed
s._text.wait()
"""


@pytest.mark.parametrize("hook", ["apply", "save_manifest"])
def test_a_crash_between_the_database_and_the_index_commit_is_replayed(tmp_path: Path, hook: str):
    """Killed before tantivy committed ("apply"), or after it but before the manifest: the
    next process replays the change log (or rebuilds) and finds the row."""
    db = tmp_path / "m.db"
    root = str(Path(__file__).resolve().parents[2])
    code = _CRASH.format(paths=[root, *sys.path], db=str(db), hook=hook)
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=root, capture_output=True, timeout=120
    )
    assert proc.returncode == -9, proc.stderr.decode()[-2000:]
    s = open_store(db)
    exact = open_store(db, mode="exact")
    hits(s, ["zebra", "w1"])
    s._text.wait()
    got = hits(s, ["zebra", "w1"])
    assert got == hits(exact, ["zebra", "w1"])
    assert got[0][0] == s.search_text(["zebra"], limit=1)[0].id
    s.close()
    exact.close()


def test_a_corrupted_index_file_is_rebuilt(tmp_path: Path, tantivy_only: None):
    path = tmp_path / "m.db"
    s = open_store(path)
    s.insert(mems(texts(200)))
    s.search_text(["w1"], limit=5)
    s._text.wait()
    s.close()
    segment = max(
        (p for p in sidecar_dir(path).rglob("*") if p.suffix in (".idx", ".term")),
        key=lambda p: p.stat().st_size,
    )
    before = {p.name for p in sidecar_dir(path).rglob("*")}
    segment.write_bytes(b"\x00" * segment.stat().st_size)  # same size, other bytes
    again = open_store(path)
    exact = open_store(path, mode="exact")
    hits(again, QUERIES[0])
    again._text.wait()
    assert [hits(again, q) for q in QUERIES] == [hits(exact, q) for q in QUERIES]
    assert {p.name for p in sidecar_dir(path).rglob("*")} != before  # rebuilt: new segments
    again.close()
    exact.close()


def test_an_index_of_another_database_is_not_used(tmp_path: Path, tantivy_only: None):
    one, two = tmp_path / "one.db", tmp_path / "two.db"
    a, b = open_store(one), open_store(two)
    a.insert(mems(["alpha beta"] * 3 + texts(20)))
    b.insert(mems(["gamma delta"] * 2 + texts(20, seed=5)))
    a.search_text(["alpha"], limit=3)
    a._text.wait()
    a.close()
    b.close()
    os.rename(sidecar_dir(one), sidecar_dir(two))  # the index of one.db beside two.db (unsearched)
    b = open_store(two)
    assert len(b.search_text(["gamma"], limit=5)) == 2
    b._text.wait()
    assert len(b.search_text(["gamma"], limit=5)) == 2
    assert b.search_text(["alpha"], limit=5) == []
    b.close()


def test_auto_mode_uses_the_index_from_min_rows(tmp_path: Path):
    path = tmp_path / "m.db"
    s = open_store(path, mode="auto", min_rows=50)
    s.insert(mems(texts(49)))
    s.search_text(["w1"], limit=5)
    assert not sidecar_dir(path).exists()
    s.insert(mems(texts(1, seed=9), start=49))
    s.search_text(["w1"], limit=5)
    s._text.wait()
    assert sidecar_dir(path).is_dir()
    s.close()


def test_two_handles_share_the_index_and_each_sees_the_others_writes(
    tmp_path: Path, tantivy_only: None
):
    """One handle holds the index's writer; the other's changes stay in the log (its
    candidates) until it can commit them: both return what the exact scorer returns."""
    path = tmp_path / "m.db"
    a, b = open_store(path, commit_every=5), open_store(path, commit_every=5)
    exact = open_store(path, mode="exact")
    a.insert(mems(texts(100)))
    assert hits(a, ["w3"]) == hits(exact, ["w3"])
    a._text.wait()
    a.insert(mems(texts(10, seed=3), start=100))
    hits(a, ["w3"])  # a commits (and keeps the writer)
    a._text.wait()
    b.insert(mems(["quince jam"] * 2 + texts(10, seed=4), start=200))
    hits(b, ["w3"])
    b._text.wait()  # b loaded a's index
    hits(b, ["w3"])  # b's commit: IndexBusy (a holds the writer)
    b._text.wait()
    for s in (a, b):
        assert [hits(s, q) for q in [["quince"], *QUERIES]] == [
            hits(exact, q) for q in [["quince"], *QUERIES]
        ]
    a.close()
    b.close()
    c = open_store(path)
    hits(c, ["w3"])
    c._text.wait()
    assert [hits(c, q) for q in QUERIES] == [hits(exact, q) for q in QUERIES]
    c.close()
    exact.close()


def test_bm25_parameters_far_from_the_shape_are_scored_exactly(tmp_path: Path, tantivy_only: None):
    """The documents are shaped for k1/b near the default; a search with other parameters
    (b 0.9 here) is answered by the exact scorer, so it still agrees."""
    path = tmp_path / "m.db"
    s = open_store(path, pool=1)
    s.insert(mems(texts(300)))
    exact = open_store(path, mode="exact")
    for q in QUERIES:
        got = [(c.id, c.score) for c in s.search_text(q, limit=10, k1=1.5, b=0.9)]
        assert got == [(c.id, c.score) for c in exact.search_text(q, limit=10, k1=1.5, b=0.9)]
    s.close()
    exact.close()


def test_searches_stay_exact_while_the_index_builds_and_commits_in_the_background(
    tmp_path: Path, tantivy_only: None
):
    """A build held before it publishes: searches use the exact scorer; a commit held after
    tantivy committed but before its rows leave the dirty set: the same rows and scores."""
    path = tmp_path / "m.db"
    s = open_store(path, pool=20, commit_every=20)
    exact = open_store(path, mode="exact")
    s.insert(mems(texts(300)))
    hold = s._text.hold = threading.Event()
    want = [hits(exact, q) for q in QUERIES]
    assert [hits(s, q) for q in QUERIES] == want  # starts the build
    assert s._text.paused.wait(60)
    assert s._text._tv is None and [hits(s, q) for q in QUERIES] == want
    hold.set()
    s._text.wait()
    assert s._text._tv is not None and [hits(s, q) for q in QUERIES] == want
    hold.clear()
    s.insert(mems(texts(30, seed=7), start=300))
    s.delete([m.id for m in exact.list(limit=5)])
    want = [hits(exact, q) for q in QUERIES]
    assert [hits(s, q) for q in QUERIES] == want  # starts the commit
    assert s._text.paused.wait(60)  # tantivy committed; the rows still dirty
    assert s._text.dirty >= 30 and [hits(s, q) for q in QUERIES] == want
    hold.set()
    s._text.wait()
    assert s._text.dirty == 0 and [hits(s, q) for q in QUERIES] == want
    s.close()
    exact.close()


def _index_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("salience-textindex")]


def test_close_during_a_build_cancels_and_joins_it(tmp_path: Path, tantivy_only: None):
    path = tmp_path / "m.db"
    s = open_store(path)
    s.insert(mems(texts(200)))
    s._text.hold = threading.Event()  # never set: the build waits before publishing
    s.search_text(["w1"], limit=5)
    assert s._text.paused.wait(60) and _index_threads()
    s.close()
    assert _index_threads() == []
    assert not (sidecar_dir(path) / "manifest.json").exists()  # cancelled: nothing published
    assert list(sidecar_dir(path).glob("index-*")) == []  # its unnamed build removed
    again = open_store(path)
    exact = open_store(path, mode="exact")
    hits(again, QUERIES[0])
    again._text.wait()
    assert [hits(again, q) for q in QUERIES] == [hits(exact, q) for q in QUERIES]
    again.close()
    exact.close()
    assert _index_threads() == []
