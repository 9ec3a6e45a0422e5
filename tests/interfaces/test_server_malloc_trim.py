"""The server returns glibc's free heap pages periodically (issue 17: a soak's RSS crept after
every bounded cache was full; `http_server.start_trimming`)."""

from __future__ import annotations

import sys
import threading

import pytest

from salience.interfaces import http_server


def test_trims_every_interval_until_stopped() -> None:
    calls: list[int] = []
    ticked = threading.Event()

    def trim() -> None:
        calls.append(1)
        if len(calls) >= 3:
            ticked.set()

    stop = http_server.start_trimming(0.01, trim)
    assert stop is not None
    assert ticked.wait(5)
    stop.set()
    seen = len(calls)
    threading.Event().wait(0.1)
    assert len(calls) <= seen + 1  # at most one tick was already under way


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
def test_glibc_trim_is_found() -> None:
    trim = http_server._malloc_trim()
    assert trim is not None
    trim()  # returns 0 or 1, never raises


def test_run_starts_the_trimmer(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    started: list[float] = []
    stops: list[threading.Event] = []

    def fake_start(interval_s: float = http_server.TRIM_INTERVAL_S, trim: object = None):
        started.append(interval_s)
        stops.append(threading.Event())
        return stops[-1]

    monkeypatch.setattr(http_server, "start_trimming", fake_start)
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: None)
    http_server.run(object(), host="127.0.0.1", port=0, log_level="error", header_timeout_s=1.0)
    assert started == [http_server.TRIM_INTERVAL_S]
    assert stops[0].is_set()  # stopped when the server returns
