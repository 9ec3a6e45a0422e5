"""Event-loop latency while `AsyncMind` serves concurrent searches.

    python bench/async_loop.py                      # 200 concurrent searches, 2,000 memories
    python bench/async_loop.py --searches 1000 --memories 10000 --workers 8 --embedder e5

A probe coroutine sleeps 1 ms in a loop and records how late it wakes up (the event loop's lag)
while N searches run at once through `AsyncMind` (its bounded pool). The same probe is run
while the searches are called directly on the loop (`Mind.search` inside `async def`, what an
application without an async API does) for comparison. Numbers are for this machine and run.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from salience import Config, Mind
from salience.aio import AsyncMind


async def _probe(done: asyncio.Event, lags: list[float]) -> None:
    while not done.is_set():
        t = time.perf_counter()
        await asyncio.sleep(0.001)
        lags.append((time.perf_counter() - t - 0.001) * 1000)


async def _run(mind: Mind, n: int, workers: int, blocking: bool) -> tuple[list[float], float]:
    lags: list[float] = []
    done = asyncio.Event()
    probe = asyncio.create_task(_probe(done, lags))
    await asyncio.sleep(0.01)
    amind = AsyncMind(mind, max_workers=workers)

    async def direct(i: int) -> object:
        return mind.search(f"keyword{i % 500}", limit=5)

    t0 = time.perf_counter()
    if blocking:
        await asyncio.gather(*(direct(i) for i in range(n)))
    else:
        await asyncio.gather(*(amind.search(f"keyword{i % 500}", limit=5) for i in range(n)))
    wall = time.perf_counter() - t0
    done.set()
    await probe
    await amind.close()
    return lags, wall


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--searches", type=int, default=200)
    ap.add_argument("--memories", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--embedder", default="hash")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        cfg = Config(home=Path(d), embedder=args.embedder)
        with Mind.open("bench", config=cfg) as mind:
            mind.add_many(
                [f"note {i}: keyword{i % 500} about topic {i % 37}" for i in range(args.memories)],
                graph=False,
            )
            mind.search("warm up")
            table = Table(
                "mode", "searches", "wall s", "searches/s", "loop lag p50 ms", "p99 ms",
                "max ms", "probe wake-ups",
            )
            for label, blocking in (("AsyncMind", False), ("Mind.search on the loop", True)):
                lags, wall = asyncio.run(_run(mind, args.searches, args.workers, blocking))
                table.add_row(
                    label, str(args.searches), f"{wall:.2f}", f"{args.searches / wall:.0f}",
                    f"{statistics.median(lags):.2f}" if lags else "-", f"{_pct(lags, 0.99):.2f}",
                    f"{max(lags):.1f}" if lags else "-", str(len(lags)),
                )
    Console().print(table)
    print(f"embedder {args.embedder}, {args.memories} memories, workers {args.workers}")


if __name__ == "__main__":
    main()
