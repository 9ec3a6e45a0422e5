"""Deferred triage against a real HTTP model server that misbehaves: items stay queued or land
in failed_operations — never lost, never saved twice."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator

import pytest
from fake_llm import FakeLLMServer, completion, valid_answer
from ingest_helpers import open_mind

from salience.llm.llm_brain import LLMBrain
from salience.llm.openai import OpenAICompatibleLLM

N = 6


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    s = FakeLLMServer().start()
    try:
        yield s
    finally:
        s.stop()


def llm_mind(config, clock, url: str, sleeps: list[float], *, timeout: float = 2.0,
             retries: int = 1, path=None):
    def factory(rec):
        llm = OpenAICompatibleLLM(
            base_url=url, model="fake", max_retries=retries, timeout_s=timeout,
            sleep=sleeps.append, on_call=rec, clock=clock, rng=random.Random(0),
        )
        return LLMBrain(llm)

    return open_mind(config, clock, brain_factory=factory, path=path)


def fill(mind, n: int = N) -> None:
    for i in range(n):
        mind.remember_turn(f"My dog number {i} is called Rex{i}", f"Noted {i}")


def assert_exactly_once(mind, n: int = N) -> None:
    mems = mind.list(limit=1000)
    assert len(mems) == len({m.content_hash for m in mems})  # no duplicates
    status = mind.queue_status()
    assert len(mems) + status["pending_triage"] + status["failed_operations"] == n  # no loss


def test_valid_json_saves_every_item_and_logs_tokens(config, clock, server):
    mind = llm_mind(config, clock, server.url, [])
    fill(mind)
    report = mind.drain_pending_triage()
    assert (report.saved, report.retried, report.failed) == (N, 0, 0)
    assert_exactly_once(mind)
    rows = mind.store.interactions(limit=100)
    assert {r["provider"] for r in rows} == {"openai"}
    assert {"triage", "quality"} <= {r["call_site"] for r in rows}
    assert all(r["prompt_tokens"] == 10 and r["total_tokens"] == 15 for r in rows)
    assert all(r["outcome"] == "ok" for r in rows)
    mind.close()


@pytest.mark.parametrize("mode", ["malformed", "wrong_schema", "500"])
def test_bad_answers_keep_items_queued_then_succeed(config, clock, server, mode):
    mind = llm_mind(config, clock, server.url, [])
    fill(mind)
    server.mode = mode
    report = mind.drain_pending_triage()
    assert (report.saved, report.retried) == (0, N)
    assert_exactly_once(mind)
    assert {p.attempts for p in mind.store.due_items("triage", now=None, limit=99)} == {1}
    assert any(r["outcome"] == "error" for r in mind.store.interactions())
    server.mode = "ok"
    clock.advance(seconds=config.queue_retry_base_s)
    assert mind.drain_pending_triage().saved == N
    assert mind.count() == N
    assert_exactly_once(mind)
    mind.close()


def test_persistent_failure_ends_in_failed_operations(config, clock, server):
    mind = llm_mind(config, clock, server.url, [], retries=0)
    fill(mind, 3)
    server.mode = "500"
    for _ in range(config.queue_max_attempts):
        mind.drain_pending_triage()
        clock.advance(hours=1)
    status = mind.queue_status()
    assert (status["pending_triage"], status["failed_operations"]) == (0, 3)
    assert all("HTTP 500" in f["error"] for f in status["failed"])
    assert_exactly_once(mind, 3)
    server.mode = "ok"
    assert mind.retry_failed() == 3
    assert mind.drain_pending_triage().saved == 3
    assert_exactly_once(mind, 3)
    mind.close()


def test_timeouts_count_as_attempts(config, clock, server):
    mind = llm_mind(config, clock, server.url, [], timeout=0.3, retries=0)
    fill(mind, 2)
    server.mode = "hang"
    report = mind.drain_pending_triage()
    assert report.retried == 2 and mind.count() == 0
    assert all("timed out" in e for e in report.errors)
    server.mode = "ok"
    clock.advance(hours=1)
    assert mind.drain_pending_triage().saved == 2
    assert_exactly_once(mind, 2)
    mind.close()


def test_429_with_retry_after_is_honoured_and_saves_once(config, clock, server):
    sleeps: list[float] = []

    def responder(schema, prompt, n):
        if n == 1:
            return 429, {"error": {"message": "rate limited"}}, {"Retry-After": "2"}
        import json

        return 200, completion(json.dumps(valid_answer(schema, prompt))), {}

    server.responder = responder
    mind = llm_mind(config, clock, server.url, sleeps, retries=2)
    fill(mind, 2)
    report = mind.drain_pending_triage()
    assert report.saved == 2 and report.retried == 0
    assert sleeps == [2.0]
    assert_exactly_once(mind, 2)
    mind.close()


def test_server_dies_mid_drain_then_comes_back(config, clock, server, tmp_path):
    """The server dies in the middle of an item (after its triage call): the items done
    before stay saved once, the rest stay queued; a new server finishes the job."""
    import json

    died = threading.Event()
    qualities = {"n": 0}

    def responder(schema, prompt, n):
        if schema == "QualityAnswer":
            qualities["n"] += 1
        if schema == "QualityAnswer" and qualities["n"] == 4:  # the 4th item, after its triage
            threading.Thread(target=server.stop, daemon=True).start()
            died.set()
            return 0, None, {}
        return 200, completion(json.dumps(valid_answer(schema, prompt))), {}

    server.responder = responder
    db = tmp_path / "dies.db"
    mind = llm_mind(config, clock, server.url, [], timeout=1.0, retries=1, path=db)
    fill(mind)
    report = mind.drain_pending_triage()
    assert died.is_set()
    assert report.saved == 3 and report.retried == N - 3
    assert mind.count() == 3
    assert_exactly_once(mind)
    mind.close()
    back = FakeLLMServer().start()
    try:
        mind = llm_mind(config, clock, back.url, [], path=db)
        clock.advance(hours=1)
        assert mind.drain_pending_triage().saved == N - 3
        assert mind.count() == N
        assert_exactly_once(mind)
        assert mind.queue_status()["pending_triage"] == 0
        mind.close()
    finally:
        back.stop()
