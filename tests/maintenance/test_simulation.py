"""A mind driven through 120 simulated days (SQLite, frozen clock): decay curves, idempotency,
pruning of exactly the expected ids, the superseded grace period, exemptions, dry runs and
P-frame compaction."""

from __future__ import annotations

from datetime import timedelta

import pytest

from salience.models import MemoryFilter

ALL = MemoryFilter(include_superseded=True)


def ids(mind) -> set[str]:
    return {m.id for m in mind.list(ALL, limit=10_000)}


def test_120_days_of_daily_maintenance(mind, clock):
    t0 = clock.now()
    kept_used = mind.add("I water the garden every Sunday.", salience=8.0)
    fading = mind.add("Bought a budget notebook at the station.", salience=5.0,
                      source="agent_inferred")
    stated = mind.add("I keep my passport in the blue folder.", salience=5.0)
    pinned = mind.add("My blood type is 0 negative.", salience=2.0, pinned=True)
    episode = mind.add("Episode: a week of piano practice.", salience=2.0, memory_type="episode")
    reflection = mind.add("PATTERNS\n- piano", salience=2.0, memory_type="reflection")
    identity = mind.add("You are Ada.", salience=2.0, memory_type="identity")
    temporary = mind.add("Parking spot B12 today.", salience=6.0, importance="temporary")
    old = mind.add("The dentist moved to Rua Augusta.", salience=6.0)
    new = mind.add("The dentist is now on Avenida da Liberdade.", salience=6.0,
                   source="agent_inferred")
    mind.update(old, superseded_by=new)  # superseded at day 0

    seen: dict[int, dict[str, float]] = {}
    boosted = 0.0
    gone_on: dict[str, int] = {}
    for day in range(1, 121):
        clock.set(t0 + timedelta(days=day))
        if day == 3:
            mind.search("garden Sunday", limit=1)  # one retrieval: standard rate from now on
            boosted = mind.get(kept_used).salience  # after the retrieval boost
            assert mind.get(kept_used).retrieval_count >= 1
        report = mind.maintain()
        for mid in report.deleted:
            gone_on[mid] = day
        seen[day] = {m.id: m.salience for m in mind.list(ALL, limit=100)}

    # decay curves (hand-computed). `fading` is never retrieved: 0.977/day to day 14, then 0.954.
    assert seen[10][fading] == pytest.approx(5 * 0.977**10)
    assert seen[20][fading] == pytest.approx(5 * 0.977**14 * 0.954**6)
    # `kept_used`: 2 days of decay, retrieved on day 3 (boosted), no decay within the day after
    # the retrieval (days 3-4), then the standard rate (retrieved once: never accelerated)
    assert seen[2][kept_used] == pytest.approx(8 * 0.977**2)
    assert seen[4][kept_used] == pytest.approx(boosted)
    assert seen[10][kept_used] == pytest.approx(boosted * 0.977**6)
    assert seen[60][kept_used] == pytest.approx(boosted * 0.977**56)
    assert seen[120][kept_used] == 1.0  # the floor (retrieved once, so never pruned)
    # temporary goes after 30 days; the faded, never-retrieved inferred ones (`fading`, and
    # `new`, never searched) once stale (90 days) at salience 1. The superseded memory is kept
    # as history and what the user stated fades but stays (deviations from design A).
    assert gone_on == {temporary: 30, fading: 90, new: 90}
    left = ids(mind)
    for mid in (kept_used, pinned, episode, reflection, identity, old, stated):
        assert mid in left
    assert seen[120][stated] == 1.0
    assert seen[120][pinned] == 1.0 and seen[120][identity] == 1.0  # decayed, never pruned
    prunes = mind.store.maintenance_log(kind="prune", limit=500)
    assert sorted(i for e in prunes for i in e.ids) == sorted([fading, new])
    assert sum(e.count for e in prunes) == 2


def test_two_runs_at_the_same_instant_change_nothing(mind, clock):
    a = mind.add("Hiking the Rota Vicentina.", salience=7.0)
    clock.advance(days=12)
    first = mind.maintain()
    before = mind.get(a)
    second = mind.maintain()
    assert len(first.decayed) == 1 and second.decayed == [] and second.regressed == []
    assert mind.get(a) == before


