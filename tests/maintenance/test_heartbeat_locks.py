"""A process keeps no per-mind heartbeat state after the tick (issue 17: a server that ticked
every mind a tenant created kept one lock per mind ever ticked)."""

from __future__ import annotations

import gc

from salience.config import Config
from salience.maintenance import heartbeat
from salience.mind import Mind


def test_ticked_minds_leave_no_lock_behind(config: Config) -> None:
    before = len(heartbeat._LOCKS)
    for i in range(6):
        with Mind.open(f"tick{i}", config=config) as m:
            m.add("the ferry leaves the quay at nine")
            assert heartbeat.tick(m).ran
    gc.collect()
    assert len(heartbeat._LOCKS) == before


def test_a_running_tick_still_excludes_a_second_one() -> None:
    held = heartbeat._process_lock("sqlite:/x.db")
    assert held.acquire(blocking=False)
    try:
        assert heartbeat._process_lock("sqlite:/x.db") is held
        assert not heartbeat._process_lock("sqlite:/x.db").acquire(blocking=False)
    finally:
        held.release()
