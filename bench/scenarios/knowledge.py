"""Knowledge that changes: real updates supersede, compatible facts never do (issue 14).

    python -m bench.scenarios.knowledge                  # e5, full size (186 + 60 cases)
    python -m bench.scenarios.knowledge --embedder minilm --quick -v

Each case is its own mind, talked to through the agent loop (`remember_turn`, prefetch before
each turn, a heartbeat every evening that drains the triage queue, maintenance and cognitive
runs when due). An **update** (`_knowledge_cases.UPDATES`, written for this project: moves,
jobs, roles, managers, relationships, children, pets, diets, schedules, numbers, budgets,
deadlines, reversed decisions, preferences, tools, other people) is said, then weeks of
everyday chatter pass (7–42 days in the full size), then the statement that makes it stale,
then a natural question is asked with `mind.search` (top 5) and `mind.prefetch` (top 3):

- **current first**: the top hit holds the newer statement (or its value, not the old one's);
- **stale above current**: a hit holding the old value ranks above the first current one;
- **lost**: no memory holds the old statement any more, superseded or not (must be 0:
  superseded, never deleted);
- **superseded**: the old memory was superseded (by the new one);
- **failure cause** of each failed case: admission (a statement was not kept), claims (the
  claim check does not see the update), gate (it does, but the contradiction check never
  compared the two), ranking (something else ranks above the current statement).

A **compatible pair** (`COMPATIBLE`) is said the same way; a **false supersession** is either
statement superseded (must be 0). Superseded chatter is counted too. Score = current first
(target >= 90%); the other numbers are printed and in `details` (stale above current <= 5%).

Search itself applies "newer wins among the same slot" (`search/slots.stale_ids`, wired in
`search/pipeline.newer_wins`). `slot_first` is a what-if: the same numbers after
`salience.search.slots.slot_first` (the hits that make a claim on the slot the question asks
about come first) — not wired into search. Also reported: the current statement in the top 3,
and first among the hits that hold either statement (chatter and unrelated hits skipped).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console

from ._chatter import chatter
from ._common import Agent, SuiteResult, holds, norm, out, session, snippet
from ._knowledge_cases import COMPATIBLE, UPDATES, Compatible, Update

NAME = "knowledge"
TARGET = 0.90
STALE_ABOVE_TARGET = 0.05
SEARCH_LIMIT = 5
ACKS = ("Got it, thanks for telling me.", "Noted!", "Thanks for the update.",
        "Okay, I'll remember that.", "Good to know.", "Understood.")
# size -> (every n-th update, every n-th compatible pair, gap days min, max, chatter per day)
_SIZES: dict[str, tuple[int, int, int, int, int]] = {
    "full": (1, 1, 7, 42, 1),
    "quick": (4, 3, 2, 6, 0),
}


@dataclass(slots=True)
class _Outcome:
    """One case's numbers."""

    case: str
    topic: str
    admitted_old: bool = True
    kept_old: bool = True
    kept_new: bool = True
    superseded: bool = False
    current_first: bool = False
    stale_above: bool = False
    prefetch_current_first: bool = False
    slots_current_first: bool = False
    slots_stale_above: bool = False
    current_top3: bool = False
    current_first_of_case: bool = False  # among the hits that hold either statement
    claims_conflict: bool = False  # the claim check, run on the two memories, says CONTRADICTS
    top: list[str] = field(default_factory=list)

    @property
    def cause(self) -> str:
        """Why the case failed: admission (a statement was not kept), claims (the claim check
        does not see the update), gate (it does, but the two were never compared), ranking
        (superseded or not, something else ranks above the current statement), or ""."""
        if self.current_first and not self.stale_above:
            return ""
        if not self.admitted_old or not self.kept_new:
            return "admission"
        if not self.superseded:
            return "gate" if self.claims_conflict else "claims"
        return "ranking"


def _all_memories(mind: Any) -> list[Any]:
    from salience.models import MemoryFilter

    flt = MemoryFilter(include_superseded=True)
    found: list[Any] = []
    while True:
        page = mind.list(flt, limit=1000, offset=len(found))
        found.extend(page)
        if len(page) < 1000:
            return found


def _says(memory: Any, statement: str, value: str) -> bool:
    """Whether a hit holds `statement` — or `value` (a paraphrase: episode, profile)."""
    return holds(memory, statement) or norm(value) in norm(memory.content)


def _ranks(hits: list[Any], u: Update) -> tuple[int | None, int | None]:
    """(rank of the first current hit, rank of the first stale hit), None when absent."""
    cur = stale = None
    for i, h in enumerate(hits):
        new = _says(h.memory, u.new, u.new_value)
        old = _says(h.memory, u.old, u.old_value)
        if new and not old and cur is None:
            cur = i
        if old and not new and stale is None:
            stale = i
    return cur, stale


