"""Bounded soak of the HTTP server (issue 17): one `salience serve` process per backend, mixed
traffic from several tenants for `--minutes`, resources sampled every `--sample-s` seconds.

Traffic (threads over loopback, each tenant with its own tenant key): single adds, batch adds,
searches, chat-JSONL imports, heartbeat ticks (drain + maintenance when due), and one tenant
that keeps creating minds (until its `tenant_max_minds` quota answers 403). Every minute the
server's RSS, its open file descriptors, the window's p95 latency and 5xx count are printed; at
the end every acknowledged memory id is fetched back (lost = acknowledged but not found).

    python bench/soak.py --minutes 30                       # SQLite
    python bench/soak.py --minutes 30 --backend postgres    # embedded PostgreSQL (tests/pg_server.py)
    python bench/soak.py --minutes 30 --backend postgres --dsn postgresql://...

Figures go in docs/reliability.md; nothing here is asserted by the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from _progress import track  # noqa: E402
from salience.config import Config  # noqa: E402
from salience.interfaces.auth import ServerDB  # noqa: E402

WORDS = ["harbour", "lighthouse", "keeper", "tide", "ferry", "quay", "lantern", "storm", "gull", "rope", "anchor", "pier", "beacon", "cargo", "dock", "sail", "mast", "hull", "current", "reef"]


@dataclass
class Window:
    """Requests of one sampling window."""

    latencies: list[float] = field(default_factory=list)
    status: dict[int, int] = field(default_factory=dict)


@dataclass
class Soak:
    base: str
    keys: list[str]
    minds: list[str]
    deadline: float
    rng_seed: int
    lock: threading.Lock = field(default_factory=threading.Lock)
    window: Window = field(default_factory=Window)
    acked: list[tuple[str, str]] = field(default_factory=list)  # (mind, id)
    total: dict[int, int] = field(default_factory=dict)
    created: int = 0
    refused_creates: int = 0
    by_mind: dict[str, list[str]] = field(default_factory=dict)  # acked ids, oldest first
    forgotten: set[str] = field(default_factory=set)  # deleted on purpose (steady mode)
    steady: int = 0  # > 0: keep each tenant mind at about this many memories (delete the oldest)
    deleted: int = 0
    delete_failed: int = 0

    def record(self, status: int, seconds: float) -> None:
        with self.lock:
            self.window.latencies.append(seconds)
            self.window.status[status] = self.window.status.get(status, 0) + 1
            self.total[status] = self.total.get(status, 0) + 1

    def ack(self, mind: str, ids: list[str]) -> list[str]:
        """Record acknowledged ids; in steady mode, the ids to delete to stay at `steady`
        memories in `mind` (the oldest acknowledged; removed from the lost-check)."""
        with self.lock:
            self.acked.extend((mind, i) for i in ids)
            if not self.steady:
                return []
            mine = self.by_mind.setdefault(mind, [])
            mine.extend(ids)
            over = len(mine) - self.steady
            if over <= 0:
                return []
            gone, mine[:over] = mine[:over], []
            self.forgotten.update(gone)
            return gone

    def take_window(self) -> Window:
        with self.lock:
            w, self.window = self.window, Window()
        return w


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 14))) + f" #{rng.random():.9f}"


def _chat(rng: random.Random) -> bytes:
    lines = []
    for _ in range(rng.randint(1, 3)):
        lines.append(json.dumps({"messages": [
            {"role": "user", "content": "I told you: " + _sentence(rng)},
            {"role": "assistant", "content": "Noted: " + _sentence(rng)},
        ]}))
    return ("\n".join(lines) + "\n").encode()


def worker(s: Soak, n: int) -> None:
    rng = random.Random(s.rng_seed + n)
    tenant = n % len(s.keys)
    mind = s.minds[tenant]
    h = {"Authorization": f"Bearer {s.keys[tenant]}"}
    with httpx.Client(base_url=s.base, headers=h, timeout=120) as c:
        while time.monotonic() < s.deadline:
            op = rng.random()
            t0 = time.perf_counter()
            try:
                if op < 0.35:
                    r = c.post(f"/v1/minds/{mind}/memories", json={"content": _sentence(rng)})
                    if r.status_code == 201:
                        _forget(s, c, mind, s.ack(mind, [r.json()["id"]]))
                elif op < 0.45:
                    items = [{"content": _sentence(rng)} for _ in range(rng.randint(2, 8))]
                    r = c.post(f"/v1/minds/{mind}/memories/batch", json={"items": items})
                    if r.status_code == 201:
                        _forget(s, c, mind, s.ack(mind, list(r.json()["ids"])))
                elif op < 0.85:
                    r = c.post(f"/v1/minds/{mind}/search",
                               json={"query": " ".join(rng.sample(WORDS, 3)), "limit": 10})
                elif op < 0.91:
                    r = c.post(f"/v1/minds/{mind}/import/chat",
                               params={"filename": f"chat-{n}-{rng.randint(0, 9)}.jsonl"},
                               content=_chat(rng))
                elif op < 0.95:
                    r = c.post(f"/v1/minds/{mind}/heartbeat")
                    if s.steady and r.status_code == 200:
                        _trim(s, c, mind)
                elif tenant == 0:  # the tenant that keeps creating minds
                    name = f"extra-{uuid.uuid4().hex[:10]}"
                    r = c.post("/v1/minds", json={"name": name})
                    with s.lock:
                        if r.status_code == 201:
                            s.created += 1
                        elif r.status_code == 403:
                            s.refused_creates += 1
                    if r.status_code == 201:
                        c.post(f"/v1/minds/{name}/memories", json={"content": _sentence(rng)})
                else:
                    r = c.get(f"/v1/minds/{mind}/catch-up")
                status = r.status_code
            except httpx.HTTPError:
                status = 599  # transport error: counted with the 5xx
            s.record(status, time.perf_counter() - t0)


def _forget(s: Soak, c: httpx.Client, mind: str, ids: list[str]) -> None:
    """Steady mode: delete `ids` (each DELETE is a request like the others)."""
    for mid in ids:
        t0 = time.perf_counter()
        try:
            status = c.delete(f"/v1/minds/{mind}/memories/{mid}").status_code
        except httpx.HTTPError:
            status = 599
        s.record(status, time.perf_counter() - t0)
        with s.lock:
            s.deleted += status == 204
            s.delete_failed += status != 204


def _trim(s: Soak, c: httpx.Client, mind: str) -> None:
    """Steady mode: delete the memories past the newest `steady` that no add acknowledged
    (those the chat imports made; acknowledged ones leave through `Soak.ack`)."""
    t0 = time.perf_counter()
    r = c.get(f"/v1/minds/{mind}/memories",
              params={"offset": s.steady, "limit": 100, "order": "created_desc"})
    s.record(r.status_code, time.perf_counter() - t0)
    if r.status_code != 200:
        return
    with s.lock:  # claim the ids: a worker of the same tenant may be trimming too
        live = set(s.by_mind.get(mind, ()))
        extra = [m["id"] for m in r.json()["items"]
                 if m["id"] not in live and m["id"] not in s.forgotten]
        s.forgotten.update(extra)
    _forget(s, c, mind, extra)


def memory_count(base: str, keys: list[str], minds: list[str]) -> int:
    """Memories in the tenant minds now (the stats route)."""
    n = 0
    for key, mind in zip(keys, minds, strict=True):
        r = httpx.get(f"{base}/v1/minds/{mind}/stats", headers={"Authorization": f"Bearer {key}"},
                      timeout=60)
        n += int(r.json().get("memories", 0)) if r.status_code == 200 else 0
    return n


def load_average() -> str:
    """The 1-minute load average (the machine is shared: latency follows it)."""
    return Path("/proc/loadavg").read_text().split()[0]


def proc_stats(pid: int) -> tuple[float, int]:
    """(RSS in MB, open descriptors) of a process, from /proc."""
    rss = 0.0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) / 1024
    return rss, len(os.listdir(f"/proc/{pid}/fd"))


def p95(values: list[float]) -> float:
    if not values:
        return 0.0
    v = sorted(values)
    return v[min(len(v) - 1, int(0.95 * len(v)))] * 1000


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--sample-s", type=float, default=60.0, help="seconds between samples")
    ap.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    ap.add_argument("--dsn", default=None, help="PostgreSQL DSN (default: an embedded server)")
    ap.add_argument("--tenants", type=int, default=3)
    ap.add_argument("--workers", type=int, default=6)
    ap.add_argument("--embedder", default="hash")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--steady", type=int, default=0,
                    help="keep each tenant mind at about N memories: past N, every acknowledged "
                         "add deletes the oldest one (RSS flat = no leak; 0: minds only grow)")
    ap.add_argument("--quota", type=int, default=10_000_000,
                    help="each tenant's monthly embedding quota (the free tier's 10,000 runs out "
                         "mid-soak and turns the writes of a tenant into 429s)")
    ap.add_argument("--trace", type=Path, default=None,
                    help="memory probes in the server: each sample appends its Python and SQLite "
                         "heaps, cache fill, vector-index sizes and malloc stats to "
                         "TRACE/trace.txt, and the end a malloc_trim (bench/_traced_serve.py)")
    args = ap.parse_args()

    home = Path(tempfile.mkdtemp(prefix="salience-soak-"))
    env = {**os.environ, "SALIENCE_HOME": str(home), "SALIENCE_EMBEDDER": args.embedder,
           "SALIENCE_BACKEND": args.backend, "SALIENCE_TENANT_MAX_MINDS": "40",
           "SALIENCE_SERVER_MAX_OPEN_MINDS": "16"}
    pg = None
    if args.backend == "postgres":
        dsn = args.dsn
        if dsn is None:
            sys.path.insert(0, str(ROOT / "tests"))
            from pg_server import start_pg

            pg = start_pg(use_env=False)
            dsn = pg.dsn
        env["SALIENCE_DSN"] = str(dsn)
    run = uuid.uuid4().hex[:6]
    # the server's own key database: SQLite in the home, or PostgreSQL beside the minds
    db = ServerDB.for_config(Config(home=home, backend=args.backend, dsn=env.get("SALIENCE_DSN")))
    keys = [db.create_key(scope="write", tenant=f"soak{run}-t{i}")[0] for i in range(args.tenants)]
    for i in range(args.tenants):  # the free tier's 10,000 embeddings a month last ~20 minutes
        db.set_tenant(f"soak{run}-t{i}", "free", monthly_quota=args.quota)  # here: 429s after
    db.close()
    minds = [f"soak{run}-m{i}" for i in range(args.tenants)]
    port = free_port()
    log = (home / "server.log").open("wb")  # a file, never a pipe: a full pipe blocks the server
    entry = ["-m", "salience.interfaces.cli"]
    if args.trace is not None:
        args.trace.mkdir(parents=True, exist_ok=True)
        env["SALIENCE_SOAK_TRACE_DIR"] = str(args.trace.resolve())
        entry = [str(ROOT / "bench" / "_traced_serve.py")]
    server = subprocess.Popen(
        [sys.executable, *entry, "serve", "--port", str(port), "--log-level", "warning"],
        env=env, stdout=subprocess.DEVNULL, stderr=log,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{base}/v1/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            raise SystemExit("server did not start: " + (home / "server.log").read_text()[-2000:])
        for key, mind in zip(keys, minds, strict=True):
            r = httpx.post(f"{base}/v1/minds", json={"name": mind},
                           headers={"Authorization": f"Bearer {key}"}, timeout=60)
            assert r.status_code == 201, r.text
        s = Soak(base, keys, minds, time.monotonic() + args.minutes * 60, args.seed,
                 steady=args.steady)
        threads = [threading.Thread(target=worker, args=(s, n), daemon=True)
                   for n in range(args.workers)]
        for t in threads:
            t.start()
        print(f"soak: backend {args.backend}, {args.minutes:g} min, {args.tenants} tenants, "
              f"{args.workers} workers, embedder {args.embedder}, {os.cpu_count()} cores, "
              f"steady {args.steady or 'off'}")
        print("| elapsed (s) | requests | p95 ms | 5xx | RSS MB | open fds | memories | load avg |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|")
        rows = []
        loads: list[float] = []
        rss = 0.0
        start = time.monotonic()
        tick = 0
        while any(t.is_alive() for t in threads):
            tick += 1  # sample on a fixed clock: the stats calls below take time of their own
            wake = min(start + tick * args.sample_s, s.deadline + 0.5)
            time.sleep(max(0.1, wake - time.monotonic()))
            w = s.take_window()
            rss, fds = proc_stats(server.pid)
            if args.trace is not None:
                server.send_signal(signal.SIGUSR1)
            five = sum(n for code, n in w.status.items() if code >= 500)
            rows.append((len(w.latencies), p95(w.latencies), five, rss, fds))
            loads.append(float(load_average()))
            print(f"| {time.monotonic() - start:.0f} | {len(w.latencies)} | {p95(w.latencies):.0f} | {five} | "
                  f"{rss:.0f} | {fds} | {memory_count(base, keys, minds)} | {loads[-1]} |",
                  flush=True)
        for t in threads:
            t.join()
        if args.trace is not None:  # what the allocator held free: malloc_trim(0), RSS after
            server.send_signal(signal.SIGUSR2)
            time.sleep(2)
            print(f"after malloc_trim(0) in the server: RSS {proc_stats(server.pid)[0]:.0f} MB "
                  f"(was {rss:.0f}; {args.trace}/trace.txt has its malloc lines)")
        lost = 0
        with httpx.Client(base_url=base, timeout=60) as c:
            key_of = dict(zip(minds, keys, strict=True))
            for mind, mid in track(s.acked, "read-back of acknowledged writes", unit="ids"):
                if mid in s.forgotten:
                    continue
                r = c.get(f"/v1/minds/{mind}/memories/{mid}",
                          headers={"Authorization": f"Bearer {key_of[mind]}"})
                lost += r.status_code != 200
        five_total = sum(n for code, n in s.total.items() if code >= 500)
        print(f"\nrequests {sum(s.total.values())}, status counts {dict(sorted(s.total.items()))}")
        print(f"acknowledged writes {len(s.acked)}, deleted on purpose {s.deleted} (failed "
              f"{s.delete_failed}), lost {lost}, 5xx {five_total}, "
              f"minds created by the creating tenant {s.created} (then refused {s.refused_creates}"
              " times: tenant_max_minds 40)")
        if rows:
            p95s = sorted(r[1] for r in rows)
            print(f"p95 ms per sample: min {p95s[0]:.0f} / median {p95s[len(p95s) // 2]:.0f} / "
                  f"max {p95s[-1]:.0f}; load average {min(loads)}-{max(loads)}")
            print(f"RSS first/last sample {rows[0][3]:.0f}/{rows[-1][3]:.0f} MB, open fds "
                  f"first/last {rows[0][4]}/{rows[-1][4]} (max {max(r[4] for r in rows)})")
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        tail = (home / "server.log").read_text(errors="replace").strip().splitlines()
        print(f"server log: {len(tail)} lines" + (f", last: {tail[-1][:200]}" if tail else ""))
        if pg is not None:
            pg.stop()
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
