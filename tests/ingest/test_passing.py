"""A change said in passing inside a long message is kept as a distilled fact of its own
beside the message (issue 14: updates inside longer messages)."""

from __future__ import annotations

from salience.llm.heuristic.claims import passing_statements
from salience.models import PASSING_TAG, MemoryFilter, MemoryType

SUPPLIER = (
    "Here's the summary of the supplier call. They can deliver the first batch of 400 units by "
    "the 12th if we confirm the colour spec this week, the second batch would follow four weeks "
    "later, and they want 30% up front. I argued about the deposit for a while. (btw I moved to "
    "Vienna last week, the flat is lovely.) Can you remind me to chase them on Thursday? The "
    "samples should arrive by courier sometime next week as well."
)


def test_a_long_message_gives_the_sentence_that_changes() -> None:
    assert passing_statements(SUPPLIER) == ["btw I moved to Vienna last week, the flat is lovely."]


def test_short_messages_questions_and_plans_give_none() -> None:
    assert passing_statements("I moved to Vienna last week, the flat is lovely.") == []
    long_plans = (
        "We talked about the offsite for an hour today and nothing is settled yet. "
        "If we moved it to Porto, flights would be cheaper for most people. "
        "Should we switch the venue to something closer to the airport? "
        "Nobody wanted to decide before the budget review, which is reasonable. " * 2
    )
    assert passing_statements(long_plans) == []


def test_the_live_loop_keeps_the_fact_beside_the_message(heuristic_mind) -> None:
    mind = heuristic_mind
    res = mind.remember_turn(SUPPLIER, "I'll remind you on Thursday.", defer=False,
                             metadata={"source": "chat-7"})
    assert res.saved
    mems = mind.list(MemoryFilter(include_superseded=True), limit=50)
    facts = [m for m in mems if PASSING_TAG in m.tags]
    assert [f.content for f in facts] == ["User: btw I moved to Vienna last week, the flat is lovely."]
    fact = facts[0]
    whole = next(m for m in mems if m.content.startswith("User: Here's the summary"))
    assert fact.memory_type is MemoryType.FACT
    assert fact.related_ids == [whole.id] and fact.metadata == {"source": "chat-7"}
    assert "(btw I moved to Vienna" in whole.content  # the message itself is kept whole


def test_the_fact_said_in_passing_supersedes_what_it_replaces(heuristic_mind, clock) -> None:
    mind = heuristic_mind
    old = mind.remember_turn("I live in Munich.", "Noted.", defer=False)
    clock.advance(days=30)
    mind.remember_turn(SUPPLIER, "I'll remind you on Thursday.", defer=False)
    assert mind.get(old.id).superseded_by is not None  # superseded, never deleted
    hits = mind.search("Where do I live?", limit=3, feedback=False)
    assert "Vienna" in hits[0].memory.content


def test_search_shows_the_message_or_its_fact_not_both(heuristic_mind, clock) -> None:
    mind = heuristic_mind
    mind.remember_turn(SUPPLIER, "I'll remind you on Thursday.", defer=False)
    hits = mind.search("Vienna", limit=10, feedback=False)
    sources = [h.memory.related_ids[0] if PASSING_TAG in h.memory.tags else h.memory.id
               for h in hits]
    assert len(sources) == len(set(sources)) and hits
