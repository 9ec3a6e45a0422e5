"""Scale benchmark: 10k / 100k (and 1M with --full) memories through the `Mind` facade.

    python bench/scale.py                      # 10k and 100k, SQLite + PostgreSQL
    python bench/scale.py --full               # adds 1M (long on 2 cores)
    python bench/scale.py --sizes 20000 --no-pg
    python bench/scale.py --dsn postgresql://... # use this server instead of a throwaway one
    python bench/scale.py --sizes 1000000 --no-pg --indexes hnsw --home DIR  # keep the mind
    python bench/scale.py --sizes 100000 --no-sqlite  # PostgreSQL rows only

Text is synthetic but realistic in length (8–120 Zipf words) and vectors are clustered 384-d
unit vectors (bench/_data.py). Embeddings are precomputed and served by a lookup embedder, so
what is measured is the store and the search pipeline, never a model. Per size:

- SQLite: one ingest (`add_many` with vectors, batches of 2,000), then one process per vector
  index opens the mind and measures p50/p95 of `mind.prefetch`, `mind.search` (deep search,
  feedback off) and the raw top-10 vector search, recall@10 against brute force, the time to the
  first search (loading or building the index), RSS and peak RSS of that process: the exact
  numpy index, HNSW built from the database, and HNSW loaded from the graph the build saved.
  Each also times the store's hybrid top-10 (full text + vector top-50, RRF, hydration: what
  `bench/store_speed.py` calls hybrid) and full text top-50. Full text runs through the
  tantivy index where `--text-index` (default auto: from 50,000 memories) wants it: the
  parent builds it once after the ingest ("text index s"), every process waits until its
  handle has loaded it before timing. A numpy brute-force scan over the same vectors is timed
  in the parent, same run (the issue's yardstick for hybrid p95); load averages are printed.
- PostgreSQL (unless --no-pg): bulk load with the HNSW index dropped, then one index build
  ("first search s" is that build), the same searches, exact and HNSW with an ef sweep.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))
from _data import Corpus  # noqa: E402
from _timing import pct, timed  # noqa: E402
from salience.config import Config  # noqa: E402
from salience.embed.base import EmbedderStatus  # noqa: E402
from salience.mind import Mind  # noqa: E402
from salience.models import EmbeddingInfo, Memory, validate_memory  # noqa: E402
from store_speed import hybrid_search  # noqa: E402

DIM = 384
BATCH = 2000
QUERIES = 200


class LookupEmbedder:
    """An `Embedder` that serves precomputed vectors: a registered text gets its vector, any
    other text a deterministic clustered vector (so no model ever runs)."""

    model = "bench/precomputed-384"
    dim = DIM

    def __init__(self) -> None:
        self.table: dict[str, np.ndarray] = {}

    def register(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        self.table.update(zip(texts, vectors, strict=True))

    def _get(self, texts: Sequence[str]) -> np.ndarray:
        out = np.empty((len(texts), DIM), dtype=np.float32)
        for i, t in enumerate(texts):
            v = self.table.get(t)
            if v is None:
                rng = np.random.default_rng(abs(hash(t)) % 2**32)
                v = rng.normal(size=DIM).astype(np.float32)
                v /= np.linalg.norm(v)
            out[i] = v
        return out

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._get(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._get(texts)

    def status(self) -> EmbedderStatus:
        return EmbedderStatus(provider="lookup", model=self.model, dim=DIM)


def rss_mb() -> float:
    return psutil.Process().memory_info().rss / 2**20


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def ingest(
    mind: Mind,
    emb: LookupEmbedder,
    corpus: Corpus,
    n: int,
    *,
    insert: bool = True,
    path: str = "mind",
) -> tuple[float, np.ndarray]:
    """Add n memories in batches; returns (seconds spent adding, all vectors). `path` "mind"
    adds through `Mind.add_many` (entity and claim extraction included), "store" inserts the
    same texts through the store (a bulk load: no extraction). With `insert` False the same
    data is generated and nothing written (a kept mind holds it)."""
    spent = 0.0
    if insert and path == "store":
        mind.store.pin_embedding(EmbeddingInfo(emb.model, emb.dim))
    vecs_all = np.empty((n, DIM), dtype=np.float32)
    corpus.rng = np.random.default_rng(1234)  # same data for every backend
    for start in range(0, n, BATCH):
        k = min(BATCH, n - start)
        texts = [f"{t} #{start + i}" for i, t in enumerate(corpus.texts(k))]
        vecs = corpus.vectors(k)
        vecs_all[start : start + k] = vecs
        t = time.perf_counter()
        if insert and path == "store":
            now = mind.clock.now()
            mind.store.insert(
                [validate_memory(Memory(content=x, created_at=now, updated_at=now)) for x in texts],
                vecs,
            )
        elif insert:
            mind.add_many(texts, vectors=vecs)
        spent += time.perf_counter() - t
    return spent, vecs_all


def load1() -> float:
    return os.getloadavg()[0]


def text_index_ready(mind: Mind, terms: list[str]) -> float:
    """Seconds until this handle's full text runs through its tantivy index (built or loaded
    by a background job its first search starts); 0 when the mind's setting keeps it exact."""
    store = mind.store
    t = time.perf_counter()
    store.search_text(terms, limit=50)
    text = store._text
    text.wait()
    store.search_text(terms, limit=50)  # takes the published index (and its log position)
    return time.perf_counter() - t if text._tv is not None else 0.0


