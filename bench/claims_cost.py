"""What the heuristic claims engine costs at write time and per search (issue 21), in one run.

    python bench/claims_cost.py                  # add_many rates + prefetch at 20,000
    python bench/claims_cost.py --n 100000 --home DIR   # keep the scale mind for a rerun

1. `Mind.add_many` on LoCoMo turns (read in place from ../shared/bench/locomo/, never copied)
   with the hash embedder and with e5, graph extraction (entities + claims) on and off: the
   difference is what `salience.graph.extract` costs per memory.
2. `mind.prefetch` on bench/scale.py's corpus and queries (precomputed vectors, exact indexes):
   CPU per query with the claims text cache cleared before every query (a large mind whose
   candidates are cold: since issue 21 their claims come from the stored `memory_claims` rows,
   before it every candidate was parsed) and with the cache warm (the same queries again). A
   cProfile pass splits the cold case by stage (`claims()` is what is still parsed).

Load average is printed with every figure; numbers are for this machine and this run only.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))
import scale  # noqa: E402
from _data import Corpus  # noqa: E402
from _timing import pct  # noqa: E402
from salience.config import Config  # noqa: E402
from salience.llm.heuristic import claims as claims_engine  # noqa: E402
from salience.mind import Mind  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "bench" / "locomo" / "locomo10.json"


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def locomo_turns() -> list[str]:
    data = json.loads(LOCOMO.read_text())
    return [f"{t['speaker']}: {t['text']}" for conv in data
            for key, session in conv["conversation"].items()
            if key.startswith("session_") and isinstance(session, list) for t in session]


def add_many_rows(sizes: dict[str, int]) -> None:
    texts = locomo_turns()
    print("| embedder | graph | memories | memories/s | CPU ms/memory | load |")
    print("|---|---|---:|---:|---:|---:|")
    for emb, n in sizes.items():
        with Mind.open("rate", config=Config(home=tempfile.mkdtemp(), embedder=emb)) as m:
            m.add_many(["warm-up"])
            for graph in (True, False):
                xs = texts[:n] if graph else texts[n:2 * n]  # fresh texts: no duplicates
                claims_engine._claims_of.cache_clear()
                t, c = time.perf_counter(), time.process_time()
                for j in range(0, n, 200):
                    m.add_many(xs[j:j + 200], graph=graph)
                wall, cpu = time.perf_counter() - t, time.process_time() - c
                print(f"| {emb} | {'on' if graph else 'off'} | {n} | {n / wall:.0f} | "
                      f"{1000 * cpu / n:.1f} | {load()} |", flush=True)


def prefetch_rows(n: int, home: Path, queries_n: int) -> None:
    corpus = Corpus(dim=scale.DIM)
    terms, qvecs = corpus.queries(scale.QUERIES)
    queries = [" ".join(t) for t in terms][:queries_n]
    emb = scale.LookupEmbedder()
    emb.register(queries, qvecs[:queries_n])
    cfg = Config(home=home / "home", embedder="hash", sqlite_vector_index="exact",
                 sqlite_text_index="exact")
    mind = Mind.open(home / "scale.db", config=cfg, embedder=emb)
    if mind.count() != n:
        t = time.perf_counter()
        scale.ingest(mind, emb, corpus, n)
        print(f"\ningest of {n:,} (add_many, graph on): {n / (time.perf_counter() - t):.0f}/s, "
              f"load {load()}")
    for q in queries[:5]:
        mind.prefetch([], q, limit=3)

    def run(cold: bool) -> tuple[float, list[float]]:
        lat: list[float] = []
        if not cold:  # every candidate's claims parsed once before the clock starts
            for q in queries:
                mind.prefetch([], q, limit=3)
        c = time.process_time()
        for q in queries:
            if cold:
                claims_engine._claims_of.cache_clear()
            t = time.perf_counter()
            mind.prefetch([], q, limit=3)
            lat.append(1000 * (time.perf_counter() - t))
        return 1000 * (time.process_time() - c) / len(queries), lat

    print(f"\n| N={n:,}, {len(queries)} queries | CPU ms/query | p50 ms | p95 ms | load |")
    print("|---|---:|---:|---:|---:|")
    for label, cold in (("text cache cleared before every query", True),
                        ("text cache warm", False), ("text cache cleared before every query", True),
                        ("text cache warm", False)):
        cpu, lat = run(cold)
        print(f"| {label} | {cpu:.1f} | {pct(lat, 50):.1f} | {pct(lat, 95):.1f} | {load()} |",
              flush=True)

    prof = cProfile.Profile()
    claims_engine._claims_of.cache_clear()
    prof.enable()
    for q in queries:
        claims_engine._claims_of.cache_clear()
        mind.prefetch([], q, limit=3)
    prof.disable()
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]

    def cum(name: str) -> float:
        return sum(v[3] for k, v in stats.items() if name == f"{Path(k[0]).name}:{k[2]}")

    total = cum("mind.py:prefetch")
    print(f"\n| cold prefetch under cProfile, N={n:,} | ms/query | share |")
    print("|---|---:|---:|")
    for label, name in (("prefetch", "mind.py:prefetch"), ("claims()", "claims.py:claims"),
                        ("  of it in stale_ids", "slots.py:stale_ids"),
                        ("updates_above", "slots.py:updates_above"),
                        ("candidates (store: text + vector)", "candidates.py:gather_within"),
                        ("hydration (get_many)", "records.py:get_many")):
        print(f"| {label} | {1000 * cum(name) / len(queries):.1f} | "
              f"{100 * cum(name) / total:.0f} % |")
    mind.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=20_000, help="memories of the prefetch mind")
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--hash-n", type=int, default=2000)
    ap.add_argument("--e5-n", type=int, default=400)
    ap.add_argument("--home", help="keep the prefetch mind here (reused when it holds --n)")
    args = ap.parse_args()
    print(f"## Claims cost ({time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, "
          f"{os.cpu_count()} cores, load {' / '.join(f'{x:.1f}' for x in os.getloadavg())})\n")
    add_many_rows({"hash": args.hash_n, "e5": args.e5_n})
    home = Path(args.home) if args.home else Path(tempfile.mkdtemp(prefix="salience-claims-"))
    home.mkdir(parents=True, exist_ok=True)
    prefetch_rows(args.n, home, args.queries)


if __name__ == "__main__":
    main()
