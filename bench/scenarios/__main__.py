"""`python -m bench.scenarios`: run every scenario suite and print their scores."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console

from . import SUITES, run_all
from ._common import SIZES, split_list


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Salience scenario suites")
    ap.add_argument("--embedder", default="e5", help="e5 (default), minilm or hash")
    ap.add_argument("--size", choices=SIZES, default="full")
    ap.add_argument("--quick", action="store_true", help="same as --size quick")
    ap.add_argument("--presets", help="comma list of search presets (default: the config's)")
    ap.add_argument("--suites", help=f"comma list of: {', '.join(SUITES)} (default: all)")
    ap.add_argument("--json", dest="json_out", help="write the results here")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every failed case")
    args = ap.parse_args(argv)
    results = run_all(
        Console(width=160), args.embedder, size="quick" if args.quick else args.size,
        presets=split_list(args.presets) or None, suites=split_list(args.suites) or None,
        verbose=args.verbose,
    )
    if args.json_out:
        Path(args.json_out).write_text(
            json.dumps({k: r.to_dict() for k, r in results.items()}, indent=2, default=str),
            encoding="utf-8",
        )
    return 0 if all(r.passed for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
