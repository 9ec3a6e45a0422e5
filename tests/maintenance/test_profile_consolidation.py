"""Consolidation learns about the user, never about the agent: the persona the developer wrote
stays as written, the user profile is its own memory, rebuilt from live memories only, and a
paradigm shift flagged by the ingest pipeline re-consolidates it from scratch (issue 13 item
6, issue 14 item 5)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from salience.ingest.items import PARADIGM_SHIFT_EVENT, RECONSOLIDATE_KEY
from salience.layers.profile import PROFILE_EVENT
from salience.llm import HeuristicBrain
from salience.llm.brain import Triage
from salience.models import MemoryType

PERSONA = {"role": "personal assistant", "personality": "friendly, concise"}


def say(mind, clock, user: str, assistant: str = "Noted.") -> str:
    """One live turn through the agent path (triage, admission, contradiction check)."""
    clock.advance(minutes=30)
    res = mind.remember_turn(user, assistant, defer=False)
    assert res.saved, (user, res.skipped)
    return res.saved[0]


def supersede(mind, old: str, new: str) -> None:
    """Record that `new` replaced `old`, through the store (as the contradiction check does)."""
    mind.update(old, superseded_by=new)


def test_consolidation_never_changes_the_persona(make_mind, clock):
    """Reproduction: the persona became role "data analyst", personality "Lives in: Södermalm.
    Works at: Siemens …", with "vegetarian" and "pescatarian" both as traits."""
    mind = make_mind("ada")
    created = mind.identity.create("Ada", **PERSONA)
    mirror_before = mind.list()[0].content
    say(mind, clock, "I live in Södermalm.", "Nice, Södermalm is lovely.")
    say(mind, clock, "I work at Siemens as a data analyst.", "Got it.")
    veg = say(mind, clock, "I'm vegetarian.", "Noted, I'll suggest vegetarian recipes.")
    say(mind, clock, "Thanks, I like it here!", "I like it, glad you are settling in.")
    first = mind.cognitive_run()
    clock.advance(days=3)
    pesc = say(mind, clock, "I'm pescatarian now.", "Okay, fish is fine then.")
    supersede(mind, veg, pesc)  # whatever the contradiction check decided
    second = mind.cognitive_run()

    ident = mind.identity.get()
    assert (ident.role, ident.personality, ident.traits) == (created.role, created.personality, {})
    assert ident == created  # not the role, the personality, the traits or the name
    mirror = [m for m in mind.list() if "identity" in m.tags]
    assert [m.content for m in mirror] == [mirror_before]
    assert (first.profile, second.profile) == ("created", "updated")
    ctx = mind.context("what should I cook tonight?")
    assert ctx.text.startswith(
        "# Identity\nYou are Ada.\nRole: personal assistant\nPersonality: friendly, concise\n\n"
    )
    about = ctx.section("profile").text
    assert about.startswith("# About the User\n")
    for line in ("Lives in: Södermalm.", "Works at: Siemens.", "Occupation: data analyst.",
                 "Diet: pescatarian."):
        assert line in about
    assert "vegetarian" not in about and "Likes:" not in about
    assert "About the user" not in ctx.section("memories").text  # no repetition


def test_a_mind_without_persona_gets_none(make_mind, clock):
    """Reproduction: for a mind named move-city the persona became "You are move-city.
    Personality: Likes: it glad you are settling."""
    mind = make_mind("move-city")
    say(mind, clock, "We just moved to Lisbon last week!", "Congratulations, I like it, glad "
        "you are settling in.")
    say(mind, clock, "I like it here, honestly.", "I like it too, glad you are settling.")
    say(mind, clock, "I'm allergic to penicillin.", "Thanks for telling me.")
    mind.cognitive_run()
    assert mind.identity.get() is None
    text = mind.context("hello").text
    assert "# Identity" not in text and "You are move-city" not in text
    profile = mind.profile.get()
    assert profile.attributes == {"residence": "Lisbon", "health": "allergic to penicillin"}
    assert "Likes" not in profile.text and "settling" not in profile.text


def test_a_superseded_source_leaves_the_profile(make_mind, clock):
    """The value of a superseded memory is dropped even when its successor is too weak to be
    read (salience below every threshold): stale is worse than unknown."""
    mind = make_mind("stale")
    job = mind.add("I work at Siemens.", salience=9.0)
    home = mind.add("I live in Leeds.", salience=9.0)
    mind.cognitive_run()
    assert mind.profile.get().attributes == {"employer": "Siemens", "residence": "Leeds"}
    clock.advance(days=1)
    quiet = mind.add("I accepted a job offer at Spotify.", salience=2.0)
    supersede(mind, job, quiet)
    mind.cognitive_run()
    p = mind.profile.get()
    assert p.attributes == {"residence": "Leeds"} and "Siemens" not in p.text
    assert p.source_ids == [home]


def test_a_superseded_source_is_hidden_at_once_and_fires_a_run(make_mind, clock):
    """Between cognitive runs the prompt never shows a value whose memory was superseded; the
    next heartbeat once the user is idle rebuilds the profile (not hours later)."""
    mind = make_mind("hide")
    mind.add("I work at Siemens.", salience=9.0)
    job = mind.list()[0].id
    mind.add("I live in Leeds.", salience=9.0)
    mind.cognitive_run()
    clock.advance(minutes=5)
    new = mind.add("I started a new job at Stripe.", salience=9.0)
    supersede(mind, job, new)
    about = mind.context().section("profile").text
    assert "Lives in: Leeds." in about and "Siemens" not in about and "Stripe" not in about
    assert mind.profile.stale() == {"employer"}
    engine = mind.cognitive
    assert not engine.trigger(clock.now()).fire  # the user is active
    clock.advance(minutes=20)
    assert engine.trigger(clock.now()).reason == (
        "user profile: 1 attributes lost their memories, idle"
    )
    cog = {s.name: s for s in mind.heartbeat().steps}["cognitive"]
    assert cog.status == "ok" and cog.detail["profile"] == "updated"
    assert "Works at: Stripe." in mind.context().section("profile").text
    assert mind.profile.stale() == set()
    clock.advance(minutes=30)
    assert not engine.trigger(clock.now()).fire  # done: no run without new work


