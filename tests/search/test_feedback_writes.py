"""A search is a read (issue 21): its retrieval feedback is one UPDATE of counters, never a
rewrite of the memories it found (no full-text or postings re-index, no side tables, no graph
links), concurrent searches lose no bump, and a read-only mind can still be searched."""

from __future__ import annotations

import logging
import multiprocessing
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from salience.clock import FrozenClock
from salience.config import Config
from salience.embed import HashEmbedder
from salience.errors import ReadOnlyMind
from salience.mind import Mind

T0 = datetime(2026, 6, 1, tzinfo=UTC)
WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")
FACTS = [
    f"ferry {i} to the island leaves at {i % 12 + 1} with Sam and Oslo tide tables"
    for i in range(30)
]


def _fill(mind: Mind) -> None:
    mind.add_many(
        {"content": c, "tags": ["travel", f"t{i}"], "entities": ["Sam", "Oslo"]}
        for i, c in enumerate(FACTS)
    )


@pytest.fixture
def mind(config: Config) -> Iterator[Mind]:
    with Mind.open("reads", config=config, embedder=HashEmbedder(), clock=FrozenClock(T0)) as m:
        _fill(m)
        yield m


def _traced(mind: Mind, fn) -> list[str]:
    """Every statement SQLite ran for `fn()` (trigger bodies appear as '-- TRIGGER name')."""
    log: list[str] = []
    db = mind.store._db
    db.set_trace_callback(log.append)
    try:
        fn()
    finally:
        db.set_trace_callback(None)
    return log


def _writes(log: list[str]) -> list[str]:
    return [s for s in log if s.lstrip().split(" ", 1)[0].upper() in WRITES]


def test_one_search_with_feedback_is_one_write(mind: Mind) -> None:
    mind.search("ferry island Sam", limit=10, feedback=False)  # warm caches
    hits: list = []
    log = _traced(mind, lambda: hits.extend(mind.search("ferry island Sam", limit=10)))
    assert len(hits) == 10
    writes = _writes(log)
    assert len(writes) <= 2, writes
    assert not [s for s in log if "TRIGGER" in s], "a trigger fired: the search re-indexed"
    assert not [s for s in writes if "memory_terms" in s or "memory_tags" in s]
    for h in hits:
        assert mind.get(h.memory.id).retrieval_count == 1


def test_the_next_search_reuses_full_text_statistics(mind: Mind) -> None:
    """The feedback commit changed no text: the next search does not re-count the mind's rows."""
    mind.search("ferry island", limit=10)
    log = _traced(mind, lambda: mind.search("ferry island", limit=10))
    assert not [s for s in log if "memory_lengths" in s], log


def test_search_feedback_rewrites_no_index_entry(backend_config: Config) -> None:
    """On every backend: the hits' postings, tags, entities and graph links stay as written
    (PostgreSQL: the same row versions; SQLite: the same rows, no trigger)."""
    with Mind.open("reindex", config=backend_config, embedder=HashEmbedder(),
                   clock=FrozenClock(T0)) as m:
        _fill(m)
        before = _side_rows(m)
        hits = m.search("ferry island Sam", limit=10)
        assert len(hits) == 10 and m.get(hits[0].memory.id).retrieval_count == 1
        assert _side_rows(m) == before
        if m.store.backend == "postgres":
            m.store.drop_mind()  # the test database outlives the test


def _side_rows(m: Mind) -> dict[str, list]:
    tables = ("memory_terms", "memory_lengths", "memory_entity_links")
    if m.store.backend == "sqlite":
        db = m.store._db
        out = {t: db.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in tables}
        out["fts"] = db.execute("SELECT count(*) FROM memories_fts_docsize").fetchall()
        return out
    s = m.store.schema

    def read(conn):  # a row version (xmin, ctid) changes when a row is rewritten
        return {
            t: conn.execute(f'SELECT xmin::text, ctid::text FROM "{s}".{t} ORDER BY 1, 2').fetchall()
            for t in (*tables, "memory_tags") if _pg_has(conn, s, t)
        }

    return m.store._read(read)


def _pg_has(conn, schema: str, table: str) -> bool:
    return conn.execute("SELECT to_regclass(%s) IS NOT NULL", (f'"{schema}".{table}',)).fetchone()[0]


def _searcher(home: str, rounds: int) -> None:
    cfg = Config(home=Path(home), embedder="hash")
    with Mind.open("shared", config=cfg, embedder=HashEmbedder()) as m:
        for _ in range(rounds):
            assert len(m.search("ferry island Sam", limit=10)) == 10


