"""The cognitive engine and the heartbeat on a simulated clock: episodes, reflections and the
user profile appear when their triggers fire and not before; ticks never overlap; a failing
step does not stop the tick."""

from __future__ import annotations

import threading
from datetime import timedelta

from salience.models import MemoryFilter, MemoryType


def of_type(mind, t: MemoryType, superseded: bool = False):
    return mind.list(MemoryFilter(memory_types=[t], include_superseded=superseded), limit=1000)


def add_topics(mind, clock, n: int, topic: str = "hiking", salience: float = 6.0) -> list[str]:
    out = []
    for i in range(n):
        clock.advance(minutes=1)
        out.append(mind.add(f"Went {topic} near Sintra with Ana, stage {i}.", salience=salience))
    return out


def test_buffer_and_lull_trigger_then_episode_and_profile(mind, clock):
    hikes = add_topics(mind, clock, 12, "hiking")
    pianos = add_topics(mind, clock, 9, "piano")  # 21 unreflected > 20
    tick = mind.heartbeat()  # the user is active (last memory 0 min ago): no run yet
    cog = {s.name: s for s in tick.steps}["cognitive"]
    assert cog.status == "skipped" and "active" in cog.detail
    assert of_type(mind, MemoryType.EPISODE) == [] and mind.profile.get() is None
    clock.advance(minutes=19)
    assert {s.name: s for s in mind.heartbeat().steps}["cognitive"].status == "skipped"
    clock.advance(minutes=1)  # 20 min idle
    cog = {s.name: s for s in mind.heartbeat().steps}["cognitive"]
    assert cog.status == "ok" and cog.detail["reason"].startswith("buffer")
    episodes = of_type(mind, MemoryType.EPISODE)
    assert len(episodes) == 2
    members = sorted(sorted(e.related_ids) for e in episodes)
    assert members == sorted([sorted(hikes), sorted(pianos)])
    for e in episodes:
        assert e.salience == 8.0 and e.content.strip() and "Sintra" in e.content
        assert e.entities  # enriched
    # the hikes say nothing about the user: no profile, and never a persona
    assert cog.detail["profile"] == "skipped" and mind.profile.get() is None
    assert mind.identity.get() is None
    # nothing new: the next tick does not run again
    clock.advance(hours=1)
    assert {s.name: s for s in mind.heartbeat().steps}["cognitive"].status == "skipped"


def test_ceiling_forces_a_run_and_near_duplicate_episode_supersedes(mind, clock):
    add_topics(mind, clock, 2, "garden")
    assert not mind.cognitive.trigger(clock.now()).fire
    clock.advance(hours=4)
    t = mind.cognitive.trigger(clock.now())
    assert t.fire and t.reason.startswith("ceiling")
    first = mind.cognitive_run(reason=t.reason)
    assert len(first.episodes) == 1
    clock.advance(minutes=1)  # the cluster grows: a near-identical episode replaces the old one
    mind.add("Garden day: planted tomatoes and basil with Rui in the raised garden beds.")
    second = mind.cognitive_run()
    assert len(second.episodes) == 1 and second.superseded_episodes == first.episodes
    assert [e.id for e in of_type(mind, MemoryType.EPISODE)] == second.episodes
    assert mind.cognitive_run().episodes == []  # same members: no new episode


def test_reflection_after_50_new_memories_grouped_by_source_type(mind, clock):
    add_topics(mind, clock, 49, "travel")
    assert mind.cognitive_run().reflection is None
    add_topics(mind, clock, 1, "budget")
    rep = mind.cognitive_run()
    assert rep.reflection is not None
    refl = mind.get(rep.reflection)
    assert refl.memory_type is MemoryType.REFLECTION and refl.salience == 9.0
    for section in ("PATTERNS", "EVOLVING INTERESTS", "CONNECTIONS", "PREDICTIONS"):
        assert section in refl.content
    assert "Of 50 memories" in refl.content and len(refl.related_ids) == 50
    assert mind.cognitive_run().reflection is None  # counting starts again


def test_consolidation_updates_the_user_profile_not_the_identity(mind, clock):
    mind.add("My name is Ada. I work as a nurse.", salience=9.0)
    mind.cognitive_run()
    assert mind.identity.get() is None  # the user's name is not the agent's
    assert mind.profile.get().attributes["name"] == "Ada"
    clock.advance(minutes=1)
    mind.add("I live in Lisbon.", salience=9.0)
    assert mind.cognitive.consolidate() == "updated"
    assert "Lives in: Lisbon." in mind.profile.get().text
    assert mind.cognitive.consolidate() == "unchanged"
    (live,) = of_type(mind, MemoryType.IDENTITY)  # one live profile memory, no persona mirror
    assert "Lisbon" in live.content and "user-profile" in live.tags
    assert len(of_type(mind, MemoryType.IDENTITY, superseded=True)) == 2  # revision 1 kept


def test_failing_step_does_not_stop_the_tick(mind, clock, monkeypatch):
    def broken(limit: int = 100):
        raise RuntimeError("queue exploded")

    monkeypatch.setattr(mind, "drain_pending_triage", broken)
    rep = mind.heartbeat()
    assert rep.ran and rep.failed == ["drain"]
    assert [s.name for s in rep.steps] == ["drain", "prefetch", "maintenance", "cognitive"]
    assert {s.name: s.status for s in rep.steps}["maintenance"] == "ok"
    assert "queue exploded" in rep.steps[0].detail
    assert mind.store.maintenance_log(kind="heartbeat")[0].count == 1


def test_heartbeat_prefetches_for_the_current_task_and_maintains_daily(mind, clock):
    mind.add("The piano tuner comes on Friday.", salience=6.0)
    mind.awareness.add("Plan the piano recital", category="task")
    rep = mind.heartbeat()
    steps = {s.name: s for s in rep.steps}
    assert steps["prefetch"].status == "ok" and steps["prefetch"].detail["memories"]
    assert steps["maintenance"].status == "ok"
    clock.advance(hours=23)
    assert {s.name: s for s in mind.heartbeat().steps}["maintenance"].status == "skipped"
    clock.advance(hours=1)
    assert {s.name: s for s in mind.heartbeat().steps}["maintenance"].status == "ok"


def test_two_concurrent_ticks_one_skips(mind, clock, monkeypatch):
    entered, release = threading.Event(), threading.Event()

    def slow_drain(limit: int = 100):
        entered.set()
        release.wait(30)
        raise RuntimeError("done waiting")

    monkeypatch.setattr(mind, "drain_pending_triage", slow_drain)
    results = []
    t = threading.Thread(target=lambda: results.append(mind.heartbeat()))
    t.start()
    assert entered.wait(30)
    second = mind.heartbeat()
    release.set()
    t.join(30)
    assert not second.ran and "running" in second.skipped_reason
    assert results[0].ran


def test_lease_held_by_another_process_skips_the_tick(mind, clock):
    assert mind.store.acquire_lease("heartbeat", "other-host:1", now=clock.now(), ttl_s=900)
    rep = mind.heartbeat()
    assert not rep.ran and "lease" in rep.skipped_reason
    clock.advance(seconds=900)  # the other holder crashed: its lease lapses
    assert mind.heartbeat().ran


def test_stats_show_queues_and_last_runs(mind, clock):
    mind.add("Garden notes.", salience=5.0)
    mind.heartbeat()
    st = mind.stats()
    assert st["queues"]["pending_triage"] == 0
    assert st["last_runs"]["maintenance"] is not None and st["last_runs"]["heartbeat"]
    assert "salience_histogram" in st
    clock.advance(timedelta(days=1))
