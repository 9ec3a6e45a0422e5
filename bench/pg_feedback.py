"""What one search's retrieval feedback costs on PostgreSQL: the memory-row UPDATE (before issue
21) against the side-table upsert (`PostgresStore.record_retrievals` now), same mind, same ids.

    python bench/pg_feedback.py [--n 20000] [--calls 300] [--dsn DSN]

A mind of N memories with 384-d vectors, its HNSW index built (m 24 / ef_construction 200), then
`--calls` feedback writes of 10 random ids each, alternating the two statements. Reports p50 /
p95 ms per write (10 memories) and the shared buffers one write touches (EXPLAIN ANALYZE
BUFFERS). The load average is printed (2 shared cores).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import pct
from salience.models import SALIENCE_MAX, EmbeddingInfo, Memory, validate_memory
from salience.store.postgres import PostgresStore, pool

T0 = datetime(2026, 12, 1, tzinfo=UTC)
#: the feedback statement before issue 21: the memory row itself (every index gets an entry)
ROW_UPDATE = (
    "UPDATE {s}.memories m SET retrieval_count = m.retrieval_count + 1, last_retrieved_at = %s, "
    "salience = least(m.salience + %s * (1.0::float8 - m.salience / %s), %s) "
    "FROM (SELECT pk FROM {s}.memories WHERE id = ANY(%s::text[]) ORDER BY pk FOR UPDATE) l "
    "WHERE m.pk = l.pk"
)


def _buffers(plan: list[tuple[str]]) -> str:
    """The top plan node's buffer counts (the first 'Buffers:' line of EXPLAIN's output)."""
    return next((r[0].split("Buffers:")[1].strip() for r in plan if "Buffers:" in r[0]), "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--dsn", default=os.environ.get("SALIENCE_TEST_PG_DSN"))
    args = ap.parse_args()
    server = None
    dsn = args.dsn
    if dsn is None:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        from pg_server import start_pg

        server = start_pg()
        dsn = server.dsn
    srv = pool.acquire(dsn, pool_max=2)
    try:
        store = PostgresStore(srv, "feedback-bench")
        store.pin_embedding(EmbeddingInfo("bench", 384))
        store.drop_vector_index()
        rng, nrng = random.Random(1), np.random.default_rng(1)
        words = [f"w{i}" for i in range(3000)]
        for start in range(0, args.n, 2000):
            k = min(2000, args.n - start)
            ms = [
                validate_memory(Memory(content=" ".join(rng.choices(words, k=20)),
                                       created_at=T0, updated_at=T0, tags=["t"],
                                       entities=["Sam"]))
                for _ in range(k)
            ]
            v = nrng.normal(size=(k, 384)).astype(np.float32)
            store.insert(ms, v / np.linalg.norm(v, axis=1, keepdims=True))
        store.build_vector_index(maintenance_work_mem="512MB")
        store.analyze()
        ids = [r[0] for r in store._read(lambda c: c.execute(
            store._q("SELECT id FROM {s}.memories")).fetchall())]
        row_q = store._q(ROW_UPDATE)
        times: dict[str, list[float]] = {"memory row UPDATE": [], "side-table upsert": []}
        for i in range(args.calls):
            batch = rng.sample(ids, 10)
            now = T0 + timedelta(seconds=i)
            for mode in (list(times) if i % 2 else list(times)[::-1]):
                t = time.perf_counter()
                if mode == "memory row UPDATE":
                    with store._tx() as conn:
                        conn.execute(row_q, (now, 0.3, SALIENCE_MAX, SALIENCE_MAX, batch))
                else:
                    store.record_retrievals(batch, now, boost=0.3)
                times[mode].append((time.perf_counter() - t) * 1000)
        buffers = {}
        batch = rng.sample(ids, 10)
        with store._tx() as conn:
            plan = conn.execute(store._q("EXPLAIN (ANALYZE, BUFFERS) " + ROW_UPDATE),
                                (T0, 0.3, SALIENCE_MAX, SALIENCE_MAX, batch)).fetchall()
            buffers["memory row UPDATE"] = _buffers(plan)
            from salience.store.postgres import sql

            top = SALIENCE_MAX
            plan = conn.execute(
                store._q("EXPLAIN (ANALYZE, BUFFERS) " + sql.RECORD_RETRIEVALS),
                (T0, 0.3, top, top, batch, 0.3, top, top),
            ).fetchall()
            buffers["side-table upsert"] = _buffers(plan)
        print(f"load average: {os.getloadavg()}; {args.n:,} memories, 384-d, HNSW m 24 / "
              f"ef_construction 200; {args.calls} writes of 10 memories per mode")
        print("| feedback write (10 memories) | p50 ms | p95 ms | buffers (one write) |")
        print("|---|---:|---:|---|")
        for mode, ms_ in times.items():
            print(f"| {mode} | {pct(ms_, 50):.2f} | {pct(ms_, 95):.2f} | {buffers[mode]} |")
        store.drop_mind()
    finally:
        pool.release(srv)
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
