"""LoCoMo retrieval benchmark (protocol: /work/shared/design/decisions.md, "Benchmarks").

    python bench/locomo.py                        # all 10 conversations, e5, every preset
    python bench/locomo.py --quick                # 2 conversations, a smoke run
    python bench/locomo.py --embedder e5,minilm --conversations 0-4 --json out.json
    python bench/locomo.py --data path/to/locomo-layout.json

One mind per conversation (a temporary SQLite file). Each turn is one memory
"Speaker: text" (+ " [image: caption]"), stamped with its session's date: the benchmark replays
the conversation in time (a frozen clock set to each session's date while that session is
saved through `Mind.add_many`, the direct save path), then asks each question of categories 1–4
one day after the last session. Metrics: recall@k = |evidence ∩ top-k| / |evidence| and binary
NDCG@k for k = 5, 10, 20, overall, per category and per conversation group (0–4 = tuning,
5–9 = held out); search latency p50/p95. Searches do not record feedback (every question sees
the same mind). The data (CC BY-NC 4.0) is read from its path and never copied here.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from salience.clock import FrozenClock
from salience.config import Config
from salience.mind import Mind
from salience.search.config import SearchConfig, get_preset, preset_names

# -- reading LoCoMo-layout files ----------------------------------------------------------------

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_EVIDENCE = re.compile(r"D:?\s*(\d+)\s*:\s*(\d+)")
_SESSION = re.compile(r"^session_(\d+)$")
_DATE_FORMATS = (
    "%I:%M %p on %d %B, %Y",
    "%I:%M %p on %d %B %Y",
    "%I:%M %p on %B %d, %Y",
    "%d %B, %Y",
    "%d %B %Y",
    "%B %d, %Y",
    "%Y-%m-%d %H:%M",
    "%Y-%m-%d",
)


@dataclass(slots=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    caption: str = ""

    @property
    def content(self) -> str:
        """The memory text: "Speaker: text" plus " [image: caption]" when an image was shared."""
        base = f"{self.speaker}: {self.text}".strip()
        return f"{base} [image: {self.caption}]" if self.caption else base


@dataclass(slots=True)
class Session:
    index: int
    date: datetime | None
    turns: list[Turn] = field(default_factory=list)


@dataclass(slots=True)
class Question:
    text: str
    category: int
    evidence: list[str]


@dataclass(slots=True)
class Conversation:
    sample_id: str
    sessions: list[Session]
    questions: list[Question]


def parse_date(value: str) -> datetime | None:
    """LoCoMo's session date ("1:56 pm on 8 May, 2023") as aware UTC; None if unreadable."""
    text = " ".join(str(value).replace(".", "").split())
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def parse_evidence(raw: object) -> list[str]:
    """Normalised evidence ids ("D1:3") from a string, a list of strings, or odd forms."""
    items = raw if isinstance(raw, list) else [raw]
    out: dict[str, None] = {}
    for item in items:
        if item is None:
            continue
        for m in _EVIDENCE.finditer(str(item)):
            out[f"D{int(m[1])}:{int(m[2])}"] = None
    return list(out)


def _norm_dia(dia_id: str) -> str:
    ids = parse_evidence(dia_id)
    return ids[0] if ids else str(dia_id)


