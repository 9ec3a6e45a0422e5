"""What the scenario suites share: the result type, one cached embedder per name, a mind on a
frozen clock, the agent loop (prefetch before a turn, `remember_turn`, a heartbeat at the end
of each simulated day) and the command line every suite module runs with.

The agent loop is the path users run: nothing here saves with `add`/`add_many`, and every
queued turn is triaged by the heartbeat, never by calling the drain directly.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

if TYPE_CHECKING:
    from salience.clock import FrozenClock
    from salience.embed.base import Embedder
    from salience.mind import Mind
    from salience.models import Memory, SearchHit

#: sizes every suite accepts: "full" (the benchmark) and "quick" (the CI test)
SIZES = ("full", "quick")
#: prefetch's time budget in the suites: generous, so a slow shared machine never abandons
#: the vector stage (the suites measure what is found, not how fast)
PREFETCH_BUDGET_S = 30.0
START = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)  # a Monday


@dataclass(slots=True)
class SuiteResult:
    """One suite's outcome: `hits` of `total` cases passed, against `target` (a share).

    `details` holds the suite's own numbers (JSON-ready); `failures` names each failed case.
    """

    name: str
    hits: int
    total: int
    target: float
    embedder: str = ""
    preset: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    @property
    def score(self) -> float:
        return self.hits / self.total if self.total else 0.0

    @property
    def passed(self) -> bool:
        return self.total > 0 and self.score >= self.target

    def line(self) -> str:
        """`name: 87.5% (35/40), target >= 95% — FAIL`."""
        verdict = "pass" if self.passed else "FAIL"
        where = "/".join(p for p in (self.embedder, self.preset) if p)
        return (
            f"{self.name}{f' ({where})' if where else ''}: {self.score:.1%} "
            f"({self.hits}/{self.total}), target >= {self.target:.0%} — {verdict}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "score": self.score, "passed": self.passed}


# -- building blocks ----------------------------------------------------------------------------

_EMBEDDERS: dict[str, Embedder] = {}


def embedder_for(name: str) -> Embedder:
    """The packaged embedder `name` ("e5", "minilm", "hash"), built once per process."""
    emb = _EMBEDDERS.get(name)
    if emb is None:
        from salience.config import Config
        from salience.embed import make_embedder

        emb = _EMBEDDERS[name] = make_embedder(Config(embedder=name))  # type: ignore[arg-type]
        emb.embed_passages(["warm-up"])  # load the model before any timed prefetch
    return emb


def open_mind(
    home: Path, name: str, embedder: str, *, preset: str | None = None,
    start: datetime = START,
) -> tuple[Mind, FrozenClock]:
    """A fresh SQLite mind under `home` on a frozen clock at `start` (default config, except
    the search preset when given)."""
    from salience.clock import FrozenClock
    from salience.config import Config
    from salience.mind import Mind

    clock = FrozenClock(start)
    overrides: dict[str, Any] = {"home": home, "embedder": embedder}
    if preset:
        overrides["search_preset"] = preset
    mind = Mind.open(home / f"{name}.db", config=Config(**overrides),
                     embedder=embedder_for(embedder), clock=clock)
    return mind, clock


def norm(text: str) -> str:
    """Case- and whitespace-insensitive form of `text` for containment checks."""
    return " ".join(text.lower().split())


def holds(memory: Memory, statement: str) -> bool:
    """Whether `memory` holds `statement`: its content contains it (normalised, on word
    boundaries) — or, for a short line of under 4 words ("ok", "thanks!"), a line of the
    content is exactly it, after an optional "Speaker: " label."""
    want = norm(statement)
    if len(want.split()) >= 4:
        return re.search(rf"(?<!\w){re.escape(want)}(?!\w)", norm(memory.content)) is not None
    for line in memory.content.splitlines():
        label, sep, rest = line.partition(":")
        if norm(line) == want or (sep and len(label.split()) <= 3 and norm(rest) == want):
            return True
    return False


def live_memories(mind: Mind) -> list[Memory]:
    """Every live memory (not superseded, not deleted)."""
    out: list[Memory] = []
    while True:
        page = mind.list(limit=1000, offset=len(out))
        out.extend(page)
        if len(page) < 1000:
            return out


def holders(memories: Iterable[Memory], statement: str) -> list[Memory]:
    """The memories among `memories` whose content contains `statement`."""
    return [m for m in memories if holds(m, statement)]


def snippet(text: str, n: int = 70) -> str:
    one = " ".join(text.split())
    return one if len(one) <= n else one[: n - 1] + "…"


class Agent:
    """An agent talking to one user through a mind, as the SDK's live loop does: before each
    user message it prefetches (the last 3 user messages as the trajectory), after it
    remembers the exchange (deferred triage); `end_day` advances the clock to the evening and
    runs a heartbeat (drain, maintenance when due, cognitive run when triggered).

    Counts what the heartbeats deleted (`pruned` and `compacted`, by reason).
    """

    def __init__(
        self, mind: Mind, clock: FrozenClock, *, prefetch: bool = True, home: Path | None = None
    ) -> None:
        self.mind = mind
        self.clock = clock
        self.home = home  # the mind's directory (scratch minds may go beside it)
        self.prefetch_each_turn = prefetch
        self.recent: list[str] = []
        self.pruned: Counter[str] = Counter()
        self.compacted: Counter[str] = Counter()
        self.deleted: dict[str, str] = {}  # memory id -> "pruned: reason" / "compacted: reason"
        self.heartbeats = 0
        self.failed_steps: Counter[str] = Counter()
        self.turns = 0

    def prefetch(self, current: str, recent: Sequence[str] | None = None) -> list[SearchHit]:
        """`mind.prefetch` for `current` with the trajectory `recent` (default: the last user
        messages this agent saw)."""
        msgs = list(self.recent[-3:] if recent is None else recent)
        return self.mind.prefetch(msgs, current, budget_s=PREFETCH_BUDGET_S)

    def turn(self, user: str, assistant: str, *, minutes: float = 7.0) -> None:
        """One exchange `minutes` after the previous one."""
        self.clock.advance(minutes=minutes)
        if self.prefetch_each_turn:
            self.prefetch(user)
        self.mind.remember_turn(user, assistant)
        self.recent = [*self.recent[-2:], user]
        self.turns += 1

    def heartbeat(self) -> None:
        """One heartbeat tick, recording what its maintenance deleted."""
        report = self.mind.heartbeat()
        self.heartbeats += 1
        for step in report.steps:
            if step.status == "failed":
                self.failed_steps[step.name] += 1
            if step.name == "maintenance" and step.status == "ok" and isinstance(step.detail, dict):
                for key, counter in (("pruned", self.pruned), ("compacted", self.compacted)):
                    reasons = step.detail.get(key) or {}
                    counter.update(reasons.values())
                    self.deleted.update({i: f"{key}: {why}" for i, why in reasons.items()})

    def drain(self, *, max_ticks: int = 50) -> None:
        """Heartbeats (a minute apart) until the triage queue is empty."""
        for _ in range(max_ticks):
            if not self.mind.queue_status().get("pending_triage", 0):
                return
            self.clock.advance(minutes=1)
            self.heartbeat()

    def end_day(self, *, evening_hour: int = 22) -> None:
        """Evening heartbeat(s) until the queue is drained, then the clock moves to 08:00 of
        the next day; the recent-message trajectory starts over."""
        now = self.clock.now()
        evening = now.replace(hour=evening_hour, minute=0, second=0, microsecond=0)
        self.clock.set(max(now + timedelta(minutes=1), evening))
        self.heartbeat()
        self.drain()
        nxt = (self.clock.now() + timedelta(days=1)).replace(hour=8, minute=0, second=0,
                                                             microsecond=0)
        self.clock.set(nxt)
        self.recent = []

    def deletions(self) -> dict[str, Any]:
        return {
            "pruned": sum(self.pruned.values()), "pruned_by_reason": dict(self.pruned),
            "compacted": sum(self.compacted.values()),
            "compacted_by_reason": dict(self.compacted),
        }


@contextmanager
def session(
    name: str, embedder: str, preset: str | None = None, *, prefetch: bool = True
) -> Iterator[Agent]:
    """An `Agent` on a fresh mind in a temporary directory (closed and removed afterwards)."""
    with tempfile.TemporaryDirectory(prefix=f"salience-{name}-") as tmp:
        mind, clock = open_mind(Path(tmp), name, embedder, preset=preset)
        try:
            yield Agent(mind, clock, prefetch=prefetch, home=Path(tmp))
        finally:
            mind.close()


def out(console: Console | None) -> Console:
    """The console to print to (a default one when None)."""
    return console if console is not None else Console(width=160)


# -- command line -------------------------------------------------------------------------------

Runner = Callable[..., SuiteResult]


def split_list(spec: str | None) -> list[str]:
    return [p.strip() for p in (spec or "").split(",") if p.strip()]


def cli(
    name: str, run: Runner, argv: Sequence[str] | None = None, *, presets: bool = False
) -> int:
    """`python -m bench.scenarios.<name>`: run one suite (`--presets`: once per preset),
    print its score, optionally write JSON; exit status 1 when below target."""
    ap = argparse.ArgumentParser(description=f"Salience scenario suite: {name}")
    ap.add_argument("--embedder", default="e5", help="e5 (default), minilm or hash")
    ap.add_argument("--size", choices=SIZES, default="full")
    ap.add_argument("--quick", action="store_true", help="same as --size quick")
    if presets:
        ap.add_argument("--presets", help="comma list of search presets (default: the config's)")
    ap.add_argument("--json", dest="json_out", help="write the results here")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every failed case")
    args = ap.parse_args(argv)
    console = Console(width=160)
    size = "quick" if args.quick else args.size
    names = split_list(getattr(args, "presets", None)) or [None]
    results = [
        run(console=console, embedder=args.embedder, size=size, verbose=args.verbose,
            **({"preset": p} if presets else {}))
        for p in names
    ]
    if len(results) > 1:
        console.print(summary_table(results))
    if args.json_out:
        Path(args.json_out).write_text(
            json.dumps([r.to_dict() for r in results], indent=2, default=str), encoding="utf-8"
        )
    return 0 if all(r.passed for r in results) else 1


def summary_table(results: Sequence[SuiteResult]) -> Any:
    """One row per result: suite, embedder, preset, score, cases, target, verdict."""
    from rich.table import Table

    t = Table("suite", "embedder", "preset", "score", "cases", "target", "verdict")
    for r in results:
        t.add_row(r.name, r.embedder, r.preset or "-", f"{r.score:.1%}", f"{r.hits}/{r.total}",
                  f">= {r.target:.0%}", "pass" if r.passed else "FAIL")
    return t


def main_guard(name: str, run: Runner, *, presets: bool = False) -> None:
    sys.exit(cli(name, run, presets=presets))

