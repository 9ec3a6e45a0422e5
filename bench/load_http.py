"""Bounded load test of the HTTP API on loopback: a fixed number of requests at a fixed
concurrency, for add and for search; prints throughput, p50/p95/p99 and errors, then stops.

    python bench/load_http.py                         # hash embedder, 2000 adds + 2000 searches
    python bench/load_http.py --requests 500 --concurrency 16 --embedder e5

The server is `salience serve --insecure-local` in a subprocess (its own data directory under
a temporary folder), so client and server do not share an interpreter or a GIL.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import Corpus
from _progress import bar
from _timing import pct


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def run_phase(
    client: httpx.AsyncClient, name: str, requests: list[tuple[str, dict]], concurrency: int
) -> dict[str, float | str | int]:
    sem = asyncio.Semaphore(concurrency)
    lat: list[float] = []
    errors = 0

    async def one(path: str, body: dict) -> None:
        nonlocal errors
        async with sem:
            t = time.perf_counter()
            try:
                r = await client.post(path, json=body)
                ok = r.status_code in (200, 201)
            except httpx.HTTPError:
                ok = False
            lat.append((time.perf_counter() - t) * 1000)
            errors += not ok
            progress.advance()

    t0 = time.perf_counter()
    with bar(name, len(requests), unit="requests") as progress:
        await asyncio.gather(*(one(p, b) for p, b in requests))
    wall = time.perf_counter() - t0
    return {
        "op": name,
        "requests": len(requests),
        "rps": len(requests) / wall,
        "p50": pct(lat, 50),
        "p95": pct(lat, 95),
        "p99": pct(lat, 99),
        "errors": errors,
    }


async def load(base: str, n: int, concurrency: int) -> list[dict[str, float | str | int]]:
    corpus = Corpus()
    texts = corpus.texts(n)
    terms, _ = corpus.queries(n)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
        adds = [("/v1/minds/load/memories", {"content": f"{t} #{i}"}) for i, t in enumerate(texts)]
        searches = [
            ("/v1/minds/load/search", {"query": " ".join(q), "limit": 10, "feedback": False})
            for q in terms
        ]
        return [
            await run_phase(client, "add", adds, concurrency),
            await run_phase(client, "search", searches, concurrency),
        ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--requests", type=int, default=2000, help="per operation")
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--embedder", default="hash", help="hash (default), e5, minilm, auto")
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="salience-load-"))
    port = free_port()
    env = {**os.environ, "SALIENCE_HOME": str(home), "SALIENCE_EMBEDDER": args.embedder}
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "salience.interfaces.cli",
            "serve",
            "--insecure-local",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(f"{base}/v1/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            raise SystemExit("server did not start")
        rows = asyncio.run(load(base, args.requests, args.concurrency))
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(home, ignore_errors=True)
    print(
        f"\nHTTP load ({datetime.now(UTC):%Y-%m-%d}, embedder {args.embedder}, "
        f"concurrency {args.concurrency}, {os.cpu_count()} cores, loopback)\n"
    )
    print("| op | requests | req/s | p50 ms | p95 ms | p99 ms | errors |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['op']} | {r['requests']} | {r['rps']:.0f} | {r['p50']:.1f} | "
            f"{r['p95']:.1f} | {r['p99']:.1f} | {r['errors']} |"
        )


if __name__ == "__main__":
    main()