def load(path: str | Path) -> list[Conversation]:
    """Every conversation of a LoCoMo-layout file. Questions whose evidence names no turn of
    the conversation are kept with the evidence they do name (empty evidence is dropped later)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if isinstance(data, dict):
        data = [data]
    out = []
    for n, sample in enumerate(data):
        conv = sample["conversation"]
        sessions = []
        for key, turns in conv.items():
            m = _SESSION.match(key)
            if not m or not isinstance(turns, list):
                continue
            idx = int(m[1])
            date = parse_date(conv.get(f"{key}_date_time", ""))
            sess = Session(idx, date)
            for t in turns:
                caption = t.get("blip_caption") or ""
                sess.turns.append(
                    Turn(
                        _norm_dia(t["dia_id"]),
                        str(t.get("speaker", "")),
                        str(t.get("text", "")),
                        str(caption).strip(),
                    )
                )
            sessions.append(sess)
        sessions.sort(key=lambda s: s.index)
        questions = [
            Question(str(q["question"]), int(q["category"]), parse_evidence(q.get("evidence")))
            for q in sample.get("qa", [])
            if "question" in q and "category" in q
        ]
        out.append(Conversation(str(sample.get("sample_id", f"conv-{n}")), sessions, questions))
    return out


def parse_selection(spec: str | None, n: int) -> list[int]:
    """ "0-4", "0,2,5-7" or None (all) into sorted conversation indices below `n`."""
    if not spec:
        return list(range(n))
    picked: set[int] = set()
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-", 1)
            picked.update(range(int(a), int(b) + 1))
        else:
            picked.add(int(part))
    return sorted(i for i in picked if 0 <= i < n)


# -- running -----------------------------------------------------------------------------------
ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = "../shared/bench/locomo/locomo10.json"
KS = (5, 10, 20)
SESSION_KS = (1, 3, 5)  # sessions: LoCoMo conversations hold 19–32
BASELINES = ("text-only", "vector-only", "rrf")


def ablations() -> dict[str, SearchConfig]:
    """Levers switched off one at a time, to report each lever's delta in the same run."""
    f, r, b = get_preset("formula"), get_preset("rrf"), get_preset("relevance")
    return {
        "relevance-no-priors": replace(b, name="relevance-no-priors", prior_weight=0.0),
        "relevance-priors-0.1": replace(b, name="relevance-priors-0.1", prior_weight=0.1),
        "relevance-no-coverage": replace(b, name="relevance-no-coverage", bm25_coverage=False),
        "relevance-no-newer": replace(b, name="relevance-no-newer", newer_wins=False),
        "relevance-no-slot": replace(b, name="relevance-no-slot", slot_first=False),
        "relevance-no-update": replace(b, name="relevance-no-update", update_first=False),
        "relevance-coverage^2": replace(b, name="relevance-coverage^2", bm25_coverage_power=2.0),
        "relevance+recency": replace(b, name="relevance+recency", recency_intent=True),
        # issue 15's levers
        "relevance-bm25-1.2-0.75": replace(b, name="relevance-bm25-1.2-0.75", bm25_k1=1.2,
                                           bm25_b=0.75),
        "relevance-bm25-0.6-0.3": replace(b, name="relevance-bm25-0.6-0.3", bm25_k1=0.6,
                                          bm25_b=0.3),
        "relevance+rewrites": replace(b, name="relevance+rewrites", rewrites=3),
        "relevance-no-speaker": replace(b, name="relevance-no-speaker", participant_shift=0.0),
        "relevance-no-context": replace(b, name="relevance-no-context", context_window=0),
        "relevance-context-1": replace(b, name="relevance-context-1", context_window=1),
        "relevance-context-no-seeds": replace(b, name="relevance-context-no-seeds",
                                              context_seeds=0),
        "relevance-no-told-time": replace(b, name="relevance-no-told-time", time_told=False),
        "relevance-pool-100": replace(b, name="relevance-pool-100", pool=100),
        "relevance-pool-200": replace(b, name="relevance-pool-200", pool=200),
        **{
            f"relevance+speaker-{w}": replace(b, name=f"relevance+speaker-{w}", participant_shift=w)
            for w in (0.02, 0.05, 0.1)
        },
        "formula-no-time": replace(f, name="formula-no-time", time_aware=False),
        "formula-no-rewrites": replace(f, name="formula-no-rewrites", rewrites=0),
        "rrf+time": replace(r, name="rrf+time", time_aware=True),
        "rrf+time+rewrites": replace(r, name="rrf+time+rewrites", time_aware=True, rewrites=3),
    }


def resolve_data(arg: str | None) -> Path:
    """The data file: as given (from the working directory, then from the repo root), or the
    default relative to the repo root."""
    raw = arg or DEFAULT_DATA
    for base in (Path.cwd(), ROOT):
        p = (base / raw).expanduser().resolve()
        if p.is_file():
            return p
    raise SystemExit(
        f"LoCoMo data not found: {raw} (looked in {Path.cwd()} and {ROOT}); pass --data PATH"
    )


