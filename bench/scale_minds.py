"""Many minds in one PostgreSQL database (issue 21 item 3): the one-table-set layout keyed by
mind (`store/postgres/shared_sql.py`) next to today's schema per mind, on one server.

    python bench/scale_minds.py                                   # 1k,3k,10k minds x 50; 100,300 schemas
    python bench/scale_minds.py --minds 1000,10000 --schema-minds 100 --per-mind 50 [--dsn DSN]

The first rows are the real store on the shared layout (`postgres_layout = "shared"`,
`SharedPostgresStore`): minds created and filled through it, opened and searched through it;
`--statements` adds the layout's own statements without the store (the first runs' rows).

For each number of minds it reports the catalog (`pg_class` rows), the database size and the
layout's heap / index bytes, opening a mind (p50 / p95 ms over random minds: the layout's
directory row and embedder pin; schema per mind: `PostgresStore` on an existing mind), and a
search of one small mind while all the others exist (p50 / p95 ms, random minds, 3-term
queries): exact vector top-10 over the mind's rows + BM25 top-10 from its postings + the hits'
rows; "server ms" is the server's own planning + execution time of those statements (EXPLAIN
ANALYZE, layout only), which a loaded machine's run queue inflates less. `--large N` also loads one mind of N memories, builds its partial HNSW index
CONCURRENTLY and reports recall@10 against the exact scan and p95 with the index.
Vectors are random 384-d unit vectors clustered per mind; text is 12 words from a Zipf-ish
vocabulary. The load average is printed with the table (2 shared cores).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import psycopg
from pgvector.psycopg import register_vector
from psycopg.conninfo import make_conninfo

from _timing import pct
from salience.store.postgres import shared_sql as lay

DIM = 384
WORDS = [f"w{i}" for i in range(5000)]
_WEIGHTS = [1.0 / (i + 1) for i in range(len(WORDS))]


def texts(rng: random.Random, n: int) -> list[str]:
    return [" ".join(rng.choices(WORDS, weights=_WEIGHTS, k=12)) for _ in range(n)]


def vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    centre = rng.normal(size=DIM)
    v = centre + rng.normal(size=(n, DIM)) * 1.5
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def catalog(conn: psycopg.Connection) -> dict[str, float]:
    rel = conn.execute("SELECT count(*) FROM pg_class").fetchone()[0]
    db = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
    return {"pg_class": rel, "db_mb": db / 2**20}


def layout_sizes(conn: psycopg.Connection) -> dict[str, float]:
    heap, idx = conn.execute(
        "SELECT coalesce(sum(pg_table_size(c.oid)), 0), coalesce(sum(pg_indexes_size(c.oid)), 0) "
        "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'salience' AND c.relkind = 'r'"
    ).fetchone()
    return {"heap_mb": heap / 2**20, "index_mb": idx / 2**20}


def load_minds(
    conn: psycopg.Connection,
    start: int,
    stop: int,
    per_mind: int,
    seed: int,
    vec_fn: Callable[[np.random.Generator, int], np.ndarray] | None = None,
) -> None:
    """Minds start..stop-1 (names m<i>) with `per_mind` memories each, their postings
    (`vec_fn(rng, n)` makes a mind's vectors: one blob per mind by default)."""
    vec_fn = vec_fn or vectors
    rng, nrng = random.Random(seed + start), np.random.default_rng(seed + start)
    now = datetime(2026, 12, 1, tzinfo=UTC)
    with conn.transaction():
        with conn.cursor() as cur, cur.copy(
            "COPY salience.minds (name, schema_version, embedding_model, embedding_dim) FROM STDIN"
        ) as cp:
            for i in range(start, stop):
                cp.write_row((f"m{i}", 1, "bench", DIM))
        ids = dict(
            conn.execute(
                "SELECT name, mind_id FROM salience.minds WHERE name = ANY(%s)",
                ([f"m{i}" for i in range(start, stop)],),
            ).fetchall()
        )
        cols = (
            "mind_id, id, content, memory_type, importance, source, salience, confidence, "
            "usefulness, content_hash, created_at, updated_at, embedding"
        )
        with conn.cursor() as cur, cur.copy(
            f"COPY salience.memories ({cols}) FROM STDIN (FORMAT BINARY)"
        ) as cp:
            cp.set_types(["int8", "text", "text", "text", "text", "text", "float8", "float8",
                          "float8", "text", "timestamptz", "timestamptz", "vector"])
            for i in range(start, stop):
                mid = ids[f"m{i}"]
                vecs = vec_fn(nrng, per_mind)
                for j, text in enumerate(texts(rng, per_mind)):
                    cp.write_row((mid, f"{i:06d}-{j:04d}", text, "fact", "normal", "user_stated",
                                  5.0, 0.9, 0.5, f"h{i}-{j}", now, now, vecs[j]))
        lo, hi = min(ids.values()), max(ids.values())
        conn.execute(
            "INSERT INTO salience.memory_terms (mind_id, term, pk, tf, len) "
            "SELECT m.mind_id, w, m.pk, count(*), 12 FROM salience.memories m, "
            "unnest(string_to_array(m.content, ' ')) w WHERE m.mind_id BETWEEN %s AND %s "
            "GROUP BY m.mind_id, m.pk, w",
            (lo, hi),
        )
        conn.execute(
            "INSERT INTO salience.memory_lengths (mind_id, pk, len) SELECT mind_id, pk, 12 "
            "FROM salience.memories WHERE mind_id BETWEEN %s AND %s",
            (lo, hi),
        )


def timed_each(fn: Callable[[Any], Any], items: Sequence[Any]) -> list[float]:
    """Milliseconds of `fn(item)` for each item."""
    out = []
    for item in items:
        t = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - t) * 1000)
    return out


