"""The four ingestion paths end to end: thresholds, quality boost, contradictions, paradigm
shifts, history, archive distillation and the ai_interactions log."""

from __future__ import annotations

import json

import pytest
from ingest_helpers import failing, open_mind

from salience.errors import InvalidInput, NotFound
from salience.ingest.items import RECONSOLIDATE_KEY
from salience.llm.brain import Fact
from salience.models import Importance, MemoryFilter, MemoryType, Source


def test_remember_turn_is_deferred_and_costs_no_model_call(mind, brain):
    qid = mind.remember_turn("I live in Lisbon", "Noted", tool_grounded=True)
    assert isinstance(qid, int)
    assert brain.calls == {}
    assert mind.count() == 0
    assert mind.queue_status()["pending_triage"] == 1


@pytest.mark.parametrize(
    ("salience", "grounded", "saved"),
    [(2, True, False), (3, True, True), (4, False, False), (5, False, True)],
)
def test_thresholds_gate_what_the_assistant_adds(mind, brain, salience, grounded, saved):
    """Design A's 3/5 thresholds decide whether the assistant's reply is kept when the person
    said nothing worth keeping."""
    brain.salience_for = lambda text: salience
    res = mind.remember_turn(
        "ok", "Border collies were bred in Scotland.", tool_grounded=grounded, defer=False
    )
    assert bool(res.saved) is saved
    assert res.skipped == (None if saved else "noise")
    if saved:
        m = mind.get(res.id)
        assert m.source is (Source.TOOL_VERIFIED if grounded else Source.AGENT_INFERRED)


@pytest.mark.parametrize("salience", [1, 2, 4])
def test_what_the_user_states_is_kept_whatever_its_salience(mind, brain, salience):
    brain.salience_for = lambda text: salience
    res = mind.remember_turn("My dog is called Rex", "Nice", defer=False)
    assert res.saved and res.skipped is None
    m = mind.get(res.id)
    assert m.source is Source.USER_STATED
    assert m.importance is Importance.NORMAL  # a low score is not "temporary"
    assert m.content == "User: My dog is called Rex\nAssistant: Nice"


def test_quality_boost_raises_salience_and_importance(mind, brain):
    brain.salience_for = lambda text: 6
    brain.specificity, brain.uniqueness = 1.0, 1.0
    res = mind.remember_turn("My sister Ana lives in Porto", "ok", defer=False)
    m = mind.get(res.id)
    assert m.salience == pytest.approx(6 + 1.0 * (1 - 0.6))  # 6.4
    assert m.confidence == pytest.approx(0.9)
    assert m.importance is Importance.NORMAL


def test_email_path_saves_low_salience_unless_model_says_no(mind, brain):
    brain.salience_for = lambda text: 1
    svc = mind._ingest()
    from salience.ingest.items import IngestItem

    res = svc.ingestor.triage_and_save(IngestItem(path="email", text="Subject: newsletter"))
    assert res.saved and mind.get(res.id).memory_type is MemoryType.EMAIL
    brain.save = False
    res = svc.ingestor.triage_and_save(IngestItem(path="email", text="Subject: promo 50% off"))
    assert not res.saved and res.skipped == "model_said_no"


def test_save_memory_saves_everything_without_any_model_call(mind, brain):
    res = mind.save_memory("ok", salience=1, tags=["x"], memory_type="preference")
    assert res.saved and brain.calls == {}
    m = mind.get(res.id)
    assert (m.salience, m.memory_type, m.tags, m.source) == (
        1.0, MemoryType.PREFERENCE, ["x"], Source.USER_STATED,
    )
    again = mind.save_memory("ok")
    assert again.saved == [] and again.duplicate_of == res.id
    with pytest.raises(InvalidInput):
        mind.save_memory("x", memory_type="nonsense")
    with pytest.raises(InvalidInput):
        mind.save_memory("   ")


def test_duplicate_exchange_is_not_triaged_again(mind, brain):
    first = mind.remember_turn("My dog is called Rex", "Nice", defer=False)
    calls = dict(brain.calls)
    second = mind.remember_turn("My dog is called Rex", "Nice", defer=False)
    assert second.skipped == "duplicate" and second.duplicate_of == first.id
    assert brain.calls == calls
    assert mind.count() == 1


def test_contradiction_supersedes_and_history_shows_the_chain(mind, brain):
    brain.salience_for = lambda text: 8
    brain.contradict = lambda new, cands: [i for i, c in enumerate(cands) if "live" in c]
    a = mind.remember_turn("I live in Lisbon", "ok", defer=False)
    b = mind.remember_turn("I live in Porto now", "ok", defer=False)
    c = mind.remember_turn("I live in Faro these days", "ok", defer=False)
    assert b.superseded == [a.id] and c.superseded == [b.id]
    assert mind.get(a.id).superseded_by == b.id  # never deleted
    assert [m.id for m in mind.list()] == [c.id]
    chain = [m.id for m in mind.history(b.id)]
    assert chain == [a.id, b.id, c.id]
    assert [m.id for m in mind.history(a.id)] == chain
    with pytest.raises(NotFound):
        mind.history("0" * 32)