class CachedEmbedder:
    """An `Embedder` wrapper that remembers vectors (queries in memory; passages also on disk
    under `cache_dir` when given) so presets and re-runs do not re-embed the same text."""

    def __init__(self, inner: Any, cache_dir: Path | None = None) -> None:
        self.inner = inner
        self._q: dict[str, np.ndarray] = {}
        self._p: dict[str, np.ndarray] = {}
        self._file = None
        if cache_dir is not None:
            cache_dir.mkdir(parents=True, exist_ok=True)
            key = hashlib.sha1(inner.model.encode()).hexdigest()[:12]
            self._file = cache_dir / f"passages-{key}-{inner.dim}.npz"
            if self._file.exists():
                with np.load(self._file) as z:
                    self._p = {k: z[k] for k in z.files}
            self._qcache = self._file.with_name(self._file.name.replace("passages-", "queries-"))
            if self._qcache.exists():  # questions and their rewrites, as bench/live.py keeps
                with np.load(self._qcache) as z:
                    self._q = {k: z[k] for k in z.files}

    model = property(lambda self: self.inner.model)
    dim = property(lambda self: self.inner.dim)

    def status(self) -> Any:
        return self.inner.status()

    def _cached(self, texts: Sequence[str], store: dict[str, np.ndarray], fn: Any) -> np.ndarray:
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        todo = [i for i, k in enumerate(keys) if k not in store]
        if todo:
            vecs = fn([texts[i] for i in todo])
            for i, v in zip(todo, vecs, strict=True):
                store[keys[i]] = np.asarray(v, dtype=np.float32)
        return np.stack([store[k] for k in keys])

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._cached(texts, self._p, self.inner.embed_passages)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._cached(texts, self._q, self.inner.embed_queries)

    def save(self) -> None:
        if self._file is not None and self._p:
            np.savez(self._file, **self._p)
        if self._file is not None and self._q:
            np.savez(self._qcache, **self._q)


def group_turns(conv: Conversation, per_memory: int) -> tuple[Conversation, dict[str, str]]:
    """`conv` with every `per_memory` consecutive turns of a session as one turn (longer,
    multi-speaker memories: the first speaker leads, the others' lines follow as
    "Speaker: text"), and each original dia_id -> the dia_id of the unit holding it."""
    if per_memory <= 1:
        return conv, {t.dia_id: t.dia_id for s in conv.sessions for t in s.turns}
    alias: dict[str, str] = {}
    sessions = []
    for sess in conv.sessions:
        units = []
        for a in range(0, len(sess.turns), per_memory):
            blk = sess.turns[a : a + per_memory]
            head = blk[0]
            lead = f"{head.text} [image: {head.caption}]" if head.caption else head.text
            units.append(Turn(head.dia_id, head.speaker, "\n".join(
                [lead, *(t.content for t in blk[1:])])))
            alias.update((t.dia_id, head.dia_id) for t in blk)
        sessions.append(Session(sess.index, sess.date, units))
    return Conversation(conv.sample_id, sessions, conv.questions), alias


def build_mind(
    conv: Conversation, embedder: Any, home: Path, name: str, dsn: str | None = None,
    *, one_session: bool = False, per_memory: int = 1, brain: Any = None,
) -> tuple[Mind, dict[str, str]]:
    """A mind holding `conv`, replayed session by session; returns it and dia_id -> memory id.
    With `dsn`, the mind lives on that PostgreSQL server (schema per mind) instead of SQLite.
    `one_session` files every turn under one session with `t` running on across LoCoMo's
    sessions (each keeps its date); `per_memory` > 1 saves that many consecutive turns as one
    memory (`group_turns`): both check that a lever does not live on LoCoMo's session
    structure or its short turns. `brain` (the query rewriter) is given to `Mind.open`; None:
    the mind builds the configured one."""
    conv, alias = group_turns(conv, per_memory)
    first = next((s.date for s in conv.sessions if s.date), datetime(2023, 1, 1, tzinfo=UTC))
    clock = FrozenClock(first)
    if dsn is None:
        mind = Mind.open(
            home / f"{name}.db", config=Config(home=home), embedder=embedder, clock=clock,
            brain=brain,
        )
    else:
        mind = Mind.open(
            f"{name}-{home.name}".replace("_", "-")[:40], config=Config(home=home),
            backend="postgres", dsn=dsn, embedder=embedder, clock=clock, brain=brain,
        )
    dia: dict[str, str] = {}
    last = first
    offset = 0
    for sess in conv.sessions:
        if not sess.turns:
            continue
        when = sess.date or last
        clock.set(when)
        last = max(last, when)
        items = [
            {
                "content": t.content,
                "occurred_at": when,
                "session_id": "session-all" if one_session else f"session-{sess.index}",
                "t": offset + j if one_session else j,
                "metadata": {"dia_id": t.dia_id},
            }
            for j, t in enumerate(sess.turns)
        ]
        offset += len(sess.turns)
        for t, mid in zip(sess.turns, mind.add_many(items), strict=True):
            dia[t.dia_id] = mid
    clock.set(last + timedelta(days=1))
    return mind, {d: dia[u] for d, u in alias.items() if u in dia}