S = {name: lay.stmt(getattr(lay, name)) for name in (
    "OPEN_MIND", "GET_META", "VECTOR_EXACT", "TEXT_TOTALS", "TERM_POSTINGS", "HITS")}


def shared_open(conn: psycopg.Connection, name: str) -> Any:
    """What opening a mind reads in the layout: its directory row and its pinned embedder."""
    row = conn.execute(S["OPEN_MIND"], (name,)).fetchone()
    conn.execute(S["GET_META"], (row[0], "embedding_model")).fetchone()
    return row


def bm25_top(rows_by_term: dict[str, list[tuple[int, float, float]]], n: int, total: float,
             limit: int) -> list[int]:
    avg = total / max(1, n)
    score: dict[int, float] = {}
    for postings in rows_by_term.values():
        idf = math.log(1 + (n - len(postings) + 0.5) / (len(postings) + 0.5))
        for pk, tf, ln in postings:
            score[pk] = score.get(pk, 0.0) + idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * ln / avg))
    return sorted(score, key=lambda k: -score[k])[:limit]


def shared_search(conn: psycopg.Connection, mind_id: int, q: np.ndarray, terms: Sequence[str]):
    """One search of one mind: exact vector top-10, BM25 top-10 from its postings, the rows."""
    vec = conn.execute(S["VECTOR_EXACT"], (q, mind_id, 10)).fetchall()
    n, total = conn.execute(S["TEXT_TOTALS"], (mind_id,)).fetchone()
    postings = {t: conn.execute(S["TERM_POSTINGS"], (mind_id, t)).fetchall() for t in terms}
    text = bm25_top(postings, n, float(total), 10)
    return conn.execute(S["HITS"], (mind_id, [r[0] for r in vec], text)).fetchall()


def server_ms(conn: psycopg.Connection, mind_id: int, q: np.ndarray, terms: Sequence[str]) -> float:
    """The server's own time for one search's statements (EXPLAIN ANALYZE execution times,
    summed): what the search costs without the client round trips and the scheduler's queue."""
    plans = [(S["VECTOR_EXACT"], (q, mind_id, 10)), (S["TEXT_TOTALS"], (mind_id,))]
    plans += [(S["TERM_POSTINGS"], (mind_id, t)) for t in terms]
    ids = [r[0] for r in conn.execute(S["VECTOR_EXACT"], (q, mind_id, 10))]
    plans.append((S["HITS"], (mind_id, ids, [])))
    total = 0.0
    for text, params in plans:
        out = conn.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + text, params).fetchone()[0]
        total += float(out[0]["Execution Time"]) + float(out[0]["Planning Time"])
    return total


