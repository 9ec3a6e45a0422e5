"""The user profile on each backend: one live memory revised by supersession (history kept),
its own prompt section and budget, only live values, the user's own words, and the
paradigm-shift flag read, acted on and cleared through the store."""

from __future__ import annotations

import json

from salience import MemoryFilter, MemoryType, Source
from salience.ingest.items import RECONSOLIDATE_KEY
from salience.layers.profile import (
    PROFILE_EVENT,
    PROFILE_MEMORY_KEY,
    UserProfile,
    render_profile,
    stale_attributes,
    user_statements,
)
from salience.llm.brain import IdentityProfile
from salience.models import Memory
from salience.models.tokens import approx_tokens
from salience.store.ingest import IngestBatch


def profiles(mind, superseded: bool = True):
    flt = MemoryFilter(memory_types=[MemoryType.IDENTITY], tags=["user-profile"],
                       include_superseded=superseded)
    return mind.list(flt, order="created_asc")


def write(mind, clock, text: str, **attrs: str) -> str:
    clock.advance(minutes=1)
    p = IdentityProfile(profile=text, attributes=attrs)
    return mind.profile.write(p, source_ids=[], now=clock.now())


def test_revisions_supersede_and_history_is_kept(mind, clock):
    assert mind.profile.get() is None and mind.profile.to_context() == ""
    assert write(mind, clock, "Lives in: Leeds.", residence="Leeds") == "created"
    assert write(mind, clock, "Lives in: Leeds.", residence="Leeds") == "unchanged"
    assert write(mind, clock, "Lives in: Lisbon.", residence="Lisbon") == "updated"
    assert write(mind, clock, "Lives in: Leeds.", residence="Leeds") == "updated"  # moved back
    first, second, third = profiles(mind)
    assert [m.id for m in profiles(mind, superseded=False)] == [third.id]
    assert first.superseded_by == second.id and second.superseded_by == third.id
    assert mind.store.get_meta(PROFILE_MEMORY_KEY) == third.id
    assert [m.id for m in mind.history(third.id)] == [first.id, second.id, third.id]
    assert [p.revision for p in mind.profile.history()] == [1, 2, 3]
    assert first.content != third.content  # same text, distinct revisions (no dedup merge)
    for m in (first, third):
        assert m.salience == 10 and m.pinned and m.source is Source.AGENT_INFERRED
    assert mind.profile.get().attributes == {"residence": "Leeds"}


def test_section_has_its_heading_and_budget(mind, clock):
    mind.identity.create("Ada", role="personal assistant")
    write(mind, clock, "\n".join(f"Fact {i}: " + "x" * 40 for i in range(60)), a="b")
    for i in range(10):
        mind.add(f"Launch note {i}: the launch is in May.")
    ctx = mind.context("when is the launch?", budget_tokens=1000)
    assert [s.name for s in ctx.sections] == ["identity", "profile", "self_awareness", "memories"]
    about = ctx.section("profile")
    assert about.text.startswith("# About the User\nFact 0: ")
    assert about.budget_tokens == 150 and about.tokens <= 150
    assert ctx.tokens <= 1000
    assert all("user-profile" not in h.memory.tags for h in ctx.hits)
    assert approx_tokens(render_profile("a\nb", 400)) <= 400
    big = mind.context("launch", budget_tokens=8000).section("profile")
    assert big.budget_tokens == 400 and big.tokens <= 400


def test_context_caches_the_section_per_revision(mind, clock):
    write(mind, clock, "Diet: vegan.", diet="vegan")
    assert "Diet: vegan." in mind.context().text
    builder = mind._layers["_context_builder"]
    cached = builder._profile_cache
    mind.context()
    assert builder._profile_cache is cached
    write(mind, clock, "Diet: pescatarian.", diet="pescatarian")
    text = mind.context().text
    assert "Diet: pescatarian." in text and "vegan" not in text


def test_found_without_its_meta_key(mind, clock):
    write(mind, clock, "Name: Tom.", name="Tom")
    mind.store.set_meta(PROFILE_MEMORY_KEY, "")  # e.g. a restored mind
    assert mind.profile.get().attributes == {"name": "Tom"}
    assert write(mind, clock, "Name: Tom B.", name="Tom B") == "updated"
    assert len(profiles(mind)) == 2 and len(profiles(mind, superseded=False)) == 1


def test_a_revision_superseded_by_a_statement_stays_current(mind, clock):
    """The contradiction check may take "Diet: vegan." for a claim and supersede it."""
    write(mind, clock, "Diet: vegan.", diet="vegan")
    old = mind.profile.get().memory_id
    stmt = mind.add("I eat fish now.")
    mind.update(old, superseded_by=stmt)
    assert mind.profile.get().memory_id == old
    assert write(mind, clock, "Diet: pescatarian.", diet="pescatarian") == "updated"
    new = mind.profile.get().memory_id
    assert mind.get(old).superseded_by == new  # the revision chain wins
    assert [m.id for m in mind.history(new)] == [old, new]


