"""LIVE LoCoMo benchmark: the conversations replayed through the agent path (issue 13).

    python bench/live.py                                  # all 10 conversations, e5, default preset
    python bench/live.py --conversations 0-1 --cache /tmp/locomo-cache
    python bench/live.py --presets formula,rrf-balanced --json live.json --markdown live.md
    python bench/live.py --data path/to/locomo-layout.json --embedder hash --no-static
    python bench/live.py --scenarios                      # also the suites of bench/scenarios/

One mind per conversation (a temporary SQLite file) on a frozen clock set to each session's
date. Every turn goes through `Mind.remember_turn(text, speaker=…)` (deferred: queued for
triage by the offline brain, then admission, quality, contradictions), preceded by
`Mind.prefetch(last 3 messages, message)` as an agent would (retrievals recorded) and followed by
`Mind.evaluate_usefulness(next message, prefetched)`. In a chat with an AI assistant (a speaker
named "Assistant", reserved by `remember_turn`), each reply is passed with the message it
answers — `remember_turn(message, reply, speaker=…)`, both turns' ids on the memory — and
judges what was prefetched for it; an assistant turn answering nothing is counted, not stored.
After each session the clock moves day by
day to the next session's date with one `Mind.heartbeat()` per simulated day (drain, maintenance,
cognitive runs on their own triggers; at most `--max-ticks` per gap, spread evenly). The queue
is drained; the questions of categories 1–4 are asked one day after the last session with
`Mind.search(q, limit=20, feedback=False)`, as in `bench/locomo.py`.

Evidence is matched through provenance: a memory covers the turns in its metadata `dia_id`
(chunks and distilled facts copy it) and, recursively, those of its `related_ids` and
`parent_id` (episodes and reflections link their constituents) — deleted constituents
included, from an index kept while the replay runs. Recall@k = |evidence ∩ turns of the top k|
/ |evidence|; binary NDCG counts a hit relevant when it covers an evidence turn no higher hit
covered (with one memory per turn this is `bench/locomo.py`'s NDCG). The static protocol
(`bench/locomo.py`'s run) runs in the same process for the same conversations, presets and
embedder; rows `<embedder>/<preset>` (static) and `<embedder>/<preset>+live`, the live ones
with a `kept` block: turns carried by a live memory, evidence turns kept, memories pruned,
memories superseded. The data (CC BY-NC 4.0) is read from its path and never copied here.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

import locomo
from locomo import CATEGORIES, DEFAULT_DATA, KS, CachedEmbedder, Conversation, Turn
from salience.clock import FrozenClock
from salience.config import Config
from salience.errors import InvalidInput
from salience.mind import Mind
from salience.models import Memory, MemoryFilter
from salience.search.config import preset_names

MAX_TICKS = 60  # heartbeats per gap between two sessions (one per simulated day)
DRAIN_ROUNDS = 1000  # bound of the final drain loop (each round drains up to 100 items)
HISTORY = 3  # messages of trajectory given to prefetch
_PAGE = 5000

# -- pure parts: messages, tick times, provenance, scoring, kept counts ---------------------------


def turn_message(turn: Turn) -> str:
    """What the speaker sends: the turn's text plus " [image: caption]", so that
    `remember_turn(message, speaker=turn.speaker)` stores exactly `turn.content`."""
    content = turn.content
    prefix = f"{turn.speaker}: "
    return content[len(prefix):] if content.startswith(prefix) else content.partition(":")[2].strip()


def tick_times(start: datetime, end: datetime, cap: int = MAX_TICKS) -> list[datetime]:
    """The daily heartbeat times strictly between `start` and `end` (start + 1 day, + 2 days,
    …); when there are more than `cap`, `cap` of them spread evenly over the gap, the last
    one always kept (maintenance decays by elapsed time, so fewer ticks lose no decay)."""
    if cap < 1:
        raise ValueError("cap must be at least 1")
    days: list[datetime] = []
    when = start + timedelta(days=1)
    while when < end:
        days.append(when)
        when += timedelta(days=1)
    if len(days) <= cap:
        return days
    return [days[round((i + 1) * len(days) / cap) - 1] for i in range(cap)]


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a memory came from: the turn ids it carries itself (metadata `dia_id`) and the
    memories it was made from (`related_ids`, and `parent_id` for later chunks)."""

    own: frozenset[str]
    links: tuple[str, ...] = ()