def test_unchanged_profile_writes_nothing_and_calls_no_model(make_mind, clock, monkeypatch):
    brain = HeuristicBrain()
    mind = make_mind("quiet", brain=brain)
    mind.add("I live in Porto.", salience=9.0)
    assert mind.cognitive.consolidate() == "created"
    first = mind.profile.get().memory_id
    clock.advance(hours=5)
    calls = []
    monkeypatch.setattr(brain, "consolidate", lambda *a, **k: calls.append(1))
    assert mind.cognitive.consolidate() == "unchanged"
    assert calls == [] and mind.profile.get().memory_id == first


class ShiftBrain(HeuristicBrain):
    """The heuristic engine, except: diet statements are high-salience preferences, and a
    new diet contradicts an old one (so the test does not depend on the contradiction
    rules, which another change improves)."""

    def triage(self, text: str, *, kind: str = "conversation") -> Triage:  # type: ignore[override]
        t = super().triage(text, kind=kind)  # type: ignore[arg-type]
        if any(d in text for d in ("vegetarian", "pescatarian")):
            t.memory_type, t.salience = MemoryType.PREFERENCE, 8
        return t

    def contradicts(self, new: str, candidates: Sequence[str]) -> list[int]:
        if "pescatarian" not in new:
            return []
        return [i for i, c in enumerate(candidates) if "vegetarian" in c]


def test_paradigm_shift_reconsolidates_the_profile_end_to_end(make_mind, clock):
    """A high-salience preference superseded by the ingest pipeline sets the flag; the next
    heartbeat (once the user is idle) rebuilds the profile from scratch, logs the event and
    clears the flag — all through the store."""
    mind = make_mind("shift", brain=ShiftBrain(), contradiction_distance=2.0)
    mind.identity.create("Ada", **PERSONA)
    say(mind, clock, "I live in Södermalm.")
    veg = say(mind, clock, "I'm vegetarian.")
    assert mind.cognitive_run().profile == "created"
    assert mind.profile.get().attributes["diet"] == "vegetarian"
    first = mind.profile.get().memory_id

    clock.advance(hours=1)
    res = mind.remember_turn("I'm pescatarian now.", "Okay, fish is fine.", defer=False)
    assert res.paradigm_shift and veg in res.superseded
    # the pipeline may also take the profile's "Diet: vegetarian." for a claim and supersede it
    flag = json.loads(mind.store.get_meta(RECONSOLIDATE_KEY))
    assert veg in flag["memory_ids"]
    assert mind.profile.get().memory_id == first  # still the current revision meanwhile
    engine = mind.cognitive
    assert not engine.trigger(clock.now()).fire  # the user is still talking
    clock.advance(minutes=20)
    assert engine.trigger(clock.now()).reason.startswith("paradigm shift")

    tick = mind.heartbeat()
    cog = {s.name: s for s in tick.steps}["cognitive"]
    assert cog.status == "ok" and cog.detail["paradigm_shift"] is True
    assert cog.detail["profile"] == "updated"
    p = mind.profile.get()
    assert p.reason == "paradigm_shift" and p.attributes["diet"] == "pescatarian"
    assert "vegetarian" not in p.text and "Lives in: Södermalm." in p.text
    assert mind.store.get_meta(RECONSOLIDATE_KEY) == ""  # cleared
    assert mind.cognitive.pending_shift() is None
    (ev,) = mind.store.events(PROFILE_EVENT)
    assert ev.memory_id == p.memory_id and ev.related_id == first
    assert ev.payload["superseded"] == flag["memory_ids"]
    assert ev.payload["successors"] == [res.saved[0]]
    assert ev.payload["changed"] == ["diet"] and ev.payload["status"] == "updated"
    assert veg in [e.related_id for e in mind.store.events(PARADIGM_SHIFT_EVENT)]  # pipeline's
    history = [m.id for m in mind.history(p.memory_id)]
    assert history == [first, p.memory_id]  # the old revision superseded, not deleted
    assert mind.identity.get().role == "personal assistant"
    # the flag is gone: the next run is an ordinary one
    clock.advance(hours=5)
    assert mind.cognitive_run().paradigm_shift is False


def test_a_change_the_engine_cannot_read_outdates_the_profile_value(make_mind, clock):
    """Issue 14 (held-out phrasing): "keiko got promoted … now i report to some guy called
    Ravi" names the old manager while announcing a change; the profile must stop saying
    "manager Keiko" even though no new manager was read. A time word alone ("I love Lisbon
    now") outdates nothing."""
    mind = make_mind("ada")
    say(mind, clock, "My manager is Keiko, she's super chill.", "Good to know.")
    say(mind, clock, "I live in Lisbon.", "Lovely city.")
    mind.cognitive_run()
    before = mind.profile.get().attributes
    assert "Keiko" in json.dumps(before) and before.get("residence") == "Lisbon"
    clock.advance(days=20)
    say(mind, clock, "keiko got promoted to VP so now i report to some guy from sales",
        "Thanks for letting me know.")
    say(mind, clock, "I love Lisbon now that spring is here", "It is beautiful in spring.")
    mind.cognitive_run()
    after = mind.profile.get()
    assert "keiko" not in json.dumps(after.attributes).lower()
    assert "keiko" not in mind.profile.to_context().lower()
    assert after.attributes.get("residence") == "Lisbon"