def test_processes_searching_the_same_memories_lose_no_bump(tmp_path: Path) -> None:
    cfg = Config(home=tmp_path, embedder="hash")
    with Mind.open("shared", config=cfg, embedder=HashEmbedder()) as m:
        _fill(m)
        ids = [h.memory.id for h in m.search("ferry island Sam", limit=10, feedback=False)]
    procs_n, rounds = 8, 3
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_searcher, args=(str(tmp_path), rounds)) for _ in range(procs_n)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0] * procs_n
    with Mind.open("shared", config=cfg, embedder=HashEmbedder()) as m:
        assert [m.get(i).retrieval_count for i in ids] == [procs_n * rounds] * len(ids)


@pytest.fixture
def immutable_mind(config: Config) -> Iterator[Path]:
    """A mind whose database file the OS refuses to write, even for root (`chattr +i`)."""
    if shutil.which("chattr") is None:
        pytest.skip("chattr is not available")
    with Mind.open("frozen", config=config, embedder=HashEmbedder(), clock=FrozenClock(T0)) as m:
        _fill(m)
        path = m.store.path
    if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("cannot mark the file immutable here (needs root on ext4/xfs/btrfs)")
    try:
        yield path
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_a_read_only_mind_is_searched_and_records_nothing(
    immutable_mind: Path, config: Config, caplog: pytest.LogCaptureFixture
) -> None:
    with Mind.open("frozen", config=config, embedder=HashEmbedder()) as m:
        assert len(m.search("ferry island", limit=5, feedback=False)) == 5
        with caplog.at_level(logging.WARNING, logger="salience.search.feedback"):
            hits = m.search("ferry island", limit=5)  # feedback on: degrades, says so once
            m.search("ferry island", limit=5)
        assert len(hits) == 5
        assert [r.getMessage() for r in caplog.records].count(
            caplog.records[0].getMessage()
        ) == 1 and "read-only" in caplog.records[0].getMessage()
        assert m.get(hits[0].memory.id).retrieval_count == 0
        with pytest.raises(ReadOnlyMind, match="read-only"):  # a real write is a clear error
            m.add("one more memory")


NOBODY = 65534


def _search_read_only(db: str, conn: Any) -> None:
    """In a forked child (as `nobody` when the tests run as root, whom permission bits do not
    stop): open the mind, search it, try a write; report what happened."""
    try:
        if os.geteuid() == 0:
            os.setgid(NOBODY)
            os.setuid(NOBODY)
        path = Path(db)
        with Mind.open(path, config=Config(home=path.parent, embedder="hash"),
                       embedder=HashEmbedder()) as m:
            hits = m.search("ferry island", limit=5)
            try:
                m.add("one more memory")
                wrote = "no error"
            except ReadOnlyMind as e:
                wrote = f"ReadOnlyMind: {e}"
            conn.send((len(hits), m.get(hits[0].memory.id).retrieval_count, m.count(), wrote))
    except BaseException as e:
        conn.send(f"{type(e).__name__}: {e}")


def test_a_mind_in_a_read_only_directory_is_opened_and_searched() -> None:
    """A WAL mind in a directory the process may not write (no -shm can be created): it opens
    read-only, searches answer, nothing is recorded, a write is `ReadOnlyMind`."""
    top = Path(tempfile.mkdtemp(prefix="salience-ro-"))  # not under pytest's private tmp
    try:
        top.chmod(0o755)
        home = top / "minds"
        with Mind.open(home / "frozen.db", config=Config(home=home, embedder="hash"),
                       embedder=HashEmbedder(), clock=FrozenClock(T0)) as m:
            _fill(m)
        assert not list(home.glob("frozen.db-*"))  # the last close left no -wal / -shm
        (home / "frozen.db").chmod(0o444)
        home.chmod(0o555)
        parent, child = multiprocessing.get_context("fork").Pipe()
        proc = multiprocessing.get_context("fork").Process(
            target=_search_read_only, args=(str(home / "frozen.db"), child))
        proc.start()
        got = parent.recv() if parent.poll(60) else "no answer"
        proc.join(30)
        assert not isinstance(got, str), got
        n_hits, bumps, count, wrote = got
        assert (n_hits, bumps, count) == (5, 0, len(FACTS))
        assert wrote.startswith("ReadOnlyMind") and "read-only" in wrote
        assert sorted(p.name for p in home.iterdir()) == ["frozen.db"]
    finally:
        for d in (top, *top.rglob("*")):
            d.chmod(0o755)
        shutil.rmtree(top)