def run_shared(dsn: str, steps: list[int], per_mind: int, samples: int, seed: int,
               partitions: int) -> list[dict[str, Any]]:
    rows = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        for stmt in lay.layout_ddl(partitions=partitions):
            conn.execute(stmt)
        register_vector(conn)
        rows.append({"minds": 0, **catalog(conn)})
        done, rng = 0, random.Random(seed)
        nrng = np.random.default_rng(seed)
        for target in steps:
            t0 = time.perf_counter()
            while done < target:
                nxt = min(target, done + 500)
                load_minds(conn, done, nxt, per_mind, seed)
                done = nxt
            conn.execute("ANALYZE")
            load_s = time.perf_counter() - t0
            names = [f"m{rng.randrange(done)}" for _ in range(samples)]
            open_ms = timed_each(partial(shared_open, conn), names)
            work = [
                (shared_open(conn, n)[0], q, texts(rng, 1)[0].split()[:3])
                for n, q in zip(names, vectors(nrng, samples), strict=True)
            ]
            search_ms = timed_each(lambda w: shared_search(conn, *w), work)
            srv = [server_ms(conn, *w) for w in work]
            rows.append({
                "server_p50": pct(srv, 50), "server_p95": pct(srv, 95),
                "minds": done, **catalog(conn), **layout_sizes(conn), "load_s": load_s,
                "open_p50": pct(open_ms, 50), "open_p95": pct(open_ms, 95),
                "search_p50": pct(search_ms, 50), "search_p95": pct(search_ms, 95),
            })
            print(fmt_row("one table set", rows[-1]), flush=True)
    return rows


def store_memories(rng: random.Random, n: int) -> list[Any]:
    from salience.models import Memory, validate_memory

    now = datetime(2026, 12, 1, tzinfo=UTC)
    return [validate_memory(Memory(content=t, created_at=now, updated_at=now)) for t in texts(rng, n)]


def _store_config(dsn: str) -> Any:
    from pydantic import SecretStr

    from salience.config import Config

    return Config(backend="postgres", dsn=SecretStr(dsn), postgres_layout="shared",
                  pg_pool_max=4, embedder="hash")


def load_through_store(job: tuple[str, int, int, int, int]) -> float:
    """Minds start..stop-1 created, pinned and filled through the store (one worker process);
    returns the seconds it took."""
    from salience.models import EmbeddingInfo
    from salience.store import open_store
    from salience.store.postgres import pool

    dsn, start, stop, per_mind, seed = job
    config = _store_config(dsn)
    server = pool.acquire(dsn, pool_max=4)  # held: the pool outlives each store's close()
    rng, nrng = random.Random(seed + start), np.random.default_rng(seed + start)
    t0 = time.perf_counter()
    try:
        for i in range(start, stop):
            s = open_store(config, f"m{i}")
            s.pin_embedding(EmbeddingInfo("bench", DIM))
            s.insert(store_memories(rng, per_mind), vectors(nrng, per_mind))
            s.close()
    finally:
        pool.release(server)
    return time.perf_counter() - t0