def search_rows(
    label: str,
    mind: Mind,
    queries: list[str],
    qvecs: np.ndarray,
    vector_fn: Callable[[int], Any],
    *,
    store_rows: bool = False,
) -> list[dict[str, Any]]:
    """prefetch, deep search (and with `store_rows` the store's hybrid top-10 and full text
    top-50), then `vector_fn`'s vector top-10: p50 / p95 ms and the 1-minute load after each."""
    reps = len(queries)
    terms = [q.split() for q in queries]
    ops: list[tuple[str, Callable[[int], Any]]] = [
        ("prefetch", lambda i: mind.prefetch([], queries[i], limit=3)),
        ("deep search", lambda i: mind.search(queries[i], limit=10, feedback=False)),
    ]
    if store_rows:
        ops += [
            ("hybrid top-10", lambda i: hybrid_search(mind.store, terms[i], qvecs[i])),
            ("full text top-50", lambda i: mind.store.search_text(terms[i], limit=50)),
        ]
    rows = []
    for op, fn in [*ops, ("vector top-10", vector_fn)]:
        xs = timed(fn, reps, warmup=True)
        rows.append(
            {"backend": label, "op": op, "p50": pct(xs, 50), "p95": pct(xs, 95), "load": load1()}
        )
    return rows


def _child(args: argparse.Namespace) -> None:
    """One measurement process: open the mind with one vector index and time the searches.

    Runs in its own process so that RSS is that of one open mind, not of the benchmark."""
    work = Path(args.work)
    data = np.load(work / "queries.npz")
    queries = [str(q) for q in data["texts"]]
    qvecs = data["vectors"]
    truth = data["truth"]
    emb = LookupEmbedder()
    emb.register(queries, qvecs)
    home = work / "home"
    cfg = Config(
        home=home,
        embedder="hash",
        sqlite_vector_index=args.child,
        sqlite_text_index=args.text_index,
    )
    t = time.perf_counter()
    mind = Mind.open(work / "scale.db", config=cfg, embedder=emb)
    got = [[c.id for c in mind.store.search_vector(q, limit=10)] for q in qvecs[:1]]
    first = time.perf_counter() - t  # open + load (or build) the vector index
    text_s = text_index_ready(mind, queries[0].split())
    label = {"exact": "SQLite exact", "hnsw": "SQLite HNSW"}[args.child]
    rows = search_rows(
        label,
        mind,
        queries,
        qvecs,
        lambda i: mind.store.search_vector(qvecs[i], limit=10),
        store_rows=True,
    )
    got = [[c.id for c in mind.store.search_vector(q, limit=10)] for q in qvecs]
    recall = statistics.fmean(
        len(set(a) & set(b)) / 10 for a, b in zip(got, truth.tolist(), strict=True)
    )
    rows[-1]["recall"] = recall
    rss = rss_mb()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rows[0].update(rss=rss, peak=peak, first=first, text=text_s)  # the process's, once
    mind.close()
    print(json.dumps(rows))


