"""What the agent records cost per call (issue 20), on SQLite and PostgreSQL.

    python bench/agent_records.py [--backend sqlite,postgres] [--dsn DSN] [--reps 200]

Times (p50 / p95 ms, nearest rank): counting a signal (an upsert), recording a procedure
outcome (read-modify-write in one transaction), recording a trace that counts toward a
procedure, and `context()` without a query with and without the self-awareness signal lookup
(`surface_signals=False` skips it; with it, 5 new actionable signals are shown and marked
each call), in a mind holding 1,000 memories, 200 signals and 2,000 traces.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from pydantic import SecretStr
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _progress import track
from _timing import pct, timed
from salience import Config, Mind


def bench(backend: str, cfg: Config, reps: int) -> list[tuple[str, str, list[float]]]:
    if backend == "postgres":
        cfg = cfg.model_copy(update={"backend": "postgres"})
    m = Mind.open(f"bench-agent-{backend}", config=cfg)
    try:
        m.add_many([f"Memory number {i} about topic {i % 37}." for i in range(1000)])
        p = m.procedures.create("reply", "Reply: {msg}")
        for i in track(range(200), f"{backend}: signals", unit="signals"):
            for _ in range(3 if i < 20 else 1):
                m.signals.record("correction", f"pattern {i}", "note")
        for i in track(range(2000), f"{backend}: traces", unit="traces"):
            m.traces.record(f"task {i}", "success" if i % 3 else "failure", trace={"i": i})
        out = [
            ("signal upsert", timed(lambda i: m.signals.record("correction", f"hot {i % 10}"),
                                    reps)),
            ("procedure outcome", timed(
                lambda i: m.procedures.record_outcome(p.id, success=i % 2 == 0, cost=1.0), reps)),
            ("trace + outcome", timed(
                lambda i: m.traces.record("t", "success", trace={"steps": [i]},
                                          procedure_id=p.id, cost=1.0), reps)),
            ("context() no signals", timed(lambda i: m.context(surface_signals=False), reps)),
        ]
        lat = []
        for i in track(range(reps), f"{backend}: context() + signals", unit="calls"):
            # arm 5 new actionable signals before each timed call
            for k in range(5):
                for _ in range(3):
                    m.signals.record("workflow_pattern", f"rep {i} pattern {k}", "note")
            lat.extend(timed(lambda _i: m.context(), 1))
        out.append(("context() + signals", lat))
        return [(backend, op, xs) for op, xs in out]
    finally:
        drop = getattr(m.store, "drop_mind", None)
        if drop is not None:
            drop()
        m.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", default="sqlite", help="comma list: sqlite, postgres")
    ap.add_argument("--dsn", help="PostgreSQL DSN (default: start an embedded server)")
    ap.add_argument("--reps", type=int, default=200)
    args = ap.parse_args()
    backends = [b.strip() for b in args.backend.split(",") if b.strip()]
    server = None
    rows = []
    with tempfile.TemporaryDirectory(prefix="salience-bench-") as tmp:
        cfg = Config(home=Path(tmp), embedder="hash")
        if "postgres" in backends:
            dsn = args.dsn
            if dsn is None:
                sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
                from pg_server import start_pg

                server = start_pg()
                dsn = server.dsn
            cfg = cfg.model_copy(update={"dsn": SecretStr(dsn)})
        try:
            for b in backends:
                rows.extend(bench(b, cfg, args.reps))
        finally:
            if server is not None:
                server.stop()
    table = Table("backend", "operation", "p50 ms", "p95 ms", title="agent records")
    for backend, op, xs in rows:
        table.add_row(backend, op, f"{pct(xs, 50):.2f}", f"{pct(xs, 95):.2f}")
    Console().print(table)


if __name__ == "__main__":
    main()
