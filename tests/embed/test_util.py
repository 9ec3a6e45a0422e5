"""The lazy-loading helper every local provider relies on."""

from __future__ import annotations

import threading
import time

import pytest

from salience.embed._util import Lazy, as_text_list, batched


def test_lazy_builds_exactly_once_under_concurrent_first_use() -> None:
    calls = []

    def build() -> object:
        calls.append(1)
        time.sleep(0.05)  # widen the window in which a second builder could start
        return object()

    lazy: Lazy[object] = Lazy(build)
    barrier = threading.Barrier(8)
    seen: list[object] = []

    def use() -> None:
        barrier.wait()
        seen.append(lazy.get())

    threads = [threading.Thread(target=use) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1
    assert all(s is seen[0] for s in seen)


def test_lazy_retries_after_a_failed_build() -> None:
    attempts = []

    def build() -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise OSError("first load fails")
        return "ok"

    lazy: Lazy[str] = Lazy(build)
    with pytest.raises(OSError):
        lazy.get()
    assert lazy.peek() is None and not lazy.loaded
    assert lazy.get() == "ok" and lazy.loaded


def test_batched_and_text_lists() -> None:
    assert [list(b) for b in batched([1, 2, 3, 4, 5], 2)] == [[1, 2], [3, 4], [5]]
    assert as_text_list(("a", "b")) == ["a", "b"]