def _first_of_case(hits: list[Any], u: Update) -> bool:
    """Whether the first hit holding either statement (or its value) holds the current one."""
    cur, stale = _ranks(hits, u)
    return cur is not None and (stale is None or cur < stale) and all(
        not _says(h.memory, u.old, u.old_value) for h in hits[:cur])


def _judge(hits: list[Any], u: Update) -> tuple[bool, bool]:
    cur, stale = _ranks(hits, u)
    first = cur == 0
    above = stale is not None and (cur is None or stale < cur)
    return first, above


def _chatter_superseded(mems: list[Any], case: list[Any]) -> list[str]:
    """The chatter turns (not the case's statements, not episodes or profile revisions, which
    supersede their own earlier versions by design) that something superseded."""
    ids = {m.id for m in case}
    return [m.content for m in mems if m.superseded_by and m.id not in ids
            and m.content.startswith("User:")]


def _talk(agent: Agent, rng: random.Random, talk: Any, n: int) -> None:
    for _ in range(n):
        user, reply = next(talk)
        agent.turn(user, reply, minutes=rng.randint(5, 90))


def _days(agent: Agent, rng: random.Random, talk: Any, days: int, per_day: int) -> None:
    for _ in range(days):
        _talk(agent, rng, talk, rng.randint(0, per_day) if per_day else 0)
        agent.end_day()


def _update_case(i: int, u: Update, embedder: str, preset: str | None, rng: random.Random,
                 gap: int, per_day: int) -> tuple[_Outcome, list[str]]:
    from salience.search.slots import slot_first

    talk = chatter(1000 + i)
    with session(f"{NAME}-u{i}", embedder, preset) as agent:
        mind = agent.mind
        _talk(agent, rng, talk, 1 + per_day)
        agent.turn(u.old, rng.choice(ACKS))
        _talk(agent, rng, talk, per_day)
        agent.end_day()
        admitted = any(holds(m, u.old) for m in _all_memories(mind))
        _days(agent, rng, talk, gap, per_day)
        _talk(agent, rng, talk, per_day)
        if u.lead:
            agent.turn(u.lead, rng.choice(ACKS))
        agent.turn(u.new, rng.choice(ACKS))
        agent.end_day()
        mems = _all_memories(mind)
        olds = [m for m in mems if holds(m, u.old)]
        news = [m for m in mems if holds(m, u.new)]
        from salience.llm.heuristic.contradiction import contradicts

        res = _Outcome(case=u.new, topic=u.topic, admitted_old=admitted,
                       kept_old=bool(olds) or not admitted, kept_new=bool(news),
                       superseded=any(m.superseded_by for m in olds),
                       claims_conflict=bool(olds and news and contradicts(
                           news[0].content, [olds[0].content])))
        hits = mind.search(u.question, limit=SEARCH_LIMIT, feedback=False)
        res.current_first, res.stale_above = _judge(hits, u)
        cur, _ = _ranks(hits, u)
        res.current_top3 = cur is not None and cur < 3
        res.current_first_of_case = _first_of_case(hits, u)
        res.top = [snippet(h.memory.content, 60) for h in hits[:2]]
        pre = agent.prefetch(u.question, recent=[])
        res.prefetch_current_first = _judge(pre, u)[0]
        slotted = slot_first(hits, u.question)
        res.slots_current_first, res.slots_stale_above = _judge(slotted, u)
        return res, _chatter_superseded(mems, [*olds, *news])


def _compatible_case(i: int, c: Compatible, embedder: str, preset: str | None,
                     rng: random.Random, gap: int, per_day: int) -> tuple[bool, list[str]]:
    """(either statement superseded, superseded chatter)."""
    talk = chatter(5000 + i)
    with session(f"{NAME}-c{i}", embedder, preset) as agent:
        _talk(agent, rng, talk, per_day)
        agent.turn(c.first, rng.choice(ACKS))
        agent.end_day()
        _days(agent, rng, talk, gap, per_day)
        agent.turn(c.second, rng.choice(ACKS))
        agent.end_day()
        mems = _all_memories(agent.mind)
        said = [m for m in mems if holds(m, c.first) or holds(m, c.second)]
        false = any(m.superseded_by for m in said)
        return false, _chatter_superseded(mems, said)


