"""Concurrency: 8 writer processes and 2 reader processes on one mind, on SQLite (WAL, busy
timeout) and on PostgreSQL. Every acknowledged write is stored exactly once; no process sees an
unhandled error."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest
from killing import child_env

from salience.config import Config
from salience.mind import Mind

WRITERS = 8
READERS = 2
BATCHES = 25  # per writer
BATCH = 4  # items per add_many call (single add() calls in between)
TIMEOUT_S = 120

WRITER = (
    textwrap.dedent(
        """
    import sys
    from pathlib import Path
    from salience.config import Config
    from salience.mind import Mind

    w, home, target, dsn = sys.argv[1:5]
    cfg = Config(home=Path(home), embedder="hash")
    mind = Mind.open(target, config=cfg, dsn=dsn) if dsn else Mind.open(Path(target), config=cfg)
    for b in range({batches}):
        ids = mind.add_many([f"writer {w} batch {b} item {i}: tide table {i * 13 + b}"
                             for i in range({batch})])
        ids.append(mind.add(f"writer {w} single {b}: the ferry leaves at {b % 24}h",
                            tags=[f"w{w}"], metadata={"writer": w}))
        print("\\n".join("ACK " + i for i in ids), flush=True)
    mind.close()
    print("DONE", flush=True)
    """
    )
    .replace("{batches}", str(BATCHES))
    .replace("{batch}", str(BATCH))
)

READER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from salience.config import Config
    from salience.mind import Mind

    home, target, dsn, stop = sys.argv[1:5]
    cfg = Config(home=Path(home), embedder="hash")
    mind = Mind.open(target, config=cfg, dsn=dsn) if dsn else Mind.open(Path(target), config=cfg)
    ops = 0
    while not Path(stop).exists() or ops < 20:
        mind.search("tide table ferry", limit=10, feedback=ops % 2 == 0)
        mind.count()
        mind.list(limit=20)
        ops += 1
    mind.close()
    print("OPS", ops, flush=True)
    """
)


def _run(home: Path, target: str, dsn: str, tmp: Path) -> tuple[set[str], list[str]]:
    stop = tmp / "stop"
    env = child_env()
    py = sys.executable

    def spawn(script: str, *args: str) -> subprocess.Popen[str]:
        argv = f"import sys; sys.argv = ['c', *{list(args)!r}]\n"
        return subprocess.Popen(
            [py, "-c", argv + script],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
        )

    writers = [spawn(WRITER, str(w), str(home), target, dsn) for w in range(WRITERS)]
    readers = [spawn(READER, str(home), target, dsn, str(stop)) for _ in range(READERS)]
    acked: list[str] = []
    errors: list[str] = []
    for p in writers:
        out, err = p.communicate(timeout=TIMEOUT_S)
        acked += [ln[4:] for ln in out.splitlines() if ln.startswith("ACK ")]
        if p.returncode != 0 or "DONE" not in out:
            errors.append(err)
    stop.touch()
    for p in readers:
        out, err = p.communicate(timeout=TIMEOUT_S)
        if p.returncode != 0 or "OPS" not in out:
            errors.append(err)
    assert len(acked) == len(set(acked)), "an id was acknowledged twice"
    return set(acked), errors


def _check(mind: Mind, acked: set[str], errors: list[str]) -> None:
    assert errors == [], errors[0][-2000:]
    assert len(acked) == WRITERS * BATCHES * (BATCH + 1)
    rows = mind.list(limit=100_000)
    assert len(rows) == mind.count() == len(acked)
    assert {m.id for m in rows} == acked
    assert len({m.content_hash for m in rows}) == len(rows)


def test_eight_writers_two_readers_sqlite(tmp_path: Path) -> None:
    home, db = tmp_path / "home", tmp_path / "shared.db"
    cfg = Config(home=home, embedder="hash")
    Mind.open(db, config=cfg).close()  # created once, so children race on writes, not schema
    acked, errors = _run(home, str(db), "", tmp_path)
    with Mind.open(db, config=cfg) as mind:
        _check(mind, acked, errors)
        assert mind.store.integrity_check() == "ok"
        assert len(mind.store.search_vector(mind.embed_query("tide"), limit=5000)) == len(acked)


@pytest.mark.slow
def test_eight_writers_two_readers_postgres(pg_dsn: str, tmp_path: Path) -> None:
    name = f"conc-{uuid.uuid4().hex[:8]}"
    cfg = Config(home=tmp_path / "home", embedder="hash")
    Mind.open(name, config=cfg, dsn=pg_dsn).close()
    try:
        acked, errors = _run(cfg.home, name, pg_dsn, tmp_path)
        with Mind.open(name, config=cfg, dsn=pg_dsn) as mind:
            _check(mind, acked, errors)
    finally:
        with Mind.open(name, config=cfg, dsn=pg_dsn) as mind:
            mind.store.drop_mind()  # type: ignore[attr-defined]


def test_second_process_sees_pin_made_after_it_opened(tmp_path: Path) -> None:
    """Regression: an SQLite store opened before another process pinned the embedder kept
    `dim = None`, so its first insert failed with 'no pinned embedder yet'."""
    cfg = Config(home=tmp_path / "home", embedder="hash")
    db = tmp_path / "late.db"
    with Mind.open(db, config=cfg) as early, Mind.open(db, config=cfg) as other:
        other.add("pinned by the other process")
        early.add("written by the process that opened first")
        assert early.count() == 2
