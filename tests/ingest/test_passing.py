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


TWO_NEWS = (
    "Sorry for the radio silence, it has been a chaotic month. I moved to Vienna last week, the "
    "flat is small but lovely. I also started a new job at Siemens on Monday, mostly embedded "
    "work. The weather has been grey and cold and the trams are always full in the mornings. "
    "Anyway, tell me how the garden project is going, I want photos of the new fence, and say "
    "hello to everyone at the allotment from me."
)


def test_two_facts_of_one_message_are_two_statements(heuristic_mind) -> None:
    from salience.search.pipeline import _dedup

    mind = heuristic_mind
    mind.remember_turn(TWO_NEWS, "Congratulations on both!", defer=False)
    mems = {m.id: m for m in mind.list(MemoryFilter(), limit=50)}
    facts = [m.id for m in mems.values() if PASSING_TAG in m.tags]
    assert len(facts) == 2
    message = mems[facts[0]].related_ids[0]
    ranked = [(i, 1.0 - k / 10, {}) for k, i in enumerate([*facts, message])]
    assert [r[0] for r in _dedup(ranked, mems)] == facts  # the message: not below its facts
    ranked = [(i, 1.0 - k / 10, {}) for k, i in enumerate([message, *facts])]
    assert [r[0] for r in _dedup(ranked, mems)] == [message]  # nor they below it


PARTY = (
    "Pasting the venue's reply so you have it: they can hold the main hall for 48 hours, "
    "catering is per head with a minimum of 40 guests and parking is limited. I started a "
    "history of the Hanseatic League on the train, surprisingly gripping. We went up to the "
    "lake on Saturday and the kids swam. Also finance came back and the budget for the summer "
    "party is now 4,500, so we can afford the caterer. Let me know what you think."
)


def test_a_sentence_that_replaces_what_the_mind_holds_is_chosen_first() -> None:
    held = ["The budget for the summer party is 3,000 pounds."]
    from salience.llm.heuristic.contradiction import contradicts

    chosen = passing_statements(PARTY, replaces=lambda s: bool(contradicts(s, held)))
    assert any(s.startswith("Also finance came back") for s in chosen)
    assert not any("lake" in s for s in chosen)  # going somewhere is no change
    # without the mind's word, a sentence on a thing ("the summer party") is no life slot
    assert not any(s.startswith("Also finance") for s in passing_statements(PARTY))


def test_the_live_loop_keeps_what_a_long_message_updates(heuristic_mind, clock) -> None:
    mind = heuristic_mind
    old = mind.remember_turn("The budget for the summer party is 3,000 pounds.", "Noted.",
                             defer=False)
    clock.advance(days=20)
    mind.remember_turn(PARTY, "Great news about the caterer.", defer=False)
    facts = [m for m in mind.list(MemoryFilter(), limit=50) if PASSING_TAG in m.tags]
    assert any("4,500" in f.content for f in facts)
    assert mind.get(old.id).superseded_by is not None  # superseded, never deleted
