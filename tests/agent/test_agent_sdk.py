"""Each agent-record lifecycle through the facade, on every backend: procedures (versions,
outcomes, best), improvement signals (counted, shown once in context()), traces (by outcome
and time, retention in maintain), evolution runs (gate, promotion, history), install audit;
and the input checks every write path shares."""

from __future__ import annotations

from datetime import timedelta

import pytest

from salience import Mind
from salience.agent.rules import Gate
from salience.errors import ConflictError, InvalidInput, NotFound


# -- procedures --------------------------------------------------------------------------------
def test_procedure_lifecycle(mind, clock):
    v1 = mind.procedures.create("summarise", "Summarise: {text}", description="first")
    with pytest.raises(ConflictError):
        mind.procedures.create("summarise", "again")
    clock.advance(timedelta(minutes=1))
    v2 = mind.procedures.new_version("summarise", "Summarise in 3 bullets: {text}")
    assert (v2.version, v2.parent_id) == (2, v1.id)
    with pytest.raises(NotFound):
        mind.procedures.new_version("unknown", "x")
    for ok, cost in [(True, 1.0), (False, 3.0), (True, 2.0)]:
        got = mind.procedures.record_outcome(v1.id, success=ok, cost=cost)
    assert (got.runs, round(got.success_rate, 4), got.avg_cost) == (3, 0.6667, 2.0)
    assert mind.procedures.best("summarise").id == v1.id  # v2 untried: v1 has the runs
    for _ in range(3):
        mind.procedures.record_outcome(v2.id, success=True, cost=1.0)
    assert mind.procedures.best("summarise").id == v2.id
    assert [p.version for p in mind.procedures.versions("summarise")] == [1, 2]
    assert mind.procedures.active("summarise") is None
    with pytest.raises(NotFound):
        mind.procedures.best("nothing")


# -- signals and self-awareness ----------------------------------------------------------------
def test_repeated_corrections_become_a_signal_shown_once(mind):
    for key in ("Date format", "date  format", "DATE FORMAT"):
        s = mind.signals.correction(key, "the user wants ISO dates (2026-04-01)")
    assert s.count == 3 and s.pattern_key == "date format"
    mind.signals.record("capability_gap", "pdf export", "asked twice")
    mind.signals.record("capability_gap", "pdf export")
    assert [x.pattern_key for x in mind.signals.actionable()] == ["date format"]
    first = mind.context(tools=["web_search", "calendar"], skills=["trip planning"],
                         mode="local", version="concierge 2.1")
    aware = first.section("self_awareness").text
    assert "Tools: web_search, calendar" in aware and "Skills: trip planning" in aware
    assert "Mode: local · Version: concierge 2.1 (Salience " in aware
    assert "## Improvement Signals" in aware
    assert "- [correction ×3] date format: the user wants ISO dates (2026-04-01)" in aware
    assert "pdf export" not in aware  # seen twice: not actionable yet
    assert [x.pattern_key for x in first.signals] == ["date format"]
    again = mind.context()
    assert "Improvement Signals" not in again.section("self_awareness").text  # never twice
    assert again.signals == ()
    assert mind.signals.get("correction", "date format").surfaced
    mind.signals.record("capability_gap", "pdf export")  # the third time
    peek = mind.context(surface_signals=False)
    assert "pdf export" not in peek.text and not mind.signals.get("capability_gap", "pdf export").surfaced
    assert "pdf export" in mind.context().text


def test_signals_that_do_not_fit_the_budget_stay_unsurfaced(mind):
    for i in range(30):
        for _ in range(3):
            mind.signals.record("workflow_pattern", f"pattern number {i:02d}", "x" * 60)
    ctx = mind.context(budget_tokens=400)
    aware = ctx.section("self_awareness")
    assert aware.tokens <= aware.budget_tokens
    shown = {s.pattern_key for s in ctx.signals}
    assert 0 < len(shown) < 30
    assert all(f"] {k}:" in aware.text for k in shown)
    left = {s.pattern_key for s in mind.signals.actionable(limit=50)}
    assert left and not (left & shown) and len(left) + len(shown) == 30


def test_context_names_agent_records(mind):
    p = mind.procedures.create("triage", "Triage: {mail}")
    mind.traces.record("triage inbox", "success", procedure_id=p.id)
    mind.traces.record("triage inbox", "failure", procedure_id=p.id)
    aware = mind.context().section("self_awareness").text
    assert "Agent: 1 procedures, 2 runs (1 succeeded)" in aware


