"""Store speed: insert throughput and search latency, side by side with a numpy baseline.

    python bench/store_speed.py                 # N = 10k and 100k, SQLite
    python bench/store_speed.py --n 50000       # one size
    python bench/store_speed.py --full          # adds N = 1M
    python bench/store_speed.py --backend sqlite,sqlite-hnsw,postgres [--dsn DSN]
    python bench/store_speed.py --n 100000 --text-index   # + full text through tantivy (issue 21)

Vectors are precomputed (clustered, 384-d) so the store is what is measured; "hybrid" is the
full candidate path of a search without query embedding: full text + vector candidates, RRF
fusion and hydration of the top 10 records. "sqlite" uses the exact numpy index, "sqlite-hnsw"
the HNSW graph (built by the first search; recall@10 against brute force). The numpy row is a plain in-memory brute-force
matmul over the same vectors — the floor any exact search can reach.

With --text-index, each SQLite mind is also searched through the tantivy text index
(`sqlite_text_index=tantivy`, store/sqlite/textindex.py) by a second handle on the same file, in
the same run: its full-text top-50 and hybrid rows stand beside the exact scorer's, with the
build time, the catch-up of 2,000 new memories (one index commit) and the agreement of its
top-10 / top-50 with the exact BM25 scorer (the same BM25, every posting read). The load
average is printed with the table.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from pydantic import SecretStr
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import Corpus
from _timing import pct, timed
from salience.config import Config
from salience.models import EmbeddingInfo
from salience.search.rank import rrf_fuse
from salience.store import open_store

DIM = 384
BATCH = 2000


def hybrid_search(store, terms: list[str], qvec: np.ndarray) -> None:
    """The candidate path of a search without query embedding: full text + vector top-50,
    RRF fusion, hydration of the top 10."""
    fused = rrf_fuse(
        {
            "text": store.search_text(terms, limit=50),
            "vector": store.search_vector(qvec, limit=50),
        }
    )[:10]
    store.get_many([f[0] for f in fused])


def bench_backend(
    backend: str, n: int, cfg: Config, corpus: Corpus, queries, progress, text_index: bool = False
) -> list[dict]:
    kind = "postgres" if backend == "postgres" else "sqlite"
    if kind == "sqlite":  # name the indexes: auto would switch to HNSW / tantivy at 100k / 50k
        index = "hnsw" if backend == "sqlite-hnsw" else "exact"
        cfg = cfg.model_copy(update={"sqlite_vector_index": index, "sqlite_text_index": "exact"})
    store = open_store(cfg, f"bench-{n}-{backend}", backend=kind)
    kept = kind == "sqlite" and store.count() == n  # --home: a mind an earlier run left there
    if hasattr(store, "drop_mind") and store.count() > 0:
        store.drop_mind()
        store.close()
        store = open_store(cfg, f"bench-{n}-{backend}", backend=kind)
    store.pin_embedding(EmbeddingInfo("bench-random", DIM))
    ann = hasattr(store, "build_vector_index")  # PostgreSQL: HNSW, built after the bulk load
    if ann:
        store.drop_vector_index()
    all_vecs = np.empty((n, DIM), dtype=np.float32)
    all_ids: list[str] = []
    task = progress.add_task(f"{backend}: insert {n:,}", total=n)
    insert_s = 0.0
    for start in range(0, n, BATCH):
        k = min(BATCH, n - start)
        mems = corpus.memories(k, start)
        vecs = corpus.vectors(k)
        all_ids.extend(m.id for m in mems)
        all_vecs[start : start + k] = vecs
        t = time.perf_counter()
        if not kept:
            store.insert(mems, vecs)
        insert_s += time.perf_counter() - t
        progress.advance(task, k)
    progress.remove_task(task)
    build_s = None
    if ann:
        t = time.perf_counter()
        store.build_vector_index(maintenance_work_mem="1GB", parallel_workers=2)
        build_s = time.perf_counter() - t
    if hasattr(store, "analyze"):  # PostgreSQL after a bulk load: statistics for full text
        store.analyze()
    terms, qvecs = queries
    reps = len(terms)
    rows = []
    exact_kw = {"exact": True} if ann else {}
    t = time.perf_counter()
    store.search_vector(qvecs[0], limit=10, **exact_kw)  # build caches / warm up
    if backend == "sqlite-hnsw":
        build_s = time.perf_counter() - t  # the first search builds the HNSW graph
    exact_ids = [[c.id for c in store.search_vector(q, limit=10, **exact_kw)] for q in qvecs]
    note = f"index build {build_s:.0f} s" if build_s else ""
    if backend == "sqlite-hnsw":  # recall against brute force over the same vectors
        truth = [[all_ids[j] for j in np.argsort(-(all_vecs @ q))[:10]] for q in qvecs]
        recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(exact_ids, truth, strict=True)])
        note += f", recall@10 {recall:.3f}"
    lat = timed(lambda i: store.search_vector(qvecs[i], limit=10, **exact_kw), reps)
    rows.append(
        dict(
            backend=backend,
            n=n,
            op="vector top-10 (HNSW)" if backend == "sqlite-hnsw" else "vector top-10 (exact)",
            lat=lat,
            ins=None if kept else n / insert_s,
            note=note,
        )
    )
    if ann:
        for ef in (40, 100, 200):
            store.ef_search = ef
            got = [[c.id for c in store.search_vector(q, limit=10, exact=False)] for q in qvecs]
            recall = np.mean(
                [len(set(a) & set(b)) / 10 for a, b in zip(got, exact_ids, strict=True)]
            )
            lat = timed(lambda i: store.search_vector(qvecs[i], limit=10, exact=False), reps)
            rows.append(
                dict(
                    backend=backend,
                    n=n,
                    op=f"vector top-10 (HNSW ef={ef})",
                    lat=lat,
                    ins=None,
                    note=f"recall@10 {recall:.3f}",
                )
            )

    def hybrid(i: int) -> None:
        hybrid_search(store, terms[i], qvecs[i])

    lat = timed(hybrid, reps)
    rows.append(dict(backend=backend, n=n, op="hybrid top-10", lat=lat, ins=None, note=""))
    lat = timed(lambda i: store.search_text(terms[i], limit=50), reps)
    rows.append(dict(backend=backend, n=n, op="full text top-50", lat=lat, ins=None, note=""))
    if text_index and kind == "sqlite":
        rows.extend(tantivy_rows(backend, n, cfg, store, corpus, queries, all_ids))
    if hasattr(store, "drop_mind"):
        store.drop_mind()
    store.close()
    return rows


def tantivy_rows(
    backend: str, n: int, cfg: Config, exact, corpus: Corpus, queries, all_ids: list[str]
) -> list[dict]:
    """The same mind searched through the tantivy text index (a second handle on the file)."""
    terms, qvecs = queries
    reps = len(terms)
    tcfg = cfg.model_copy(update={"sqlite_text_index": "tantivy"})
    store = open_store(tcfg, f"bench-{n}-{backend}", backend="sqlite")
    t = time.perf_counter()
    store.search_text(terms[0], limit=50)  # the first search starts the build (background)
    store._text.wait()  # searches are scored exactly until the index is published
    store.search_text(terms[0], limit=50)
    build_s = time.perf_counter() - t
    if store._text._tv is None:
        raise SystemExit("the tantivy index was not built (is tantivy installed?)")
    truth = [[c.id for c in exact.search_text(q, limit=50)] for q in terms]
    got = [[c.id for c in store.search_text(q, limit=50)] for q in terms]
    top10 = np.mean(
        [
            len(set(a[:10]) & set(b[:10])) / max(1, len(b[:10]))
            for a, b in zip(got, truth, strict=True)
        ]
    )
    top50 = np.mean(
        [len(set(a) & set(b)) / max(1, len(b)) for a, b in zip(got, truth, strict=True)]
    )
    same = np.mean([a == b for a, b in zip(got, truth, strict=True)])
    agree = f"vs exact: top-10 {top10:.4f}, top-50 {top50:.4f}, identical {same:.3f}"
    extra = corpus.memories(BATCH, n + 10_000_000)  # then 2,000 more: one index commit
    t = time.perf_counter()
    store.insert(extra, corpus.vectors(BATCH))
    ins_s = time.perf_counter() - t
    t = time.perf_counter()
    store.search_text(terms[0], limit=50)  # 2,000 dirty rows: starts their commit (background)
    catch_ms = (time.perf_counter() - t) * 1000
    store._text.wait()
    lat = timed(lambda i: store.search_text(terms[i], limit=50), reps)
    rows = [
        dict(
            backend=backend + " +tantivy",
            n=n,
            op="full text top-50",
            lat=lat,
            ins=BATCH / ins_s,
            note=f"index build {build_s:.0f} s; {agree}; +{BATCH:,} rows: next search {catch_ms:.0f} ms",
        )
    ]

    def hybrid(i: int) -> None:
        hybrid_search(store, terms[i], qvecs[i])

    store.search_vector(qvecs[0], limit=10)  # load this handle's vector cache
    lat = timed(hybrid, reps)
    rows.append(
        dict(backend=backend + " +tantivy", n=n, op="hybrid top-10", lat=lat, ins=None, note="")
    )
    store.delete([m.id for m in extra])
    store.close()
    return rows


def numpy_baseline(n: int, corpus: Corpus, qvecs: np.ndarray) -> dict:
    """Plain in-memory brute force over the same kind of vectors: the floor for exact search."""
    all_vecs = np.concatenate([corpus.vectors(min(BATCH, n - s)) for s in range(0, n, BATCH)])

    def brute(i: int) -> None:
        s = all_vecs @ qvecs[i]
        top = np.argpartition(-s, 10)[:10]
        top[np.argsort(-s[top])]

    lat = timed(brute, len(qvecs))
    return dict(
        backend="numpy baseline", n=n, op="vector top-10 (exact)", lat=lat, ins=None, note=""
    )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--n", type=int, action="append", help="memories (repeatable)")
    ap.add_argument("--full", action="store_true", help="also run N = 1,000,000")
    ap.add_argument("--backend", default="sqlite", help="comma list: sqlite, sqlite-hnsw, postgres")
    ap.add_argument("--dsn", help="PostgreSQL DSN (default: start an embedded server)")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument(
        "--text-index", action="store_true", help="also search SQLite minds through tantivy"
    )
    ap.add_argument(
        "--home",
        type=Path,
        help="keep SQLite minds here; a mind already holding N memories (same data) is reused",
    )
    args = ap.parse_args()
    sizes = args.n or ([10_000, 100_000] + ([1_000_000] if args.full else []))
    backends = [b.strip() for b in args.backend.split(",") if b.strip()]
    console = Console()
    server = None
    with tempfile.TemporaryDirectory(prefix="salience-bench-") as tmp:
        cfg = Config(home=args.home or Path(tmp), embedder="hash")
        if "postgres" in backends:
            dsn = args.dsn
            if dsn is None:
                sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
                from pg_server import start_pg

                server = start_pg(
                    settings={
                        "shared_buffers": "1GB",
                        "maintenance_work_mem": "1GB",
                        "max_parallel_maintenance_workers": "2",
                    }
                )
                dsn = server.dsn
            cfg = cfg.model_copy(update={"dsn": SecretStr(dsn)})
        rows: list[dict] = []
        try:
            with Progress(console=console, transient=True) as progress:
                for n in sizes:
                    corpus = Corpus(DIM)
                    queries = Corpus(DIM, seed=1).queries(args.queries)
                    corpus_q = (queries[0], corpus.vectors(args.queries))
                    for b in backends:
                        rows.extend(
                            bench_backend(
                                b, n, cfg, Corpus(DIM), corpus_q, progress, args.text_index
                            )
                        )
                    rows.append(numpy_baseline(n, Corpus(DIM), corpus_q[1]))
        finally:
            if server is not None:
                server.stop()
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    table = Table(
        title=f"Store speed ({DIM}-d clustered vectors, {args.queries} queries, top-10; "
        f"load average {load})"
    )
    for col in (
        "backend",
        "N",
        "operation",
        "insert/s",
        "p50 ms",
        "p95 ms",
        "p95 vs numpy",
        "note",
    ):
        table.add_column(
            col, justify="right" if col not in ("backend", "operation", "note") else "left"
        )
    base = {r["n"]: pct(r["lat"], 95) for r in rows if r["backend"] == "numpy baseline"}
    for r in rows:
        p95 = pct(r["lat"], 95)
        table.add_row(
            r["backend"],
            f"{r['n']:,}",
            r["op"],
            f"{r['ins']:,.0f}" if r["ins"] else "",
            f"{statistics.median(r['lat']):.2f}",
            f"{p95:.2f}",
            f"{p95 / base[r['n']]:.1f}x",
            r["note"],
        )
    console.print(table)


if __name__ == "__main__":
    main()
