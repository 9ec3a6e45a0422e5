"""Embedding speed: batched passages/s and single-query latency for every available embedder.

    python bench/embed_speed.py                   # 512 passages, 100 single queries
    python bench/embed_speed.py --n 2048 --queries 200 --threads 2 --batch-size 64
    python bench/embed_speed.py --corpus synthetic
    python bench/embed_speed.py --chunk-share 0     # single turns only (the LoCoMo protocol)

Texts are realistic and of mixed length: by default dialogue turns from the LoCoMo benchmark
file (read in place at ../shared/bench/locomo/locomo10.json when present, never copied), most
used as they are and a share (`--chunk-share`, default 1 in 4) joined with the following turns
into a memory-sized chunk of up to ~1,200 bytes (the ingest chunk size); otherwise a built-in
generator of everyday notes. Passages/s is the best of `--repeat` runs (other load on the machine
only ever slows a run down).

The hash embedder is the baseline row; "× hash" is the passages/s ratio against it. Ollama and
OpenAI-compatible rows appear when configured through SALIENCE_* variables. Load time is the
first embed of a fresh instance (model load + warm-up). Numbers are for this machine and run only.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from _progress import track
from salience.config import Config
from salience.embed import Embedder, available_embedders, build_provider

LOCOMO = (
    Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "locomo" / "locomo10.json"
)
CHUNK_BYTES = 1200

_SUBJECTS = ["I", "My sister", "Our team", "The landlord", "Dr. Patel", "Grandma", "We", "Sam"]
_VERBS = ["moved", "booked", "finished", "cancelled", "started", "forgot", "recommended", "fixed"]
_OBJECTS = [
    "the dentist appointment",
    "a trip to Lisbon in May",
    "the quarterly tax return",
    "the new onboarding checklist",
    "a vegetarian lasagna recipe",
    "the leaking kitchen tap",
    "the book club meeting",
    "the contract renewal with Acme",
]
_TAILS = [
    "",
    "because the old date clashed with the school play",
    "and asked me to remind everyone on Friday",
    "after three weeks of back-and-forth emails with support",
    "which means the budget for the rest of the year needs another look",
    "so we should pick up the keys from the office before noon on Tuesday",
]


def _is_chunk(i: int, share: float) -> bool:
    """Spread `share` of the positions evenly (deterministic)."""
    return share > 0 and int(i * share) != int((i + 1) * share)


def synthetic_texts(n: int, share: float, seed: int = 7) -> list[str]:
    """Deterministic everyday notes: short facts, longer sentences and multi-sentence chunks."""
    rng = random.Random(seed)

    def sentence() -> str:
        tail = rng.choice(_TAILS)
        s = f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)}"
        return f"{s} {tail}.".replace(" .", ".")

    out = []
    for i in range(n):
        k = rng.randint(3, 9) if _is_chunk(i, share) else 1
        out.append(" ".join(sentence() for _ in range(k))[:CHUNK_BYTES])
    return out


def locomo_texts(path: Path, n: int, share: float) -> list[str]:
    """LoCoMo turns as "Speaker: text"; a `share` of them joined with the next turns."""
    data = json.loads(path.read_text(encoding="utf-8"))
    turns = []
    for sample in data:
        conv = sample["conversation"]
        for key, session in conv.items():
            if key.startswith("session_") and isinstance(session, list):
                turns += [f"{t['speaker']}: {t['text']}" for t in session]
    out, i = [], 0
    while len(out) < n and i < len(turns):
        if not _is_chunk(len(out), share):
            out.append(turns[i])
            i += 1
            continue
        chunk = turns[i]
        i += 1
        while i < len(turns) and len(chunk) + len(turns[i]) + 1 <= CHUNK_BYTES:
            chunk += " " + turns[i]
            i += 1
        out.append(chunk)
    return out


def percentile(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    k = (len(xs) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def measure(
    embedder: Embedder, passages: list[str], queries: list[str], repeat: int
) -> dict[str, float]:
    t0 = time.perf_counter()
    embedder.embed_passages(passages[:4])  # load + warm-up
    load_s = time.perf_counter() - t0
    embedder.embed_queries(queries[:3])
    per_s = 0.0
    for _ in track(range(repeat), f"{embedder.model}: {len(passages)} passages", unit="passes"):
        t0 = time.perf_counter()
        embedder.embed_passages(passages)
        per_s = max(per_s, len(passages) / (time.perf_counter() - t0))
    latencies = []
    for q in track(queries, f"{embedder.model}: queries", unit="queries"):
        t0 = time.perf_counter()
        embedder.embed_queries([q])
        latencies.append((time.perf_counter() - t0) * 1000)
    return {
        "load_s": load_s,
        "per_s": per_s,
        "p50": statistics.median(latencies),
        "p95": percentile(latencies, 95),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=512, help="passages embedded in batches")
    parser.add_argument("--queries", type=int, default=100, help="single-query embeds timed")
    parser.add_argument("--threads", type=int, default=None, help="embedder threads (config)")
    parser.add_argument("--batch-size", type=int, default=None, help="texts per batch (config)")
    parser.add_argument("--corpus", choices=["auto", "locomo", "synthetic"], default="auto")
    parser.add_argument("--chunk-share", type=float, default=0.25, help="share of ~1.2 kB chunks")
    parser.add_argument("--repeat", type=int, default=2, help="passage runs; the best counts")
    args = parser.parse_args()

    overrides = {}
    if args.threads:
        overrides["embedder_threads"] = args.threads
    if args.batch_size:
        overrides["embed_batch_size"] = args.batch_size
    config = Config(**overrides)

    use_locomo = args.corpus == "locomo" or (args.corpus == "auto" and LOCOMO.is_file())
    texts = locomo_texts(LOCOMO, args.n + args.queries, args.chunk_share) if use_locomo else []
    if len(texts) < args.n + args.queries:
        use_locomo = False
        texts = synthetic_texts(args.n + args.queries, args.chunk_share)
    passages = texts[: args.n]
    # Queries are short: the first sentence-ish part of held-out texts.
    queries = [t[:120] for t in texts[args.n : args.n + args.queries]]

    console = Console()
    if not console.is_terminal:
        console = Console(width=160)
    mean_chars = statistics.mean(len(t) for t in passages)
    console.print(
        f"[bold]Embedding speed[/bold]: {len(passages)} passages "
        f"({'LoCoMo turns and chunks' if use_locomo else 'synthetic notes'}, mean {mean_chars:.0f}"
        f" chars, max {max(len(t) for t in passages)}), {len(queries)} single queries; "
        f"threads={config.embedder_threads}, batch={config.embed_batch_size}"
    )

    rows = []
    skipped = []
    listed = available_embedders(config, probe_models=False)
    listed.sort(key=lambda r: r.name != "hash")  # the baseline first
    for row in listed:
        if not row.available:
            skipped.append(f"{row.name}: {row.detail}")
            continue
        embedder = build_provider(row.name, config)
        with console.status(f"measuring {row.name}…"):
            result = measure(embedder, passages, queries, max(1, args.repeat))
        rows.append((row.name, embedder.model, embedder.dim, result))
        close = getattr(embedder, "close", None)
        if callable(close):
            close()

    base = rows[0][3]["per_s"]
    table = Table(title="Embedders on this machine (baseline: hash)")
    for col in (
        "embedder",
        "model",
        "dim",
        "load+warm s",
        "passages/s",
        "× hash",
        "query p50 ms",
        "query p95 ms",
    ):
        table.add_column(col, justify="left" if col in ("embedder", "model") else "right")
    for name, model, dim, r in rows:
        table.add_row(
            name,
            model,
            str(dim),
            f"{r['load_s']:.2f}",
            f"{r['per_s']:,.0f}",
            f"{r['per_s'] / base:.3f}",
            f"{r['p50']:.2f}",
            f"{r['p95']:.2f}",
        )
    console.print(table)
    for line in skipped:
        console.print(f"[dim]not measured: {line}[/dim]")


if __name__ == "__main__":
    main()