def test_dry_run_reports_and_changes_nothing(mind, clock):
    a = mind.add("Piano lesson with Marta.", salience=1.0, source="agent_inferred")
    b = mind.add("Travel budget for Porto.", salience=6.0)
    mind.store.update([mind.get(b).copy(retrieval_count=1, last_retrieved_at=clock.now())])
    clock.advance(days=95)
    dry = mind.maintain(dry_run=True)
    assert dry.dry_run and set(dry.pruned) == {a} and b in {c.id for c in dry.decayed}
    assert ids(mind) == {a, b} and mind.get(b).salience == 6.0
    assert mind.store.get_meta("maintenance_last_run_at") is None
    real = mind.maintain()
    assert set(real.pruned) == {a} and ids(mind) == {b}
    assert mind.get(b).salience == pytest.approx(dry.decayed[0].salience_after)


def test_superseded_memories_are_kept_as_history_by_default(mind, clock):
    old = mind.add("Garden hose is in the shed.", salience=9.0)
    new = mind.add("Garden hose is in the garage now.", salience=9.0)
    mind.update(old, superseded_by=new)
    clock.advance(days=400)
    assert mind.maintain().pruned == {}
    assert [m.id for m in mind.history(new)] == [old, new]


def test_superseded_grace_period_counts_from_supersession(make_mind, clock):
    mind = make_mind(prune_superseded=True)  # design A's rule, on request
    old = mind.add("Garden hose is in the shed.", salience=9.0)
    clock.advance(days=30)
    new = mind.add("Garden hose is in the garage now.", salience=9.0)
    mind.update(old, superseded_by=new)
    clock.advance(days=6)
    assert mind.maintain().pruned == {}
    clock.advance(days=1)
    assert mind.maintain().pruned == {old: "superseded"}


def test_usefulness_regresses_after_30_unretrieved_days(mind, clock):
    a = mind.add("Budget review in March.", salience=9.0)
    mind.update(a, usefulness=0.1)
    clock.advance(days=30)
    mind.maintain()
    assert mind.get(a).usefulness == pytest.approx(0.1)
    clock.advance(days=1)
    mind.maintain()
    assert mind.get(a).usefulness == pytest.approx(0.5 - 0.4 * 0.95)


def test_deprecated_compacted_after_90_days(mind, clock):
    dep = mind.add("Old wifi password hint.", salience=9.0, importance="deprecated")
    rec = mind.get(dep)  # retrieved once, so pruning (never retrieved + stale) does not apply
    mind.store.update([rec.copy(retrieval_count=1, last_retrieved_at=clock.now())])
    clock.advance(days=89)
    assert mind.maintain().compacted == {}
    clock.advance(days=1)
    assert mind.maintain().compacted == {dep: "deprecated"}
    assert mind.store.maintenance_log(kind="compact")[0].ids == [dep]


def test_pframes_merge_into_a_new_iframe_keeping_five(mind, clock):
    s = mind.sessions.open("trip")
    base = mind.sessions.add_frame(s.id, "Trip plan: Lisbon in May.")
    patches = []
    for i in range(10):
        clock.advance(minutes=1)
        patches.append(
            mind.sessions.add_frame(s.id, f"Patch {i}: booked item {i}.", frame_type="P",
                                    base_frame_id=base)
        )
    dry = mind.maintain(dry_run=True)
    assert len(dry.merges) == 1 and dry.merges[0].dropped == patches[:5]
    report = mind.maintain()
    merge = report.merges[0]
    state = mind.sessions.reconstruct_state(s.id)
    assert state.iframe.id == merge.new_iframe_id and state.patches == []
    expected = "\n".join(["Trip plan: Lisbon in May.", *(f"Patch {i}: booked item {i}." for i in range(10))])
    assert state.current_content == expected
    left = ids(mind)
    assert set(patches[5:]) <= left and not set(patches[:5]) & left and base in left
    assert mind.maintain().merges == []  # the new I-frame has no patches yet
