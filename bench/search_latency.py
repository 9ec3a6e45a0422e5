"""Latency of the default search end to end (`Mind.search`) at N memories, against variants.

    python bench/search_latency.py                       # 10k memories, 200 queries
    python bench/search_latency.py --n 10000 --queries 300 --session-turns 200

A mind of `--n` chat-like memories (synthetic Zipf text from bench/_data.py, in sessions of
`--session-turns` turns with `t` set, so neighbouring-turn context has sessions to read), the
hash embedder (query embedding costs next to nothing: what is measured is candidates, ranking
and the later stages). Each query runs every preset, each preset first in turn (the first search of a query
pays for cold pages), so all see the same load; p50 /
p95 per preset and the load average are printed. Compare presets within one run only.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import Corpus
from _timing import pct
from salience.config import Config
from salience.mind import Mind
from salience.search.config import get_preset

BATCH = 1000


def variants() -> dict[str, object]:
    """The default and the default without each issue-15 stage that costs reads."""
    b = get_preset("relevance")
    return {
        "relevance (default)": b,
        "relevance, no context": replace(b, name="relevance-no-context", context_window=0),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--session-turns", type=int, default=200)
    args = ap.parse_args(argv)
    corpus = Corpus()
    presets = variants()
    times: dict[str, list[float]] = {k: [] for k in presets}
    with tempfile.TemporaryDirectory(prefix="search-latency-") as tmp:
        home = Path(tmp)
        mind = Mind.open(home / "m.db", config=Config(home=home), embedder="hash")
        try:
            t0 = time.perf_counter()
            for start in range(0, args.n, BATCH):
                js = range(start, min(start + BATCH, args.n))
                items = [
                    {"content": text, "session_id": f"s{j // args.session_turns}",
                     "t": j % args.session_turns}
                    for j, text in zip(js, corpus.texts(len(js)), strict=True)
                ]
                mind.add_many(items, graph=False)
            print(f"ingest: {args.n} memories in {time.perf_counter() - t0:.0f} s")
            queries = [" ".join(terms) for terms in corpus.queries(args.queries)[0]]
            mind.search(queries[0], preset=presets["relevance (default)"], feedback=False)
            names = list(presets)
            for k, q in enumerate(queries):
                for name in names[k % len(names):] + names[: k % len(names)]:  # first in turn
                    cfg = presets[name]
                    t = time.perf_counter()
                    mind.search(q, preset=cfg, feedback=False)  # type: ignore[arg-type]
                    times[name].append((time.perf_counter() - t) * 1000)
        finally:
            mind.close()
    print(f"load average {os.getloadavg()[0]:.1f}; {args.n} memories, sessions of "
          f"{args.session_turns}, {args.queries} queries")
    print("| preset | p50 ms | p95 ms |")
    print("|---|---:|---:|")
    for name, xs in times.items():
        print(f"| {name} | {pct(xs, 50):.1f} | {pct(xs, 95):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
