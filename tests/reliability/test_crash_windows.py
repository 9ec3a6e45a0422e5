"""Issue 17 item 3: maintenance killed (SIGKILL, in a child process) at exact points inside
each step, then rerun at the same instant, ends where one uninterrupted run ends — same
surviving memories, same saliences, patches merged once. On an SQLite file (every point) and a
PostgreSQL schema (the issue's two windows: before the prune, inside a P-frame merge).

Kill points are placed by wrapping the child's store methods (no hooks in the library).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from killing import child_env

from salience.clock import FrozenClock
from salience.config import Config
from salience.maintenance.job import last_run
from salience.mind import Mind
from salience.models import FrameType

T0 = datetime(2026, 1, 1, tzinfo=UTC)
T_RUN = T0 + timedelta(days=120)

CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from datetime import datetime
    from pathlib import Path
    from salience.clock import FrozenClock
    from salience.config import Config
    from salience.maintenance import job
    from salience.mind import Mind

    home, db, point, when, dsn = sys.argv[1:6]
    mind = Mind.open(Path(db) if not dsn else db, config=Config(home=Path(home), embedder="hash"),
                     clock=FrozenClock(datetime.fromisoformat(when)), dsn=dsn or None)
    store = mind.store

    def die():
        os.kill(os.getpid(), signal.SIGKILL)

    def after(name, nth=1):
        real, seen = getattr(store, name), [0]
        def wrapped(*a, **k):
            out = real(*a, **k)
            seen[0] += 1
            if seen[0] == nth:
                die()
            return out
        setattr(store, name, wrapped)

    def before(name, nth=1, key=None):
        real, seen = getattr(store, name), [0]
        def wrapped(*a, **k):
            if key is None or a[0] == key:
                seen[0] += 1
                if seen[0] == nth:
                    die()
            return real(*a, **k)
        setattr(store, name, wrapped)

    {
        "after-scores": lambda: after("set_scores"),
        "before-prune": lambda: before("delete"),
        "between-deletes": lambda: after("delete"),
        "merge-insert-then-kill": lambda: after("insert"),
        "after-merge-delete": lambda: after("delete", 3),
        "before-run-record": lambda: before("set_meta", key=job.LAST_RUN_KEY),
    }[point]()
    mind.maintain()
    print("DONE", flush=True)
    """
)
POINTS = [
    "after-scores",
    "before-prune",
    "between-deletes",
    "merge-insert-then-kill",
    "after-merge-delete",
    "before-run-record",
]


def _open(db: Path | str, home: Path, dsn: str | None = None, **kw: object) -> Mind:
    """The mind under test: an SQLite file (`db` a path) or a PostgreSQL schema (`db` a name)."""
    return Mind.open(db, config=Config(home=home, embedder="hash"), dsn=dsn, **kw)  # type: ignore[arg-type]


def _build(db: Path | str, home: Path, dsn: str | None = None) -> None:
    with _open(db, home, dsn, clock=FrozenClock(T0)) as m:
        m.add_many([f"an ordinary note {i} about the harbour" for i in range(40)])
        m.add_many(
            [{"content": f"a temporary reminder {i}", "importance": "temporary", "salience": 9}
             for i in range(30)]
        )
        m.add_many([{"content": f"a fading note {i}", "salience": 1.0, "source": "agent_inferred"}
             for i in range(30)])
        iframe = m.add_many(
            [{"content": "the plan: version 0", "session_id": "s1", "frame_type": "I"}]
        )[0]
        m.add_many(
            [
                {"content": f"the plan: change {i}", "session_id": "s1", "frame_type": "P",
                 "base_frame_id": iframe}
                for i in range(14)
            ]
        )


def _state(db: Path | str, home: Path, dsn: str | None = None) -> tuple[dict[str, float], int, int]:
    """(content -> salience of every memory, P-frames of s1, I-frames of s1)."""
    with _open(db, home, dsn) as m:
        rows = m.list(limit=10_000, include_superseded=True) if _takes_superseded(m) else m.list(
            limit=10_000
        )
        sal = {r.content: round(r.salience, 9) for r in rows}
        p = len(m.store.session_frames("s1", frame_type=FrameType.P))
        i = len(m.store.session_frames("s1", frame_type=FrameType.I))
    return sal, p, i


