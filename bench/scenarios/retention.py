"""Retention: important facts stated once, then six months of unrelated chatter.

    python -m bench.scenarios.retention                  # e5, full size
    python -m bench.scenarios.retention --embedder minilm --quick -v

A user tells the agent 18 important things once each in its first week (an allergy, a
condition, a medicine, family, key dates, an account number, a door code, preferences,
commitments), mixed into everyday chatter. Then six months of chatter follow (2-4 turns a
day in the full size, one every other day in the quick one), every turn through the agent loop — prefetch, then
`remember_turn` — and a heartbeat every evening (drain, decay, pruning, compaction, cognitive
runs). Six months after the last fact, each fact's question is asked once:

- **retained**: a live memory (not deleted, not superseded) still holds the statement;
- **found**: such a memory is in the top 3 of `mind.search(question)`.

Score = share of facts retained AND found (target 100%). Also reported: whether `context()`
for the question carries the fact, and how many memories the heartbeats pruned and compacted.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from rich.console import Console

from ._chatter import chatter
from ._common import (
    Agent,
    SuiteResult,
    holders,
    holds,
    live_memories,
    out,
    session,
    snippet,
)

NAME = "retention"
TARGET = 1.0
MONTHS_DAYS = 183


@dataclass(frozen=True, slots=True)
class Fact:
    """Something important the user says once, the agent's reply, and a later question."""

    key: str
    statement: str
    reply: str
    question: str


FACTS: tuple[Fact, ...] = (
    Fact("allergy", "Just so you know, I'm seriously allergic to penicillin — I ended up in the ER once.",
         "Thank you for telling me. I'll keep your penicillin allergy in mind.",
         "Is there an antibiotic I must avoid?"),
    Fact("condition", "I have type 1 diabetes, so I carry insulin and a glucose monitor everywhere.",
         "Understood — that's important to know.",
         "What chronic condition do I have?"),
    Fact("blood", "My blood type is AB negative, which is apparently quite rare.",
         "Noted, AB negative.",
         "What's my blood type?"),
    Fact("medicine", "I take 50 mg of sertraline every morning with breakfast.",
         "Got it, 50 mg sertraline each morning.",
         "Which medication do I take in the morning, and how much?"),
    Fact("sister", "My sister Ingrid lives in Bergen with her two boys, Oskar and Leif.",
         "Lovely — Ingrid in Bergen with Oskar and Leif.",
         "Where does my sister live?"),
    Fact("birthday", "Our daughter Mila was born on the 3rd of August 2019.",
         "I'll remember Mila's birthday, August 3rd.",
         "When is Mila's birthday?"),
    Fact("anniversary", "Tomas and I got married on June 14th, so that's our anniversary.",
         "June 14th — I'll keep that in mind for your anniversary.",
         "When is our wedding anniversary?"),
    Fact("account", "The account number of my savings account at Nordbank is 4417-2290-8812.",
         "Saved: Nordbank savings, 4417-2290-8812.",
         "What is the number of my Nordbank savings account?"),
    Fact("passport", "My passport expires on 9 March 2027, I have to renew it before then.",
         "Okay, passport expiry 9 March 2027.",
         "When does my passport run out?"),
    Fact("emergency", "If anything happens to me, my emergency contact is my brother Jonas, +47 555 01 234.",
         "Noted — Jonas is your emergency contact.",
         "Who should be called in an emergency?"),
    Fact("doorcode", "The door code for our building is 7312 followed by the hash key.",
         "Got it, the building door code.",
         "What's the code for the front door of my building?"),
    Fact("plate", "My car is a grey 2018 Skoda Octavia with the plate KL 48213.",
         "Grey Skoda Octavia, KL 48213 — noted.",
         "What's my car's licence plate number?"),
    Fact("employee", "My employee ID at Halvorsen Logistics is HL-20931.",
         "Thanks, employee ID HL-20931.",
         "What is my employee number at work?"),
    Fact("cilantro", "I really can't stand cilantro, it tastes like soap to me.",
         "No cilantro in any recipe suggestions, then.",
         "Which herb do I hate?"),
    Fact("seat", "On flights I always want a window seat, never the aisle.",
         "Window seats it is.",
         "Do I prefer a window or an aisle seat when flying?"),
    Fact("mother", "I promised my mom I'd call her every Sunday evening, no matter what.",
         "That's a lovely promise. I can remind you on Sundays.",
         "What did I promise my mother?"),
    Fact("thesis", "I told Priya I'd review her thesis draft before the end of the semester.",
         "Okay — Priya's thesis draft, before the semester ends.",
         "Whose thesis draft did I agree to review?"),
    Fact("surgery", "My knee surgery is booked for 12 November at St. Olav's hospital.",
         "Noted: knee surgery on 12 November at St. Olav's.",
         "When and where is my knee operation?"),
)

#: chatter turns per day on average (full: 2-4 a day; quick: one every other day)
TURNS_PER_DAY = {"full": 3.0, "quick": 0.5}


def run(
    *,
    console: Console | None = None,
    embedder: str = "e5",
    size: str = "full",
    preset: str | None = None,
    verbose: bool = False,
    seed: int = 7,
) -> SuiteResult:
    """Run the retention suite and print its score (see the module docstring)."""
    con = out(console)
    rng = random.Random(seed)
    with session(NAME, embedder, preset) as agent:
        result = _simulate(agent, rng, chatter(seed), TURNS_PER_DAY[size], embedder)
    _print(con, result, verbose)
    return result