def score(ranked_ids: list[str], evidence: set[str], k: int) -> tuple[float, float]:
    """(recall@k, binary NDCG@k) of a ranked memory-id list against evidence memory ids."""
    top = ranked_ids[:k]
    found = evidence.intersection(top)
    dcg = sum(1.0 / math.log2(i + 2) for i, m in enumerate(top) if m in evidence)
    idcg = sum(1.0 / math.log2(i + 2) for i in range(min(len(evidence), k)))
    return len(found) / len(evidence), (dcg / idcg if idcg else 0.0)


def _lme_dcg(rels: Sequence[float]) -> float:
    """LongMemEval's DCG: the first two ranks weigh 1, rank i ≥ 2 weighs 1/log2(i)."""
    return (rels[0] + sum(r / math.log2(i + 1) for i, r in enumerate(rels[1:], start=1))
            if rels else 0.0)


def peer_scores(ranked_ids: list[str], evidence: set[str], k: int) -> dict[str, float]:
    """The metrics peers report, at depth k, on turns:

    - `hit@k` (LongMemEval's recall_any@k; "question-level" recall): any evidence in the top k;
    - `all@k` (LongMemEval's recall_all@k): every evidence turn in the top k;
    - `ndcg_any@k`: LongMemEval's NDCG (its `ndcg` over the evidence, its DCG discount)."""
    top = ranked_ids[:k]
    rels = [1.0 if m in evidence else 0.0 for m in top]
    ideal = _lme_dcg([1.0] * min(len(evidence), k))
    return {
        f"hit@{k}": float(any(rels)),
        f"all@{k}": float(evidence.issubset(top)),
        f"ndcg_any@{k}": _lme_dcg(rels) / ideal if ideal else 0.0,
    }


def session_scores(
    ranked_sessions: list[str], evidence_sessions: set[str], k: int
) -> dict[str, float]:
    """Session-level recall: the hits' sessions in order of first appearance, scored like
    turns (`sR@k` = share of evidence sessions among the first k, `sHit@k` = any)."""
    top = list(dict.fromkeys(ranked_sessions))[:k]
    found = evidence_sessions.intersection(top)
    return {
        f"sR@{k}": len(found) / len(evidence_sessions) if evidence_sessions else 0.0,
        f"sHit@{k}": float(bool(found)),
    }