def run(
    *,
    console: Console | None = None,
    embedder: str = "e5",
    size: str = "full",
    preset: str | None = None,
    verbose: bool = False,
    seed: int = 7,
    cases: tuple[Sequence[Update], Sequence[Compatible]] | None = None,
    name: str = NAME,
) -> SuiteResult:
    """Run the knowledge-update suite and print its numbers (see the module docstring).
    `cases`: (updates, compatible pairs) instead of the canonical ones (`knowledge_natural`)."""
    con = out(console)
    every_u, every_c, gap_min, gap_max, per_day = _SIZES[size]
    all_u, all_c = cases if cases is not None else (UPDATES, COMPATIBLE)
    updates = list(all_u)[::every_u]
    pairs = list(all_c)[::every_c]
    rng = random.Random(seed)
    outcomes: list[_Outcome] = []
    false: list[str] = []
    chat_superseded: list[str] = []
    for i, u in enumerate(updates):
        gap = gap_min + (i * 7) % (gap_max - gap_min + 1)
        res, chat = _update_case(i, u, embedder, preset, rng, gap, per_day)
        outcomes.append(res)
        chat_superseded.extend(chat)
    for i, c in enumerate(pairs):
        gap = gap_min + (i * 5) % (gap_max - gap_min + 1)
        wrong, chat = _compatible_case(i, c, embedder, preset, rng, gap, per_day)
        chat_superseded.extend(chat)
        if wrong:
            false.append(f"{c.first} | {c.second}")
    result = _score(outcomes, false, len(pairs), chat_superseded, embedder, preset or "", name)
    _print(con, result, verbose)
    return result


def _score(outcomes: list[_Outcome], false: list[str], n_pairs: int, chat: list[str],
           embedder: str, preset: str, name: str = NAME) -> SuiteResult:
    n = len(outcomes)
    res = SuiteResult(name, sum(o.current_first for o in outcomes), n, TARGET,
                      embedder=embedder, preset=preset)
    by_topic: dict[str, list[int]] = {}
    for o in outcomes:
        t = by_topic.setdefault(o.topic, [0, 0])
        t[0] += o.current_first
        t[1] += 1
        if not o.current_first or o.stale_above or not o.kept_old or not o.admitted_old:
            why = ("old statement lost" if not o.kept_old else
                   "old statement not admitted" if not o.admitted_old else
                   "new statement not kept" if not o.kept_new else
                   "stale above current" if o.stale_above else "current not first")
            res.failures.append(f"[{o.topic}] {o.case!r}: {why} (cause: {o.cause or '-'}); "
                                f"superseded={o.superseded}; top: {o.top}")
    res.failures += [f"[compatible] false supersession: {f}" for f in false]
    res.failures += [f"[chatter] superseded: {snippet(t, 90)}" for t in chat]
    res.details = {
        "updates": n,
        "current_first": sum(o.current_first for o in outcomes),
        "stale_above_current": sum(o.stale_above for o in outcomes),
        "stale_above_share": sum(o.stale_above for o in outcomes) / n if n else 0.0,
        "stale_lost": sum(not o.kept_old for o in outcomes),
        "old_not_admitted": sum(not o.admitted_old for o in outcomes),
        "new_not_kept": sum(not o.kept_new for o in outcomes),
        "superseded": sum(o.superseded for o in outcomes),
        "prefetch_current_first": sum(o.prefetch_current_first for o in outcomes),
        "current_top3": sum(o.current_top3 for o in outcomes),
        "current_first_of_case": sum(o.current_first_of_case for o in outcomes),
        "slot_first": {
            "current_first": sum(o.slots_current_first for o in outcomes),
            "stale_above_current": sum(o.slots_stale_above for o in outcomes),
        },
        "compatible_pairs": n_pairs,
        "false_supersessions": len(false),
        "chatter_superseded": len(chat),
        "by_topic": {k: f"{v[0]}/{v[1]}" for k, v in sorted(by_topic.items())},
        "failure_causes": dict(Counter(o.cause for o in outcomes if o.cause)),
    }
    return res


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({a / b:.1%})" if b else "0/0"


def _print(con: Console, r: SuiteResult, verbose: bool) -> None:
    d = r.details
    n = d["updates"]
    ok = (d["stale_above_share"] <= STALE_ABOVE_TARGET and not d["stale_lost"]
          and not d["false_supersessions"])
    con.print(
        f"{r.line()}\n  current first {_pct(d['current_first'], n)}; stale above current "
        f"{_pct(d['stale_above_current'], n)} (target <= {STALE_ABOVE_TARGET:.0%}); stale lost "
        f"{d['stale_lost']} (must be 0); old statement not admitted {d['old_not_admitted']}; "
        f"superseded {_pct(d['superseded'], n)}; prefetch "
        f"current first {_pct(d['prefetch_current_first'], n)}\n  what-if slot_first: current first "
        f"{_pct(d['slot_first']['current_first'], n)}, stale above "
        f"{_pct(d['slot_first']['stale_above_current'], n)}\n  current in the top 3 "
        f"{_pct(d['current_top3'], n)}; current first among the case's memories "
        f"{_pct(d['current_first_of_case'], n)}\n  compatible pairs "
        f"{d['compatible_pairs']}: false supersessions {d['false_supersessions']} (must be 0); "
        f"chatter superseded {d['chatter_superseded']} — "
        f"{'other targets met' if ok else '[red]other targets missed[/]'}"
    )
    con.print(f"  by topic: {d['by_topic']}\n  failure causes: {d['failure_causes']}")
    if verbose or not r.passed or not ok:
        for f in r.failures:
            con.print(f"  - {f}")


if __name__ == "__main__":
    from ._common import main_guard

    main_guard(NAME, run)