def _simulate(agent: Agent, rng: random.Random, talk: Iterator[tuple[str, str]],
              per_day: float, embedder: str) -> SuiteResult:
    """The facts in week 1, six months of chatter with a heartbeat every evening, then the
    questions."""
    mind, clock = agent.mind, agent.clock
    facts = list(FACTS)
    day = 0
    while facts:  # week 1: three facts a day, each among a few chatter turns
        todays = [facts.pop(0) for _ in range(min(3, len(facts)))]
        lines: list[tuple[str, str]] = [(f.statement, f.reply) for f in todays]
        lines += [next(talk) for _ in range(3)]
        rng.shuffle(lines)
        for user, reply in lines:
            agent.turn(user, reply, minutes=rng.randint(2, 40))
        agent.end_day()
        day += 1
    last_fact_day = day - 1
    week1 = live_memories(mind)
    first_kept = {f.key: [m.id for m in holders(week1, f.statement)] for f in FACTS}
    while day <= last_fact_day + MONTHS_DAYS:  # six months of chatter
        for _ in range(_turns_today(rng, per_day)):
            user, reply = next(talk)
            agent.turn(user, reply, minutes=rng.randint(3, 90))
        agent.end_day()
        day += 1
    clock.advance(timedelta(hours=2))
    return _score(mind, agent, embedder, mind.config.search_preset, days=day,
                  first_kept=first_kept)


def _turns_today(rng: random.Random, mean: float) -> int:
    """How many chatter turns today: mean-1 to mean+1 (uniform) for a mean of 1 or more,
    else one turn with probability `mean`."""
    if mean >= 1:
        return rng.randint(int(mean) - 1, int(mean) + 1)
    return int(rng.random() < mean)


def _score(mind: Any, agent: Agent, embedder: str, preset: str, *, days: int,
           first_kept: dict[str, list[str]]) -> SuiteResult:
    """Ask each fact's question; `first_kept` maps a fact to the memories holding it after
    the first week (to tell "never kept" from "deleted later")."""
    live = live_memories(mind)
    res = SuiteResult(NAME, 0, len(FACTS), TARGET, embedder=embedder, preset=preset)
    cases: list[dict[str, Any]] = []
    in_context = 0
    for f in FACTS:
        kept = holders(live, f.statement)
        hits = mind.search(f.question, limit=3, feedback=False)
        found = any(holds(h.memory, f.statement) for h in hits)
        ctx = mind.context(f.question)
        ctx_ok = any(holds(h.memory, f.statement) for h in ctx.hits)
        in_context += ctx_ok
        ok = bool(kept) and found
        res.hits += ok
        case = {
            "fact": f.key, "retained": bool(kept), "found_top3": found, "in_context": ctx_ok,
            "salience": round(kept[0].salience, 2) if kept else None,
            "top3": [snippet(h.memory.content) for h in hits],
        }
        cases.append(case)
        if not ok:
            why = "not in the top 3" if kept else _lost(first_kept[f.key], agent, mind)
            case["lost"] = None if kept else why
            res.failures.append(f"{f.key}: {why} — top 1: {case['top3'][:1]}")
    stats = mind.stats()
    res.details = {
        "days": days, "turns": agent.turns, "heartbeats": agent.heartbeats,
        "retained": sum(c["retained"] for c in cases),
        "kept_after_week1": sum(bool(v) for v in first_kept.values()),
        "found_top3": sum(c["found_top3"] for c in cases),
        "in_context": in_context,
        "live_memories": len(live), "stats_memories": stats.get("memories"),
        **agent.deletions(),
        "heartbeat_failed_steps": dict(agent.failed_steps),
        "cases": cases,
    }
    return res


def _lost(ids: list[str], agent: Agent, mind: Any) -> str:
    """Why a fact has no live memory: never kept, deleted by maintenance, or superseded."""
    if not ids:
        return "never kept (not admitted)"
    for mid in ids:
        if mid in agent.deleted:
            return f"deleted ({agent.deleted[mid]})"
    for mid in ids:
        m = mind.store.get(mid)
        if m is not None and m.superseded_by:
            by = mind.store.get(m.superseded_by)
            return "superseded by " + (snippet(by.content, 60) if by else m.superseded_by)
    return "gone (not by a logged prune or compaction)"


def _print(con: Console, r: SuiteResult, verbose: bool) -> None:
    d = r.details
    con.print(
        f"{r.line()}\n  {d['days']} days, {d['turns']} turns, {d['heartbeats']} heartbeats; "
        f"kept after week 1 {d['kept_after_week1']}/{r.total}, "
        f"retained {d['retained']}/{r.total}, found in top 3 {d['found_top3']}/{r.total}, "
        f"in context() {d['in_context']}/{r.total}; {d['live_memories']} live memories; "
        f"pruned {d['pruned']} {d['pruned_by_reason'] or ''}, compacted {d['compacted']} "
        f"{d['compacted_by_reason'] or ''}",
        markup=False,
    )
    if d["heartbeat_failed_steps"]:
        con.print(f"  [red]failed heartbeat steps:[/] {d['heartbeat_failed_steps']}")
    if verbose or not r.passed:
        for f in r.failures:
            con.print(f"  - {f}", markup=False)


if __name__ == "__main__":
    from ._common import main_guard

    main_guard(NAME, run)
