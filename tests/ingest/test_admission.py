"""Admission on the conversation path (issue 13): what the person says is kept; design A's
thresholds only gate what the assistant's own reply adds; small talk is skipped visibly."""

from __future__ import annotations

import pytest

from salience.errors import InvalidInput
from salience.ingest import rules
from salience.models import Importance, MemoryFilter, Source

# statements the 0.1 admission dropped from a realistic 36-turn chat (parametric threshold 5)
DROPPED_BEFORE = [
    ("I booked Shunkoin Temple for October 18 to 21.", "Lovely, enjoy Kyoto!"),
    ("We moved the design review to Friday at 10am.", "Got it."),
    ("My dog is called Rex, a border collie.", "Border collies are so smart."),
    ("My new manager is Astrid Lund.", "Hope she's great to work with."),
    ("My new phone number is 555-0199.", "Noted."),
    ("I go to the gym on Mondays and Thursdays at 7am.", "Great routine!"),
]


# short plain statements the "at most one content word" noise rule dropped (knowledge suite,
# import bench): a statement with no greeting, thanks or acknowledgement in it is a fact
SHORT_FACTS = ["I have one cat.", "I don't have a dog.", "No, I don't have any kids.",
               "I have a hamster.", "I got hired by H&M.", "I'm with Tesla now."]


@pytest.mark.parametrize("fact", SHORT_FACTS)
def test_a_short_fact_is_not_small_talk(heuristic_mind, fact):
    assert not rules.is_noise_turn(fact)
    res = heuristic_mind.remember_turn(fact, "Okay.", defer=False)
    assert res.saved and res.skipped is None


def test_the_users_statements_survive_deferred_triage(heuristic_mind):
    for user, reply in DROPPED_BEFORE:
        heuristic_mind.remember_turn(user, reply)
    heuristic_mind.drain_pending_triage()
    contents = [m.content for m in heuristic_mind.list(limit=50)]
    for user, _ in DROPPED_BEFORE:
        assert any(user in c for c in contents), user
    assert {m.source for m in heuristic_mind.list(limit=50)} == {Source.USER_STATED}


@pytest.mark.parametrize("noise", ["lol ok", "thanks!", "haha", "sure, sounds good", "ok cool"])
def test_small_talk_is_skipped_and_the_skip_is_visible(heuristic_mind, noise):
    res = heuristic_mind.remember_turn(noise, "😊", defer=False)
    assert not res.saved and res.skipped == "noise"
    [event] = heuristic_mind.store.events("triage_skipped")
    assert event.payload["reason"] == "noise" and noise in event.payload["text"]
    assert heuristic_mind.queue_status()["recent_skips"][0]["reason"] == "noise"


def test_a_parametric_reply_alone_needs_design_as_threshold(heuristic_mind):
    res = heuristic_mind.remember_turn("ok", "The Eiffel Tower is 330 metres tall.", defer=False)
    assert not res.saved  # the assistant's unverified claim scores below 5


def test_speaker_and_empty_reply(heuristic_mind):
    res = heuristic_mind.remember_turn(
        "I adopted two cats last week.", speaker="Caroline", defer=False,
        metadata={"dia_id": "D1:3"},
    )
    m = heuristic_mind.get(res.id)
    assert m.content == "Caroline: I adopted two cats last week."
    assert m.metadata["dia_id"] == "D1:3" and m.source is Source.USER_STATED


@pytest.mark.parametrize("bad", ["", "a:b", "x" * 101, "Assistant"])
def test_bad_speaker_names_are_refused(heuristic_mind, bad):
    with pytest.raises(InvalidInput):
        heuristic_mind.remember_turn("hello there friend", speaker=bad)


def test_a_long_turn_is_kept_in_linked_chunks_with_its_metadata(heuristic_mind):
    text = " ".join(f"Sentence {i} about the garden project and its budget." for i in range(60))
    res = heuristic_mind.remember_turn(text, metadata={"dia_id": "D2:29"}, defer=False)
    chunks = heuristic_mind.list(MemoryFilter(), limit=100)
    assert len(chunks) > 1 and len(res.saved) == len(chunks)
    assert {c.metadata["dia_id"] for c in chunks} == {"D2:29"}


def test_low_scores_are_not_temporary():
    assert rules.importance_for(1) is Importance.NORMAL
    assert not rules.is_noise_turn("Cheers, Evan! I won't stress - just gonna enjoy it.")
    assert rules.is_noise_turn("lol ok")
    assert not rules.is_noise_turn("ok?")
    assert rules.split_exchange("User: hi\nAssistant: hello") == ("hi", "hello")
    assert rules.split_exchange("Ana: hi there") == ("hi there", "")


def test_the_persona_and_profile_are_never_contradiction_candidates(heuristic_mind):
    """Identity-typed memories (the persona mirror, the user profile) are synthesised text,
    not statements: the contradiction check never supersedes them."""
    prof = heuristic_mind.save_memory("I live in Lisbon. Diet: vegan.", memory_type="identity",
                                      salience=10).id
    heuristic_mind.remember_turn("I live in Porto now, not in Lisbon anymore", "Noted",
                                 defer=False, tool_grounded=True)
    assert heuristic_mind.get(prof).superseded_by is None
