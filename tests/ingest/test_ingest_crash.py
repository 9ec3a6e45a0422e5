"""A drain killed with SIGKILL loses nothing and duplicates nothing (subprocess test on a real
SQLite file)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from ingest_helpers import ScriptedBrain, open_mind

from salience.config import Config
from salience.ingest.pipeline import BATCH_SIZE

N = 120
HERE = Path(__file__).parent

CHILD = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {here!r})
    from pathlib import Path
    from datetime import UTC, datetime
    from ingest_helpers import ScriptedBrain, open_mind
    from salience.clock import FrozenClock
    from salience.config import Config

    import time

    class Noisy(ScriptedBrain):
        calls = 0

        def triage(self, text, *, kind="conversation"):
            Noisy.calls += 1
            print("T", flush=True)  # progress for the parent; then slow work
            if Noisy.calls >= {kill_after}:
                time.sleep(600)  # the kill lands here, mid-step, however slow the parent is
            return super().triage(text, kind=kind)

    cfg = Config(home=Path({home!r}), embedder="hash")
    clock = FrozenClock(datetime(2026, 3, 1, 12, 0, tzinfo=UTC))
    mind = open_mind(cfg, clock, Noisy(delay_s=0.01), path=Path({db!r}))
    mind.drain_pending_triage(limit=100000)
    print("DONE", flush=True)
    """
)


@pytest.mark.parametrize("kill_after", [3, 80])
def test_sigkill_during_drain_loses_and_duplicates_nothing(tmp_path, clock, kill_after):
    cfg = Config(home=tmp_path / "home", embedder="hash")
    db = tmp_path / "crash.db"
    mind = open_mind(cfg, clock, ScriptedBrain(), path=db)
    for i in range(N):
        mind.remember_turn(f"Fact number {i}: the locker code is {i * 7919}", f"Noted {i}")
    mind.close()

    script = CHILD.format(here=str(HERE), home=str(cfg.home), db=str(db), kill_after=kill_after)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env, text=True)
    seen = 0
    assert child.stdout is not None
    for line in child.stdout:
        if line.strip() == "T":
            seen += 1
        if seen >= kill_after or line.strip() == "DONE":
            break
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL, child.stderr.read() if child.stderr else ""

    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    mind = open_mind(cfg, clock, ScriptedBrain(), path=db)
    try:
        saved = mind.list(limit=10_000)
        status = mind.queue_status()
        assert len(saved) == len({m.content_hash for m in saved})
        assert len(saved) + status["pending_triage"] == N
        assert status["failed_operations"] == 0
        # triage runs up to two batches ahead of the commits (one triaged and embedding while
        # the one before commits): every batch before those two is committed
        assert max(0, (kill_after - 1) // BATCH_SIZE - 1) * BATCH_SIZE <= len(saved) < N
        report = mind.drain_pending_triage(limit=100000)
        assert report.failed == 0
        final = mind.list(limit=10_000)
        assert len(final) == N == len({m.content_hash for m in final})
        assert mind.queue_status()["pending_triage"] == 0
        assert mind.store.integrity_check() == "ok"
    finally:
        mind.close()
