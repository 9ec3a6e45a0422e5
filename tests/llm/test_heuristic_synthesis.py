"""Heuristic distillation, episode synthesis, reflection and identity consolidation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from salience.errors import InvalidInput
from salience.llm import HeuristicBrain, IdentityProfile
from salience.models import Memory, MemoryType, Source

brain = HeuristicBrain()
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday


def mem(
    text: str,
    day: float,
    mtype: MemoryType = MemoryType.GENERAL,
    tags: list[str] | None = None,
    **kw,
) -> Memory:
    return Memory(
        content=text, created_at=T0 + timedelta(days=day), memory_type=mtype, tags=tags or [], **kw
    )


# -- distillation -------------------------------------------------------------------------------

SLIDE = """User: hi there!
Assistant: Hello! How can I help you today?
User: I'm flying to Tokyo on May 3 for a conference. My manager Sarah approved the budget.
Assistant: Great, your flight JL44 departs at 11:05 from Heathrow, terminal 3.
User: thanks! lol
User: btw I'm vegetarian, so please remember that for the dinner bookings.
Assistant: Sure thing!
User: what's the weather like there?"""


def test_distill_keeps_facts_and_drops_chatter() -> None:
    facts = brain.distill(SLIDE)
    texts = [f.text for f in facts]
    assert texts == [
        "I'm flying to Tokyo on May 3 for a conference.",
        "My manager Sarah approved the budget.",
        "Assistant: Great, your flight JL44 departs at 11:05 from Heathrow, terminal 3.",
        "btw I'm vegetarian, so please remember that for the dinner bookings.",
    ]
    by_text = {f.text: f.salience for f in facts}
    assert by_text["btw I'm vegetarian, so please remember that for the dinner bookings."] >= 7
    assert 4 <= by_text["I'm flying to Tokyo on May 3 for a conference."] <= 6
    assert all(1 <= f.salience <= 10 for f in facts)


def test_distill_of_pure_chatter_is_empty() -> None:
    assert (
        brain.distill("User: hey\nAssistant: Hi! How can I help?\nUser: nothing, thanks, bye") == []
    )


# -- episodes -----------------------------------------------------------------------------------

TRIP = [
    mem(
        "Booked flights to Lisbon for Anna and me, leaving March 20.",
        0.0,
        MemoryType.EVENT,
        ["travel"],
    ),
    mem(
        "Anna found a hotel in Lisbon near Alfama with a view of the river.",
        0.1,
        MemoryType.FACT,
        ["travel"],
    ),
    mem(
        "Need to renew my passport before the Lisbon trip.",
        0.2,
        MemoryType.EVENT,
        ["travel", "plan"],
    ),
    mem(
        "Anna wants to try the pastel de nata at Belém while we are in Lisbon.",
        0.3,
        MemoryType.PREFERENCE,
    ),
]


def test_episode_title_summary_and_entities() -> None:
    ep = brain.synthesize_episode(list(reversed(TRIP)))  # order of input does not matter
    assert ep.title.startswith("Lisbon & Anna")
    assert ep.entities[:2] == ["Lisbon", "Anna"]
    assert "Alfama" in ep.entities
    assert ep.summary.startswith("(2026-03-02) ")
    sentences = [s for s in (m.content for m in TRIP) if s in ep.summary]
    assert len(sentences) == 3  # the three most central, in time order
    positions = [ep.summary.index(s) for s in sentences]
    assert positions == sorted(positions)
    assert ep.render().startswith(ep.title + "\n\n")


def test_episode_of_one_memory_and_of_none() -> None:
    ep = brain.synthesize_episode([mem("Coffee with Priya at Blue Bottle in Oakland.", 1)])
    assert "Priya" in ep.title and "Coffee with Priya" in ep.summary
    with pytest.raises(InvalidInput):
        brain.synthesize_episode([])


# -- reflection ---------------------------------------------------------------------------------


def week_of_memories() -> list[Memory]:
    out = []
    for week in range(4):  # a weekly standup on Mondays
        out.append(
            mem(
                f"Weekly team standup: sprint {week + 1} review with Anna.",
                7 * week,
                MemoryType.EVENT,
                ["meeting", "work"],
                entities=["Anna"],
            )
        )
    out += [
        mem(
            "Postgres migration is blocked on the index rebuild.",
            1,
            MemoryType.FACT,
            ["work", "project"],
        ),
        mem(
            "Postgres migration finished; Anna presented the benchmarks.",
            8,
            MemoryType.FACT,
            ["work", "project"],
            entities=["Anna"],
        ),
        mem(
            "Started learning Portuguese on Duolingo.",
            15,
            MemoryType.FACT,
            ["education"],
            entities=["Duolingo"],
        ),
        mem("Portuguese lesson: ordering food and numbers.", 17, MemoryType.EVENT, ["education"]),
        mem("Portuguese lesson: past tense verbs.", 19, MemoryType.EVENT, ["education"]),
        mem(
            "Booked a trip to Lisbon with Anna for the spring.",
            20,
            MemoryType.EVENT,
            ["travel", "plan"],
            entities=["Lisbon", "Anna"],
        ),
        mem(
            "Anna found a flat in Lisbon for our stay.",
            22,
            MemoryType.FACT,
            ["travel"],
            entities=["Anna", "Lisbon"],
        ),
        mem(
            "Need to finish the Portuguese course before the trip.",
            23,
            MemoryType.GENERAL,
            ["plan", "education"],
            source=Source.AGENT_INFERRED,
        ),
    ]
    return out