def test_profile_reads_live_memories_only(mind, clock):
    veg = mind.add("I'm vegetarian.", salience=9.0)
    mind.add("I live in Södermalm.", salience=9.0)
    mind.cognitive_run()
    assert mind.profile.get().attributes == {"diet": "vegetarian", "residence": "Södermalm"}
    clock.advance(days=2)
    pesc = mind.add("I'm pescatarian now.", salience=9.0)
    mind.update(veg, superseded_by=pesc)  # explicit supersession through the store
    mind.cognitive_run()
    p = mind.profile.get()
    assert p.attributes == {"diet": "pescatarian", "residence": "Södermalm"}
    assert "vegetarian" not in p.text and "vegetarian" not in p.traits
    assert veg not in p.source_ids and pesc in p.source_ids


def test_paradigm_shift_flag_through_the_store(mind, clock):
    """The flag as the ingest pipeline writes it (one commit: supersession, event, meta)."""
    old = mind.add("I'm vegan.", salience=9.0, memory_type="preference")
    mind.add("I work at Siemens.", salience=6.0)  # below 8: only a from-scratch run reads it
    mind.cognitive_run()
    clock.advance(hours=1)
    mind.add("I work at Siemens as an analyst.", salience=6.0)  # read as new since (>= 5)
    mind.cognitive_run()
    first = mind.profile.get()
    assert first.attributes == {"diet": "vegan", "employer": "Siemens", "occupation": "analyst"}
    clock.advance(days=1)
    new = mind.add("I'm vegetarian now.", salience=6.0, memory_type="preference")
    flag = json.dumps({"since": clock.now().isoformat(), "memory_ids": [old]})
    mind.store.commit_ingest(IngestBatch(
        supersede=[(old, new)], meta={RECONSOLIDATE_KEY: flag}, now=clock.now()
    ))
    clock.advance(hours=1)
    rep = mind.cognitive_run()
    assert rep.paradigm_shift and rep.profile == "updated" and rep.errors == []
    p = mind.profile.get()
    assert p.reason == "paradigm_shift"
    assert p.attributes == {"diet": "vegetarian", "employer": "Siemens", "occupation": "analyst"}
    assert mind.store.get_meta(RECONSOLIDATE_KEY) == ""
    (ev,) = mind.store.events(PROFILE_EVENT)
    assert (ev.memory_id, ev.related_id) == (p.memory_id, first.memory_id)
    assert ev.payload["successors"] == [new] and ev.payload["changed"] == ["diet"]
    log = mind.store.maintenance_log(kind="cognitive")[0]
    assert log.details["paradigm_shift"] is True and log.details["profile"] == "updated"
    assert mind.cognitive_run().paradigm_shift is False  # cleared: an ordinary run


def test_stale_attributes_are_hidden_until_the_next_run(mind, clock):
    a = mind.add("I live in Leeds.")
    b = mind.add("I'm vegan.")
    p = IdentityProfile(
        profile="Lives in: Leeds.\nDiet: vegan.",
        attributes={"residence": "Leeds", "diet": "vegan"},
        sources={"residence": [a], "diet": [b]},
    )
    mind.profile.write(p, source_ids=[a, b], now=clock.now())
    assert mind.profile.stale() == set()
    assert mind.profile.to_context() == "# About the User\nLives in: Leeds.\nDiet: vegan."
    mind.update(b, superseded_by=mind.add("I eat fish now."))
    assert mind.profile.stale() == {"diet"}
    assert mind.profile.to_context() == "# About the User\nLives in: Leeds."
    assert "vegan" not in mind.context().text
    mind.delete(a)
    assert mind.profile.to_context() == "" and mind.profile.get() is not None


def test_stale_attributes_rule():
    p = UserProfile(
        memory_id="x", revision=1, text="", attributes={"a": "1", "b": "2", "c": "3"},
        sources={"a": ["m1"], "b": ["m1", "m2"]}, source_ids=["m1", "m2", "m3"],
    )
    assert stale_attributes(p, {"m1", "m2", "m3"}) == set()
    assert stale_attributes(p, {"m2", "m3"}) == {"a", "c"}  # c: provenance unknown
    assert stale_attributes(p, set()) == {"a", "b", "c"}


def test_user_statements_read_the_users_words_only():
    turn = Memory(content="User: I live in Oslo.\nAssistant: I live in the cloud.")
    mail = Memory(content="I moved to Rome.", source=Source.IMPORT)
    plain = Memory(content="I'm vegan.")
    imported_chat = Memory(content="User: I'm 40.\nAssistant: Happy birthday!",
                           source=Source.IMPORT)
    out = user_statements([turn, mail, plain, imported_chat])
    assert [m.content for m in out] == ["I live in Oslo.", "I'm vegan.", "I'm 40."]
    assert out[0].id == turn.id and out[0].summary == ""
    # one named speaker is the user; several named speakers are a chat between people
    alice = [Memory(content="Alice: I live in Bergen."), Memory(content="Alice: I'm 31.")]
    assert [m.content for m in user_statements(alice)] == ["I live in Bergen.", "I'm 31."]
    pair = [Memory(content="Alice: I live in Bergen."), Memory(content="Bob: I live in Oslo.")]
    assert user_statements(pair) == []
    multi = Memory(content="User: I moved.\nIt is to Lisbon.\nAssistant: Nice.")
    assert user_statements([multi])[0].content == "I moved.\nIt is to Lisbon."
