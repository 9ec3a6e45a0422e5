"""Crash safety: child processes killed with SIGKILL at random points, repeatedly, on real
databases. Afterwards the database passes its integrity check, every acknowledged write is
present, batches are all-or-nothing, the triage queue holds exactly the unprocessed items and
nothing is duplicated.

(The single-kill drain case is tests/ingest/test_crash.py; here the drain is killed again and
again on the same file. Export and restore are killed too: the JSONL export is written to a
`.partial` sibling and renamed when complete; restore is idempotent and resumes.)
"""

from __future__ import annotations

import random
import re
import sqlite3
import sys
import textwrap
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from killing import ROOT, child_env, run_and_kill

from salience.clock import FrozenClock
from salience.config import Config
from salience.mind import Mind

KILLS = 5
BATCH = 24  # short items per add_many call, plus one long item that is chunked
LONG_CHUNKS = 3

ADD_CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from salience.config import Config
    from salience.mind import Mind

    run, home, target, dsn = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    cfg = Config(home=Path(home), embedder="hash")
    if dsn:
        mind = Mind.open(target, config=cfg, dsn=dsn)
    else:
        mind = Mind.open(Path(target), config=cfg)
    print("READY", flush=True)
    b = 0
    while True:
        long_tail = " ".join(f"sentence {k} of long note {run}-{b} about the harbour."
                             for k in range(70))
        items = [f"run {run} batch {b} item {i}: the quay light number {i * 31 + b}"
                 for i in range({batch})]
        items.append(f"run {run} batch {b} item long: " + long_tail)
        ids = mind.add_many(items)
        for i in ids:
            print(f"ACK {i}", flush=True)
        b += 1
    """
).replace("{batch}", str(BATCH))


def _script(body: str, *args: str) -> str:
    return f"import sys; sys.argv = ['child', *{list(args)!r}]\n" + body


def _check_batches(mind: Mind, acked: set[str]) -> int:
    """Every acknowledged id present; every batch whole; no content stored twice."""
    rows = mind.list(limit=1_000_000, order="created_asc")
    ids = {m.id for m in rows}
    missing = acked - ids
    assert not missing, f"{len(missing)} acknowledged writes lost"
    hashes = Counter(m.content_hash for m in rows)
    assert max(hashes.values(), default=1) == 1, "content stored twice"
    per_batch: Counter[str] = Counter()
    for m in rows:
        match = re.match(r"run (\S+) batch (\d+) item", m.content)
        if match:
            per_batch[match.group(0)] += 1
    assert all(n == BATCH + 1 for n in per_batch.values()), "a batch was stored in part"
    long_parts = Counter(m.parent_id for m in rows if m.parent_id)
    assert all(n == LONG_CHUNKS - 1 for n in long_parts.values()), "a long item lost a chunk"
    assert len(rows) == len(per_batch) * (BATCH + LONG_CHUNKS)
    return len(rows)


def test_sigkill_during_add_many_sqlite(tmp_path: Path, rng: random.Random) -> None:
    home, db = tmp_path / "home", tmp_path / "crash.db"
    acked: set[str] = set()
    for k in range(KILLS):
        res = run_and_kill(
            _script(ADD_CHILD, f"r{k}", str(home), str(db), ""),
            env=child_env(),
            rng=rng,
            min_acks=rng.randint(1, 3 * BATCH),
            max_extra_s=0.5,
        )
        assert res.returncode == -9, res.stderr
        acked.update(res.acked)
        with sqlite3.connect(db) as raw:
            assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert raw.execute("PRAGMA foreign_key_check").fetchall() == []
        with Mind.open(db, config=Config(home=home, embedder="hash")) as mind:
            stored = _check_batches(mind, acked)
            assert mind.store.integrity_check() == "ok"
            # the FTS index and the vector table agree with the memories table
            raw = mind.store._db
            assert raw.execute("SELECT count(*) FROM memory_vectors").fetchone()[0] == stored
            assert mind.search("quay light", limit=5)
    assert len(acked) >= KILLS


@pytest.mark.slow
def test_sigkill_during_add_many_postgres(pg_dsn: str, tmp_path: Path, rng: random.Random) -> None:
    name = f"crash-{uuid.uuid4().hex[:8]}"
    cfg = Config(home=tmp_path / "home", embedder="hash")
    acked: set[str] = set()
    try:
        for k in range(KILLS):
            res = run_and_kill(
                _script(ADD_CHILD, f"r{k}", str(cfg.home), name, pg_dsn),
                env=child_env(),
                rng=rng,
                min_acks=rng.randint(1, 3 * BATCH),
                max_extra_s=0.5,
            )
            assert res.returncode == -9, res.stderr
            acked.update(res.acked)
            with Mind.open(name, config=cfg, dsn=pg_dsn) as mind:
                _check_batches(mind, acked)
                assert mind.search("quay light", limit=5)
        assert len(acked) >= KILLS
    finally:
        with Mind.open(name, config=cfg, dsn=pg_dsn) as mind:
            mind.store.drop_mind()  # type: ignore[attr-defined]


# -- triage drain, killed again and again on the same file --------------------------------------
N_TURNS = 150
DRAIN_CHILD = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[1])
    from pathlib import Path
    from datetime import UTC, datetime
    from ingest_helpers import ScriptedBrain, open_mind
    from salience.clock import FrozenClock
    from salience.config import Config

    class Acking(ScriptedBrain):
        def triage(self, text, *, kind="conversation"):
            print("ACK t", flush=True)
            return super().triage(text, kind=kind)

    cfg = Config(home=Path(sys.argv[2]), embedder="hash")
    clock = FrozenClock(datetime(2026, 3, 1, 12, 0, tzinfo=UTC))
    mind = open_mind(cfg, clock, Acking(delay_s=0.004), path=Path(sys.argv[3]))
    print("READY", flush=True)
    mind.drain_pending_triage(limit=100000)
    print("DONE", flush=True)
    """
)


