"""`salience serve` with memory probes, for `bench/soak.py --trace DIR` (issue 17: what grows).

Each SIGUSR1 appends a line to `DIR/trace.txt`: the Python heap (allocated blocks), SQLite's
own heap (`sqlite3_memory_used`: page caches, statements — what tracemalloc cannot see) and
the fill of the process-wide caches (claims, hash-embedder buckets). With
`SALIENCE_SOAK_TRACE_TOP=1` the server runs under tracemalloc (~2x slower, each snapshot
stalls it) and the line adds the 25 source lines whose allocations grew most;
`SALIENCE_SOAK_CACHE_SIZE=N` shrinks those two caches to N entries.
"""

from __future__ import annotations

import os
import signal
import sys
import tracemalloc
from pathlib import Path

OUT = Path(os.environ["SALIENCE_SOAK_TRACE_DIR"])
_first: list[tracemalloc.Snapshot] = []


def sqlite_heap_mb() -> float:
    """`sqlite3_memory_used()`: SQLite's own heap (page caches, statements, schema) in this
    process, which tracemalloc does not see."""
    import _sqlite3
    import ctypes

    used = ctypes.CDLL(_sqlite3.__file__).sqlite3_memory_used
    used.restype = ctypes.c_int64
    return int(used()) / 2**20


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
    """One line: the Python heap (allocated blocks; with `SALIENCE_SOAK_TRACE_TOP=1` the bytes
    tracemalloc traced and the source lines that grew most), SQLite's own heap (page caches,
    statements), and the caches' fill."""
    if tracemalloc.is_tracing():
        heap = f"traced {tracemalloc.get_traced_memory()[0] / 2**20:.1f} MB"
    else:
        heap = f"{sys.getallocatedblocks():,} Python blocks"
    lines = [f"== {heap}, SQLite heap {sqlite_heap_mb():.1f} MB; caches: {cache_sizes()}"]
    if tracemalloc.is_tracing():
        snap = tracemalloc.take_snapshot()
        if not _first:
            _first.append(snap)
        else:
            for stat in snap.compare_to(_first[0], "lineno")[:25]:
                lines.append(f"{stat.size_diff / 2**20:+8.2f} MB {stat.count_diff:+8d}  "
                             f"{stat.traceback[0]}")
    with (OUT / "trace.txt").open("a") as f:
        f.write("\n".join(lines) + "\n")


def shrink_caches(size: int) -> None:
    """Diagnosis (`SALIENCE_SOAK_CACHE_SIZE=N`): the claims and bucket caches hold N entries, so a
    soak shows whether anything but them grows."""
    from functools import lru_cache

    from salience.embed import hash as hash_embed
    from salience.llm.heuristic import claims

    claims._claims_cached = lru_cache(maxsize=size)(claims._claims_of)
    hash_embed._bucket = lru_cache(maxsize=size)(hash_embed._bucket.__wrapped__)


if __name__ == "__main__":
    if os.environ.get("SALIENCE_SOAK_CACHE_SIZE"):
        shrink_caches(int(os.environ["SALIENCE_SOAK_CACHE_SIZE"]))
    if os.environ.get("SALIENCE_SOAK_TRACE_TOP") == "1":
        tracemalloc.start(1)  # slows the server ~2x, and each snapshot stalls it for seconds
    signal.signal(signal.SIGUSR1, dump)
    from salience.interfaces.cli import main

    sys.argv = ["salience", *sys.argv[1:]]
    main()