def test_reflection_counts_patterns() -> None:
    r = brain.reflect(week_of_memories())
    assert r.patterns[0] == "Of 12 memories: 7 events (58%), 4 facts (33%), 1 general (8%)."
    assert (
        r.patterns[1] == "Most frequent topics: work (6), meeting (4), education (4), project (2)."
    )
    assert any(p.startswith("Most mentioned: Anna (7)") for p in r.patterns)
    assert any("Sources: user_stated (11), agent_inferred (1)" in p for p in r.patterns)


def test_reflection_finds_rising_and_fading_interests() -> None:
    r = brain.reflect(week_of_memories())
    joined = "\n".join(r.evolving_interests)
    assert "Rising: education (1 → 3 mentions)" in joined
    assert "Rising: Lisbon (0 → 2 mentions)" in joined
    assert "Fading: project (2 → 0 mentions)" in joined
    assert "Anna" not in joined  # steady, neither rising nor fading


def test_reflection_connects_co_occurring_entities() -> None:
    r = brain.reflect(week_of_memories())
    assert "Anna and Lisbon appear together in 2 memories" in r.connections
    assert any(c.startswith("Anna is usually discussed in connection with") for c in r.connections)


def test_reflection_predicts_recurring_events() -> None:
    r = brain.reflect(week_of_memories())
    (recurring,) = [p for p in r.predictions if "recurs" in p]
    assert "every 7 days (4 times, usually on Monday)" in recurring
    assert "next expected around 2026-03-30" in recurring
    assert any(
        p.startswith("Upcoming: Need to finish the Portuguese course") for p in r.predictions
    )
    text = r.render()
    for heading in ("PATTERNS", "EVOLVING INTERESTS", "CONNECTIONS", "PREDICTIONS"):
        assert f"{heading}\n- " in text


def test_reflection_of_nothing_is_empty() -> None:
    r = brain.reflect([])
    assert r.patterns == [] and "(none observed)" in r.render()


# -- consolidation ------------------------------------------------------------------------------

FACTS = [
    "My name is Tom Becker.",
    "I live in Berlin with my wife Maria.",
    "I'm allergic to peanuts and I love sushi.",
    "I work at Acme Corp as an engineer.",
    "I moved to Lisbon in May.",
    "I don't like sushi anymore.",
    "My favourite colour is green.",
    "I speak English and German.",
    "I'm vegetarian.",
    "I love hiking in the mountains.",
]


def test_consolidation_builds_the_profile_later_facts_winning() -> None:
    memories = [mem(t, i, MemoryType.FACT, salience=8) for i, t in enumerate(FACTS)]
    p = brain.consolidate(list(reversed(memories)))  # chronology, not input order, decides
    assert p.attributes["name"] == "Tom Becker"
    assert p.attributes["residence"] == "Lisbon"
    assert p.attributes["employer"] == "Acme Corp"
    assert p.attributes["occupation"] == "engineer"
    assert p.attributes["wife"] == "Maria"
    assert p.attributes["favourite colour"] == "green"
    assert p.attributes["diet"] == "vegetarian"
    assert p.attributes["health"] == "allergic to peanuts"
    assert p.attributes["languages"] == "English, German"
    assert p.attributes["likes"] == "hiking in the mountains"
    assert p.attributes["dislikes"] == "sushi"
    # the diet is an attribute, not a trait: a changed diet must not leave both behind
    assert "vegetarian" not in p.traits and "multilingual" in p.traits
    assert p.profile.splitlines()[:3] == [
        "Name: Tom Becker.",
        "Lives in: Lisbon.",
        "Works at: Acme Corp.",
    ]
    assert "Family and people: wife Maria." in p.profile


def test_consolidation_updates_a_previous_profile() -> None:
    previous = IdentityProfile(
        profile="Name: Tom.",
        attributes={"name": "Tom", "residence": "Berlin", "likes": "jazz"},
        traits=["curious"],
    )
    p = brain.consolidate(
        [mem("I moved to Porto last week.", 1), mem("I love surfing.", 2)], previous=previous
    )
    assert p.attributes["name"] == "Tom"
    assert p.attributes["residence"] == "Porto"
    assert p.attributes["likes"] == "jazz; surfing"
    assert "curious" in p.traits


def test_consolidation_traits_from_topics() -> None:
    memories = [mem(f"Trip {i} to somewhere new.", i, tags=["travel"]) for i in range(4)]
    memories += [mem("I cooked ramen.", 5, tags=["food"])]
    p = brain.consolidate(memories)
    assert p.traits == ["enjoys travel"]
    assert brain.consolidate([]).profile == "No facts about the user recorded yet."
