"""Conformance suite of the maintenance tables (score updates, maintenance log, leases), run
against every backend."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from salience.errors import InvalidInput
from salience.models import EmbeddingInfo, Memory, validate_memory
from salience.store.maintenance import MaintenanceLogEntry, ScoreUpdate

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def mem(content: str, **kw) -> Memory:
    kw.setdefault("created_at", T0)
    kw.setdefault("updated_at", T0)
    return validate_memory(Memory(content=content, **kw))


@pytest.fixture
def store(make_store):
    s = make_store()
    s.pin_embedding(EmbeddingInfo("test-model", 8))
    return s


def test_set_scores_changes_only_salience_and_usefulness(store):
    a = mem("alpha", salience=8.0, tags=["x"], entities=["Lisbon"])
    b = mem("beta", salience=3.0)
    store.insert([a, b])
    n = store.set_scores(
        [
            ScoreUpdate(a.id, 6.5, 0.4),
            ScoreUpdate(b.id, 0.2, 1.7),  # clamped to [1, 10] and [0, 1]
            ScoreUpdate("f" * 32, 5.0, 0.5),  # unknown: skipped
        ]
    )
    assert n == 2
    got = {m.id: m for m in store.get_many([a.id, b.id])}
    assert got[a.id].salience == pytest.approx(6.5) and got[a.id].usefulness == pytest.approx(0.4)
    assert got[b.id].salience == 1.0 and got[b.id].usefulness == 1.0
    assert got[a.id].updated_at == T0 and got[a.id].tags == ["x"]
    assert got[a.id].entities == ["Lisbon"] and got[a.id].content == "alpha"
    assert store.set_scores([]) == 0


def test_maintenance_log_round_trip_newest_first(store):
    e1 = MaintenanceLogEntry(kind="prune", count=2, created_at=T0, ids=["a" * 32, "b" * 32],
                             details={"reason": {"stale": 2}})
    e2 = MaintenanceLogEntry(kind="decay", count=7, created_at=T0 + timedelta(days=1),
                             details={"mean_change": -0.25})
    i1, i2 = store.log_maintenance(e1), store.log_maintenance(e2)
    assert i2 > i1 and e1.id == i1
    log = store.maintenance_log()
    assert [e.kind for e in log] == ["decay", "prune"]
    assert log[1].ids == ["a" * 32, "b" * 32] and log[1].count == 2
    assert log[1].details == {"reason": {"stale": 2}} and log[1].created_at == T0
    assert [e.id for e in store.maintenance_log(kind="prune")] == [i1]
    assert store.maintenance_log(kind="nope") == []
    assert len(store.maintenance_log(limit=1)) == 1
    with pytest.raises(InvalidInput):
        store.maintenance_log(limit=-1)


def test_lease_is_exclusive_until_expiry_and_renewable(store):
    assert store.acquire_lease("heartbeat", "p1", now=T0, ttl_s=600)
    assert not store.acquire_lease("heartbeat", "p2", now=T0 + timedelta(seconds=599), ttl_s=600)
    assert store.acquire_lease("heartbeat", "p1", now=T0 + timedelta(seconds=300), ttl_s=600)
    # renewed by p1 at +300 s: still held at +899 s, free at +900 s
    assert not store.acquire_lease("heartbeat", "p2", now=T0 + timedelta(seconds=899), ttl_s=600)
    assert store.acquire_lease("heartbeat", "p2", now=T0 + timedelta(seconds=900), ttl_s=600)
    assert not store.release_lease("heartbeat", "p1")
    assert store.acquire_lease("other", "p1", now=T0, ttl_s=60)  # leases are independent
    assert store.release_lease("heartbeat", "p2")
    assert store.acquire_lease("heartbeat", "p3", now=T0, ttl_s=60)


def test_lease_survives_reopen(make_store, backend_config):
    s = make_store("lease")
    assert s.acquire_lease("heartbeat", "p1", now=T0, ttl_s=600)
    other = make_store("lease")  # a second handle on the same mind (another process)
    assert not other.acquire_lease("heartbeat", "p2", now=T0, ttl_s=600)
