"""Admission: realistic statements of every kind must be kept.

    python -m bench.scenarios.admission            # e5; -v prints every skipped statement

116 user statements — plans, schedules, bookings, people, pets, numbers, phone numbers,
decisions, preferences, health, work, family, travel, finances, home — each sent as
`remember_turn(statement, reply)` with a short plausible reply, mixed with 22 pure-noise turns
("lol ok", "thanks!"), over five simulated days, with a heartbeat every evening that drains the triage queue (no
prefetch: recall cannot change what is admitted, and it would double the run time).

Score = share of statements for which a live memory's content contains the statement
(target 98%). Noise turns are reported separately (kept or skipped), not scored. Every
statement that was not kept is printed with its reason: the skip reason the mind exposes
(`queue_status()["recent_skips"]`, what `salience queue` shows), else the reason a direct
`remember_turn(..., defer=False)` of the same turn gives on a scratch mind, or "superseded"
when a later statement replaced it.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console

from ._common import (
    Agent,
    SuiteResult,
    holders,
    live_memories,
    norm,
    open_mind,
    out,
    session,
    snippet,
)

NAME = "admission"
TARGET = 0.98
DAYS = 5

# (category, statement); the dropped examples come first in their categories
STATEMENTS: tuple[tuple[str, str], ...] = (
    # bookings and travel
    ("booking", "I booked Shunkoin Temple for October 18 to 21."),
    ("booking", "I reserved a table for four at Maaemo on Saturday at 7."),
    ("booking", "Our hotel in Porto is the Casa das Flores, check-in on the 9th."),
    ("booking", "I got two tickets for the ballet on December 12."),
    ("booking", "The rental car is booked with Sixt, pickup at Bergen airport at noon."),
    ("booking", "I booked a haircut at Salong Lykke for Thursday at 5:30."),
    ("booking", "We booked the cabin in Hemsedal from February 14 to 18."),
    ("travel", "I'm flying to Reykjavik on the 22nd and coming back on the 27th."),
    ("travel", "My train to Stockholm leaves at 06:15 from Oslo S."),
    ("travel", "We're driving to my in-laws in Kristiansand for Christmas."),
    ("travel", "The conference in Berlin is from 4 to 6 June, I'm staying near Alexanderplatz."),
    ("travel", "My layover in Amsterdam is only 50 minutes, which worries me."),
    ("travel", "I've never been to Asia, but Japan is at the top of my list."),
    # schedules and plans
    ("schedule", "We moved the design review to Friday at 10am."),
    ("schedule", "I go to the gym on Mondays and Thursdays at 7am."),
    ("schedule", "Choir practice is on Tuesday evenings at the community centre."),
    ("schedule", "The kids have swimming lessons every Saturday at 9."),
    ("schedule", "My one-on-one with Astrid is every other Wednesday at 11."),
    ("schedule", "The quarterly planning offsite is on March 19 and 20."),
    ("schedule", "I'm working from home on Fridays from now on."),
    ("schedule", "Parent-teacher meeting is next Tuesday at 17:00."),
    ("plan", "I'm planning to repaint the bedroom next weekend."),
    ("plan", "We want to run the Oslo half marathon together in September."),
    ("plan", "I'm going to start cycling to work once the weather gets better."),
    ("plan", "Next month I want to finally sort out the storage room."),
    ("plan", "We're thinking of getting solar panels on the roof this summer."),
    ("plan", "I plan to take two weeks off in July."),
    # people
    ("people", "My new manager is Astrid Lund."),
    ("people", "Henrik from accounting is leaving the company in May."),
    ("people", "My best friend Camilla just moved to Copenhagen."),
    ("people", "Our new neighbours are called Per and Ingeborg."),
    ("people", "Jonas is my mentor at work; we meet monthly."),
    ("people", "The new intern on our team is called Yusuf, he starts Monday."),
    ("people", "My old university roommate, Daniel, is now a pilot at Norwegian."),
    ("people", "Mette is the one organising the summer party this year."),
    # pets
    ("pets", "My dog is called Rex, a border collie."),
    ("pets", "Our cat Luna is twelve and a bit deaf now."),
    ("pets", "Rex has to go to the vet on the 3rd for his vaccinations."),
    ("pets", "We're fostering two kittens from the shelter until they're adopted."),
    ("pets", "The dog sitter, Hanna, charges 300 kroner a day."),
    ("pets", "Luna only eats the salmon-flavoured food, nothing else."),
    # numbers, phone numbers, codes
    ("numbers", "My new phone number is 555-0199."),
    ("numbers", "The office landline is 22 45 67 80."),
    ("numbers", "Our customer number with the electricity company is 77-4410-23."),
    ("numbers", "My frequent flyer number with SAS is EB 459 221 883."),
    ("numbers", "The booking reference for the Porto flight is KX7P2Q."),
    ("numbers", "The gate code for the parking garage is 4471."),
    ("numbers", "Camilla's new number is +45 20 55 01 87."),
    ("numbers", "My shoe size is 43 and I wear a medium shirt."),
    # decisions
    ("decision", "We decided to go with the blue sofa after all."),
    ("decision", "I've decided to turn down the job offer from Telenor."),
    ("decision", "We're going with PostgreSQL for the new service, not MongoDB."),
    ("decision", "We agreed that Mia gets a phone when she turns twelve."),
    ("decision", "I've decided to stop drinking alcohol for the rest of the year."),
    ("decision", "The team decided to ship the release on the 28th instead of the 21st."),
    ("decision", "We chose the Montessori kindergarten for Theo."),
    ("decision", "I'm cancelling my Netflix subscription at the end of the month."),
    # preferences
    ("preference", "I like my coffee black, no sugar."),
    ("preference", "I hate phone calls, texting is much better for me."),
    ("preference", "I prefer aisle seats on long flights."),
    ("preference", "I'm not into spicy food at all."),
    ("preference", "Please keep replies short, I read them on my phone."),
    ("preference", "I'd rather take the train than fly when it's under five hours."),
    ("preference", "My favourite band is Röyksopp."),
    ("preference", "I love hiking but I'm scared of heights."),
    # health
    ("health", "I've been diagnosed with asthma and use an inhaler."),
    ("health", "I'm lactose intolerant."),
    ("health", "My physio appointment for my shoulder is on Monday at 8."),
    ("health", "I've been sleeping badly since the new job started."),
    ("health", "I'm pregnant, due at the end of August."),
    ("health", "The doctor said my blood pressure is a bit high."),
    ("health", "I broke my wrist skiing two years ago and it still aches in the cold."),
    ("health", "I get migraines when I skip meals."),
    # work
    ("work", "I'm leading the migration to the new billing system this quarter."),
    ("work", "Our team got a budget of 2 million kroner for next year."),
    ("work", "I got promoted to senior engineer last week."),
    ("work", "The client demo for Equinor is on the 14th."),
    ("work", "I'm on call the week of the 10th."),
    ("work", "My performance review is scheduled for January 15."),
    ("work", "We hired two new backend developers this month."),
    ("work", "The deadline for the grant application is 1 April."),
    # family
    ("family", "My daughter Mia started first grade this autumn."),
    ("family", "My grandmother turns 90 on the 2nd of May."),
    ("family", "My brother Erik is getting divorced."),
    ("family", "My parents are moving into a flat in Drammen."),
    ("family", "Theo is scared of the dark, so he sleeps with a night light."),
    ("family", "My mother-in-law is coming to stay for two weeks in March."),
    ("family", "Our son's best friend is called Noah."),
    ("family", "My dad had knee surgery on Tuesday and is recovering at home."),
    # finances
    ("finance", "I pay 9,800 kroner a month on the mortgage."),
    ("finance", "My salary goes in on the 20th of each month."),
    ("finance", "I've got about 60,000 kroner in my savings account."),
    ("finance", "I owe Camilla 450 kroner for the concert tickets."),
    ("finance", "Our home insurance is with If and costs 310 kroner a month."),
    ("finance", "I set up a monthly transfer of 2,000 kroner into an index fund."),
    ("finance", "The car loan will be paid off next June."),
    ("finance", "I want to keep the holiday budget under 25,000 kroner."),
    # home and errands
    ("home", "The dishwasher is broken; a repairman is coming Thursday between 8 and 12."),
    ("home", "Our lease runs until the end of next year."),
    ("home", "The bins go out on Tuesday nights."),
    ("home", "I need to renew my driving licence before October."),
    ("home", "We're out of printer ink and I keep forgetting to buy it."),
    ("home", "The heat pump filter needs cleaning every three months."),
    ("home", "I left my winter jacket at the office."),
    ("home", "The spare bedroom is going to become a home office."),
    # assorted facts about the person
    ("about", "I grew up in Tromsø."),
    ("about", "I speak Norwegian, English and some Spanish."),
    ("about", "I studied physics at NTNU."),
    ("about", "I've been a vegetarian for ten years."),
    ("about", "I'm left-handed."),
    ("about", "I started learning the cello in January."),
    ("about", "I'm a volunteer firefighter in my village."),
    ("about", "My car is an electric Hyundai Kona."),
    ("about", "I'm colour-blind, so I can't tell red and green apart."),
    ("about", "I run a small pottery business on the side."),
    ("about", "I've lived in Oslo for eight years."),
)

REPLIES: dict[str, tuple[str, ...]] = {
    "booking": ("Great, that's booked then.", "Nice! Want a reminder the day before?",
                "Sounds lovely. I'll keep the dates in mind."),
    "travel": ("Safe travels!", "Noted — I can help you plan the trip.", "Sounds like a good trip."),
    "schedule": ("Got it, I'll keep that in mind.", "Noted.", "Okay, updated."),
    "plan": ("Sounds like a good plan.", "Nice idea!", "Let me know if you want help planning."),
    "people": ("Good to know.", "Thanks, noted.", "Okay!"),
    "pets": ("Aww!", "Noted.", "Sounds like a lovely pet."),
    "numbers": ("Saved.", "Got it.", "Noted, thanks."),
    "decision": ("Sounds like a good decision.", "Okay, noted.", "Makes sense."),
    "preference": ("Understood.", "I'll remember that.", "Got it."),
    "health": ("Thanks for telling me. Take care.", "Noted — I hope it goes well.",
               "I'm sorry to hear that. I'll keep it in mind."),
    "work": ("Congratulations!", "Noted.", "Sounds busy — good luck."),
    "family": ("That's lovely.", "Thanks for sharing.", "I hope all goes well."),
    "finance": ("Noted.", "Okay, I'll keep that in mind.", "Got it."),
    "home": ("Okay.", "I can remind you.", "Noted."),
    "about": ("Interesting!", "Good to know.", "Cool!"),
}

NOISE: tuple[tuple[str, str], ...] = (
    ("lol ok", "😄"), ("thanks!", "Anytime!"), ("haha", "😊"), ("sure", "Great."),
    ("ok cool", "👍"), ("👍", "🙂"), ("hmm", "Take your time."), ("yep", "Okay!"),
    ("nice", "😊"), ("brb", "Sure, I'm here."), ("good morning", "Good morning!"),
    ("ok", "Okay."), ("lol", "😄"), ("hahaha true", "Right?"), ("cool cool", "🙂"),
    ("np", "👍"), ("k", "Okay."), ("sounds good", "Great!"), ("right", "Mm-hm."),
    ("gotcha", "👍"), ("thx", "You're welcome!"), ("omg", "I know!"),
)


def run(
    *,
    console: Console | None = None,
    embedder: str = "e5",
    size: str = "full",
    preset: str | None = None,
    verbose: bool = False,
    seed: int = 5,
) -> SuiteResult:
    """Run the admission suite and print its score (`size` changes nothing: it is cheap)."""
    del size  # the whole suite is small enough for the quick run too
    con = out(console)
    rng = random.Random(seed)
    rng_replies = random.Random(seed + 1)
    turns: list[tuple[str, str, str]] = [  # (kind, user, reply)
        *((cat, s, rng_replies.choice(REPLIES[cat])) for cat, s in STATEMENTS),
        *(("noise", u, a) for u, a in NOISE),
    ]
    rng.shuffle(turns)
    # no prefetch: recall cannot change what is admitted
    with session(NAME, embedder, preset, prefetch=False) as agent:
        res = _simulate(agent, rng, turns, embedder)
    _print(con, res, verbose)
    return res


def _simulate(agent: Agent, rng: random.Random, turns: list[tuple[str, str, str]],
              embedder: str) -> SuiteResult:
    """Every turn over `DAYS` days, heartbeats each evening; then the score."""
    skips: dict[str, str] = {}
    per_day = -(-len(turns) // DAYS)
    for i, (_, user, reply) in enumerate(turns):
        agent.turn(user, reply, minutes=rng.randint(1, 25))
        if i % per_day == per_day - 1 or i == len(turns) - 1:
            agent.end_day()
            skips.update(_exposed_skips(agent.mind))
    assert agent.home is not None
    res = _score(agent.mind, turns, skips, embedder, agent.mind.config.search_preset,
                 agent.home)
    res.details.update(agent.deletions())
    return res


def _exposed_skips(mind: Any) -> dict[str, str]:
    """norm(user text) -> skip reason, from what `queue_status()` exposes (if anything)."""
    got: dict[str, str] = {}
    for s in mind.queue_status().get("recent_skips") or []:
        text = str(s.get("text") or "")
        user = text.split("\nAssistant:")[0].split(":", 1)[-1] if text else ""
        if user.strip():
            sal = s.get("salience")
            got[norm(user)] = str(s.get("reason") or "?") + (
                f" (triage salience {sal:g})" if isinstance(sal, int | float) else "")
    return got


def _score(mind: Any, turns: list[tuple[str, str, str]], skips: dict[str, str], embedder: str,
           preset: str, tmp: Path) -> SuiteResult:
    from salience.models import MemoryFilter

    live = live_memories(mind)
    everything = mind.list(MemoryFilter(include_superseded=True), limit=100_000)
    res = SuiteResult(NAME, 0, 0, TARGET, embedder=embedder, preset=preset)
    lost: list[tuple[str, str, str]] = []  # (category, statement, reason)
    noise_kept: list[str] = []
    noise_skipped: list[tuple[str, str]] = []
    by_cat: Counter[str] = Counter()
    cat_total: Counter[str] = Counter()
    for kind, user, _reply in turns:
        kept = bool(holders(live, user))
        if kind == "noise":
            if kept:
                noise_kept.append(user)
            else:
                noise_skipped.append((user, skips.get(norm(user), "")))
            continue
        res.total += 1
        cat_total[kind] += 1
        if kept:
            res.hits += 1
            by_cat[kind] += 1
            continue
        old = holders(everything, user)
        if old and old[0].superseded_by:
            by = next((m for m in everything if m.id == old[0].superseded_by), None)
            reason = "superseded by " + (snippet(by.content, 60) if by else old[0].superseded_by)
        else:
            reason = skips.get(norm(user), "")
        lost.append((kind, user, reason))
    # reasons the mind did not expose: replay those turns directly on a scratch mind
    unexplained = {u for _, u, r in lost if not r} | {n for n, r in noise_skipped if not r}
    if unexplained:
        replayed = _replay_reasons([(u, a) for _, u, a in turns if u in unexplained],
                                   embedder, tmp)
        lost = [(k, u, r or replayed.get(u, "?")) for k, u, r in lost]
        noise_skipped = [(n, r or replayed.get(n, "?")) for n, r in noise_skipped]
    for kind, user, reason in lost:
        res.failures.append(f"[{kind}] {user!r}: {reason}")
    res.details = {
        "statements": res.total,
        "by_category": {c: f"{by_cat[c]}/{cat_total[c]}" for c in cat_total},
        "lost": [{"category": k, "statement": u, "reason": r} for k, u, r in lost],
        "lost_by_reason": dict(Counter(_reason_key(r) for _, _, r in lost)),
        "noise_turns": len(noise_kept) + len(noise_skipped),
        "noise_kept": noise_kept,
        "noise_skipped": [{"turn": n, "reason": r} for n, r in noise_skipped],
        "live_memories": len(live),
        "queue": {k: v for k, v in mind.queue_status().items() if isinstance(v, int)},
    }
    return res


def _reason_key(reason: str) -> str:
    return reason.split(" by ")[0].split(" (")[0]


def _replay_reasons(pairs: list[tuple[str, str]], embedder: str, tmp: Path) -> dict[str, str]:
    """user text -> IngestResult.skipped of a direct (defer=False) remember_turn, each on an
    empty scratch mind (so no earlier turn can make it a duplicate or a contradiction)."""
    scratch, _ = open_mind(tmp, "admission-replay", embedder)
    out_: dict[str, str] = {}
    try:
        for user, reply in pairs:
            r = scratch.remember_turn(user, reply, defer=False)
            reason = getattr(r, "skipped", None)
            sal = getattr(r, "salience", None)
            out_[user] = (f"{reason} (replayed; triage salience {sal:g})" if reason and sal
                          is not None else f"{reason} (replayed)" if reason
                          else "kept when replayed directly — lost on the deferred path")
    finally:
        scratch.close()
    return out_


def _print(con: Console, r: SuiteResult, verbose: bool) -> None:
    d = r.details
    skipped = len(d["noise_skipped"])
    con.print(
        f"{r.line()}\n  by category {d['by_category']}\n"
        f"  noise turns (not scored): {d['noise_turns']}, kept {len(d['noise_kept'])}, "
        f"skipped {skipped}; lost statements by reason: {d['lost_by_reason'] or 'none'}",
        markup=False,
    )
    for f in r.failures if (verbose or len(r.failures) <= 30) else r.failures[:30]:
        con.print(f"  - not kept {f}", markup=False)
    if verbose:
        for n in d["noise_skipped"]:
            con.print(f"  · noise skipped {n['turn']!r}: {n['reason']}", markup=False)
        for n in d["noise_kept"]:
            con.print(f"  · noise kept {n!r}", markup=False)


if __name__ == "__main__":
    from ._common import main_guard

    main_guard(NAME, run)
