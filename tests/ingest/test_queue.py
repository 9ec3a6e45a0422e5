"""The durable triage queue: retries, failed_operations, atomic completion, no loss, no
duplicates."""

from __future__ import annotations

from datetime import timedelta

import pytest
from ingest_helpers import failing

from salience.errors import LLMError, StoreError
from salience.ingest.items import IngestItem
from salience.store.ingest import QueueItem


def _turns(mind, n, **kw):
    return [mind.remember_turn(f"My dog number {i} is called Rex{i}", "Nice", **kw) for i in range(n)]


def test_drain_saves_each_item_once_and_empties_the_queue(mind, brain):
    _turns(mind, 5)
    report = mind.drain_pending_triage()
    assert (report.processed, report.saved, report.failed) == (5, 5, 0)
    assert mind.count() == 5
    assert mind.queue_status()["pending_triage"] == 0
    assert mind.drain_pending_triage().processed == 0


def test_drain_respects_limit_and_fifo_order(mind, brain):
    _turns(mind, 5)
    assert mind.drain_pending_triage(limit=2).processed == 2
    contents = sorted(m.content for m in mind.list())
    assert contents == sorted(f"User: My dog number {i} is called Rex{i}\nAssistant: Nice"
                              for i in range(2))


def test_failures_retry_with_backoff_then_land_in_failed_operations(mind, brain, clock, config):
    brain.fail = failing({"triage"})
    _turns(mind, 2)
    r1 = mind.drain_pending_triage()
    assert (r1.retried, r1.failed, r1.saved) == (2, 0, 0)
    assert mind.drain_pending_triage().processed == 0  # not due yet (backoff)
    pending = mind.store.due_items("triage", now=None, limit=10)
    assert [p.attempts for p in pending] == [1, 1]
    assert "scripted failure at triage" in pending[0].last_error
    clock.advance(seconds=config.queue_retry_base_s)
    assert mind.drain_pending_triage().retried == 2
    clock.advance(seconds=config.queue_retry_base_s * 2)
    r3 = mind.drain_pending_triage()
    assert r3.failed == 2
    status = mind.queue_status()
    assert (status["pending_triage"], status["failed_operations"]) == (0, 2)
    failed = status["failed"][0]
    assert failed["attempts"] == 3 and "LLMError" in failed["error"]
    assert failed["payload"]["text"].startswith("User: My dog number")
    assert mind.count() == 0
    # post-mortem done: retry them
    brain.fail = lambda site, text: None
    assert mind.retry_failed() == 2
    assert mind.drain_pending_triage().saved == 2
    assert mind.queue_status()["failed_operations"] == 0
    assert mind.count() == 2


def test_retry_failed_by_id(mind, brain, clock):
    brain.fail = failing({"triage"})
    mind.store.enqueue("triage", [QueueItem("conversation", {"path": "nope"}, clock.now())])
    assert mind.drain_pending_triage().failed == 1  # a poison payload fails at once
    op = mind.store.failed_operations()[0]
    assert op.attempts == 1 and "malformed ingest payload" in op.error
    assert mind.retry_failed([op.id + 100]) == 0
    assert mind.retry_failed([op.id]) == 1
    assert mind.queue_status()["pending_triage"] == 1


def test_store_failure_during_save_leaves_item_queued_and_nothing_saved(mind, brain, monkeypatch):
    _turns(mind, 3)
    store = mind.store
    real = store._insert_rows
    calls = {"n": 0}

    def flaky(db, memories, vecs):
        calls["n"] += 1
        pks = real(db, memories, vecs)  # rows written inside the transaction ...
        if calls["n"] == 2:
            raise StoreError("disk I/O error")  # ... then the commit fails: rolled back
        return pks

    monkeypatch.setattr(store, "_insert_rows", flaky)
    with pytest.raises(StoreError):
        mind.drain_pending_triage()
    assert mind.count() == 1
    assert mind.queue_status()["pending_triage"] == 2
    monkeypatch.setattr(store, "_insert_rows", real)
    assert mind.drain_pending_triage().saved == 2
    assert mind.count() == 3
    assert mind.queue_status()["pending_triage"] == 0


def test_an_item_completed_elsewhere_is_not_saved_twice(mind, brain):
    qid = mind.remember_turn("My dog is called Rex", "Nice")
    ing = mind._ingest().ingestor
    item = IngestItem.from_payload(mind.store.due_items("triage", now=None, limit=1)[0].payload)
    first = ing.triage_and_save(item, dequeue=("triage", qid))
    assert first is not None and first.saved
    # a second drainer that read the same item before it was completed
    item2 = IngestItem(**{**item.to_payload(), "harvest": None, "occurred_at": None,
                          "text": item.text + " (edited)"})
    assert ing.triage_and_save(item2, dequeue=("triage", qid)) is None
    assert mind.count() == 1


def test_content_hash_dedup_protects_redrains(mind, brain):
    mind.remember_turn("My dog is called Rex", "Nice")
    mind.remember_turn("My dog is called Rex", "Nice")
    report = mind.drain_pending_triage()
    assert (report.saved, report.skipped) == (1, 1)
    assert mind.count() == 1


def test_failed_fail_item_on_a_gone_item(mind, clock):
    out = mind.store.fail_item("triage", 12345, "x", now=clock.now(),
                               retry_at=clock.now() + timedelta(seconds=1), max_attempts=3)
    assert out == "gone"


def test_llm_error_types_count_as_attempts_not_aborts(mind, brain):
    brain.fail = failing({"quality"}, LLMError)
    _turns(mind, 1)
    report = mind.drain_pending_triage()
    assert report.retried == 1 and mind.count() == 0