def test_repeated_sigkill_during_drain(tmp_path: Path, rng: random.Random) -> None:
    ingest_tests = str(ROOT / "tests" / "ingest")
    sys.path.insert(0, ingest_tests)
    try:
        from ingest_helpers import ScriptedBrain, open_mind
    finally:
        sys.path.remove(ingest_tests)
    cfg = Config(home=tmp_path / "home", embedder="hash")
    clock = FrozenClock(datetime(2026, 3, 1, 12, 0, tzinfo=UTC))
    db = tmp_path / "drain.db"
    mind = open_mind(cfg, clock, ScriptedBrain(), path=db)
    for i in range(N_TURNS):
        mind.remember_turn(f"Fact {i}: the locker code of room {i} is {i * 7919}", f"Noted {i}")
    mind.close()
    kills = 0
    for _ in range(KILLS):
        res = run_and_kill(
            _script(DRAIN_CHILD, ingest_tests, str(cfg.home), str(db)),
            env=child_env(),
            rng=rng,
            min_acks=rng.randint(1, 20),
            max_extra_s=0.3,
        )
        kills += res.returncode == -9
        with sqlite3.connect(db) as raw:
            assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        with open_mind(cfg, clock, ScriptedBrain(), path=db) as m:
            saved = m.list(limit=10_000)
            status = m.queue_status()
            assert len(saved) == len({x.content_hash for x in saved}), "duplicated memory"
            assert len(saved) + status["pending_triage"] == N_TURNS, "lost or extra queue item"
            assert status["failed_operations"] == 0
        if res.finished:
            break
    assert kills >= 1
    with open_mind(cfg, clock, ScriptedBrain(), path=db) as m:
        assert m.drain_pending_triage(limit=100_000).failed == 0
        final = m.list(limit=10_000)
        assert len(final) == N_TURNS == len({x.content_hash for x in final})
        assert m.queue_status()["pending_triage"] == 0


# -- maintenance ---------------------------------------------------------------------------------
N_MAINT = 3000
T0 = datetime(2026, 1, 1, tzinfo=UTC)
T_RUN = T0 + timedelta(days=10)
MAINT_CHILD = textwrap.dedent(
    """
    import sys
    from datetime import datetime
    from pathlib import Path
    from salience.clock import FrozenClock
    from salience.config import Config
    from salience.mind import Mind

    cfg = Config(home=Path(sys.argv[1]), embedder="hash")
    mind = Mind.open(Path(sys.argv[2]), config=cfg,
                     clock=FrozenClock(datetime.fromisoformat(sys.argv[3])))
    print("READY", flush=True)
    mind.maintain()
    print("DONE", flush=True)
    """
)