def bulk_store_rows(dsn: str, start: int, stop: int, per_mind: int, seed: int) -> None:
    """Minds start..stop-1 written in one transaction as the store writes a mind of plain
    memories (no sessions, entities or graph): directory rows, meta (owner, schema version,
    text-index version, pinned embedder), memory rows encoded by the store's own encoder
    (`postgres.store._params`), BM25 postings by the store's tokenizer (`bm25.postings_rows`)
    and lengths — by COPY, since the store's path costs ~0.2 s of CPU per mind (3 processes
    got ~25 % of a core on this shared machine: 10,000 minds would have taken ~2 h)."""
    from salience.store import bm25
    from salience.store.base import EMBEDDING_DIM_KEY, EMBEDDING_MODEL_KEY, SCHEMA_VERSION_KEY
    from salience.store.postgres import sql as pg_sql
    from salience.store.postgres.fulltext import TEXT_INDEX_KEY, TEXT_INDEX_VERSION
    from salience.store.postgres.migrations import MIGRATIONS
    from salience.store.postgres.store import MIND_KEY, _params

    rng, nrng = random.Random(seed + start), np.random.default_rng(seed + start)
    names = [f"m{i}" for i in range(start, stop)]
    version = str(len(MIGRATIONS))
    with psycopg.connect(dsn, autocommit=True) as conn, conn.transaction():
        register_vector(conn)
        with conn.cursor() as cur, cur.copy(
            "COPY salience.minds (name, schema_version) FROM STDIN"
        ) as cp:
            for n in names:
                cp.write_row((n, version))
        ids = dict(conn.execute("SELECT name, mind_id FROM salience.minds WHERE name = ANY(%s)",
                                (names,)).fetchall())
        with conn.cursor() as cur, cur.copy(
            "COPY salience.meta (mind_id, key, value) FROM STDIN"
        ) as cp:
            for n in names:
                for key, value in ((MIND_KEY, n), (SCHEMA_VERSION_KEY, version),
                                   (TEXT_INDEX_KEY, TEXT_INDEX_VERSION),
                                   (EMBEDDING_MODEL_KEY, "bench"), (EMBEDDING_DIM_KEY, str(DIM))):
                    cp.write_row((ids[n], key, value))
        cols = ", ".join(pg_sql._WRITE)
        with conn.cursor() as cur, cur.copy(
            f"COPY salience.memories (mind_id, {cols}, embedding) FROM STDIN (FORMAT BINARY)"
        ) as cp:
            cp.set_types(["int8", *pg_sql.COPY_TYPES, "vector"])
            for n in names:
                vecs = vectors(nrng, per_mind)
                for k, m in enumerate(store_memories(rng, per_mind)):
                    cp.write_row((ids[n], *_params(m), vecs[k]))
        rows = conn.execute(
            "SELECT mind_id, pk, content, summary, entities FROM salience.memories "
            "WHERE mind_id = ANY(%s)", (list(ids.values()),)).fetchall()
        with conn.cursor() as cur:
            with cur.copy("COPY salience.memory_terms (mind_id, term, pk, tf, len) FROM STDIN") as cp:
                lengths = []
                for mid, pk, content, summary, entities in rows:
                    post, length = bm25.postings_rows(int(pk), content, summary or "", entities)
                    lengths.append((mid, pk, length))
                    for r in post:
                        cp.write_row((mid, *r))
            with cur.copy("COPY salience.memory_lengths (mind_id, pk, len) FROM STDIN") as cp:
                for r in lengths:
                    cp.write_row(r)


def search_row(minds: int, load_s: float, open_ms: list[float], search_ms: list[float],
               **extra: Any) -> dict[str, Any]:
    return {
        "minds": minds, **extra, "load_s": load_s,
        "open_p50": pct(open_ms, 50), "open_p95": pct(open_ms, 95),
        "search_p50": pct(search_ms, 50), "search_p95": pct(search_ms, 95),
    }


