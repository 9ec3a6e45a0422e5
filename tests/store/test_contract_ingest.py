"""Conformance suite of the ingestion tables (queues, failed operations, harvest state, events,
ai_interactions), run against every backend."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from salience.errors import EmbedderMismatch, InvalidInput
from salience.llm.base import InteractionRecord
from salience.models import EmbeddingInfo, Memory, validate_memory
from salience.store.ingest import HarvestMark, IngestBatch, MindEvent, QueueItem

DIM = 8
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def vec(i: int) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[i % DIM] = 1.0
    return v


def mem(content: str, **kw) -> Memory:
    kw.setdefault("created_at", T0)
    kw.setdefault("updated_at", T0)
    return validate_memory(Memory(content=content, **kw))


@pytest.fixture
def store(make_store):
    s = make_store()
    s.pin_embedding(EmbeddingInfo("test-model", DIM))
    return s


def item(text: str, at: datetime = T0, **kw) -> QueueItem:
    return QueueItem(kind="conversation", payload={"text": text, "n": [1, "é"]}, enqueued_at=at, **kw)


def test_enqueue_and_due_items_fifo_with_schedule(store):
    ids = store.enqueue("triage", [item("a"), item("b"), item("c", next_attempt_at=T0 + timedelta(hours=1))])
    assert ids == sorted(ids) and len(set(ids)) == 3
    due = store.due_items("triage", now=T0, limit=10)
    assert [d.payload["text"] for d in due] == ["a", "b"]
    assert due[0].payload["n"] == [1, "é"] and due[0].attempts == 0 and due[0].last_error is None
    assert due[0].enqueued_at == T0 and due[0].queue == "triage"
    assert len(store.due_items("triage", now=T0 + timedelta(hours=1), limit=10)) == 3
    assert [d.id for d in store.due_items("triage", now=None, limit=2)] == ids[:2]
    assert store.due_items("distillation", now=None, limit=10) == []
    assert store.queue_counts() == {
        "pending_triage": 3, "pending_distillation": 0, "failed_operations": 0,
    }
    with pytest.raises(InvalidInput):
        store.enqueue("nope", [item("x")])


def test_commit_ingest_is_atomic_with_the_dequeue(store):
    (qid,) = store.enqueue("triage", [item("a", harvest=HarvestMark("mbox", "k1", "src"))])
    assert store.harvested("mbox", ["k1", "k2"]) == {"k1"}
    m = mem("Alice lives in Lisbon")
    done = store.commit_ingest(IngestBatch(
        memories=[m], vectors=np.stack([vec(0)]), dequeue=("triage", qid), now=T0,
        harvest=[HarvestMark("mbox", "k1", "src", "saved")],
        events=[MindEvent("paradigm_shift", T0, memory_id=m.id, payload={"x": 1})],
        meta={"flag": "1"},
    ))
    assert done is not None and done.saved == [m.id]
    assert store.get(m.id) is not None and store.get_vectors([m.id])[m.id].shape == (DIM,)
    assert store.due_items("triage", now=None, limit=10) == []
    assert store.get_meta("flag") == "1"
    ev = store.events()
    assert [(e.kind, e.memory_id, e.payload) for e in ev] == [("paradigm_shift", m.id, {"x": 1})]
    # the same queue item again (a second drainer): nothing at all is written
    again = store.commit_ingest(IngestBatch(
        memories=[mem("something else")], vectors=np.stack([vec(1)]), dequeue=("triage", qid),
        now=T0, meta={"flag": "2"},
    ))
    assert again is None
    assert store.count() == 1 and store.get_meta("flag") == "1"


def test_commit_ingest_failure_writes_nothing_and_keeps_the_item(store):
    (qid,) = store.enqueue("triage", [item("a")])
    with pytest.raises(EmbedderMismatch):
        store.commit_ingest(IngestBatch(
            memories=[mem("x")], vectors=np.ones((1, DIM + 1), dtype=np.float32),
            dequeue=("triage", qid), now=T0,
        ))
    assert store.count() == 0 and len(store.due_items("triage", now=None, limit=5)) == 1


def test_commit_ingest_dedups_by_hash_and_remaps_parents(store):
    first = mem("chunk one")
    store.commit_ingest(IngestBatch(memories=[first], vectors=np.stack([vec(0)]), now=T0))
    a = mem("chunk one")
    b = mem("chunk two", parent_id=a.id, chunk_index=1)
    done = store.commit_ingest(IngestBatch(memories=[a, b], vectors=np.stack([vec(0), vec(1)]), now=T0))
    assert done.saved == [b.id] and done.duplicates == {a.id: first.id}
    assert store.get(b.id).parent_id == first.id
    assert store.count() == 2


def test_supersede_never_deletes_and_keeps_first_successor(store):
    old, new, newer = mem("I live in Lisbon"), mem("I live in Porto"), mem("I live in Faro")
    store.commit_ingest(IngestBatch(memories=[old], vectors=np.stack([vec(0)]), now=T0))
    later = T0 + timedelta(days=1)
    done = store.commit_ingest(IngestBatch(memories=[new], vectors=np.stack([vec(0)]),
                                           supersede=[(old.id, new.id)], now=later))
    assert done.superseded == [old.id]
    got = store.get(old.id)
    assert got.superseded_by == new.id and got.updated_at == later
    done = store.commit_ingest(IngestBatch(memories=[newer], vectors=np.stack([vec(0)]),
                                           supersede=[(old.id, newer.id), (new.id, newer.id),
                                                      ("f" * 32, newer.id)], now=later))
    assert done.superseded == [new.id]
    assert store.get(old.id).superseded_by == new.id
    assert [m.id for m in store.superseded_by_id(newer.id)] == [new.id]
    assert [m.id for m in store.superseded_by_id(new.id)] == [old.id]
    assert store.count() == 3


def test_commit_ingest_can_enqueue_follow_up_work(store):
    m = mem("raw slide")
    store.commit_ingest(IngestBatch(
        memories=[m], vectors=np.stack([vec(2)]), now=T0,
        enqueue=[("distillation", item("raw slide"))],
    ))
    assert store.queue_counts()["pending_distillation"] == 1


def test_fail_item_retries_then_moves_to_failed_operations(store):
    (qid,) = store.enqueue("triage", [item("a")])
    later = T0 + timedelta(minutes=1)
    assert store.fail_item("triage", qid, "boom 1", now=T0, retry_at=later, max_attempts=2) == "retry"
    (p,) = store.due_items("triage", now=later, limit=5)
    assert (p.attempts, p.last_error, p.next_attempt_at) == (1, "boom 1", later)
    assert store.due_items("triage", now=T0, limit=5) == []
    assert store.fail_item("triage", qid, "boom 2", now=later, retry_at=later, max_attempts=2) == "failed"
    assert store.fail_item("triage", qid, "boom 3", now=later, retry_at=later, max_attempts=2) == "gone"
    (op,) = store.failed_operations()
    assert (op.queue, op.kind, op.attempts, op.error, op.payload["text"]) == (
        "triage", "conversation", 2, "boom 2", "a")
    assert op.enqueued_at == T0 and op.failed_at == later
    assert store.queue_counts()["failed_operations"] == 1
    assert store.retry_failed([op.id + 1000], now=later) == 0
    assert store.retry_failed(now=later) == 1
    (p,) = store.due_items("triage", now=later, limit=5)
    assert p.attempts == 0 and p.payload["text"] == "a"
    assert store.failed_operations() == []


def test_harvest_sources(store):
    store.enqueue("triage", [item("a", harvest=HarvestMark("ics", "uid#0", "ics:/a.ics"))])
    store.commit_ingest(IngestBatch(now=T0, harvest=[HarvestMark("ics", "uid2#0", "ics:/a.ics", "skipped")]))
    store.set_harvest_source("ics:/a.ics", "ics", now=T0, state={"items": 2})
    store.set_harvest_source("ics:/a.ics", "ics", now=T0 + timedelta(hours=1), state={"items": 3})
    (src,) = store.harvest_sources()
    assert (src.source, src.kind, src.items, src.state) == ("ics:/a.ics", "ics", 2, {"items": 3})
    assert src.last_sync_at == T0 + timedelta(hours=1)
    assert store.harvested("ics", ["uid#0", "uid2#0", "other"]) == {"uid#0", "uid2#0"}
    assert store.harvested("mbox", ["uid#0"]) == set()
    with pytest.raises(InvalidInput):
        store.commit_ingest(IngestBatch(harvest=[HarvestMark("ics", "x", "s")]))  # no time


def test_events_by_kind(store):
    store.commit_ingest(IngestBatch(now=T0, events=[
        MindEvent("a", T0, payload={"i": 1}), MindEvent("b", T0), MindEvent("a", T0, payload={"i": 2}),
    ]))
    assert [e.payload["i"] for e in store.events("a")] == [2, 1]
    assert len(store.events()) == 3 and len(store.events(limit=1)) == 1


def test_ai_interactions_log_and_purge(store):
    recs = [
        InteractionRecord("triage", "openai", "m", 100, 20, 12.5, "ok", prompt_tokens=30,
                          completion_tokens=5, total_tokens=35, started_at=T0),
        InteractionRecord("quality", "heuristic", "rules", 50, 10, 0.2, "error", error="bad"),
    ]
    store.record_interactions(recs, at=T0 + timedelta(days=10))
    rows = store.interactions()
    assert [r["call_site"] for r in rows] == ["quality", "triage"]
    t = rows[1]
    assert (t["provider"], t["prompt_tokens"], t["total_tokens"], t["outcome"], t["created_at"]) == (
        "openai", 30, 35, "ok", T0)
    assert rows[0]["error"] == "bad" and rows[0]["created_at"] == T0 + timedelta(days=10)
    assert store.purge_interactions(T0 + timedelta(days=1)) == 1
    assert [r["call_site"] for r in store.interactions()] == ["quality"]
