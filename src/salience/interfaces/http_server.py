"""Serving the HTTP API with uvicorn, with read timeouts uvicorn lacks.

uvicorn (h11) keeps a connection whose request headers never finish open forever, and waits
forever for a declared body that never arrives: 300 such sockets starve a server. Here
`TimedH11Protocol` closes a connection whose headers are not complete `header_timeout_s` after
it opened (or after its previous response), however slowly bytes trickle in; the body timeout
is `BodyLimitMiddleware`'s (HTTP 408 when a body chunk takes longer than `body_timeout_s`).
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

DEFAULT_HEADER_TIMEOUT_S = 10.0


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request's headers."""

    header_timeout_s = DEFAULT_HEADER_TIMEOUT_S

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._header_timer: asyncio.TimerHandle | None = None
        self._arm_header_timer()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.cycle is not None and self._header_timer is not None:  # headers complete
            self._header_timer.cancel()
            self._header_timer = None

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm_header_timer()  # the next request on this keep-alive connection

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        super().connection_lost(exc)

    def _arm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        self._header_timer = self.loop.call_later(self.header_timeout_s, self._headers_late)

    def _headers_late(self) -> None:
        self._header_timer = None
        busy = self.cycle is not None and not self.cycle.response_complete
        if not busy and not self.transport.is_closing():
            self.transport.close()


def timed_protocol(header_timeout_s: float) -> type[TimedH11Protocol]:
    """A `TimedH11Protocol` class with this header deadline (pass as uvicorn's `http=`)."""
    return type("TimedH11Protocol", (TimedH11Protocol,), {"header_timeout_s": header_timeout_s})


#: glibc raises its mmap threshold each time a large block is freed (up to 32 MB); after that,
#: the vector-index arrays a busy server allocates and frees come from the heap and their pages
#: stay resident: a soak at a steady memory count grew ~1.5 MB/min (issue 17, docs/reliability.md)
#: and was flat with the threshold pinned.
MMAP_THRESHOLD = 128 * 1024
_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter


def pin_mmap_threshold() -> bool:
    """Pin glibc's mmap threshold at `MMAP_THRESHOLD` (a no-op on other C libraries, or when
    `MALLOC_MMAP_THRESHOLD_` is set). True when pinned."""
    import ctypes
    import ctypes.util
    import os

    name = ctypes.util.find_library("c")
    if not name or "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return False
    try:
        return bool(ctypes.CDLL(name).mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    except (OSError, AttributeError):  # no libc to load, or no mallopt (musl, macOS)
        return False


#: how often a server hands glibc's free heap pages back to the system (issue 17: after every
#: bounded cache was full, a soak's RSS still crept 1-2 MB per 10 minutes, free space inside
#: glibc's heap growing around the same bytes in use; one `malloc_trim(0)` returned 7.5-8.4 MB)
TRIM_INTERVAL_S = 60.0


def _malloc_trim() -> Callable[[], object] | None:
    """glibc's `malloc_trim(0)` as a callable, or None on other C libraries (musl, macOS)."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        fn = ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None
    return None if fn is None else functools.partial(fn, 0)


def start_trimming(
    interval_s: float = TRIM_INTERVAL_S, trim: Callable[[], object] | None = None
) -> threading.Event | None:
    """Call `trim` (default glibc's `malloc_trim(0)`) every `interval_s` seconds on a daemon
    thread; set the returned event to stop. None (nothing started) without glibc."""
    trim = trim or _malloc_trim()
    if trim is None:
        return None
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(interval_s):
            trim()

    threading.Thread(target=loop, name="salience-malloc-trim", daemon=True).start()
    return stop


def run(app: Any, *, host: str, port: int, log_level: str, header_timeout_s: float) -> None:
    """`uvicorn.run` with the header deadline, glibc's mmap threshold pinned and its free heap
    pages returned every `TRIM_INTERVAL_S`."""
    import uvicorn

    pin_mmap_threshold()
    stop = start_trimming()
    try:
        uvicorn.run(
            app, host=host, port=port, log_level=log_level, http=timed_protocol(header_timeout_s)
        )
    finally:
        if stop is not None:
            stop.set()