def run_store(dsn: str, steps: list[int], per_mind: int, samples: int, seed: int,
              workers: int, through_store: int) -> list[dict]:
    """The real store on the shared layout (`postgres_layout = "shared"`): every mind created,
    pinned and filled through `SharedPostgresStore` (its postings, layers, index switch), then
    random minds opened (`open_store(config, name)`: the pooled server, the layout check, the
    directory row, the postings check, the pinned embedder) and searched like the schema rows
    below. The first `through_store` minds are loaded through the store in `workers` processes
    (each its own pool), the others by `bulk_store_rows` (the store's rows, by COPY)."""
    from multiprocessing import get_context

    from salience.store import open_store as open_any
    from salience.store.postgres import pool

    config = _store_config(dsn)
    server = pool.acquire(dsn, pool_max=4)  # held: the pool outlives each store's close()
    rows = []
    try:
        open_any(config, "m-first").drop_mind()  # the layout, before the workers race for it
        with psycopg.connect(dsn, autocommit=True) as conn:
            rows.append({"minds": 0, **catalog(conn)})
        done, rng, nrng = 0, random.Random(seed), np.random.default_rng(seed)
        open_store = partial(open_any, config)
        for target in steps:
            t0 = time.perf_counter()
            through = min(target, through_store) - min(done, through_store)
            if through > 0:  # the first minds through the store itself
                jobs = [(dsn, a, min(a + 20, done + through), per_mind, seed)
                        for a in range(done, done + through, 20)]
                with get_context("spawn").Pool(workers) as procs:
                    list(procs.imap_unordered(load_through_store, jobs))
                print(f"  {done + through:,} minds through the store "
                      f"({time.perf_counter() - t0:.0f} s)", flush=True)
                done += through
            for a in range(done, target, 500):
                bulk_store_rows(dsn, a, min(a + 500, target), per_mind, seed)
            done = target
            load_s = time.perf_counter() - t0
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute("ANALYZE")
                cat, sizes = catalog(conn), layout_sizes(conn)
            names = [f"m{rng.randrange(done)}" for _ in range(samples)]
            opened: list[Any] = []
            open_ms = timed_each(lambda n, out=opened: out.append(open_store(n)), names)
            work = [
                (st, q, texts(rng, 1)[0].split()[:3])
                for st, q in zip(opened, vectors(nrng, samples), strict=True)
            ]
            search_ms = timed_each(lambda w: schema_search(*w), work)
            for st in opened:
                st.close()
            rows.append(search_row(done, load_s, open_ms, search_ms, **cat, **sizes))
            print(fmt_row("shared layout, the store", rows[-1]), flush=True)
    finally:
        pool.release(server)
    return rows


def schema_search(store: Any, q: np.ndarray, terms: Sequence[str]) -> None:
    """The same search on a schema-per-mind store: vector top-10, BM25 top-10, the rows."""
    hits = store.search_vector(q, limit=10)
    text = store.search_text(terms, limit=10)
    store.get_many([c.id for c in [*hits, *text]])


def run_schemas(dsn: str, steps: list[int], per_mind: int, samples: int, seed: int):
    from salience.models import EmbeddingInfo, Memory, validate_memory
    from salience.store.postgres import PostgresStore, pool

    server = pool.acquire(dsn, pool_max=4)
    rows = []
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            rows.append({"minds": 0, **catalog(conn)})
        done, rng, nrng = 0, random.Random(seed), np.random.default_rng(seed)
        for target in steps:
            t0 = time.perf_counter()
            for i in range(done, target):
                s = PostgresStore(server, f"m{i}")
                s.pin_embedding(EmbeddingInfo("bench", DIM))
                now = datetime(2026, 12, 1, tzinfo=UTC)
                ms = [
                    validate_memory(Memory(content=t, created_at=now, updated_at=now))
                    for t in texts(rng, per_mind)
                ]
                s.insert(ms, vectors(nrng, per_mind))
            done = target
            load_s = time.perf_counter() - t0
            names = [f"m{rng.randrange(done)}" for _ in range(samples)]
            open_ms = timed_each(partial(PostgresStore, server), names)
            work = [
                (PostgresStore(server, n), q, texts(rng, 1)[0].split()[:3])
                for n, q in zip(names, vectors(nrng, samples), strict=True)
            ]
            search_ms = timed_each(lambda w: schema_search(*w), work)
            with psycopg.connect(dsn, autocommit=True) as conn:
                cat = catalog(conn)
            rows.append(search_row(done, load_s, open_ms, search_ms, **cat))
            print(fmt_row("schema per mind", rows[-1]), flush=True)
    finally:
        pool.release(server)
    return rows


