"""Latency of the default search end to end (`Mind.search`) at N memories, against variants
and, with `--baseline DIR`, against another source tree in the same run.

    python bench/search_latency.py                       # 10k memories, 200 queries
    python bench/search_latency.py --n 10000 --queries 300 --session-turns 200
    python bench/search_latency.py --baseline /tmp/old   # a `git archive` of an older tree

A mind of `--n` chat-like memories (synthetic Zipf text from bench/_data.py, in sessions of
`--session-turns` turns with `t` set, so neighbouring-turn context has sessions to read), the
hash embedder (query embedding costs next to nothing: what is measured is candidates, ranking
and the later stages). Each tree builds the mind once (this script with `--build`, the tree's
`src` first on the path, this checkout's corpus); every (tree, preset) pair then searches its
own copy in its own process (`--worker`), so no pair finds a query's work cached by another
(each query is new to each process, as to a server). The parent sends every query to every
pair, each pair first in turn, so all see the same load; p50 / p95 per pair and the load
average are printed. Compare rows within one run only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import fields, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _timing import pct  # noqa: E402

BATCH = 1000


def variants() -> dict[str, object]:
    """The default and the default without each stage added since issue 15 began that costs
    reads: the neighbouring-turn context (issue 15) and `update_first` (issue 14). A tree whose
    default lacks a stage runs the default alone."""
    from salience.search.config import SearchConfig, get_preset

    b = get_preset("relevance")
    out: dict[str, object] = {"relevance (default)": b}
    have = {f.name for f in fields(SearchConfig)}
    if "context_window" in have and b.context_window > 0:
        out["relevance, no context"] = replace(b, name="relevance-no-context", context_window=0)
    if "update_first" in have and b.update_first:  # issue 14's stage, to tell the costs apart
        out["relevance, no update_first"] = replace(b, name="relevance-no-update-first",
                                                     update_first=False)
    if len(out) == 1:  # an older tree: its default twice, so the run shows its noise
        out["relevance (default), again"] = b
    return out


def build(args: argparse.Namespace) -> int:
    """Build the mind of `--n` memories in `--home` and close it."""
    from _data import Corpus
    from salience.config import Config
    from salience.mind import Mind

    corpus = Corpus()
    home = Path(args.home)
    mind = Mind.open(home / "m.db", config=Config(home=home), embedder="hash")
    try:
        for start in range(0, args.n, BATCH):
            js = range(start, min(start + BATCH, args.n))
            items = [
                {"content": text, "session_id": f"s{j // args.session_turns}",
                 "t": j % args.session_turns}
                for j, text in zip(js, corpus.texts(len(js)), strict=True)
            ]
            mind.add_many(items, graph=False)
    finally:
        mind.close()
    print(json.dumps({"presets": list(variants())}), flush=True)
    return 0


def worker(args: argparse.Namespace) -> int:
    """Open the mind in `--home`, then answer each query number on stdin with the
    milliseconds of one search with `--preset`."""
    from _data import Corpus
    from salience.config import Config
    from salience.mind import Mind

    queries = [" ".join(terms) for terms in Corpus().queries(args.queries)[0]]
    cfg = variants()[args.preset]
    home = Path(args.home)
    mind = Mind.open(home / "m.db", config=Config(home=home), embedder="hash")
    try:
        mind.search("warm up the pages", preset=cfg, feedback=False)  # type: ignore[arg-type]
        print("ready", flush=True)
        for line in sys.stdin:
            t = time.perf_counter()
            mind.search(queries[int(line)], preset=cfg, feedback=False)  # type: ignore[arg-type]
            print((time.perf_counter() - t) * 1000, flush=True)
    finally:
        mind.close()
    return 0


def spawn(tree: Path, args: argparse.Namespace, *extra: str) -> subprocess.Popen[str]:
    """This script as a child process on `tree`'s sources (with this checkout's corpus)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree / "src"), str(HERE)])}
    cmd = [sys.executable, str(HERE / "search_latency.py"), "--n", str(args.n),
           "--queries", str(args.queries), "--session-turns", str(args.session_turns), *extra]
    return subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)


def ask(p: subprocess.Popen[str], line: str) -> float:
    """Send one query number to a worker; its search's milliseconds."""
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write(line + "\n")
    p.stdin.flush()
    return float(p.stdout.readline())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--session-turns", type=int, default=200)
    ap.add_argument("--baseline", type=Path, help="another source tree (a `git archive`)")
    ap.add_argument("--build", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--home", help=argparse.SUPPRESS)
    ap.add_argument("--preset", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.build:
        return build(args)
    if args.worker:
        return worker(args)
    trees = {"this tree": HERE.parent}
    if args.baseline is not None:
        trees["baseline"] = args.baseline.resolve()
    procs: dict[tuple[str, str], subprocess.Popen[str]] = {}
    with tempfile.TemporaryDirectory(prefix="search-latency-") as tmp:
        try:
            builds = {}
            for label, tree in trees.items():
                builds[label] = spawn(tree, args, "--build", "--home", f"{tmp}/{label}")
            t0 = time.perf_counter()
            for label, p in builds.items():
                out, _ = p.communicate()
                print(f"{label}: {args.n} memories built by {time.perf_counter() - t0:.0f} s")
                for name in json.loads(out)["presets"]:
                    home = f"{tmp}/{label}-{len(procs)}"
                    shutil.copytree(f"{tmp}/{label}", home)
                    procs[(label, name)] = spawn(trees[label], args, "--worker", "--home",
                                                 home, "--preset", name)
            for p in procs.values():
                assert p.stdout is not None and p.stdout.readline().strip() == "ready"
            pairs = list(procs)
            times: dict[tuple[str, str], list[float]] = {pair: [] for pair in pairs}
            for k in range(args.queries):
                for pair in pairs[k % len(pairs):] + pairs[: k % len(pairs)]:  # first in turn
                    times[pair].append(ask(procs[pair], str(k)))
        finally:
            for p in procs.values():
                if p.stdin is not None:
                    p.stdin.close()
                p.wait()
    print(f"load average {os.getloadavg()[0]:.1f}; {args.n} memories, sessions of "
          f"{args.session_turns}, {args.queries} queries")
    print("| tree | preset | p50 ms | p95 ms |")
    print("|---|---|---:|---:|")
    for (label, name), xs in times.items():
        tree = trees[label]
        print(f"| {label} ({tree}) | {name} | {pct(xs, 50):.1f} | {pct(xs, 95):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