def provenance_of(m: Memory) -> Provenance:
    """A memory's `Provenance` (`dia_id` may be one id or a list of ids)."""
    raw = (m.metadata or {}).get("dia_id")
    own = [raw] if isinstance(raw, str) else [str(x) for x in raw] if isinstance(raw, list) else []
    links = [*m.related_ids, *([m.parent_id] if m.parent_id else [])]
    return Provenance(frozenset(own), tuple(dict.fromkeys(links)))


def covered_turns(memory_id: str, index: Mapping[str, Provenance]) -> frozenset[str]:
    """Every turn id `memory_id` covers: its own and, transitively, its links' (cycle-safe;
    links to memories the index does not know add nothing)."""
    seen = {memory_id}
    todo = [memory_id]
    out: set[str] = set()
    while todo:
        p = index.get(todo.pop())
        if p is None:
            continue
        out |= p.own
        for link in p.links:
            if link not in seen:
                seen.add(link)
                todo.append(link)
    return frozenset(out)


def live_score(hit_turns: Sequence[frozenset[str]], evidence: set[str], k: int) -> tuple[float, float]:
    """(recall@k, binary NDCG@k) of ranked hits, each given as the turn ids it covers.

    A hit is relevant when it covers an evidence turn that no higher hit covered; the ideal
    ranking has one relevant hit per evidence turn (as `locomo.score` for one memory per turn).
    """
    covered: set[str] = set()
    dcg = 0.0
    for i, turns in enumerate(hit_turns[:k]):
        new = (turns & evidence) - covered
        if new:
            dcg += 1.0 / math.log2(i + 2)
            covered |= new
    idcg = sum(1.0 / math.log2(i + 2) for i in range(min(len(evidence), k)))
    return len(covered) / len(evidence), (dcg / idcg if idcg else 0.0)


def kept_counts(
    turns: Sequence[str],
    evidence: Iterable[str],
    live: Mapping[str, Provenance],
    superseded: Iterable[str],
    ever: Mapping[str, Provenance],
    pruned: Iterable[str],
) -> dict[str, Any]:
    """What the live mind still holds of a conversation.

    Args:
        turns: every turn id of the conversation.
        evidence: turn ids cited as evidence by a question.
        live: provenance of every memory in the mind now (superseded ones included).
        superseded: ids of live memories that a newer one superseded.
        ever: provenance of every memory the mind ever held (deleted ones included).
        pruned: ids of memories maintenance deleted.

    A turn is kept when a live memory carries its id itself (synthesis links do not count);
    a turn whose carriers are all superseded is kept (never deleted) and counted as superseded.
    """
    turn_set = set(turns)
    ev = set(evidence) & turn_set
    sup = set(superseded)
    carriers: dict[str, list[str]] = {}
    for mid, p in live.items():
        for t in p.own:
            carriers.setdefault(t, []).append(mid)
    once = {t for p in ever.values() for t in p.own} | set(carriers)
    kept = {t for t in turn_set if carriers.get(t)}
    sup_turns = {t for t in kept if all(m in sup for m in carriers[t])}
    pruned_ids = list(dict.fromkeys(pruned))
    lost = (once & turn_set) - kept  # saved once, carried by nothing now: deleted
    never = turn_set - once
    return {
        "turns": {"kept": len(kept), "total": len(turn_set)},
        "evidence_turns": {"kept": len(kept & ev), "total": len(ev)},
        "pruned": len(pruned_ids),
        "superseded": len(sup & set(live)),
        "turns_pruned": len(lost),
        "evidence_turns_pruned": len(lost & ev),
        "turns_superseded": len(sup_turns),
        "evidence_turns_superseded": len(sup_turns & ev),
        "turns_never_saved": len(never),
        "evidence_turns_never_saved": len(never & ev),
        "lost_evidence": sorted(ev - kept),
    }