def _takes_superseded(m: Mind) -> bool:
    import inspect

    return "include_superseded" in inspect.signature(m.list).parameters


def _maintain(db: Path | str, home: Path, dsn: str | None = None) -> None:
    with _open(db, home, dsn, clock=FrozenClock(T_RUN)) as m:
        m.maintain()


def _planned(db: Path | str, home: Path, dsn: str | None = None) -> dict[str, float]:
    """id -> the salience one run at T_RUN gives each memory it decays or regresses."""
    with _open(db, home, dsn, clock=FrozenClock(T_RUN)) as m:
        plan = m.maintain(dry_run=True)
    return {c.id: round(c.salience_after, 9) for c in [*plan.decayed, *plan.regressed]}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, tuple]:
    base = tmp_path_factory.mktemp("windows")
    home, db = base / "home", base / "seed.db"
    _build(db, home)
    planned = _planned(db, home)
    clean = base / "clean.db"
    shutil.copy(db, clean)
    _maintain(clean, home)
    return db, home, (_state(clean, home), planned)


@pytest.mark.parametrize("point", POINTS)
def test_maintenance_killed_inside_a_step_then_rerun_equals_one_run(
    point: str, reference: tuple[Path, Path, tuple], tmp_path: Path
) -> None:
    seed, home, (expected, planned) = reference
    db = tmp_path / "m.db"
    shutil.copy(seed, db)
    _kill_inside(point, db, home, None, planned)
    _rerun_equals(expected, db, home, None)


@pytest.mark.slow
def test_maintenance_killed_twice_inside_steps_postgres(
    pg_dsn: str, reference: tuple[Path, Path, tuple], tmp_path: Path
) -> None:
    """The issue's two windows on a PostgreSQL schema: maintenance killed before its prune, the
    rerun killed between a P-frame merge's insert and its deletes, then run to the end — where
    one clean run ends on SQLite (saliences by content: the same arithmetic on both backends;
    one schema built, as creating one costs seconds)."""
    _, _, (expected, _) = reference
    home, name = tmp_path / "home", f"cw-{uuid.uuid4().hex[:8]}"
    try:
        _build(name, home, pg_dsn)
        planned = _planned(name, home, pg_dsn)
        for point in ("before-prune", "merge-insert-then-kill"):
            _kill_inside(point, name, home, pg_dsn, planned)
        _rerun_equals(expected, name, home, pg_dsn)
    finally:
        with _open(name, home, pg_dsn) as m:
            m.store.drop_mind()  # type: ignore[attr-defined]


def _kill_inside(
    point: str, db: Path | str, home: Path, dsn: str | None, planned: dict[str, float]
) -> None:
    """A child's `maintain()` at T_RUN, SIGKILLed at `point`; then, if the run time was
    recorded, every memory still there carries its decayed salience (also those the run was
    about to delete)."""
    r = subprocess.run(
        [sys.executable, "-c", CHILD, str(home), str(db), point, T_RUN.isoformat(), dsn or ""],
        capture_output=True, text=True, env=child_env(), timeout=300,
    )
    assert r.returncode == -9, (point, r.returncode, r.stderr[-2000:])  # killed at the point
    with _open(db, home, dsn) as m:
        if last_run(m.store) == T_RUN:
            undecayed = [
                r.id for r in m.list(limit=10_000)
                if r.id in planned and round(r.salience, 9) != planned[r.id]
            ]
            assert not undecayed, f"{point}: {len(undecayed)} memories skipped the decay"


def _rerun_equals(
    expected: tuple[dict[str, float], int, int], db: Path | str, home: Path, dsn: str | None
) -> None:
    """A rerun at the same instant ends where one uninterrupted run ended."""
    exp_sal, exp_p, exp_i = expected
    _maintain(db, home, dsn)
    sal, p, i = _state(db, home, dsn)
    assert (p, i) == (exp_p, exp_i), f"{p} P-frames / {i} I-frames, want {exp_p}/{exp_i}"
    assert set(sal) == set(exp_sal), (
        f"{len(set(sal) - set(exp_sal))} extra, {len(set(exp_sal) - set(sal))} missing"
    )
    wrong = {c: (sal[c], exp_sal[c]) for c in sal if sal[c] != exp_sal[c]}
    assert not wrong, f"{len(wrong)} saliences differ, e.g. {list(wrong.items())[:3]}"
