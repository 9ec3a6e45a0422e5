"""`salience serve` with memory probes, for `bench/soak.py --trace DIR` (issue 17: what grows).

Each SIGUSR1 appends a line to `DIR/trace.txt`: the Python heap (allocated blocks), SQLite's
own heap (`sqlite3_memory_used`: page caches, statements — what tracemalloc cannot see) and
the fill of the process-wide caches (every `models.text.text_cache` — claims, entities,
stems, update announcements, statements — and the hash-embedder buckets), the open minds'
vector indexes (rows live / used / capacity and array bytes), the process's anonymous and
file-backed RSS, glibc's `mallinfo2` (heap from the system, in use, free, mmapped) and
Python's own allocator (pymalloc arenas, bytes in blocks). SIGUSR2
calls `malloc_trim(0)` and writes the same line after it (what the allocator held free). With
`SALIENCE_SOAK_TRACE_TOP=1` the server runs under tracemalloc (~2x slower, each snapshot
stalls it) and the line adds the 25 source lines whose allocations grew most;
`SALIENCE_SOAK_CACHE_SIZE=N` shrinks every one of those caches to N entries.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import tracemalloc
from pathlib import Path

OUT = Path(os.environ["SALIENCE_SOAK_TRACE_DIR"])
_first: list[tracemalloc.Snapshot] = []
_caches: dict[str, object] = {}  # name -> a cached function (cache_info()), see track_caches
#: process-wide `functools.lru_cache`s (not text_caches) a server fills, looked up as globals
PLAIN_CACHES = (("salience.embed.hash", "_bucket"), ("salience.search.rank", "_stem"))


def sqlite_heap_mb() -> float:
    """`sqlite3_memory_used()`: SQLite's own heap (page caches, statements, schema) in this
    process, which tracemalloc does not see."""
    import _sqlite3

    used = ctypes.CDLL(_sqlite3.__file__).sqlite3_memory_used
    used.restype = ctypes.c_int64
    return int(used()) / 2**20


def cache_sizes() -> str:
    """`cache_info()` fill of the process-wide caches a server fills (and the characters of
    texts each text cache keeps)."""
    out = []
    for name, fn in sorted(_caches.items()):
        info = fn.cache_info()  # type: ignore[attr-defined]
        chars = getattr(info, "chars", None)  # a text_cache's characters kept (lru_cache: none)
        out.append(f"{name} {info.currsize}/{info.maxsize}"
                   + (f" {chars / 1e6:.2f}M chars" if chars is not None else ""))
    return ", ".join(out)


def track_caches(size: int | None) -> None:
    """Before salience is imported: every `text_cache` made from now on is recorded (and, with
    `size`, holds `size` entries); the hash embedder's bucket cache likewise."""
    from functools import lru_cache

    from salience.models import text

    made = text.text_cache

    def recording(maxsize: int, *args: object, **kw: object):  # type: ignore[no-untyped-def]
        deco = made(size or maxsize, *args, **kw)  # type: ignore[arg-type]

        def register(fn):  # type: ignore[no-untyped-def]
            out = deco(fn)
            _caches[f"{fn.__module__.rpartition('.')[2]}.{fn.__name__}"] = out
            return out

        return register

    text.text_cache = recording  # type: ignore[assignment]
    import importlib

    for module, attr in PLAIN_CACHES:  # imported after the patch: their text_caches register
        mod = importlib.import_module(module)
        if size:
            setattr(mod, attr, lru_cache(maxsize=size)(getattr(mod, attr).__wrapped__))
        _caches[f"{module.rpartition('.')[2]}.{attr}"] = getattr(mod, attr)


def vector_indexes() -> str:
    """The in-process vector indexes alive now (found through the garbage collector, so every
    open mind's, whatever holds it): exact ones' live rows / used rows / capacity and their
    arrays' bytes, HNSW graphs' rows and bytes, and the snapshots searches hold."""
    import gc

    from salience.store.sqlite.hnsw import HnswIndex
    from salience.store.sqlite.vectors import VectorIndex, VectorSnapshot

    objects = gc.get_objects()
    exact = [o for o in objects if isinstance(o, VectorIndex)]
    hnsw = [o for o in objects if isinstance(o, HnswIndex)]
    snaps = sum(isinstance(o, VectorSnapshot) for o in objects)
    del objects
    live = sum(len(i) for i in exact)
    used = sum(i._n for i in exact)  # a probe: the private fill of each index
    cap = sum(len(i._pks) for i in exact)
    mb = sum(i.nbytes() for i in exact) / 2**20
    out = f"vector {len(exact)} exact live/used/cap {live}/{used}/{cap} {mb:.1f} MB"
    if hnsw:
        out += f", {len(hnsw)} hnsw {sum(len(i) for i in hnsw)} rows " \
               f"{sum(i.nbytes() for i in hnsw) / 2**20:.1f} MB"
    return out + f", {snaps} snapshots"


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    return ctypes.CDLL(name) if name else None