def merge_kept(blocks: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Sum of per-conversation `kept_counts` blocks, with the kept rates."""
    out: dict[str, Any] = {}
    for b in blocks:
        for key, value in b.items():
            if isinstance(value, dict):
                slot = out.setdefault(key, {"kept": 0, "total": 0})
                slot["kept"] += value["kept"]
                slot["total"] += value["total"]
            elif isinstance(value, list):
                out.setdefault(key, []).extend(value)
            else:
                out[key] = out.get(key, 0) + value
    for key in ("turns", "evidence_turns"):
        slot = out.setdefault(key, {"kept": 0, "total": 0})
        slot["rate"] = slot["kept"] / slot["total"] if slot["total"] else float("nan")
    return out


# -- the replay -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Replay:
    """A conversation replayed through the agent path, and what the replay saw on the way."""

    mind: Mind
    clock: FrozenClock
    ever: dict[str, Provenance] = field(default_factory=dict)  # every memory ever seen
    pruned: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # turns remember_turn refused
    activity: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    timing: dict[str, float] = field(default_factory=dict)
    _indexed_at: datetime | None = None

    def count(self, key: str, n: int = 1) -> None:
        self.activity[key] = self.activity.get(key, 0) + n

    def timed(self, key: str, t0: float) -> None:
        self.timing[key] = self.timing.get(key, 0.0) + time.perf_counter() - t0

    def index_new(self) -> None:
        """Add the provenance of memories created since the last look (before maintenance can
        delete them: a later tick prunes, this tick only created)."""
        flt = MemoryFilter(include_superseded=True, since=self._indexed_at)
        for m in _all(self.mind, flt):
            self.ever[m.id] = provenance_of(m)
        self._indexed_at = self.clock.now()

    def tick(self) -> None:
        """One heartbeat at the clock's time; records what it deleted and created."""
        t0 = time.perf_counter()
        report = self.mind.heartbeat()
        self.timed("heartbeat", t0)
        self.count("ticks")
        for step in report.steps:
            if step.status == "failed":
                self.errors.append(f"{report.at.date()} {step.name}: {step.detail}")
                continue
            if step.status != "ok" or not isinstance(step.detail, dict):
                continue
            d = step.detail
            if step.name == "drain":
                self.count("triaged", d.get("processed", 0))
                self.count("skipped", d.get("skipped", 0))
                self.errors += [f"drain: {e}" for e in d.get("errors", [])]
            elif step.name == "maintenance":
                self.count("maintenance_runs")
                self.pruned += [*d.get("pruned", {}), *d.get("compacted", {})]
                self.pruned += [i for mg in d.get("merges", []) for i in mg.get("dropped", [])]
            elif step.name == "cognitive":
                self.count("cognitive_runs")
                self.count("episodes", len(d.get("episodes", [])))
                self.count("reflections", 1 if d.get("reflection") else 0)
                self.errors += [f"cognitive: {e}" for e in d.get("errors", [])]
        self.index_new()

    def drain_all(self) -> None:
        """Drain the triage and distillation queues until both are empty (items failing for
        good move to failed_operations and are reported)."""
        for _ in range(DRAIN_ROUNDS):
            counts = self.mind.queue_status()
            if not counts.get("pending_triage") and not counts.get("pending_distillation"):
                break
            t0 = time.perf_counter()
            r = self.mind.drain_pending_triage(100)
            self.timed("heartbeat", t0)
            self.count("triaged", r.processed)
            self.count("skipped", r.skipped)
            self.errors += [f"drain: {e}" for e in r.errors]
            if r.processed == 0:  # only items waiting for a retry time: move to it
                self.clock.advance(hours=1)
        failed = self.mind.queue_status().get("failed_operations", 0)
        if failed:
            self.errors.append(f"{failed} queue items failed for good")
        self.index_new()


class LiveEmbedder(CachedEmbedder):
    """`locomo.CachedEmbedder` whose query vectors are also kept on disk: the prefetch
    trajectories (last 3 messages + the current one) are the same in every live run of a
    conversation, and embedding them is most of a replay's time."""

    def __init__(self, inner: Any, cache_dir: Path | None = None) -> None:
        super().__init__(inner, cache_dir)
        self._qfile = None
        if self._file is not None:
            self._qfile = self._file.with_name(self._file.name.replace("passages-", "queries-"))
            if self._qfile.exists():
                with np.load(self._qfile) as z:
                    self._q = {k: z[k] for k in z.files}

    def save(self) -> None:
        super().save()
        if self._qfile is not None and self._q:
            np.savez(self._qfile, **self._q)


def _all(mind: Mind, flt: MemoryFilter) -> list[Memory]:
    out: list[Memory] = []
    while True:
        page = mind.store.list(flt, limit=_PAGE, offset=len(out), order="created_asc")
        out += page
        if len(page) < _PAGE:
            return out


def replay(
    conv: Conversation,
    embedder: Any,
    home: Path,
    name: str,
    preset: str,
    *,
    max_ticks: int = MAX_TICKS,
    on_turn: Any = None,
) -> Replay:
    """Replay `conv` through the agent path into a new mind (see the module docstring); the
    clock ends one day after the last session with the queues drained."""
    first = next((s.date for s in conv.sessions if s.date), datetime(2023, 1, 1, tzinfo=UTC))
    clock = FrozenClock(first)
    mind = Mind.open(
        home / f"{name}.db", config=Config(home=home, search_preset=preset), embedder=embedder,
        clock=clock,
    )
    run = Replay(mind, clock)
    last = first
    for sess in conv.sessions:
        if not sess.turns:
            continue
        when = sess.date or last
        for at in tick_times(clock.now(), when, max_ticks):
            clock.set(at)
            run.tick()
        clock.set(max(when, clock.now()))  # a session dated before the last: time never goes back
        last = max(last, when)
        _session(run, sess, when, on_turn)
        run.tick()  # the heartbeat right after the session (drains its turns)
    asked = last + timedelta(days=1)
    for at in [*tick_times(clock.now(), asked, max_ticks), asked]:
        clock.set(max(at, clock.now()))
        run.tick()
    run.drain_all()
    return run


def _session(run: Replay, sess: locomo.Session, when: datetime, on_turn: Any) -> None:
    """Replay one session as an agent lives it. A turn whose speaker is the assistant is the
    reply to the message before it: it judges what was prefetched for that message and is
    remembered with it (`remember_turn(message, reply, speaker=…)`, both turns' ids on the
    memory). Between people every turn is a message of its own, judged by the next one."""
    mind = run.mind
    said: list[str] = []
    pending: list[Any] = []
    waiting: tuple[Turn, str] | None = None  # a person's message whose reply follows

    def remember(turn: Turn, msg: str, reply: Turn | None = None, reply_msg: str = "") -> None:
        ids = [turn.dia_id, reply.dia_id] if reply is not None else turn.dia_id
        t0 = time.perf_counter()
        try:
            mind.remember_turn(
                msg, reply_msg, speaker=turn.speaker, session_id=f"session-{sess.index}",
                occurred_at=when, metadata={"dia_id": ids},
            )
        except InvalidInput as e:
            run.rejected.extend([turn.dia_id] + ([reply.dia_id] if reply is not None else []))
            run.errors.append(f"remember_turn {turn.dia_id}: {e}")
        run.timed("remember", t0)

    turns = sess.turns
    for i, turn in enumerate(turns):
        msg = turn_message(turn)
        if not msg.strip():
            run.rejected.append(turn.dia_id)
            continue
        if pending:  # the reply to the previous message judges what was prefetched for it
            t0 = time.perf_counter()
            mind.evaluate_usefulness(msg, pending)
            run.timed("evaluate", t0)
            pending = []
        if is_assistant(turn.speaker):
            if waiting is None:  # nothing to reply to: an agent's opener is not a person's turn
                run.rejected.append(turn.dia_id)
                run.count("assistant_without_message")
            else:
                remember(*waiting, turn, msg)
                waiting = None
            said.append(msg)
            continue
        if waiting is not None:  # its reply turned out empty
            remember(*waiting)
            waiting = None
        t0 = time.perf_counter()
        pending = mind.prefetch(said[-HISTORY:], msg)
        run.timed("prefetch", t0)
        run.count("prefetched", len(pending))
        if i + 1 < len(turns) and is_assistant(turns[i + 1].speaker):
            waiting = (turn, msg)  # remembered with the reply that follows
        else:
            remember(turn, msg)
        said.append(msg)
        if on_turn is not None:
            on_turn()
    if waiting is not None:
        remember(*waiting)


def is_assistant(speaker: str) -> bool:
    """Whether a turn is the agent's own reply (its speaker is "Assistant", any case)."""
    return speaker.strip().lower() == "assistant"


def evaluate(
    conv: Conversation, conv_index: int, run: Replay, on_question: Any = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
    """Ask the questions of categories 1–4; (rows through provenance, rows through the turns
    memories carry themselves, the conversation's `kept_counts`)."""
    mind = run.mind
    live_memories = _all(mind, MemoryFilter(include_superseded=True))
    live = {m.id: provenance_of(m) for m in live_memories}
    index = {**run.ever, **live}  # the current state wins; deleted memories from the replay
    own = {mid: Provenance(p.own) for mid, p in index.items()}
    turns = [t.dia_id for s in conv.sessions for t in s.turns]
    turn_set = set(turns)
    rows: list[dict[str, Any]] = []
    direct: list[dict[str, Any]] = []
    cited: set[str] = set()
    t_all = time.perf_counter()
    for q in conv.questions:
        ev = {e for e in q.evidence if e in turn_set}
        if q.category not in CATEGORIES or not ev:
            continue
        cited |= ev
        t0 = time.perf_counter()
        hits = mind.search(q.text, limit=max(KS), feedback=False)
        ms = (time.perf_counter() - t0) * 1000
        ids = [h.memory.id for h in hits]
        for out, idx in ((rows, index), (direct, own)):
            hit_turns = [covered_turns(i, idx) for i in ids]
            row: dict[str, Any] = {"conv": conv_index, "cat": q.category, "ms": ms}
            for k in KS:
                row[f"R@{k}"], row[f"N@{k}"] = live_score(hit_turns, ev, k)
            out.append(row)
        if on_question is not None:
            on_question()
    run.timed("questions", t_all)
    sup = [m.id for m in live_memories if m.superseded_by]
    kept = kept_counts(turns, cited, live, sup, index, run.pruned)
    kept["lost_evidence"] = [f"{conv.sample_id}:{t}" for t in kept["lost_evidence"]]
    kept["rejected"] = len(run.rejected)
    return rows, direct, kept


def run_live(
    convs: Sequence[Conversation],
    picked: Sequence[int],
    emb_name: str,
    emb: LiveEmbedder,
    presets: Sequence[str],
    console: Console,
    *,
    max_ticks: int = MAX_TICKS,
) -> dict[str, Any]:
    """The live runs of `presets` for one embedder (`emb`, named `emb_name`): run name ->
    results."""
    out: dict[str, Any] = {}
    n_turns = sum(len(s.turns) for i in picked for s in convs[i].sessions)
    n_q = sum(
        1 for i in picked for q in convs[i].questions if q.category in CATEGORIES and q.evidence
    )
    for preset in presets:
        rows: list[dict[str, Any]] = []
        direct: list[dict[str, Any]] = []
        kept: list[dict[str, Any]] = []
        activity: dict[str, int] = {}
        timing: dict[str, float] = {}
        errors: list[str] = []
        t_run = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="locomo-live-") as tmp, Progress(
            console=console
        ) as bar:
            t_turns = bar.add_task(f"{emb_name}/{preset}+live: turns", total=n_turns)
            t_q = bar.add_task(f"{emb_name}/{preset}+live: questions", total=n_q)
            for i in picked:
                run = replay(
                    convs[i], emb, Path(tmp), f"conv{i}", preset, max_ticks=max_ticks,
                    on_turn=partial(bar.advance, t_turns),
                )
                emb.save()
                try:
                    r, d, k = evaluate(convs[i], i, run, partial(bar.advance, t_q))
                finally:
                    run.mind.close()
                rows += r
                direct += d
                kept.append(k)
                for key, v in run.activity.items():
                    activity[key] = activity.get(key, 0) + v
                for key, s in run.timing.items():
                    timing[key] = timing.get(key, 0.0) + s
                errors += [f"conv {i}: {e}" for e in run.errors]
        timing["total"] = time.perf_counter() - t_run
        res = locomo.summarise(rows)
        res["kept"] = merge_kept(kept)
        res["direct"] = locomo.summarise(direct)["overall"]
        res["activity"] = activity
        res["timing_s"] = {k: round(v, 1) for k, v in timing.items()}
        res["errors"] = errors[:50]
        out[f"{emb_name}/{preset}+live"] = res
    return out


def run_static(
    args: argparse.Namespace, presets: Sequence[str], emb_name: str, emb: LiveEmbedder,
    console: Console,
) -> dict[str, Any]:
    """`bench/locomo.py`'s run for the same data, conversations, presets and embedder, on the
    live runs' embedder `emb` (its run builds its own; swapped in for the call), so the
    questions' query vectors are embedded once for both protocols."""
    ns = argparse.Namespace(
        data=args.data, quick=args.quick, conversations=args.conversations, ablations=False,
        presets=",".join(presets), no_brain=False, embedder=emb_name, cache=None,
        one_session=False, turns_per_memory=1, dsn=None,
    )
    saved = locomo.CachedEmbedder, locomo.make_embedder_for
    locomo.CachedEmbedder = lambda inner, cache_dir=None: emb  # type: ignore[assignment,misc]
    locomo.make_embedder_for = lambda name: emb.inner
    try:
        return locomo.run(ns, console)["runs"]
    finally:
        locomo.CachedEmbedder, locomo.make_embedder_for = saved


_AGENT_PATH = (
    "salience.ingest.service", "salience.search.pipeline", "salience.maintenance.heartbeat",
    "salience.maintenance.cognitive", "salience.maintenance.job", "salience.llm",
    "salience.layers.identity", "salience.layers.awareness",
)


def run(args: argparse.Namespace, console: Console) -> dict[str, Any]:
    for module in _AGENT_PATH:  # the mind imports these lazily; a long run loads them up front
        importlib.import_module(module)
    convs = locomo.load(locomo.resolve_data(args.data))
    picked = locomo.parse_selection(
        "0-1" if args.quick and not args.conversations else args.conversations, len(convs)
    )
    presets = [p.strip() for p in (args.presets or Config().search_preset).split(",") if p.strip()]
    unknown = [p for p in presets if p not in preset_names()]
    if unknown:
        raise SystemExit(f"unknown preset(s): {', '.join(unknown)}; choose from {preset_names()}")
    results: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": _commit(),
        "conversations": picked,
        "runs": {},
    }
    with tempfile.TemporaryDirectory(prefix="locomo-cache-") as tmp_cache:
        cache = Path(args.cache or tmp_cache)
        for emb_name in [e.strip() for e in args.embedder.split(",") if e.strip()]:
            emb = LiveEmbedder(locomo.make_embedder_for(emb_name), cache)  # static and live share it
            static = {} if args.no_static else run_static(args, presets, emb_name, emb, console)
            live = run_live(convs, picked, emb_name, emb, presets, console, max_ticks=args.max_ticks)
            for p in presets:
                for name in (f"{emb_name}/{p}", f"{emb_name}/{p}+live"):
                    if name in static or name in live:
                        results["runs"][name] = static.get(name) or live[name]
    return results


