"""`salience demo`: an agent's live loop over a realistic multi-session conversation, then the
questions a user would ask later.

The conversation ships with the package (src/salience/data/demo_conversation.json, written for
Salience). The demo runs what an agent runs, on a frozen clock set to each session's date:
`prefetch` before every user message, `remember_turn` after every exchange (queued; triage,
quality and the contradiction check happen when the heartbeat drains the queue), the
usefulness feedback on what was prefetched, and one `heartbeat` per simulated day between
sessions (decay, pruning, compaction, cognitive runs when their triggers fire). Everything runs
offline with the default local embedder and the heuristic brain.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from importlib import resources
from typing import Any

from .clock import FrozenClock, ensure_utc
from .mind import Mind
from .models import MemoryFilter, SearchHit

MAX_IDLE_TICKS = 60  # heartbeats simulated per gap between sessions (one per day)


@dataclass(slots=True)
class DemoAnswer:
    query: str
    expect: list[str]
    hits: list[SearchHit]
    found_at: int | None  # 1-based rank of the first hit containing an expected text
    note: str = ""


@dataclass(slots=True)
class DemoResult:
    turns: int  # exchanges the agent remembered through `remember_turn`
    memories: int = 0  # live memories after the loop
    superseded: int = 0  # memories replaced by a newer statement (kept as history)
    heartbeats: int = 0
    answers: list[DemoAnswer] = field(default_factory=list)
    context: str = ""  # the system-prompt sections an agent gets for the first question

    @property
    def found(self) -> int:
        return sum(1 for a in self.answers if a.found_at is not None)

    @property
    def first(self) -> int:
        return sum(1 for a in self.answers if a.found_at == 1)


def load_demo() -> dict[str, Any]:
    """The bundled demo conversation."""
    text = resources.files("salience").joinpath("data/demo_conversation.json").read_text("utf-8")
    return json.loads(text)


def exchanges(session: dict[str, Any]) -> list[tuple[str, str]]:
    """(user message, assistant reply) pairs of one session, in order."""
    out: list[tuple[str, str]] = []
    for turn in session["turns"]:
        if turn["speaker"] == "user":
            out.append((turn["text"], ""))
        elif out and not out[-1][1]:
            out[-1] = (out[-1][0], turn["text"])
    return out


def _idle(mind: Mind, clock: FrozenClock, until: datetime) -> int:
    """One heartbeat per simulated day up to `until` (at most `MAX_IDLE_TICKS`)."""
    ticks = 0
    while clock.now() + timedelta(days=1) <= until and ticks < MAX_IDLE_TICKS:
        clock.advance(days=1)
        mind.heartbeat()
        ticks += 1
    return ticks


def run_demo(
    mind: Mind,
    clock: FrozenClock,
    *,
    limit: int = 3,
    on_turn: Callable[[int, int], None] | None = None,
) -> DemoResult:
    """Run the agent loop of the demo conversation on `mind` (whose clock is `clock`), then ask
    its questions. `on_turn(done, total)` reports progress."""
    data = load_demo()
    speaker = str(data.get("user", "User")).split()[0]
    sessions = sorted(data["sessions"], key=lambda s: s["date"])
    total = sum(len(exchanges(s)) for s in sessions)
    result = DemoResult(turns=0)
    if not mind.identity.exists():  # the agent's persona: the developer writes it, once
        mind.identity.create("Ada", role="personal assistant", personality="warm, concise",
                             system_prompt="Use what you remember; say when you are unsure.")
    for session in sessions:
        when = ensure_utc(datetime.fromisoformat(session["date"].replace("Z", "+00:00")))
        if result.turns:
            result.heartbeats += _idle(mind, clock, when)
        clock.set(max(when, clock.now()))
        said: list[str] = []
        for user, reply in exchanges(session):
            hits = mind.prefetch(said, user)  # what the agent would see before answering
            mind.remember_turn(user, reply, speaker=speaker, session_id=session["id"],
                               occurred_at=clock.now())
            if hits and reply:
                mind.evaluate_usefulness(reply, hits)
            said.append(user)
            result.turns += 1
            clock.advance(minutes=3)
            if on_turn is not None:
                on_turn(result.turns, total)
        clock.advance(minutes=30)  # the user goes quiet: the next tick drains the queue
        mind.heartbeat()
        result.heartbeats += 1
    clock.advance(days=1)
    while mind.queue_status()["pending_triage"]:
        mind.heartbeat()
        result.heartbeats += 1
    result.memories = mind.count(MemoryFilter())  # live ones (count() alone counts history too)
    result.superseded = mind.count(MemoryFilter(include_superseded=True)) - result.memories
    for q in data["questions"]:
        # feedback off: each question sees the same mind (a retrieval would bump salience)
        hits = mind.search(q["query"], limit=limit, feedback=False)
        found = next(
            (
                rank
                for rank, h in enumerate(hits, start=1)
                if any(e in h.memory.content for e in q["expect"])
            ),
            None,
        )
        result.answers.append(
            DemoAnswer(q["query"], list(q["expect"]), hits, found, q.get("note", ""))
        )
    if data["questions"]:
        result.context = mind.context(data["questions"][0]["query"], budget_tokens=600).text
    return result