def test_repeated_sigkill_during_maintenance(tmp_path: Path, rng: random.Random) -> None:
    """Decay is applied exactly once even when the run is killed and rerun at the same time."""
    from salience.maintenance.policy import Policy, decayed_salience

    cfg = Config(home=tmp_path / "home", embedder="hash")
    db = tmp_path / "maint.db"
    with Mind.open(db, config=cfg, clock=FrozenClock(T0)) as mind:
        mind.add_many(
            [
                {"content": f"note {i}: shelf {i % 97} holds box {i}", "salience": 5 + (i % 5)}
                for i in range(N_MAINT)
            ]
        )
        before = {m.id: m for m in mind.list(limit=N_MAINT)}
    policy = Policy.from_config(cfg)
    expected = {i: decayed_salience(m, T_RUN, None, policy) for i, m in before.items()}
    assert any(abs(expected[i] - m.salience) > 1e-3 for i, m in before.items())
    for _ in range(KILLS):
        res = run_and_kill(
            _script(MAINT_CHILD, str(cfg.home), str(db), T_RUN.isoformat()),
            env=child_env(),
            rng=rng,
            min_acks=0,
            max_extra_s=1.5,
        )
        with sqlite3.connect(db) as raw:
            assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        with Mind.open(db, config=cfg, clock=FrozenClock(T_RUN)) as mind:
            assert {m.id for m in mind.list(limit=N_MAINT + 1)} == set(before), "lost a memory"
        assert res.returncode in (-9, 0), res.stderr
    with Mind.open(db, config=cfg, clock=FrozenClock(T_RUN)) as mind:
        mind.maintain()
        after = {m.id: m.salience for m in mind.list(limit=N_MAINT + 1)}
    wrong = [i for i, s in after.items() if abs(s - expected[i]) > 1e-6]
    assert not wrong, f"{len(wrong)} memories decayed more or less than once"


class _Killed(BaseException):
    """Stands in for SIGKILL at an exact point inside the process."""


def test_crash_between_scores_and_run_record_does_not_decay_twice(tmp_path: Path) -> None:
    """Regression: the run time used to be written in its own transaction after the scores,
    so a crash between the two made the rerun decay the same interval a second time."""
    from salience.maintenance import job

    cfg = Config(home=tmp_path / "home", embedder="hash")
    db = tmp_path / "m.db"
    with Mind.open(db, config=cfg, clock=FrozenClock(T0)) as mind:
        mid = mind.add("a note on the shelf", salience=8)
    with Mind.open(db, config=cfg, clock=FrozenClock(T_RUN)) as mind:
        real = mind.store.set_meta

        def crash_on_run_record(key: str, value: str) -> None:
            if key == job.LAST_RUN_KEY:
                raise _Killed
            real(key, value)

        mind.store.set_meta = crash_on_run_record  # type: ignore[method-assign]
        with pytest.raises(_Killed):
            mind.maintain()
        once = mind.get(mid).salience
    assert once < 8
    with Mind.open(db, config=cfg, clock=FrozenClock(T_RUN)) as mind:
        mind.maintain()
        assert mind.get(mid).salience == pytest.approx(once)