def _commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=locomo.ROOT, capture_output=True,
            text=True, check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip() or None


# -- reporting ------------------------------------------------------------------------------------


def _rate(slot: Mapping[str, Any]) -> str:
    return f"{slot['kept']}/{slot['total']}" if slot.get("total") else "-"


def table(results: dict[str, Any]) -> Table:
    """Static and live runs in one table: recall, per category and group, and what was kept.
    "direct R@10" counts only the turns a hit carries itself (no episode/reflection links)."""
    t = Table(title=f"LoCoMo static vs live — conversations {results['conversations']}")
    cols = ["run", "R@5", "R@10", "R@20", "N@10", *(f"{c[:6]} R@10" for c in CATEGORIES.values()),
            "0-4 R@10", "5-9 R@10", "direct R@10", "turns kept", "evid. kept", "pruned", "supers.",
            "p50 ms"]
    for col in cols:
        t.add_column(col, justify="left" if col == "run" else "right")
    for name, r in results["runs"].items():
        o, k = r["overall"], r.get("kept")
        t.add_row(
            name,
            *(f"{o[f'R@{n}']:.3f}" for n in KS),
            f"{o['N@10']:.3f}",
            *(f"{r['category'][c]['R@10']:.3f}" for c in CATEGORIES.values()),
            *(f"{r['group'][g]['R@10']:.3f}" for g in ("0-4", "5-9")),
            *((f"{r['direct']['R@10']:.3f}", _rate(k["turns"]), _rate(k["evidence_turns"]),
               str(k["pruned"]), str(k["superseded"])) if k else ("",) * 5),
            f"{r['p50_ms']:.1f}",
        )
    return t