def malloc_stats() -> str:
    """glibc `mallinfo2` (summed over all arenas): `arena` bytes the heaps took from the
    system, `inuse` allocated in them, `free` free in them (`top` of it trimmable at the top),
    `mmap` bytes in mmapped chunks; and RssAnon / RssFile of this process."""
    rss = {k: int(v.split()[0]) / 1024 for k, _, v in (
        line.partition(":") for line in Path("/proc/self/status").read_text().splitlines())
        if k in ("VmRSS", "RssAnon", "RssFile")}
    out = (f"RSS {rss.get('VmRSS', 0):.1f} MB (anon {rss.get('RssAnon', 0):.1f}, "
           f"file {rss.get('RssFile', 0):.1f})")
    libc = _libc()
    fn = getattr(libc, "mallinfo2", None)
    if fn is None:
        return out
    fn.restype = _Mallinfo2
    m = fn()
    mb = 2**20
    return (out + f"; malloc arena {m.arena / mb:.1f} MB, inuse {m.uordblks / mb:.1f}, "
            f"free {m.fordblks / mb:.1f} (top {m.keepcost / mb:.1f}, {m.ordblks} chunks), "
            f"mmap {m.hblkhd / mb:.1f} MB in {m.hblks}")


def pymalloc_stats() -> str:
    """Python's own allocator (`sys._debugmallocstats`): its 1 MiB arenas (mmapped, outside
    `mallinfo2`), the bytes in allocated blocks and the free space inside them."""
    import re
    import tempfile

    with tempfile.TemporaryFile(mode="w+") as f:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(f.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        f.seek(0)
        text = f.read()

    def field(label: str) -> int:
        m = re.search(rf"# {label}\s*=\s*([\d,]+)", text)
        return int(m[1].replace(",", "")) if m else -1

    mb = 2**20
    return (f"pymalloc {field('arenas allocated current')} arenas, "
            f"blocks {field('bytes in allocated blocks') / mb:.1f} MB, "
            f"free in arenas {field('bytes in available blocks') / mb:.1f} MB")


def trim(_signum: int, _frame: object) -> None:
    """SIGUSR2: `malloc_trim(0)` (return every free page of every arena), then the malloc line."""
    libc = _libc()
    before = malloc_stats()
    released = libc.malloc_trim(0) if libc is not None else -1
    with (OUT / "trace.txt").open("a") as f:
        f.write(f"== trim: before {before}\n== trim: released {released}, after {malloc_stats()}\n")


def dump(_signum: int, _frame: object) -> None:
    """One line: the Python heap (allocated blocks; with `SALIENCE_SOAK_TRACE_TOP=1` the bytes
    tracemalloc traced and the source lines that grew most), SQLite's own heap (page caches,
    statements), and the caches' fill."""
    if tracemalloc.is_tracing():
        heap = f"traced {tracemalloc.get_traced_memory()[0] / 2**20:.1f} MB"
    else:
        heap = f"{sys.getallocatedblocks():,} Python blocks"
    lines = [f"== {heap}, SQLite heap {sqlite_heap_mb():.1f} MB; caches: {cache_sizes()}",
             f"== {malloc_stats()}; {pymalloc_stats()}; {vector_indexes()}"]
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


if __name__ == "__main__":
    track_caches(int(os.environ.get("SALIENCE_SOAK_CACHE_SIZE") or 0) or None)
    if os.environ.get("SALIENCE_SOAK_TRACE_TOP") == "1":
        tracemalloc.start(1)  # slows the server ~2x, and each snapshot stalls it for seconds
    signal.signal(signal.SIGUSR1, dump)
    signal.signal(signal.SIGUSR2, trim)
    from salience.interfaces.cli import main

    sys.argv = ["salience", *sys.argv[1:]]
    main()