# -- traces ------------------------------------------------------------------------------------
def test_trace_lifecycle_and_retention(mind, clock):
    p = mind.procedures.create("book", "Book: {trip}")
    t0 = clock.now()
    for i, outcome in enumerate(["success", "failure", "success", "partial"]):
        mind.traces.record(f"run {i}", outcome, trace={"steps": ["search", "book"], "i": i},
                           procedure_id=p.id, cost=0.5, duration_ms=120.0)
        clock.advance(timedelta(days=30))
    got = mind.procedures.get(p.id)
    assert (got.runs, got.successes) == (4, 2)  # partial is not a success
    assert [t.task for t in mind.traces.list(outcome="success")] == ["run 2", "run 0"]
    window = mind.traces.list(since=t0 + timedelta(days=20), until=t0 + timedelta(days=70))
    assert [t.task for t in window] == ["run 2", "run 1"]
    assert mind.traces.counts() == {"failure": 1, "partial": 1, "success": 2}
    mind.installs.record("calendar", "skill")
    clock.advance(timedelta(days=1))
    # now = t0 + 121 d; the default bound is 90 days: runs 0 (t0) and 1 (t0 + 30 d) are older
    dry = mind.maintain(dry_run=True)
    assert dry.retention["traces"] == 2 and len(mind.traces.list()) == 4
    report = mind.maintain()
    assert report.to_dict()["retention"] == {"traces": 2, "interactions": 0}
    assert [t.task for t in mind.traces.list()] == ["run 3", "run 2"]
    assert len(mind.installs.list()) == 1  # audit rows are never pruned


# -- evolution ---------------------------------------------------------------------------------
def test_evolution_promotes_a_better_version(mind):
    base = mind.procedures.create("reply", "Reply: {msg}")
    cand = mind.procedures.new_version("reply", "Reply briefly, cite the thread: {msg}")
    for ok in (True, False, False, True):
        mind.procedures.record_outcome(base.id, success=ok, cost=1.0)
    for ok in (True, True, True, False):
        mind.procedures.record_outcome(cand.id, success=ok, cost=1.1)
    run = mind.evolution.propose("procedure:reply", baseline_id=base.id, candidate_id=cand.id,
                                 description="shorter replies")
    decided = mind.evolution.evaluate(run.id, gate=Gate(min_samples=4))
    assert decided.status.value == "accepted" and decided.winner == "candidate"
    assert decided.baseline_metrics["success_rate"] == 0.5
    assert "0.5 -> 0.75" in decided.reason
    assert mind.procedures.active("reply").id == cand.id
    assert mind.procedures.best("reply").id == cand.id
    with pytest.raises(ConflictError):
        mind.evolution.evaluate(run.id)
    worse = mind.procedures.new_version("reply", "REPLY IN CAPS: {msg}")
    run2 = mind.evolution.propose("procedure:reply", baseline_id=cand.id, candidate_id=worse.id)
    rejected = mind.evolution.evaluate(run2.id, candidate={"success_rate": 0.2, "samples": 10})
    assert rejected.status.value == "rejected" and rejected.winner == "baseline"
    assert mind.procedures.active("reply").id == cand.id  # unchanged
    schema = mind.evolution.propose("schema:memories", kind="schema")
    mind.evolution.evaluate(schema.id, baseline={"success_rate": 0.4},
                            candidate={"success_rate": 0.6})
    assert [r.id for r in mind.evolution.history("procedure:reply")] == [run2.id, run.id]
    assert [r.status.value for r in mind.evolution.history(status="accepted")] == [
        "accepted", "accepted",
    ]
    other = mind.procedures.create("other", "x")
    with pytest.raises(InvalidInput, match="not a version"):
        mind.evolution.propose("procedure:reply", candidate_id=other.id)
    with pytest.raises(InvalidInput, match="metrics are required"):
        mind.evolution.evaluate(mind.evolution.propose("schema:x", kind="schema").id)


# -- install audit -----------------------------------------------------------------------------
def test_install_audit(mind):
    a = mind.installs.record("github", "mcp", risk="high", trust_source="url",
                             approval_class="user_approved", details={"url": "https://x"})
    mind.installs.record("shell", "native", action="deny", risk="critical",
                         approval_class="policy_denied")
    assert [e.capability for e in mind.installs.list()] == ["shell", "github"]
    assert mind.installs.list(kind="mcp") == [a]
    assert not hasattr(mind.installs, "delete") and not hasattr(mind.installs, "update")