def kept_markdown(results: dict[str, Any]) -> str:
    """The kept blocks of the live runs as a Markdown table."""
    lines = [
        "| run | turns kept | evidence turns kept | memories pruned | evidence turns pruned | "
        "superseded | evidence turns superseded | turns never saved | R@10 direct |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in results["runs"].items():
        k = r.get("kept")
        if not k:
            continue
        lines.append(
            f"| {name} | {_rate(k['turns'])} ({k['turns']['rate']:.1%}) | "
            f"{_rate(k['evidence_turns'])} ({k['evidence_turns']['rate']:.1%}) | {k['pruned']} | "
            f"{k['evidence_turns_pruned']} | {k['superseded']} | "
            f"{k['evidence_turns_superseded']} | {k['turns_never_saved']} | "
            f"{r['direct']['R@10']:.3f} |"
        )
    return "\n".join(lines) + "\n"


def run_scenarios(args: argparse.Namespace, console: Console) -> Any:
    """`bench/scenarios`' `run_all` (same embedder, presets and --quick) when that package
    exists; its results as JSON-ready dicts (None when there is nothing to run)."""
    try:
        import scenarios  # type: ignore[import-not-found]
    except ModuleNotFoundError as e:
        if e.name != "scenarios":
            raise
        console.print("[yellow]bench/scenarios/ is not there yet: no scenario suites to run[/]")
        return None
    run_all = getattr(scenarios, "run_all", None)
    if run_all is None:
        console.print("[yellow]bench/scenarios has no run_all(console) yet: nothing run[/]")
        return None
    presets = [p.strip() for p in args.presets.split(",") if p.strip()] if args.presets else None
    results = run_all(
        console, args.embedder.split(",")[0].strip(), size="quick" if args.quick else "full",
        presets=presets,
    )
    return {k: r.to_dict() if hasattr(r, "to_dict") else str(r) for k, r in results.items()}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help=f"LoCoMo-layout JSON (default {DEFAULT_DATA} from the repo root)")
    ap.add_argument("--embedder", default="e5", help="comma list of: e5, minilm, hash")
    ap.add_argument("--presets", help="comma list of presets (default: the config's preset)")
    ap.add_argument("--conversations", help='e.g. "0-4" or "0,3,5-9" (default: all)')
    ap.add_argument("--quick", action="store_true", help="2 conversations: a smoke run")
    ap.add_argument("--json", dest="json_out", help="write machine-readable results here")
    ap.add_argument("--markdown", help="write the result tables as Markdown here")
    ap.add_argument("--cache", help="directory caching passage embeddings (shared with locomo.py)")
    ap.add_argument("--no-static", action="store_true", help="skip the static protocol")
    ap.add_argument("--max-ticks", type=int, default=MAX_TICKS,
                    help=f"heartbeats per gap between sessions (default {MAX_TICKS})")
    ap.add_argument("--scenarios", action="store_true",
                    help="also run the scenario suites of bench/scenarios/")
    args = ap.parse_args(argv)
    console = Console(width=220)
    results = run(args, console)
    console.print(table(results))
    for name, r in results["runs"].items():
        if r.get("errors"):
            console.print(f"[red]{name}: {len(r['errors'])} errors, first: {r['errors'][0]}[/]")
    if args.scenarios:
        scen = run_scenarios(args, console)
        if scen is not None:
            results["scenarios"] = scen
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2, default=str), encoding="utf-8")
        console.print(f"wrote {args.json_out}")
    if args.markdown:
        Path(args.markdown).write_text(
            locomo.markdown(results) + "\n" + kept_markdown(results), encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
