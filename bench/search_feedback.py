"""What retrieval feedback costs a search: before and after `Store.record_retrievals` (issue 21).

    python bench/search_feedback.py                        # 10k memories, SQLite
    python bench/search_feedback.py --backend sqlite,postgres [--dsn DSN] [--n 10000]

Each query runs `Mind.search(limit=10)` and then writes its feedback one of three ways, in a
rotating order so the modes share the machine's state: no feedback; "before" — the old path
(read the hits, `store.update` every column, which re-indexes text and rewrites tag, entity and
link rows); "after" — `store.record_retrievals`, one UPDATE of counters and salience. Latency
is the whole search plus its write; on SQLite the statements one search issues are counted
with a trace callback. The load average is printed with the table (2 shared cores).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import Corpus
from _pg import with_postgres
from _timing import pct, timed
from salience.config import Config
from salience.embed import HashEmbedder
from salience.mind import Mind
from salience.search.feedback import RETRIEVAL_BOOST, retrieved
from salience.store.base import Store

WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


def write_before(store: Store, ids: Sequence[str], now: datetime) -> None:
    """The feedback write before issue 21: read-modify-write of whole records."""
    records = [retrieved(m, now) for m in store.get_many(list(dict.fromkeys(ids)))]
    if records:
        store.update(records)


def write_after(store: Store, ids: Sequence[str], now: datetime) -> None:
    store.record_retrievals(ids, now, boost=RETRIEVAL_BOOST)


MODES: dict[str, Callable[[Store, Sequence[str], datetime], None] | None] = {
    "no feedback": None,
    "before: get_many + update": write_before,
    "after: record_retrievals": write_after,
}


def build(cfg: Config, backend: str, n: int) -> Mind:
    mind = Mind.open(f"feedback-{n}", config=cfg, backend=backend, embedder=HashEmbedder())
    if mind.store.count() != n:
        if backend == "postgres":
            mind.store.drop_mind()
            mind.close()
            mind = Mind.open(f"feedback-{n}", config=cfg, backend=backend, embedder=HashEmbedder())
        texts = Corpus(384).texts(n)
        for i in range(0, n, 2000):
            mind.add_many(
                ({"content": t, "tags": [f"t{j % 50}"], "entities": [f"person {j % 200}"]}
                 for j, t in enumerate(texts[i : i + 2000], start=i)),
                graph=False,
            )
    return mind


def search_then(mind: Mind, query: str, write: Callable | None) -> None:
    hits = mind.search(query, limit=10, feedback=False)
    if write is not None:
        write(mind.store, [h.memory.id for h in hits], mind.clock.now())


def statements(mind: Mind, query: str, write: Callable | None) -> tuple[int, int] | None:
    """(statements, writes) of one search on SQLite (trigger bodies count as statements)."""
    db = getattr(mind.store, "_db", None)
    if db is None:
        return None
    log: list[str] = []
    db.set_trace_callback(log.append)
    try:
        search_then(mind, query, write)
    finally:
        db.set_trace_callback(None)
    writes = [s for s in log if s.lstrip().split(" ", 1)[0].upper() in WRITES]
    return len(log), len(writes)


def bench(mind: Mind, backend: str, queries: list[str]) -> list[dict[str, Any]]:
    names = list(MODES)
    lat: dict[str, list[float]] = {m: [] for m in names}
    for m in names:  # warm caches (and the PostgreSQL HNSW index) untimed
        search_then(mind, queries[0], MODES[m])
    for i, q in enumerate(queries):
        order = names[i % 3:] + names[: i % 3]
        for m in order:
            lat[m] += timed(lambda _i, m=m, q=q: search_then(mind, q, MODES[m]), 1)
    rows = []
    for m in names:
        counted = statements(mind, queries[1], MODES[m])
        rows.append({
            "backend": backend, "mode": m, "p50": statistics.median(lat[m]),
            "p95": pct(lat[m], 95),
            "stmts": f"{counted[0]} / {counted[1]}" if counted else "",
        })
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--n", type=int, default=10_000, help="memories")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--backend", default="sqlite", help="comma list: sqlite, postgres")
    ap.add_argument("--dsn", help="PostgreSQL DSN (default: start an embedded server)")
    args = ap.parse_args()
    backends = [b.strip() for b in args.backend.split(",") if b.strip()]
    terms, _ = Corpus(384, seed=1).queries(args.queries)
    queries = [" ".join(t) for t in terms]
    rows: list[dict[str, Any]] = []
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="salience-bench-") as tmp:
        base = Config(home=Path(tmp), embedder="hash")
        with with_postgres(base, backends, args.dsn) as cfg:
            for b in backends:
                mind = build(cfg, b, args.n)
                try:
                    rows += bench(mind, b, queries)
                finally:
                    if b == "postgres":
                        mind.store.drop_mind()
                    mind.close()
                load.append(os.getloadavg()[0])
                print(f"{b} done (load {load[-1]:.1f})", file=sys.stderr, flush=True)
    print(f"\nSearch with feedback, N = {args.n:,}, {args.queries} queries, limit 10 "
          f"(load average {' -> '.join(f'{x:.1f}' for x in load)})\n")
    print("| backend | feedback write | p50 ms | p95 ms | statements / writes per search |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['backend']} | {r['mode']} | {r['p50']:.2f} | {r['p95']:.2f} | {r['stmts']} |")


if __name__ == "__main__":
    main()