# -- validation ----------------------------------------------------------------------------------
@pytest.fixture
def sqlite_mind(config, clock):
    """Input checks run before any store call: one backend is enough (PostgreSQL setup per
    case would cost the suite ~30 schema migrations)."""
    with Mind.open("checks", config=config, clock=clock) as m:
        yield m


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.procedures.create("", "t"),
        lambda m: m.procedures.create("n", "   "),
        lambda m: m.procedures.create(42, "t"),
        lambda m: m.procedures.create("n\nm", "t"),
        lambda m: m.procedures.create("n", "t", metadata={"x": float("nan")}),
        lambda m: m.procedures.create("n", "\ud800 surrogate"),
        lambda m: m.procedures.create("n", "x" * 300_000),
        lambda m: m.signals.record("complaint", "k"),
        lambda m: m.signals.record("correction", "k" * 201),
        lambda m: m.signals.record("correction", "k", b"bytes" * 10_000),
        lambda m: m.signals.correction("k", "\x00"),
        lambda m: m.traces.record("t", "won"),
        lambda m: m.traces.record("t", "success", cost=float("nan")),
        lambda m: m.traces.record("t", "success", cost=-1),
        lambda m: m.traces.record("t", "success", cost="3"),
        lambda m: m.traces.record("t", "success", trace={"big": "x" * 1_100_000}),
        lambda m: m.traces.record("t", "success", trace={"x": {1, 2}}),
        lambda m: m.traces.record("t", "success", duration_ms=float("inf")),
        lambda m: m.traces.list(since="yesterday"),
        lambda m: m.installs.record("c", "browser-extension"),
        lambda m: m.installs.record("c", "mcp", risk="none"),
        lambda m: m.installs.record("c", "mcp", trust_source=""),
        lambda m: m.evolution.propose("t", kind="weights"),
        lambda m: m.evolution.propose("t", proposal=[1, 2]),
        lambda m: m.context(tools="web_search"),
        lambda m: m.context(tools=[None]),
        lambda m: m.signals.mark_surfaced("0" * 32),
        lambda m: m.evolution.evaluate("0" * 32, gate={"metric": "x"}),
        lambda m: m.procedures.best("p", min_runs=1.5),
        lambda m: m.traces.record("t", "success", metadata=["not", "a", "dict"]),
    ],
)
def test_bad_input_is_a_clear_invalid_input(sqlite_mind, call):
    with pytest.raises(InvalidInput):
        call(sqlite_mind)


def test_wrong_ids_are_not_found(mind):
    p = mind.procedures.create("p", "t")
    with pytest.raises(InvalidInput):
        mind.procedures.record_outcome(p.id, success="yes")
    with pytest.raises(NotFound):
        mind.procedures.record_outcome("0" * 32, success=True)
    with pytest.raises(NotFound):
        mind.traces.record("t", "success", procedure_id="0" * 32)
    assert mind.traces.list() == []  # the trace was not written either
    with pytest.raises(NotFound):
        mind.evolution.get("0" * 32)


def test_interactions_bounded_by_age_and_count(mind, clock):
    from salience.llm.base import InteractionRecord

    def call(i: int) -> InteractionRecord:
        return InteractionRecord(call_site="triage", provider="heuristic", model="h",
                                 prompt_chars=10, output_chars=2, latency_ms=1.0, outcome="ok",
                                 started_at=clock.now() + timedelta(days=i))
    mind.store.record_interactions([call(i) for i in range(6)], at=clock.now())
    clock.advance(timedelta(days=185))  # calls 0-4 are older than 180 days at day 185..190
    mind.config = mind.config.model_copy(update={"ai_interactions_max_rows": 3})
    assert mind.maintain(dry_run=True).retention["interactions"] == 5
    assert len(mind.store.interactions()) == 6
    clock.advance(timedelta(days=-10))  # now day 175: none is too old; the count bound keeps 3
    assert mind.maintain().retention["interactions"] == 3
    assert len(mind.store.interactions()) == 3


def test_concurrent_prompts_show_a_signal_once(mind):
    import threading

    for _ in range(3):
        mind.signals.correction("units", "metric, please")
    shown: list[int] = []
    barrier = threading.Barrier(4)

    def turn() -> None:
        barrier.wait()
        shown.append(len(mind.context().signals))

    threads = [threading.Thread(target=turn) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(shown) == [0, 0, 0, 1]


def test_long_declarations_stay_within_the_budget(mind):
    for _ in range(3):
        mind.signals.correction("units", "metric, please")
    tools = [f"tool_number_{i}_with_a_long_name" for i in range(100)]
    ctx = mind.context(tools=tools, skills=tools, budget_tokens=200)
    aware = ctx.section("self_awareness")
    assert aware.tokens <= aware.budget_tokens
    assert ctx.signals == ()  # no room left: not shown, so not surfaced
    assert not mind.signals.get("correction", "units").surfaced
