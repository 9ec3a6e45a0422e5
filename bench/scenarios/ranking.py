"""Ranking: topical prefetches over a mind that holds an identity and a few high-salience
memories; the one right memory must rank first.

    python -m bench.scenarios.ranking                              # e5, the config's preset
    python -m bench.scenarios.ranking --presets formula,rrf-balanced,relevance

The mind has an identity (Ada, a friendly and concise personal assistant), three memories the
agent saved with `save_memory` at salience 10, 9 and 9 (a penicillin allergy, a blood group, a
child's peanut allergy) and 41 ordinary things the user said, each through `remember_turn`
and drained by a heartbeat. Then, in rounds a week apart (heartbeats every day in between),
the agent prefetches for each probe — a user message about exactly one memory: the 41 ordinary
ones, the 3 high-salience ones, and 4 questions about the agent itself (where the identity
memory must come first). Probes are shuffled per round; prefetch records feedback and the
agent's answer (built from the right memory when the prefetch returned it) goes through
`evaluate_usefulness`, so retrieval counts and usefulness accumulate as they do in use.

Score = share of prefetches whose first hit is the right memory (target 95%). Also reported:
the share per round, per kind (ordinary, high-salience, identity), how often a wrong memory
took first place (the top intruders) and how many probes had no right memory to find
(the statement was not admitted).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from rich.console import Console

from ._common import Agent, SuiteResult, holds, live_memories, out, session, snippet

NAME = "ranking"
TARGET = 0.95
ROUNDS = {"full": 4, "quick": 2}
ROUND_GAP_DAYS = 7


@dataclass(frozen=True, slots=True)
class Item:
    """A memory (what the user said and the reply; for `saved`, the saved text and its
    salience) and the probe message whose one right answer it is."""

    key: str
    statement: str
    reply: str
    probe: str
    salience: float | None = None  # set: saved by the agent via save_memory at this salience


SAVED: tuple[Item, ...] = (
    Item("penicillin", "I'm allergic to penicillin.", "",
         "The doctor wants to prescribe me an antibiotic, is there anything I should tell her?", 10),
    Item("blood", "My blood type is O negative.", "",
         "The blood donation clinic asked for my blood group, what is it?", 9),
    Item("peanut", "My son Elias has a severe peanut allergy and always carries an EpiPen.", "",
         "Is the satay at the birthday party safe for Elias?", 9),
)

ORDINARY: tuple[Item, ...] = (
    Item("climbing", "My climbing course at Klatreverket starts on the 12th of May.",
         "Fun! Enjoy the course.", "When does my climbing course begin?"),
    Item("lisbon", "I'm flying to Lisbon on June 3rd for the conference.",
         "Have a good trip!", "What date is my flight to Lisbon?"),
    Item("demo", "Our team's sprint demo is every second Thursday at 2pm.",
         "Noted.", "When do we have the sprint demo?"),
    Item("plumber", "The plumber, Arne, is coming on Wednesday morning to fix the boiler.",
         "Good, hopefully it's a quick fix.", "Who is coming to repair the boiler, and when?"),
    Item("portuguese", "I've started learning Portuguese on Duolingo, 15 minutes a day.",
         "Boa sorte!", "Which language am I learning at the moment?"),
    Item("restaurant", "My favourite restaurant in town is Mathallen Tapas.",
         "Good to know for dinner plans.", "Where should we eat out, what's my favourite place?"),
    Item("drill", "I lent my drill to the neighbour, Kari, last weekend.",
         "Okay.", "Who did I give my drill to?"),
    Item("wifi", "Our home Wi-Fi network is called Fjordnet.",
         "Got it.", "What's the name of our Wi-Fi?"),
    Item("bookclub", "We're reading 'The Salt Road' in book club this month.",
         "Sounds interesting.", "Which book are we reading in the book club?"),
    Item("gym", "My gym membership at SATS renews every January.",
         "Noted.", "When is my gym membership up for renewal?"),
    Item("tax", "The quarterly tax payment is due on 15 September.",
         "I'll keep that date in mind.", "When is the next tax payment due?"),
    Item("wedding", "My friend Lars is getting married in Trondheim in August.",
         "How lovely!", "Whose wedding am I going to in August?"),
    Item("power", "I switched my electricity provider to Fjordkraft in March.",
         "Okay.", "Which company supplies our electricity now?"),
    Item("laptop", "My laptop is a 14-inch ThinkPad X1 Carbon.",
         "Solid machine.", "What laptop model do I have?"),
    Item("talk", "I've been asked to give a talk on data pipelines at the Oslo meetup in October.",
         "Congratulations, that's exciting!", "What's the topic of my meetup talk?"),
    Item("paint", "We're repainting the living room in a pale sage green.",
         "That sounds calming.", "What colour are we painting the living room?"),
    Item("bike", "My bike was stolen outside the station on Tuesday; the police report number is 2026-4471.",
         "I'm sorry to hear that.", "What's the police report number for my stolen bike?"),
    Item("coffee", "I'm trying to cut down to one coffee a day.",
         "Good luck with that!", "How many coffees am I allowing myself per day?"),
    Item("parents", "My parents' flight lands at Gardermoen at 16:40 on Saturday.",
         "Do you need a reminder to leave for the airport?", "What time do my parents land?"),
    Item("school", "The kids' school starts again on August 18.",
         "Noted.", "When does school start after the summer?"),
    Item("meetings", "I prefer meetings before lunch; my afternoons are for focused work.",
         "Understood.", "At what time of day do I like to have meetings?"),
    Item("race", "I signed up for the half marathon in Bergen on 6 September.",
         "Great goal!", "Which race did I sign up for?"),
    Item("dentist", "My dentist is Dr. Halvorsen at Majorstuen; the next check-up is in November.",
         "Okay.", "Who is my dentist?"),
    Item("rent", "Our landlord raised the rent to 14,500 kroner from July.",
         "That's a noticeable increase.", "How much rent do we pay now?"),
    Item("cats", "I'm allergic to cats, so any holiday rental has to be pet-free.",
         "I'll keep that in mind when we look at rentals.",
         "Could we book that cottage where the owners keep two cats?"),
    Item("spare_key", "I keep my spare house key with my neighbour Kari.",
         "Good idea.", "Where's my spare house key?"),
    Item("insurance", "The car insurance with Gjensidige renews on 1 October.",
         "Noted.", "When does the car insurance renew?"),
    Item("roadmap", "My manager Sofie wants the roadmap draft by Friday.",
         "Let's plan time for it.", "What does Sofie expect from me by Friday?"),
    Item("greyhound", "We adopted a rescue greyhound named Pilot.",
         "How wonderful!", "What's our dog called?"),
    Item("football", "I play five-a-side football with colleagues every Wednesday at 6.",
         "Nice way to end the day.", "When is my weekly five-a-side game?"),
    Item("recital", "Emma's piano recital is on Sunday at 3pm in the church hall.",
         "She must be excited.", "When and where is Emma's piano recital?"),
    Item("japan", "I'm saving for a trip to Japan next spring; the budget is 40,000 kroner.",
         "That's a great trip to save for.", "How much have I budgeted for Japan?"),
    Item("desk", "I use a standing desk because sitting all day gives me back pain.",
         "Makes sense.", "Why do I work at a standing desk?"),
    Item("office", "Our office moved to the fourth floor of Akersgata 55.",
         "Noted the new address.", "Where is our office now?"),
    Item("easter", "My sister is visiting from Tromsø over Easter.",
         "That'll be nice.", "Who is coming to stay with us over Easter?"),
    Item("concert", "I bought tickets for the Aurora concert at Spektrum on November 8.",
         "Enjoy the show!", "When is the Aurora concert I have tickets for?"),
    Item("inspection", "The car needs its EU inspection before the end of May.",
         "I can remind you in April.", "By when does the car need its inspection?"),
    Item("foodbank", "I volunteer at the food bank on the first Saturday of each month.",
         "That's kind of you.", "When do I volunteer at the food bank?"),
    Item("phone", "My phone contract with Telia ends in December and I want to switch.",
         "We can compare offers closer to the date.", "When does my phone contract run out?"),
    Item("sourdough", "I'm learning to bake sourdough; my starter is called Bubbles.",
         "Ha, great name.", "What's the name of my sourdough starter?"),
    Item("films", "I'm not a fan of horror films, I much prefer comedies.",
         "Comedies it is for movie night.", "What kind of film should I pick for movie night?"),
)

IDENTITY_PROBES: tuple[str, ...] = (
    "What's your name?",
    "Who are you?",
    "Tell me a bit about yourself.",
    "What kind of assistant are you?",
)

OPENERS: tuple[str, ...] = (
    "Hi again.", "Quick question.", "Okay, next thing.", "Thanks for that.", "Morning!",
    "One more thing.", "Hey.", "Sorry, another one.",
)


def run(
    *,
    console: Console | None = None,
    embedder: str = "e5",
    size: str = "full",
    preset: str | None = None,
    verbose: bool = False,
    seed: int = 11,
) -> SuiteResult:
    """Run the ranking suite for `preset` (default: the config's) and print its score."""
    con = out(console)
    rng = random.Random(seed)
    with session(NAME, embedder, preset, prefetch=False) as agent:
        res = _run(agent.mind, agent, rng, rounds=ROUNDS[size], embedder=embedder,
                   preset=agent.mind.config.search_preset)
    _print(con, res, verbose)
    return res


def _run(mind: Any, agent: Agent, rng: random.Random, *, rounds: int, embedder: str,
         preset: str) -> SuiteResult:
    mind.identity.create("Ada", role="personal assistant", personality="friendly, concise")
    for it in SAVED:
        mind.save_memory(it.statement, salience=float(it.salience or 5))
    told = list(ORDINARY)
    rng.shuffle(told)
    for i, it in enumerate(told):  # a week of conversation, a few statements a day
        agent.turn(it.statement, it.reply, minutes=rng.randint(5, 60))
        if i % 6 == 5:
            agent.end_day()
    agent.end_day()

    probes: list[tuple[str, str, str]] = [  # (kind, key, probe)
        *(("ordinary", it.key, it.probe) for it in ORDINARY),
        *(("high-salience", it.key, it.probe) for it in SAVED),
        *(("identity", "identity", p) for p in IDENTITY_PROBES),
    ]
    statements = {it.key: it.statement for it in (*ORDINARY, *SAVED)}
    res = SuiteResult(NAME, 0, 0, TARGET, embedder=embedder, preset=preset)
    by_kind: Counter[str] = Counter()
    kind_total: Counter[str] = Counter()
    per_round: list[float] = []
    intruders: Counter[str] = Counter()
    missing: set[str] = set()
    for rnd in range(rounds):
        order = probes[:]
        rng.shuffle(order)
        live = live_memories(mind)
        round_hits = 0
        for kind, key, probe in order:
            clock_step(agent, rng)
            hits = agent.prefetch(probe, recent=[rng.choice(OPENERS)])
            top = hits[0].memory if hits else None
            if kind == "identity":
                ok = top is not None and top.memory_type.value == "identity"
                exists = any(m.memory_type.value == "identity" for m in live)
            else:
                ok = top is not None and holds(top, statements[key])
                exists = any(holds(m, statements[key]) for m in live)
            if not exists:
                missing.add(key)
            _answer(agent, hits, statements.get(key), kind)
            res.total += 1
            kind_total[kind] += 1
            if ok:
                res.hits += 1
                round_hits += 1
                by_kind[kind] += 1
            else:
                got = snippet(top.content, 60) if top is not None else "(nothing)"
                intruders[got] += 1
                why = " (not in the mind)" if not exists else ""
                res.failures.append(f"round {rnd + 1} {kind} {key}{why}: {probe!r} -> {got}")
        per_round.append(round_hits / len(order))
        agent.end_day()
        for _ in range(ROUND_GAP_DAYS - 1):  # a quiet week: daily heartbeats only
            agent.end_day()
    res.details = {
        "rounds": rounds,
        "per_round": [round(x, 3) for x in per_round],
        "by_kind": {k: f"{by_kind[k]}/{kind_total[k]}" for k in kind_total},
        "not_in_mind": sorted(missing),
        "top_intruders": intruders.most_common(5),
        **agent.deletions(),
    }
    return res


def _answer(agent: Agent, hits: list[Any], statement: str | None, kind: str) -> None:
    """The agent answers from what the prefetch gave it — a good model uses the right
    memory when it is among the hits — and the mind judges which hits the answer used
    (`evaluate_usefulness`, as an agent does after each reply)."""
    if kind == "identity":
        used = any(h.memory.memory_type.value == "identity" for h in hits)
        response = "I'm Ada, your personal assistant." if used else "I'm an assistant."
    elif statement is not None and any(holds(h.memory, statement) for h in hits):
        response = f"You told me: {statement}"
    else:
        response = "I'm not sure, I don't think you've told me."
    if hits:
        agent.mind.evaluate_usefulness(response, hits)


def clock_step(agent: Agent, rng: random.Random) -> None:
    agent.clock.advance(timedelta(minutes=rng.randint(2, 20)))


def _print(con: Console, r: SuiteResult, verbose: bool) -> None:
    d = r.details
    con.print(
        f"{r.line()}\n  per round {d['per_round']}; by kind {d['by_kind']}; "
        f"not in the mind: {len(d['not_in_mind'])} {d['not_in_mind'] or ''}"
    )
    if d["top_intruders"]:
        con.print("  wrong first hits: " + "; ".join(f"{n}× {t!r}" for t, n in d["top_intruders"]),
                  markup=False)
    if verbose:
        for f in r.failures:
            con.print(f"  - {f}", markup=False)


if __name__ == "__main__":
    from ._common import main_guard

    main_guard(NAME, run, presets=True)
