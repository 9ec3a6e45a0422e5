"""LoCoMo recall before and after simulated maintenance (issue 7's regression check).

    python bench/locomo_decay.py --decay-days 30 --presets rrf-balanced --cache /tmp/locomo-cache

Runs `bench/locomo.py` twice over the same conversations: once as is, once with `--decay-days`
days of maintenance applied after ingestion (the clock moves N days past the day after the last
session and `Mind.maintain()` runs once; decay is applied for elapsed time, so this equals N
daily runs). Every other option is passed to `bench/locomo.py`. Prints both tables and the
R@10 of each preset with and without decay.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rich.console import Console

import locomo


def with_decay(days: float, stats: dict[str, Any], mode: str = "since-ingest") -> Any:
    """`locomo.build_mind` followed by `days` of simulated maintenance.

    mode "since-ingest": every memory gets exactly `days` of decay (maintenance is taken to
    have run at ingestion time); "full-age": the first maintenance run decays each memory from
    its own creation date — a year for LoCoMo's early sessions — and prunes accordingly.
    """
    from salience.clock import format_ts
    from salience.maintenance.job import LAST_RUN_KEY

    original = locomo.build_mind

    def build(conv: Any, embedder: Any, home: Path, name: str) -> Any:
        mind, dia = original(conv, embedder, home, name)
        if mode == "since-ingest":
            mind.store.set_meta(LAST_RUN_KEY, format_ts(mind.clock.now()) or "")
        mind.clock.advance(days=days)  # type: ignore[attr-defined]
        report = mind.maintain()
        stats.setdefault("decayed", 0)
        stats["decayed"] = stats["decayed"] + len(report.decayed)
        stats["pruned"] = stats.get("pruned", 0) + len(report.pruned) + len(report.compacted)
        stats["memories"] = stats.get("memories", 0) + report.scanned
        return mind, dia

    return build


class _Args(argparse.Namespace):
    """Options `bench/locomo.py` grows later default to None here."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decay-days", type=float, default=30.0)
    ap.add_argument(
        "--mode", choices=("since-ingest", "full-age"), default="since-ingest",
        help="decay N days from ingestion, or from each memory's creation date (with pruning)",
    )
    args, rest = ap.parse_known_args(argv)
    ap2 = argparse.ArgumentParser()
    for opt in ("--data", "--embedder", "--presets", "--conversations", "--json", "--cache"):
        ap2.add_argument(opt, dest=opt[2:].replace("-", "_") if opt != "--json" else "json_out")
    ap2.set_defaults(embedder="e5")
    ap2.add_argument("--quick", action="store_true")
    ap2.add_argument("--no-brain", dest="no_brain", action="store_true")
    largs = _Args(**vars(ap2.parse_args(rest)))
    console = Console(width=200)
    base = locomo.run(largs, console)
    console.print(locomo.table(base))
    stats: dict[str, Any] = {}
    locomo.build_mind = with_decay(args.decay_days, stats, args.mode)
    decayed = locomo.run(largs, console)
    console.print(locomo.table(decayed))
    console.print(f"maintenance after {args.decay_days:g} days: {stats}")
    for name, r in base["runs"].items():
        after = decayed["runs"][name]["overall"]["R@10"]
        console.print(
            f"{name}: R@10 {r['overall']['R@10']:.4f} without decay, {after:.4f} with "
            f"{args.decay_days:g}-day decay ({args.mode})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
