"""HNSW parameter sweep: recall@10 and latency of usearch over clustered 384-d vectors.

    python bench/hnsw_sweep.py --n 1000000 --ef-construction 64,200

Builds the graph the SQLite store would build (int8 vectors, cosine, M=16) over `--n` vectors
of bench/_data.py's distribution, then for each ef_search takes 20 candidates per query and
re-scores them on float32, as `SQLiteStore.search_vector` does, and reports recall@10 against
brute force over 200 held-out queries. The defaults of `sqlite_hnsw_*` come from this table.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from usearch.index import Index

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import Corpus
from _progress import track

DIM = 384


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--ef-construction", default="64,200")
    ap.add_argument("--ef-search", default="64,128,256,512")
    ap.add_argument("--dtype", default="i8", choices=("i8", "f16", "f32"))
    ap.add_argument("--candidates", type=int, default=20)
    args = ap.parse_args()
    corpus = Corpus(dim=DIM)
    _, queries = corpus.queries(200)
    vecs = np.concatenate([corpus.vectors(min(2000, args.n - s)) for s in range(0, args.n, 2000)])
    truth = []
    for q in queries:
        sims = vecs @ q
        top = np.argpartition(-sims, 10)[:10]
        truth.append(set(top.tolist()))
    print("| ef_construction | build s | graph MB | ef_search | recall@10 | p50 ms | p95 ms |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for efc in (int(x) for x in args.ef_construction.split(",")):
        index = Index(ndim=DIM, metric="cos", dtype=args.dtype, connectivity=16, expansion_add=efc)
        t = time.perf_counter()
        index.add(np.arange(len(vecs), dtype=np.uint64), vecs, threads=2)
        build = time.perf_counter() - t
        for ef in (int(x) for x in args.ef_search.split(",")):
            index.expansion_search = ef
            hits, lat = [], []
            for q in track(queries, f"ef_construction {efc}, ef_search {ef}", unit="queries"):
                t = time.perf_counter()
                keys = index.search(q, args.candidates).keys.astype(np.int64)
                best = keys[np.argsort(-(vecs[keys] @ q))[:10]]
                lat.append((time.perf_counter() - t) * 1000)
                hits.append(set(best.tolist()))
            recall = np.mean([len(a & b) / 10 for a, b in zip(hits, truth, strict=True)])
            print(
                f"| {efc} | {build:.0f} | {index.memory_usage / 2**20:.0f} | {ef} | {recall:.3f} "
                f"| {np.percentile(lat, 50):.2f} | {np.percentile(lat, 95):.2f} |",
                flush=True,
            )
        del index


if __name__ == "__main__":
    main()
