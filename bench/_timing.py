"""Latency helpers shared by the speed benchmarks (nearest-rank percentiles, a timing loop)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def pct(xs: list[float], p: float) -> float:
    """The nearest-rank `p`-th percentile of `xs` (NaN when empty)."""
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(p / 100 * (len(xs) - 1)))] if xs else float("nan")


def timed(fn: Callable[[int], Any], reps: int, *, warmup: bool = False) -> list[float]:
    """Milliseconds of `fn(i)` for i in 0..reps-1; `warmup` runs `fn(0)` once untimed first."""
    if warmup:
        fn(0)
    out = []
    for i in range(reps):
        t = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - t) * 1000)
    return out
