"""How often long jobs report progress (issue 19): the gaps between progress updates of an mbox
import and of a re-embed, as the CLI's bar sees them, next to what the previous granularity
(one update per 200 imported items, one per 256 re-embedded memories after the embedding) would
have given on the same run.

    python bench/progress_gaps.py                  # 400 emails, 400 memories, e5
    python bench/progress_gaps.py --n 1000 --embedder hash

Each job runs once on a fresh SQLite mind in a temporary directory, with the progress callback
recording a monotonic timestamp per update ("first" includes loading the model; "median gap"
is over the later updates). "old max gap" replays the same timestamps at the old
granularity (the time of every 200th item, or of every 256th memory), so both columns come
from one run. Numbers are for this machine and this run only (the load average is printed).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from itertools import pairwise
from pathlib import Path

from rich.console import Console
from rich.table import Table

from _timing import pct
from salience.config import Config
from salience.mind import Mind
from salience.transfer import reembed_mind

TOPICS = [
    "The Apollo launch moved to {d} June; Bob owns the budget and needs the numbers by Friday.",
    "Dinner with Marco on {d} March at Casa Ana, 8pm; bring the photos from Porto.",
    "Your flight TP{d} to Lisbon leaves at 10:00 from terminal 1; check-in closes at 9:15.",
    "Maya's physiotherapy appointment is on the {d}th at the Kirkstall clinic, room 4.",
    "Invoice {d} from the architects: the kitchen plans are approved, builders start in May.",
]


class Recorder:
    """A progress callback that remembers when each update came and how many items it held."""

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.marks: list[tuple[float, int]] = []  # (seconds since start, items done)
        self.done = 0

    def __call__(self, n: int) -> None:
        self.done += n
        self.marks.append((time.monotonic() - self.start, self.done))

    def gaps(self) -> list[float]:
        times = [0.0] + [t for t, _ in self.marks]
        return [b - a for a, b in pairwise(times)]

    def replay(self, every: int) -> list[float]:
        """Gaps had the job reported only every `every` items (and at the end)."""
        times, nxt = [0.0], every
        for t, done in self.marks:
            if done >= nxt:
                times.append(t)
                nxt = (done // every + 1) * every
        if self.marks and times[-1] != self.marks[-1][0]:
            times.append(self.marks[-1][0])
        return [b - a for a, b in pairwise(times)]


def write_mbox(path: Path, n: int) -> None:
    with path.open("w") as f:
        for i in range(n):
            body = TOPICS[i % len(TOPICS)].format(d=i + 1)
            f.write(
                f"From x@example.com Tue Feb  3 09:30:00 2026\nSubject: Note {i}\n"
                f"From: Ana <ana@example.com>\nMessage-ID: <n{i}@example.com>\n\n{body}\n\n"
            )


def row(table: Table, job: str, items: int, rec: Recorder, old_every: int) -> None:
    gaps, old = rec.gaps(), rec.replay(old_every)
    total = rec.marks[-1][0] if rec.marks else 0.0
    table.add_row(
        job, f"{items:,}", f"{total:.1f}", f"{items / total:.1f}" if total else "-",
        f"{len(gaps):,}", f"{gaps[0]:.2f}" if gaps else "-",
        f"{pct(gaps[1:] or gaps, 50):.2f}" if gaps else "-", f"{max(gaps):.2f}" if gaps else "-",
        f"{len(old):,}", f"{old[0]:.2f}" if old else "-", f"{max(old):.2f}" if old else "-",
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=400, help="emails to import and memories to re-embed")
    ap.add_argument("--embedder", default="e5", help="embedder of the import and the re-embed")
    args = ap.parse_args()
    load = os.getloadavg()
    table = Table(
        "job", "items", "seconds", "items/s", "updates", "first (s)", "median gap (s)",
        "max gap (s)",
        "old updates", "old first (s)", "old max gap (s)",
        title=f"progress updates, embedder {args.embedder}",
    )
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        cfg = Config(home=home, embedder=args.embedder)
        box = home / "mail.mbox"
        write_mbox(box, args.n)
        rec = Recorder()
        with Mind.open("mail", config=cfg) as m:
            m.import_mbox(box, progress=rec)
        row(table, "import mbox (triage inline)", args.n, rec, 200)

        src_cfg = Config(home=home, embedder="hash")
        with Mind.open("notes", config=src_cfg) as src:
            src.add_many(
                [{"content": TOPICS[i % len(TOPICS)].format(d=i + 1)} for i in range(args.n)],
                check_contradictions=False,
            )
            rec = Recorder()
            with Mind.open("notes-e5", config=cfg) as dst:
                reembed_mind(src, dst, progress=rec)
        row(table, f"reembed hash -> {args.embedder}", args.n, rec, 256)
    console = Console(width=200)
    console.print(table)
    console.print(
        f"command: python bench/progress_gaps.py --n {args.n} --embedder {args.embedder}; "
        f"load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
        f"({os.cpu_count()} CPUs)"
    )


if __name__ == "__main__":
    main()