def question_row(
    hits: Sequence[Any], evidence: set[str], session_of: dict[str, str]
) -> dict[str, float]:
    """Every metric of one question from its hits (a chunk of a long turn counts as the turn:
    hits are mapped to their item's first chunk)."""
    ids = list(dict.fromkeys(h.memory.parent_id or h.memory.id for h in hits))
    row: dict[str, float] = {}
    for k in KS:
        row[f"R@{k}"], row[f"N@{k}"] = score(ids, evidence, k)
        row.update(peer_scores(ids, evidence, k))
    ev_sessions = {session_of[e] for e in evidence if e in session_of}
    sessions = [session_of.get(i, i) for i in ids]
    for k in SESSION_KS:
        row.update(session_scores(sessions, ev_sessions, k))
    return row


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean metrics of per-question rows, overall, per category and per conversation group."""

    keys = [
        k for k, v in (rows[0] if rows else {}).items()
        if k not in ("conv", "cat", "ms", "n_ev") and isinstance(v, int | float)
    ]

    def mean(sel: list[dict[str, Any]]) -> dict[str, float]:
        out: dict[str, float] = {"n": float(len(sel))}
        for key in keys:
            out[key] = statistics.fmean(r[key] for r in sel) if sel else float("nan")
        return out

    lat = sorted(r["ms"] for r in rows)
    res: dict[str, Any] = {"overall": mean(rows)}
    res["category"] = {CATEGORIES[c]: mean([r for r in rows if r["cat"] == c]) for c in CATEGORIES}
    res["group"] = {
        "0-4": mean([r for r in rows if r["conv"] <= 4]),
        "5-9": mean([r for r in rows if r["conv"] >= 5]),
    }
    res["conversation"] = {
        str(c): mean([r for r in rows if r["conv"] == c])
        for c in sorted({r["conv"] for r in rows})
    }
    res["p50_ms"] = lat[len(lat) // 2] if lat else float("nan")
    res["p95_ms"] = lat[min(int(len(lat) * 0.95), len(lat) - 1)] if lat else float("nan")
    return res


def make_embedder_for(name: str) -> Any:
    from salience.embed import make_embedder

    return make_embedder(Config(embedder=name))  # type: ignore[arg-type]


def make_brain_or_none() -> Any:
    """The configured brain (heuristic by default) when `salience.llm` provides one."""
    try:
        from salience.llm import make_brain  # type: ignore[attr-defined]
    except ImportError:
        return None
    return make_brain(Config())


def run(args: argparse.Namespace, console: Console) -> dict[str, Any]:
    convs = load(resolve_data(args.data))
    picked = parse_selection(
        "0-1" if args.quick and not args.conversations else args.conversations, len(convs)
    )
    extra = ablations() if args.ablations else {}
    presets = [
        p.strip()
        for p in (
            args.presets
            or ",".join([*BASELINES, *(n for n in preset_names() if n not in BASELINES), *extra])
        ).split(",")
        if p.strip()
    ]
    results: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "conversations": picked,
        "runs": {},
    }
    brain = None if args.no_brain else make_brain_or_none()
    dsn, server = _postgres(args)
    n_q = sum(
        1 for i in picked for q in convs[i].questions if q.category in CATEGORIES and q.evidence
    )
    for emb_name in [e.strip() for e in args.embedder.split(",")]:
        emb = CachedEmbedder(make_embedder_for(emb_name), Path(args.cache) if args.cache else None)
        rows: dict[str, list[dict[str, Any]]] = {p: [] for p in presets}
        with tempfile.TemporaryDirectory(prefix="locomo-") as tmp, Progress(console=console) as bar:
            ingest = bar.add_task(f"{emb_name}: ingest", total=len(picked))
            minds = {}
            session_of: dict[int, dict[str, str]] = {}
            for i in picked:
                minds[i] = build_mind(
                    convs[i], emb, Path(tmp), f"conv{i}", dsn=dsn,
                    one_session=args.one_session, per_memory=args.turns_per_memory,
                    brain=brain,
                )
                session_of[i] = {
                    m.id: m.session_id or "" for m in minds[i][0].store.list(limit=100_000)
                }
                bar.advance(ingest)
            emb.save()
            emb.inner.embed_queries(["warm-up"])  # model loading is not search latency
            task = bar.add_task(f"{emb_name}: search", total=n_q * len(presets))
            for i in picked:
                mind, dia = minds[i]
                for q in convs[i].questions:
                    ev = {dia[e] for e in q.evidence if e in dia}
                    if q.category not in CATEGORIES or not ev:
                        continue
                    for p in presets:
                        t0 = time.perf_counter()
                        hits = mind.search(
                            q.text, limit=max(KS), preset=extra.get(p, p), feedback=False
                        )
                        ms = (time.perf_counter() - t0) * 1000
                        row: dict[str, Any] = {"conv": i, "cat": q.category, "ms": ms,
                                               "n_ev": len(ev)}
                        row.update(question_row(hits, ev, session_of[i]))
                        rows[p].append(row)
                        bar.advance(task)
            emb.save()
            for mind, _ in minds.values():
                drop = getattr(mind.store, "drop_mind", None)
                if dsn is not None and drop is not None:
                    drop()
                mind.close()
        for p in presets:
            results["runs"][f"{emb_name}/{p}"] = summarise(rows[p])
            if getattr(args, "rows", None):
                results.setdefault("rows", {})[f"{emb_name}/{p}"] = rows[p]
    if server is not None:
        server.stop()
    results["backend"] = "postgres" if dsn else "sqlite"
    return results


def _postgres(args: argparse.Namespace) -> tuple[str | None, Any]:
    """(DSN, server to stop) for `--backend postgres`: `--dsn`, else an embedded server
    (tests/pg_server.py); (None, None) for SQLite."""
    if getattr(args, "backend", "sqlite") != "postgres":
        return None, None
    if args.dsn:
        return args.dsn, None
    sys.path.insert(0, str(ROOT / "tests"))
    from pg_server import start_pg

    server = start_pg(use_env=False)
    return server.dsn, server


def table(results: dict[str, Any]) -> Table:
    t = Table(title=f"LoCoMo retrieval — conversations {results['conversations']}")
    for col in (
        "embedder/preset",
        "R@5",
        "R@10",
        "R@20",
        "N@10",
        *(f"{c[:6]} R@10" for c in CATEGORIES.values()),
        "0-4 R@10",
        "5-9 R@10",
        "p50 ms",
        "p95 ms",
    ):
        t.add_column(col, justify="left" if col == "embedder/preset" else "right")
    for name, r in results["runs"].items():
        o = r["overall"]
        t.add_row(
            name,
            *(f"{o[f'R@{k}']:.3f}" for k in KS),
            f"{o['N@10']:.3f}",
            *(f"{r['category'][c]['R@10']:.3f}" for c in CATEGORIES.values()),
            *(f"{r['group'][g]['R@10']:.3f}" for g in ("0-4", "5-9")),
            f"{r['p50_ms']:.1f}",
            f"{r['p95_ms']:.1f}",
        )
    return t


def markdown(results: dict[str, Any]) -> str:
    """The results as Markdown tables: overall + per category, then tuning vs held-out groups."""
    cats = list(CATEGORIES.values())
    head = (
        "| embedder/preset | R@5 | R@10 | R@20 | N@5 | N@10 | N@20 | "
        + " | ".join(f"{c} R@10" for c in cats)
        + " | p50 ms | p95 ms |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for name, r in results["runs"].items():
        o = r["overall"]
        lines.append(
            f"| {name} | "
            + " | ".join(f"{o[m]:.3f}" for m in ("R@5", "R@10", "R@20", "N@5", "N@10", "N@20"))
            + " | "
            + " | ".join(f"{r['category'][c]['R@10']:.3f}" for c in cats)
            + f" | {r['p50_ms']:.1f} | {r['p95_ms']:.1f} |"
        )
    lines += [
        "",
        "| embedder/preset | 0–4 R@5 | 0–4 R@10 | 0–4 R@20 | 5–9 R@5 | 5–9 R@10 | 5–9 R@20 |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, r in results["runs"].items():
        g = r["group"]
        lines.append(
            f"| {name} | "
            + " | ".join(f"{g[grp][f'R@{k}']:.3f}" for grp in ("0-4", "5-9") for k in KS)
            + " |"
        )
    lines += [
        "",
        "| embedder/preset | hit@5 | hit@10 | all@5 | all@10 | ndcg_any@5 | ndcg_any@10 "
        "| sR@1 | sR@3 | sR@5 | sHit@1 |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    peer = ("hit@5", "hit@10", "all@5", "all@10", "ndcg_any@5", "ndcg_any@10",
            "sR@1", "sR@3", "sR@5", "sHit@1")
    for name, r in results["runs"].items():
        o = r["overall"]
        if all(m in o for m in peer):
            lines.append(f"| {name} | " + " | ".join(f"{o[m]:.3f}" for m in peer) + " |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--data", help=f"LoCoMo-layout JSON (default {DEFAULT_DATA} from the repo root)"
    )
    ap.add_argument("--embedder", default="e5", help="comma list of: e5, minilm, hash")
    ap.add_argument("--presets", help="comma list of presets (default: baselines + every preset)")
    ap.add_argument("--conversations", help='e.g. "0-4" or "0,3,5-9" (default: all)')
    ap.add_argument("--quick", action="store_true", help="2 conversations: a smoke run")
    ap.add_argument("--json", dest="json_out", help="write machine-readable results here")
    ap.add_argument("--markdown", help="write the result tables as Markdown here")
    ap.add_argument("--cache", help="directory caching passage embeddings between runs")
    ap.add_argument("--ablations", action="store_true", help="also run lever ablations")
    ap.add_argument("--no-brain", action="store_true", help="no query rewriting/re-ranking")
    ap.add_argument("--one-session", action="store_true",
                    help="every turn in one session, t running on (no LoCoMo session units)")
    ap.add_argument("--turns-per-memory", type=int, default=1,
                    help="save this many consecutive turns as one memory (longer memories)")
    ap.add_argument("--rows", action="store_true",
                    help="also write every question's metrics to --json (conversation, "
                         "category; for per-conversation analysis)")
    ap.add_argument("--backend", default="sqlite", choices=("sqlite", "postgres"))
    ap.add_argument("--dsn", help="PostgreSQL DSN (default: start an embedded server)")
    args = ap.parse_args(argv)
    console = Console(width=200)
    results = run(args, console)
    console.print(table(results))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2), encoding="utf-8")
        console.print(f"wrote {args.json_out}")
    if args.markdown:
        Path(args.markdown).write_text(markdown(results), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