def run_large(dsn: str, n: int, seed: int, samples: int) -> dict[str, Any]:
    """One mind of `n` memories: its partial HNSW index, recall@10 vs exact, p95 both ways.
    Vectors and queries are bench/_data.py's clustered ones (the shape of sentence embeddings:
    cosine ~0.7 to a topic centre), as bench/scale.py's 1M-memory runs."""
    from _data import Corpus

    corpus = Corpus(dim=DIM, seed=seed)
    with psycopg.connect(dsn, autocommit=True) as conn:
        register_vector(conn)
        start = conn.execute("SELECT count(*) FROM salience.minds").fetchone()[0] + 10_000_000
        load_minds(conn, start, start + 1, n, seed, vec_fn=lambda _rng, k: corpus.vectors(k))
        mid = conn.execute(S["OPEN_MIND"], (f"m{start}",)).fetchone()[0]
        conn.execute("ANALYZE salience.memories")
        t = time.perf_counter()
        conn.execute("SET maintenance_work_mem = '512MB'")
        conn.execute(lay.create_mind_index(mid, DIM))
        build_s = time.perf_counter() - t
        q = corpus.queries(samples)[1]
        hnsw = lay.stmt(lay.VECTOR_HNSW, dim=DIM, mind_id=int(mid))
        conn.execute("SET hnsw.ef_search = 100")
        exact_ms, ann_ms, hits = [], [], 0
        for k in range(samples):
            t = time.perf_counter()
            want = {r[0] for r in conn.execute(S["VECTOR_EXACT"], (q[k], mid, 10)).fetchall()}
            exact_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            got = {r[0] for r in conn.execute(hnsw, (q[k], q[k], 10)).fetchall()}
            ann_ms.append((time.perf_counter() - t) * 1000)
            hits += len(want & got)
        plan = " ".join(r[0] for r in conn.execute("EXPLAIN " + hnsw, (q[0], q[0], 10)))
        return {"n": n, "build_s": build_s, "recall10": hits / (10 * samples),
                "exact_p95": pct(exact_ms, 95), "hnsw_p95": pct(ann_ms, 95),
                "uses_index": lay.mind_index_name(mid) in plan}


def fmt_row(layout: str, r: dict[str, Any]) -> str:
    def f(k: str, spec: str) -> str:
        return format(r[k], spec) if r.get(k) is not None else "-"

    return (f"| {layout} | {r['minds']:,} | {r['pg_class']:,} | {f('db_mb', ',.0f')} | "
            f"{f('heap_mb', ',.0f')} / {f('index_mb', ',.0f')} | {f('load_s', '.0f')} | "
            f"{f('open_p50', '.2f')} / {f('open_p95', '.2f')} | "
            f"{f('search_p50', '.2f')} / {f('search_p95', '.2f')} | "
            f"{f('server_p50', '.2f')} / {f('server_p95', '.2f')} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minds", default="1000,3000,10000")
    ap.add_argument("--schema-minds", default="100,300")
    ap.add_argument("--per-mind", type=int, default=50)
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--partitions", type=int, default=0)
    ap.add_argument("--large", type=int, default=0, help="also one mind of N memories")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, default=3, help="processes loading the store")
    ap.add_argument("--through-store", type=int, default=200,
                    help="minds loaded through the store; the rest in its row format by COPY")
    ap.add_argument("--statements", action="store_true",
                    help="also the layout's own statements (no store), as the first runs measured")
    ap.add_argument("--dsn", default=os.environ.get("SALIENCE_TEST_PG_DSN"))
    args = ap.parse_args()
    server = None
    dsn = args.dsn
    if dsn is None:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        from pg_server import start_pg

        server = start_pg()
        dsn = server.dsn
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            for db in ("bench_shared", "bench_schemas", "bench_store"):
                conn.execute(f"DROP DATABASE IF EXISTS {db}")
                conn.execute(f"CREATE DATABASE {db}")
        print(f"load average at start: {os.getloadavg()}")
        print("| layout | minds | pg_class rows | database MB | layout heap / index MB | "
              "load s | open p50 / p95 ms | search p50 / p95 ms | server ms p50 / p95 |")
        print("|---|---|---|---|---|---|---|---|---|")
        shared_dsn = make_conninfo(dsn, dbname="bench_shared")
        steps = [int(x) for x in args.minds.split(",") if x]
        run_store(make_conninfo(dsn, dbname="bench_store"), steps, args.per_mind, args.samples,
                  args.seed, args.workers, args.through_store)
        if args.statements:
            run_shared(shared_dsn, steps, args.per_mind, args.samples, args.seed, args.partitions)
        if args.large:
            print(run_large(shared_dsn, args.large, args.seed, min(args.samples, 100)))
        sch = [int(x) for x in args.schema_minds.split(",") if x]
        if sch:
            run_schemas(make_conninfo(dsn, dbname="bench_schemas"), sch, args.per_mind,
                        args.samples, args.seed)
        print(f"load average at end: {os.getloadavg()}")
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
