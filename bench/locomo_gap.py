"""Where the held-out half (conversations 5–9) loses against the tuning half (0–4), from one
`bench/locomo.py --rows --json FILE` run (issue 15).

    python bench/locomo.py --conversations 0-9 --presets relevance --rows --json all.json
    python bench/locomo_gap.py all.json [--data locomo10.json] [--run e5/relevance]

Prints, per conversation, its size (turns, sessions), its questions' evidence turns per
question and share with evidence in more than one session, and R@10 / R@5; then the gap
between the halves as measured, re-weighted (the held-out half's questions weighted to the
tuning half's mix of categories, of evidence counts — 1, 2, 3+ turns — and of both) and
restricted to conversations of similar length, so a gap that is a property of which questions
a half asks, or of how long its conversations are, closes when the mix is equal.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import locomo

METRICS = ("R@10", "R@5")


def ev_bucket(n: int) -> str:
    return "1" if n <= 1 else "2" if n == 2 else "3+"


def weighted(rows: list[dict[str, Any]], like: list[dict[str, Any]], key: Any, metric: str) -> float:
    """Mean `metric` of `rows` with each stratum (`key(row)`) weighted to its share in `like`
    (post-stratification); strata `rows` lacks are left out and the rest renormalised."""
    target = Counter(key(r) for r in like)
    by: dict[Any, list[float]] = {}
    for r in rows:
        by.setdefault(key(r), []).append(r[metric])
    total = sum(n for k, n in target.items() if k in by)
    return sum(statistics.fmean(by[k]) * n for k, n in target.items() if k in by) / total


MIX = "mix"


def gap_parts(
    lo: list[dict[str, Any]], hi: list[dict[str, Any]], key: Any, metric: str
) -> dict[Any, tuple[float, float, float]]:
    """The gap mean(lo) − mean(hi) of `metric` split by stratum (`key(row)`): stratum ->
    (lo's mean, hi's mean, hi's share of questions × the difference); the `MIX` entry is
    what the strata's different shares add (Σ (lo's share − hi's share) × lo's mean). The
    parts sum to the gap exactly. Pure."""
    out: dict[Any, tuple[float, float, float]] = {}
    mix = 0.0
    for k in {key(r) for r in lo} | {key(r) for r in hi}:
        a = [r[metric] for r in lo if key(r) == k]
        b = [r[metric] for r in hi if key(r) == k]
        ma = statistics.fmean(a) if a else 0.0
        mb = statistics.fmean(b) if b else 0.0
        out[k] = (ma, mb, len(b) / len(hi) * (ma - mb))
        mix += (len(a) / len(lo) - len(b) / len(hi)) * ma
    out[MIX] = (0.0, 0.0, mix)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", type=Path)
    ap.add_argument("--data")
    ap.add_argument("--run", default="e5/relevance")
    args = ap.parse_args(argv)
    res = json.loads(args.results.read_text(encoding="utf-8"))
    rows = res["rows"][args.run]
    convs = locomo.load(locomo.resolve_data(args.data))
    print("| conv | turns | sessions | questions | evidence / q | cross-session | "
          "multi-hop share | R@10 | R@5 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for i in sorted({r["conv"] for r in rows}):
        c = convs[i]
        mine = [r for r in rows if r["conv"] == i]
        sess_of = {t.dia_id: s.index for s in c.sessions for t in s.turns}
        qs = [q for q in c.questions if q.category in locomo.CATEGORIES and q.evidence]
        cross = statistics.fmean(len({sess_of.get(e) for e in q.evidence}) > 1 for q in qs)
        print(f"| {i} | {sum(len(s.turns) for s in c.sessions)} | {len(c.sessions)} | "
              f"{len(mine)} | {statistics.fmean(r['n_ev'] for r in mine):.2f} | {cross:.2f} | "
              f"{statistics.fmean(r['cat'] == 1 for r in mine):.2f} | "
              + " | ".join(f"{statistics.fmean(r[m] for r in mine):.3f}" for m in METRICS)
              + " |")
    lo = [r for r in rows if r["conv"] <= 4]
    hi = [r for r in rows if r["conv"] >= 5]
    keys = {
        "category": lambda r: r["cat"],
        "evidence turns": lambda r: ev_bucket(r["n_ev"]),
        "category × evidence turns": lambda r: (r["cat"], ev_bucket(r["n_ev"])),
    }
    print()
    print("| comparison | 0–4 R@10 | 5–9 R@10 | gap R@10 | 0–4 R@5 | 5–9 R@5 | gap R@5 |")
    print("|---|---|---|---|---|---|---|")
    line = ["as measured"]
    for m in METRICS:
        a, b = statistics.fmean(r[m] for r in lo), statistics.fmean(r[m] for r in hi)
        line += [f"{a:.3f}", f"{b:.3f}", f"{a - b:+.3f}"]
    print("| " + " | ".join(line) + " |")
    for name, key in keys.items():
        line = [f"5–9 weighted to 0–4's {name}"]
        for m in METRICS:
            a = statistics.fmean(r[m] for r in lo)
            b = weighted(hi, lo, key, m)
            line += [f"{a:.3f}", f"{b:.3f}", f"{a - b:+.3f}"]
        print("| " + " | ".join(line) + " |")
    turns = {i: sum(len(s.turns) for s in c.sessions) for i, c in enumerate(convs)}
    for floor in (500, 600):
        a_rows = [r for r in lo if turns[r["conv"]] >= floor]
        b_rows = [r for r in hi if turns[r["conv"]] >= floor]
        if not a_rows or not b_rows:
            continue
        line = [f"only conversations of ≥ {floor} turns"]
        for m in METRICS:
            a, b = (statistics.fmean(r[m] for r in a_rows), statistics.fmean(r[m] for r in b_rows))
            line += [f"{a:.3f}", f"{b:.3f}", f"{a - b:+.3f}"]
        print("| " + " | ".join(line) + " |")
    print()
    print("| category | 0–4 n | 5–9 n | 0–4 R@10 | 5–9 R@10 | its share of the R@10 gap | "
          "0–4 R@5 | 5–9 R@5 | its share of the R@5 gap |")
    print("|---|---|---|---|---|---|---|---|---|")
    parts = {m: gap_parts(lo, hi, keys["category"], m) for m in METRICS}
    for k in sorted(parts["R@10"], key=str):
        cells = [locomo.CATEGORIES.get(k, str(k)) if k != MIX else "the mix of categories"]
        n_a, n_b = (sum(keys["category"](r) == k for r in x) for x in (lo, hi))
        cells += [str(n_a), str(n_b)] if k != MIX else ["", ""]
        for m in METRICS:
            a, b, share = parts[m][k]
            cells += ["", "", f"{share:+.3f}"] if k == MIX else [f"{a:.3f}", f"{b:.3f}", f"{share:+.3f}"]
        print("| " + " | ".join(cells) + " |")
    print()
    print("| stratum | 0–4 n | 0–4 R@10 | 5–9 n | 5–9 R@10 |")
    print("|---|---|---|---|---|")
    for name, key in (("category", keys["category"]), ("evidence turns", keys["evidence turns"])):
        for k in sorted({key(r) for r in rows}, key=str):
            a = [r["R@10"] for r in lo if key(r) == k]
            b = [r["R@10"] for r in hi if key(r) == k]
            label = locomo.CATEGORIES.get(k, k) if name == "category" else f"{k} evidence"
            print(f"| {label} | {len(a)} | {statistics.fmean(a) if a else float('nan'):.3f} | "
                  f"{len(b)} | {statistics.fmean(b) if b else float('nan'):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