# -- export and restore, killed at random points -----------------------------------------------
N_EXPORT = 3000
EXPORT_CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from salience.config import Config
    from salience.mind import Mind
    from salience.transfer import export_mind, restore_mind

    mode, home, db, out = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    mind = Mind.open(Path(db), config=Config(home=Path(home), embedder="hash"))
    print("READY", flush=True)
    if mode == "export":
        export_mind(mind, Path(out))
    else:
        restore_mind(mind, Path(out))
    print("DONE", flush=True)
    """
)


def _export_source(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    home, db = tmp_path / "home", tmp_path / "source.db"
    with Mind.open(db, config=Config(home=home, embedder="hash")) as mind:
        ids = mind.add_many(f"note {i}: shelf {i % 97} holds box {i * 13}" for i in range(N_EXPORT))
    return home, db, ids


def test_sigkill_during_export_leaves_source_intact_and_no_truncated_file(
    tmp_path: Path, rng: random.Random
) -> None:
    """An export killed midway leaves the mind as it was and no file under the final name
    (only a `.partial` sibling); a complete export restores every memory."""
    from salience.transfer import export_mind, restore_mind

    home, db, ids = _export_source(tmp_path)
    out = tmp_path / "mind.jsonl"
    kills = midway = 0
    for k in range(KILLS):
        res = run_and_kill(
            _script(EXPORT_CHILD, "export", str(home), str(db), str(out)),
            env=child_env(),
            rng=rng,
            min_acks=0,
            max_extra_s=0.25,  # an export of this mind takes about 0.3 s
        )
        kills += res.returncode == -9
        partial = out.with_name(out.name + ".partial")
        if partial.exists():
            midway += 1
            partial.unlink()
        with sqlite3.connect(db) as raw:
            assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        with Mind.open(db, config=Config(home=home, embedder="hash")) as mind:
            assert mind.count() == N_EXPORT
        if out.exists():  # only ever a complete export
            with Mind.open(
                tmp_path / f"check{k}.db", config=Config(home=home, embedder="hash")
            ) as m:
                restore_mind(m, out)
                assert sorted(x.id for x in m.list(limit=10_000)) == sorted(ids)
            out.unlink()
    assert kills >= 1 and midway >= 1  # at least one kill landed inside an export
    with Mind.open(db, config=Config(home=home, embedder="hash")) as mind:
        assert export_mind(mind, out).counts["memory"] == N_EXPORT  # and a rerun completes


def test_sigkill_during_restore_then_rerun_completes_without_duplicates(
    tmp_path: Path, rng: random.Random
) -> None:
    from salience.transfer import export_mind, restore_mind

    home, db, ids = _export_source(tmp_path)
    out = tmp_path / "mind.jsonl"
    with Mind.open(db, config=Config(home=home, embedder="hash")) as mind:
        export_mind(mind, out)
    target = tmp_path / "target.db"
    kills = midway = 0
    for _ in range(3):
        res = run_and_kill(
            _script(EXPORT_CHILD, "restore", str(home), str(target), str(out)),
            env=child_env(),
            rng=rng,
            min_acks=0,
            max_extra_s=0.8,
        )
        kills += res.returncode == -9
        with sqlite3.connect(target) as raw:
            assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            partial = raw.execute("SELECT count(*) FROM memories").fetchone()[0] < N_EXPORT
            midway += res.returncode == -9 and partial
    assert kills >= 1 and midway >= 1  # at least one kill landed inside a restore
    with Mind.open(target, config=Config(home=home, embedder="hash")) as m:
        restore_mind(m, out)  # resumes: ids already present are skipped
        got = [x.id for x in m.list(limit=10_000)]
        assert len(got) == len(set(got)) == N_EXPORT and set(got) == set(ids)
        raw = m.store._db
        assert raw.execute("SELECT count(*) FROM memory_vectors").fetchone()[0] == N_EXPORT


# -- building and saving the HNSW graph, killed at random points ------------------------------
HNSW_CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from salience.config import Config
    from salience.mind import Mind

    home, db = sys.argv[1], sys.argv[2]
    cfg = Config(home=Path(home), embedder="hash", sqlite_vector_index="hnsw")
    mind = Mind.open(Path(db), config=cfg)
    print("READY", flush=True)
    mind.search("shelf 5", limit=5, feedback=False)  # builds the graph, saves it
    mind.add_many(f"late note {i}: crate {i}" for i in range(1500))
    mind.close()  # saves the grown graph
    print("DONE", flush=True)
    """
)


def test_sigkill_while_building_or_saving_the_hnsw_graph(
    tmp_path: Path, rng: random.Random
) -> None:
    """Whatever point the kill hits, the next process finds a usable graph or rebuilds one,
    and its searches see exactly the rows in the database."""
    home, db = tmp_path / "home", tmp_path / "hnsw.db"
    with Mind.open(db, config=Config(home=home, embedder="hash")) as mind:
        mind.add_many(f"note {i}: shelf {i % 97} holds box {i * 13}" for i in range(8000))
    cfg = Config(home=home, embedder="hash", sqlite_vector_index="hnsw")
    for _ in range(KILLS):
        res = run_and_kill(
            _script(HNSW_CHILD, str(home), str(db)),
            env=child_env(),
            rng=rng,
            min_acks=0,
            max_extra_s=3.0,
        )
        assert res.returncode in (-9, 0), res.stderr
        with Mind.open(db, config=cfg) as mind:
            rows = mind.count()
            hits = mind.store.search_vector(mind.embedder.embed_queries(["x"])[0], limit=rows)
            assert len(hits) == rows  # every stored vector is in the (loaded or rebuilt) graph
            assert mind.store.integrity_check() == "ok"