def _measure(work: Path, mode: str, n: int, text_mode: str) -> list[dict[str, Any]]:
    cmd = [sys.executable, __file__, "--child", mode, "--work", str(work)]
    cmd += ["--text-index", text_mode]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    rows = json.loads(out.stdout.strip().splitlines()[-1])
    for r in rows:
        r["n"] = n
    return rows


#: SQLite measurement processes: --indexes name -> (vector index, row label)
SQLITE_RUNS = {
    "exact": ("exact", "SQLite exact"),
    "hnsw-build": ("hnsw", "SQLite HNSW (build)"),
    "hnsw-saved": ("hnsw", "SQLite HNSW (saved)"),  # a second process loads the saved graph
}


def brute_force(vecs: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Row numbers of the exact top-10 by cosine (unit vectors), best first: numpy, no store."""
    sims = vecs @ q
    top = np.argpartition(-sims, 10)[:10]
    return top[np.argsort(-sims[top])]


def _sqlite_rows(
    n: int,
    corpus: Corpus,
    home: Path,
    terms: list[list[str]],
    queries: list[str],
    qvecs: np.ndarray,
    emb: LookupEmbedder,
    args: argparse.Namespace,
) -> list[dict[str, Any]]:
    """The SQLite rows of one size: one ingest (or a kept mind), one process per vector index."""
    out: list[dict[str, Any]] = []
    cfg = Config(
        home=home / "home", embedder="hash", sqlite_vector_index="exact", sqlite_text_index="exact"
    )
    mind = Mind.open(home / "scale.db", config=cfg, embedder=emb)
    kept = mind.count() == n  # --home: a mind an earlier run of this script left there
    if not kept and mind.count():
        raise SystemExit(f"{home} holds {mind.count():,} memories, not {n:,}: remove it")
    secs, vecs = ingest(mind, emb, corpus, n, insert=not kept, path=args.ingest)
    ids = [m for (m,) in mind.store._db.execute("SELECT id FROM memories ORDER BY pk")]
    mind.close()
    text_s = None
    if args.text_index != "exact":  # build (or load) the text index once, before the processes
        tcfg = cfg.model_copy(update={"sqlite_text_index": args.text_index})
        mind = Mind.open(home / "scale.db", config=tcfg, embedder=emb)
        text_s = text_index_ready(mind, terms[0])
        mind.close()
    disk = dir_bytes(home)
    truth = np.empty((len(qvecs), 10), dtype=object)
    for i, q in enumerate(qvecs):  # exact top-10 by brute force: the recall reference
        truth[i] = [ids[j] for j in brute_force(vecs, q)]
    xs = timed(partial(lambda v, i: brute_force(v, qvecs[i]), vecs), len(qvecs), warmup=True)
    out.append(
        {"backend": "numpy brute force", "op": "vector top-10", "n": n, "p50": pct(xs, 50),
         "p95": pct(xs, 95), "recall": 1.0, "load": load1()}
    )
    np.savez(home / "queries.npz", texts=np.array(queries), vectors=qvecs, truth=truth.astype(str))
    del vecs
    gc.collect()
    for name in args.indexes.split(","):
        mode, label = SQLITE_RUNS[name]
        rows = _measure(home, mode, n, args.text_index)
        for r in rows:
            r["backend"] = label
        graph = home / "scale.db.hnsw"  # HNSW rows: the database plus the saved graph
        rows[0]["disk"] = (disk + (dir_bytes(graph) if mode == "hnsw" else 0)) / n
        rows[0]["ingest"] = None if kept else n / secs
        rows[0]["text_build"] = text_s
        out += rows
        print(f"  {label}: first search {rows[0]['first']:.1f} s, text index "
              f"{rows[0]['text']:.1f} s, RSS {rows[0]['rss']:,.0f} MB, load {load1():.1f}",
              flush=True)

    return out


def run_size(
    n: int, dsn: str | None, corpus: Corpus, work: Path, args: argparse.Namespace
) -> list[dict[str, Any]]:
    terms, qvecs = corpus.queries(QUERIES)  # (the data does not depend on --queries)
    terms, qvecs = terms[: args.queries], qvecs[: args.queries]
    queries = [" ".join(t) for t in terms]
    emb = LookupEmbedder()
    emb.register(queries, qvecs)
    out: list[dict[str, Any]] = []

    # -- SQLite: ingest once, then measure each vector index in its own process -------------
    home = (Path(args.home) if args.home else work) / f"sqlite-{n}"
    if not args.no_sqlite:
        out += _sqlite_rows(n, corpus, home, terms, queries, qvecs, emb, args)
    # -- PostgreSQL + pgvector HNSW ---------------------------------------------------------
    if dsn:
        name = f"scale-{n}"
        pcfg = Config(home=work / f"pg-{n}", embedder="hash")
        pmind = Mind.open(name, config=pcfg, dsn=dsn, embedder=emb)
        if pmind.count():
            pmind.store.drop_mind()
            pmind.close()
            pmind = Mind.open(name, config=pcfg, dsn=dsn, embedder=emb)
        store = pmind.store
        store.pin_embedding(EmbeddingInfo(emb.model, emb.dim))  # creates the HNSW index ...
        store.drop_vector_index()  # ... which the documented bulk load drops, then builds once
        secs, _ = ingest(pmind, emb, corpus, n)
        t = time.perf_counter()
        store.build_vector_index(maintenance_work_mem="3GB", parallel_workers=1)
        first = time.perf_counter() - t
        store.analyze()  # the bulk load's last step: statistics for full text (docs/postgres.md)
        rows = search_rows(
            "PostgreSQL",
            pmind,
            queries,
            qvecs,
            lambda i: store.search_vector(qvecs[i], limit=10, exact=True),
            store_rows=True,
        )
        rows[-1]["backend"] = "PostgreSQL exact"
        for r in rows:
            r.update(n=n, ingest=n / secs if r["op"] == "prefetch" else None, first=first)
        out += rows
        pg_exact = [[c.id for c in store.search_vector(q, limit=10, exact=True)] for q in qvecs]
        for ef in (40, 100, 200):
            store.ef_search = ef
            got = [[c.id for c in store.search_vector(q, limit=10, exact=False)] for q in qvecs]
            recall = statistics.fmean(
                len(set(a) & set(b)) / 10 for a, b in zip(got, pg_exact, strict=True)
            )
            xs = timed(
                lambda i: store.search_vector(qvecs[i], limit=10, exact=False),
                len(queries),
                warmup=True,
            )
            out.append(
                {
                    "backend": f"PostgreSQL HNSW ef={ef}",
                    "op": "vector top-10",
                    "n": n,
                    "p50": pct(xs, 50),
                    "p95": pct(xs, 95),
                    "recall": recall,
                }
            )
        sz = store._read(  # type: ignore[attr-defined]
            lambda c: c.execute(
                "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c "
                "JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = %s "
                "AND c.relkind = 'r'",
                (store._schema,),  # type: ignore[attr-defined]
            ).fetchone()[0]
        )
        for r in out:
            if r["backend"].startswith("PostgreSQL") and r["n"] == n:
                r["disk"] = (sz or 0) / n
        store.drop_mind()
        pmind.close()
    if not args.home:
        shutil.rmtree(home, ignore_errors=True)
    return out


def fmt(v: float | None, spec: str) -> str:
    return "" if v is None else format(v, spec)


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| N | backend | op | p50 ms | p95 ms | recall@10 | load | ingest /s | first search s "
        "| text index s | RSS MB | peak RSS MB | disk B/mem |\n"
        "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    lines = [head]
    for r in rows:
        text = fmt(r.get("text"), ".1f")
        if r.get("text_build") is not None:
            text += f" (built {r['text_build']:.0f})"
        lines.append(
            f"| {r['n']:,} | {r['backend']} | {r['op']} | {fmt(r['p50'], '.2f')} | "
            f"{fmt(r['p95'], '.2f')} | {fmt(r.get('recall'), '.3f')} | "
            f"{fmt(r.get('load'), '.1f')} | "
            f"{fmt(r.get('ingest'), ',.0f')} | {fmt(r.get('first'), '.1f')} | {text} | "
            f"{fmt(r.get('rss'), ',.0f')} | {fmt(r.get('peak'), ',.0f')} | "
            f"{fmt(r.get('disk'), ',.0f')} |"
        )
    return "\n".join(lines)


def targets(rows: list[dict[str, Any]]) -> str:
    """Issue 21's SQLite lines against this run: hybrid p95 at 100k ≤ 20 ms and ≤ 2.5x the
    numpy scan's p95; prefetch and deep search p95 at 1M ≤ 50 ms with recall@10 ≥ 0.95."""
    out = []
    key = {(r["backend"], r["op"], r["n"]): r for r in rows}
    for n in sorted({r["n"] for r in rows}):
        base = key.get(("numpy brute force", "vector top-10", n))
        for label in ("SQLite HNSW (saved)", "SQLite HNSW (build)", "SQLite exact"):
            hy = key.get((label, "hybrid top-10", n))
            if hy is None:
                continue
            line = f"- {n:,} {label}: hybrid p95 {hy['p95']:.2f} ms"
            if base:
                line += f" = {hy['p95'] / base['p95']:.2f}x numpy's {base['p95']:.2f} ms"
            for op in ("prefetch", "deep search"):
                line += f"; {op} p95 {key[(label, op, n)]['p95']:.2f} ms"
            vec = key[(label, "vector top-10", n)]
            line += f"; recall@10 {vec.get('recall', float('nan')):.3f}"
            out.append(line)
    return "\n".join(out)


def growth(rows: list[dict[str, Any]]) -> str:
    sizes = sorted({r["n"] for r in rows})
    if len(sizes) < 2:
        return ""
    lo, hi = sizes[0], sizes[-1]
    key = {(r["backend"], r["op"], r["n"]): r for r in rows}
    out = [f"Growth from {lo:,} to {hi:,} ({hi // lo}× the memories), p95 ratio:"]
    for (b, op, n), r in key.items():
        if n == hi and (b, op, lo) in key:
            base = key[(b, op, lo)]
            out.append(
                f"- {b} / {op}: {r['p95'] / base['p95']:.1f}× p95 "
                f"({base['p95']:.2f} → {r['p95']:.2f} ms)"
            )
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--full", action="store_true", help="also 1,000,000 memories")
    ap.add_argument("--dsn", default=os.environ.get("SALIENCE_TEST_PG_DSN"))
    ap.add_argument("--no-pg", action="store_true")
    ap.add_argument("--no-sqlite", action="store_true", help="PostgreSQL rows only")
    ap.add_argument(
        "--indexes",
        default=",".join(SQLITE_RUNS),
        help="SQLite processes, comma list of " + ", ".join(SQLITE_RUNS),
    )
    ap.add_argument(
        "--text-index",
        choices=("auto", "exact", "tantivy"),
        default="auto",
        help="sqlite_text_index of the measured minds (auto: tantivy from 50,000 memories)",
    )
    ap.add_argument("--queries", type=int, default=QUERIES, help="queries timed per op (≤ 200)")
    ap.add_argument("--home", help="keep the SQLite minds here (a mind of the same N is reused)")
    ap.add_argument(
        "--ingest",
        choices=("mind", "store"),
        default="mind",
        help="SQLite load: Mind.add_many (with extraction) or the store's insert (bulk, none)",
    )
    ap.add_argument("--child", choices=("exact", "hnsw"), help=argparse.SUPPRESS)
    ap.add_argument("--work", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(args)
        return
    sizes = [int(s) for s in args.sizes.split(",")] + ([1_000_000] if args.full else [])
    server = None
    dsn = None
    if not args.no_pg:
        if args.dsn:
            dsn = args.dsn
        else:
            from pg_server import start_pg

            server = start_pg()
            dsn = str(server.dsn)
    work = Path(tempfile.mkdtemp(prefix="salience-scale-"))
    rows: list[dict[str, Any]] = []
    try:
        for n in sizes:
            t = time.perf_counter()
            rows += run_size(n, dsn, Corpus(dim=DIM), work, args)
            print(f"N={n:,} done in {time.perf_counter() - t:.0f} s", flush=True)
            print(table([r for r in rows if r["n"] == n]), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if server is not None:
            server.stop()
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\n## Scale ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, "
          f"load average {load})\n")
    print(table(rows))
    print()
    print(growth(rows))
    print()
    print(targets(rows))


if __name__ == "__main__":
    main()
