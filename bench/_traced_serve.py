"""`salience serve` under tracemalloc, for `bench/soak.py --trace DIR` (issue 17: what grows).

Each SIGUSR1 appends to `DIR/trace.txt`: the traced total, the sizes of the process-wide
caches (claims, hash-embedder buckets), and the 25 source lines whose allocations grew most
since the first signal. Slower than a plain server (tracemalloc costs ~2x); the figures in
docs/reliability.md come from untraced runs.
"""

from __future__ import annotations

import os
import signal
import sys
import tracemalloc
from pathlib import Path

OUT = Path(os.environ["SALIENCE_SOAK_TRACE_DIR"])
_first: list[tracemalloc.Snapshot] = []


def cache_sizes() -> str:
    """`cache_info()` of the process-wide LRU caches a server fills."""
    from salience.embed import hash as hash_embed
    from salience.llm.heuristic import claims

    parts = []
    for name, fn in (("claims", claims._claims_cached), ("hash buckets", hash_embed._bucket)):
        info = fn.cache_info()
        parts.append(f"{name} {info.currsize}/{info.maxsize}")
    return ", ".join(parts)


def dump(_signum: int, _frame: object) -> None:
    snap = tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.Filter(False, tracemalloc.__file__)]
    )
    total = sum(s.size for s in snap.statistics("filename")) / 2**20
    lines = [f"== traced {total:.1f} MB; caches: {cache_sizes()}"]
    if not _first:
        _first.append(snap)
    else:
        for stat in snap.compare_to(_first[0], "lineno")[:25]:
            lines.append(f"{stat.size_diff / 2**20:+8.2f} MB {stat.count_diff:+8d}  {stat.traceback[0]}")
    with (OUT / "trace.txt").open("a") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    tracemalloc.start(1)
    signal.signal(signal.SIGUSR1, dump)
    from salience.interfaces.cli import main

    sys.argv = ["salience", *sys.argv[1:]]
    main()
