"""Participant-aware ranking: who a memory is by, which of them a query names, the bounded
boost, and the pipeline wiring (hash embedder; quality is measured in bench/locomo.py)."""

from __future__ import annotations

from dataclasses import replace

from salience.config import Config
from salience.mind import Mind
from salience.models import Memory
from salience.search.config import get_preset
from salience.search.participants import boost, named, participants


def m(content: str, **kw) -> Memory:
    return Memory(content=content, **kw)


def test_participants_of_chats_emails_events_and_metadata() -> None:
    assert participants(m("Caroline: I moved to Sweden")) == {"caroline"}
    assert participants(m("From: Anna Berg <anna@x.org>\nSubject: budget\n\nI approve it.")) == {
        "anna berg"
    }
    event = "Event: Planning\nWhen: 2026-01-05 10:00\nOrganizer: Omar Haddad, Li Wei"
    assert participants(m(event)) == {"omar haddad", "li wei"}
    assert participants(m("a note", metadata={"author": "Dana", "participants": ["Eve"]})) == {
        "dana",
        "eve",
    }
    # metadata and the text together; empty metadata values name nobody
    assert participants(m("Caroline: hi", metadata={"sender": "Dana", "author": ""})) == {
        "caroline",
        "dana",
    }
    assert participants(m("Caroline: hi", metadata={"speaker": None, "tags": ["x"]})) == {
        "caroline"
    }
    # role labels and people merely mentioned are not participants
    assert participants(m("User: my sister Mia called")) == frozenset()
    assert participants(m("assistant: noted")) == frozenset()
    assert participants(m("Mia called about the trip")) == frozenset()


def test_named_matches_full_names_and_first_names() -> None:
    known = {"caroline", "melanie", "anna berg"}
    assert named("What did Caroline's sister do?", known) == {"caroline"}
    assert named("When did Anna send the budget?", known) == {"anna berg"}
    assert named("what did anna berg write", known) == {"anna berg"}
    assert named("Where did they go hiking?", known) == frozenset()


def test_boost_moves_named_participants_memories_only() -> None:
    mems = {
        "a": m("Melanie: I painted a lake", id="a"),
        "b": m("Caroline: I went to a support group", id="b"),
    }
    ranked = [("a", 0.80, {}), ("b", 0.78, {})]
    out = boost(ranked, mems, "What did Caroline do?", 0.05)
    assert [r[0] for r in out] == ["b", "a"] and out[0][2]["participant_match"] == 1.0
    assert boost(ranked, mems, "What did they paint?", 0.05) == ranked
    assert boost(ranked, mems, "What did Caroline do?", 0.0) == ranked


def test_search_ranks_the_named_speakers_turn_first(config: Config, tmp_path) -> None:
    """The speakers' names are in half of the turns (no IDF): without the boost the better
    text match (Melanie's) wins; with it, the named speaker's turn does."""
    mind = Mind.open(tmp_path / "p.db", config=config, embedder="hash")
    try:
        mind.add_many(
            [f"{who}: filler line {i} about the weather" for i in range(12)
             for who in ("Caroline", "Melanie")]
        )
        mel, car = mind.add_many(
            ["Melanie: the support group meeting was great", "Caroline: the support group was great!"]
        )
        on = replace(get_preset("relevance"), participant_shift=0.05, rewrites=0)
        off = replace(on, participant_shift=0.0)
        q = "What did Caroline think of the support group meeting?"
        assert [h.memory.id for h in mind.search(q, preset=off, feedback=False)][:2] == [mel, car]
        hits = mind.search(q, preset=on, feedback=False)
        assert [h.memory.id for h in hits][:2] == [car, mel]
        assert hits[0].explanation["participant_match"] == 1.0
    finally:
        mind.close()