def test_compatible_and_distant_memories_are_left_alone(mind, brain):
    brain.salience_for = lambda text: 8
    brain.contradict = lambda new, cands: []
    a = mind.remember_turn("I live in Lisbon", "ok", defer=False)
    mind.remember_turn("I live in Lisbon and love it", "ok", defer=False)
    brain.contradict = lambda new, cands: list(range(len(cands)))
    mind.remember_turn("My job is teaching", "ok", defer=False)  # far away: not a candidate
    assert mind.get(a.id).superseded_by is None


def test_paradigm_shift_records_event_and_flags_reconsolidation(mind, brain):
    brain.salience_for = lambda text: 8
    brain.memory_type = MemoryType.PREFERENCE
    brain.contradict = lambda new, cands: [0]
    old = mind.remember_turn("My favourite color is blue", "ok", defer=False)
    new = mind.remember_turn("My favourite color is red now", "ok", defer=False)
    assert new.paradigm_shift and new.superseded == [old.id]
    events = mind.store.events("paradigm_shift")
    assert len(events) == 1
    assert (events[0].memory_id, events[0].related_id) == (new.id, old.id)
    flag = json.loads(mind.store.get_meta(RECONSOLIDATE_KEY))
    assert flag["memory_ids"] == [old.id]


def test_low_salience_supersession_is_not_a_paradigm_shift(mind, brain):
    brain.salience_for = lambda text: 5
    brain.contradict = lambda new, cands: [0]
    mind.remember_turn("I live in Lisbon", "ok", defer=False)
    res = mind.remember_turn("I live in Porto", "ok", defer=False)
    assert res.superseded and not res.paradigm_shift
    assert mind.store.get_meta(RECONSOLIDATE_KEY) is None


def test_archive_keeps_raw_slide_at_3_and_distilled_facts_from_5(mind, brain):
    brain.facts = lambda text: [Fact("Ana's birthday is May 3", 7), Fact("It rained", 2)]
    res = mind.archive_context(
        [{"role": "user", "content": "Ana's birthday is May 3. It rained."},
         {"role": "assistant", "content": "Noted."}]
    )
    assert len(res.saved) == 2 and not res.staged
    raw, fact = mind.store.get_many(res.saved)
    assert raw.salience == 3 and raw.source is Source.SYSTEM and "archive" in raw.tags
    assert raw.content.startswith("User: Ana's birthday")
    assert fact.content == "Ana's birthday is May 3" and fact.salience == 7
    assert fact.related_ids == [raw.id] and fact.memory_type is MemoryType.FACT
    assert "triage" not in brain.calls


def test_archive_stages_distillation_when_it_fails_then_the_drain_retries(mind, brain, clock):
    brain.fail = failing({"distillation"})
    res = mind.archive_context(["User: my sister Eva is a nurse"])
    assert res.staged and len(res.saved) == 1
    assert mind.queue_status()["pending_distillation"] == 1
    brain.fail = lambda site, text: None
    brain.facts = lambda text: [Fact("Eva, the user's sister, is a nurse", 8)]
    report = mind.drain_pending_triage()
    assert report.saved == 1
    facts = mind.list(MemoryFilter(memory_types=[MemoryType.FACT]))
    assert [f.related_ids for f in facts] == [[res.id]]
    assert mind.queue_status()["pending_distillation"] == 0


def test_every_model_call_is_logged_with_retention(mind, brain, clock, config):
    mind.remember_turn("My dog is called Rex", "Nice", defer=False)
    rows = mind.store.interactions()
    assert [r["call_site"] for r in reversed(rows)] == ["triage", "quality"]
    assert all(r["provider"] == "scripted" and r["outcome"] == "ok" for r in rows)
    clock.advance(days=config.ai_interactions_retention_days + 1)
    report = mind.drain_pending_triage()
    assert report.purged_interactions == 2
    assert mind.store.interactions() == []


def test_the_default_brain_is_heuristic_and_logged(heuristic_mind):
    res = heuristic_mind.remember_turn(
        "I just got engaged to Maria! We're getting married in June in Lisbon.",
        "Congratulations!", defer=False,
    )
    assert res.saved and res.salience >= 7
    small = heuristic_mind.remember_turn("hi", "hello!", defer=False)
    assert not small.saved and small.skipped == "noise"
    skips = heuristic_mind.store.events("triage_skipped")
    assert [e.payload["reason"] for e in skips] == ["noise"]
    sites = {r["call_site"] for r in heuristic_mind.store.interactions()}
    assert {"triage", "quality"} <= sites
    assert {r["provider"] for r in heuristic_mind.store.interactions()} == {"heuristic"}


def test_heuristic_contradiction_end_to_end(config, clock):
    mind = open_mind(config, clock, embedder=None)
    try:
        mind.save_memory("I live in Lisbon", memory_type="fact", salience=8)
        res = mind.remember_turn("I live in Porto now, not in Lisbon anymore", "Noted", defer=False,
                                 tool_grounded=True)
        assert res.saved
        # the topic embedder puts both within distance 0.3; the heuristic says CONTRADICTS
        assert len(res.superseded) == 1
    finally:
        mind.close()
