"""Measure the per-embedder similarity thresholds (issue 14; `salience.embed.calibration`).

Embeds the bundled calibration set with each packaged local model (and any other provider
named on the command line: e5, minilm, hash, ollama, openai, onnx), prints the similarity
distributions, the thresholds mapped from design A's constants, and the `PACKAGED` table to
paste into `src/salience/embed/calibration.py`.

    .venv/bin/python bench/calibrate.py [provider ...]
"""

from __future__ import annotations

import sys

from salience.config import Config
from salience.embed import build_provider
from salience.embed.calibration import SPECS, Calibration, measure

QS = ("min", "p05", "p25", "median", "p75", "p95", "max")


def show(cal: Calibration) -> None:
    """Print the distributions and the calibrated thresholds of `cal`."""
    print(f"\n## {cal.model} ({cal.dim} dims)\n")
    print(f"{'pairs/form':24} {'n':>5} " + " ".join(f"{k:>6}" for k in QS))
    for name, d in cal.distributions.items():
        print(f"{name:24} {int(d['n']):5d} " + " ".join(f"{d[k]:6.3f}" for k in QS))
    print(f"\n{'threshold':28} {'design A':>8} {'pooled':>7} {'EER':>6} {'err(A)':>6}  rule")
    for spec in SPECS:
        c = cal.thresholds[spec.name]
        print(f"{spec.name:28} {spec.design_a:8.3f} {c.value:7.3f} {c.eer or 0:6.3f} "
              f"{c.error_design_a or 0:6.3f}  {c.rule}")
        print("    per form: " + ", ".join(f"{f} {v:.3f}" for f, v in c.by_form.items()))


def main(names: list[str]) -> None:
    config = Config(embedder="hash")
    table: dict[tuple[str, int], dict[str, dict[str, object]]] = {}
    for name in names or ["e5", "minilm"]:
        emb = build_provider(name, config)
        cal = measure(emb.embed_passages, model=emb.model, dim=emb.dim)
        show(cal)
        table[(cal.model, cal.dim)] = {
            k: {"value": round(c.value, 4), "rule": c.rule, "cut": round(c.cut or 0, 4),
                "eer": round(c.eer or 0, 4), "error_design_a": round(c.error_design_a or 0, 4),
                "by_form": {f: round(v, 4) for f, v in c.by_form.items()}}
            for k, c in cal.thresholds.items()
        }
    print("\nPACKAGED = {")
    for key, rows in table.items():
        print(f"    {key!r}: {{")
        for k, v in rows.items():
            print(f"        {k!r}: {v!r},")
        print("    },")
    print("}")


if __name__ == "__main__":
    main(sys.argv[1:])
