"""Conformance suite for design B's agent records (procedures, improvement signals, execution
traces, evolution runs, install audit), run against every backend through `make_store`."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest

from salience.errors import ConflictError, NotFound, StoreError
from salience.models import new_id
from salience.models.agent import (
    EvolutionKind,
    EvolutionRun,
    EvolutionStatus,
    ExecutionTrace,
    InstallAction,
    InstallAuditEntry,
    InstallKind,
    InstallRisk,
    Procedure,
    SignalCategory,
    TraceOutcome,
)

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgres", "postgres-shared"])
def backend(request: pytest.FixtureRequest) -> str:
    """Agent records do not touch vectors: the HNSW variant of SQLite adds nothing here."""
    if request.param.startswith("postgres"):
        request.getfixturevalue("pg_dsn")
    return str(request.param)


@pytest.fixture
def store(make_store):
    return make_store()


def proc(name: str = "summarise", version: int = 1, **kw) -> Procedure:
    kw.setdefault("created_at", T0)
    kw.setdefault("updated_at", T0)
    return Procedure(name=name, version=version, template=f"{name} v{version}: {{input}}", **kw)


# -- procedures ----------------------------------------------------------------------------------
def test_procedure_versions_unique_and_ordered(store):
    v1, v2 = proc(version=1), proc(version=2, parent_id=None, metadata={"k": [1, "é"]})
    store.insert_procedure(v2)
    store.insert_procedure(v1)
    with pytest.raises(ConflictError):
        store.insert_procedure(proc(version=2))
    with pytest.raises(ConflictError):
        store.insert_procedure(proc(version=3, id=v1.id))
    assert [p.version for p in store.procedure_versions("summarise")] == [1, 2]
    assert store.get_procedure(v2.id) == v2
    assert store.get_procedure(new_id()) is None
    store.insert_procedure(proc("classify"))
    assert [(p.name, p.version) for p in store.list_procedures()] == [
        ("classify", 1), ("summarise", 1), ("summarise", 2),
    ]


def test_procedure_outcomes_update_rate_and_cost_incrementally(store):
    p = proc()
    store.insert_procedure(p)
    outcomes = [(True, 2.0), (False, 4.0), (True, 6.0), (True, 0.0)]
    for i, (ok, cost) in enumerate(outcomes):
        got = store.record_procedure_outcome(
            p.id, success=ok, cost=cost, now=T0 + timedelta(minutes=i)
        )
    assert (got.runs, got.successes) == (4, 3)
    assert got.success_rate == pytest.approx(0.75)
    assert got.avg_cost == pytest.approx(3.0)
    assert store.get_procedure(p.id) == got
    assert got.updated_at == T0 + timedelta(minutes=3)
    with pytest.raises(NotFound):
        store.record_procedure_outcome(new_id(), success=True, cost=0, now=T0)


def test_concurrent_outcomes_lose_no_run(store):
    p = proc()
    store.insert_procedure(p)

    def work(k: int) -> None:
        for i in range(10):
            store.record_procedure_outcome(p.id, success=(i % 2 == 0), cost=1.0, now=T0)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = store.get_procedure(p.id)
    assert (got.runs, got.successes) == (40, 20)
    assert got.avg_cost == pytest.approx(1.0)


def test_one_active_version_per_name(store):
    v1, v2, other = proc(version=1), proc(version=2), proc("classify")
    for p in (v1, v2, other):
        store.insert_procedure(p)
    store.activate_procedure(other.id, now=T0)
    store.activate_procedure(v1.id, now=T0)
    store.activate_procedure(v2.id, now=T0 + timedelta(hours=1))
    active = {(p.name, p.version) for p in store.list_procedures() if p.active}
    assert active == {("classify", 1), ("summarise", 2)}
    assert store.get_procedure(v1.id).updated_at == T0 + timedelta(hours=1)
    with pytest.raises(NotFound):
        store.activate_procedure(new_id(), now=T0)


# -- improvement signals ----------------------------------------------------------------------
def test_signal_upsert_counts_per_category_and_key(store):
    c = SignalCategory.CORRECTION
    s1 = store.record_signal(c, "date format", note="use ISO", metadata={"a": 1}, now=T0,
                             new_id=new_id())
    assert (s1.count, s1.surfaced, s1.note) == (1, False, "use ISO")
    later = T0 + timedelta(days=1)
    s2 = store.record_signal(c, "date format", note="", metadata={"b": 2}, now=later,
                             new_id=new_id())
    assert s2.id == s1.id and s2.count == 2
    assert s2.note == "use ISO"  # an empty note keeps the last one
    assert s2.metadata == {"a": 1, "b": 2}
    assert (s2.first_seen_at, s2.last_seen_at) == (T0, later)
    gap = store.record_signal(SignalCategory.CAPABILITY_GAP, "date format", note="x",
                              metadata={}, now=T0, new_id=new_id())
    assert gap.id != s1.id and gap.count == 1
    assert store.get_signal(c, "date format") == s2
    assert store.get_signal(c, "nothing") is None


def test_signal_listing_and_surfacing_once(store):
    for key, n in (("a", 3), ("b", 1), ("c", 5)):
        for i in range(n):
            store.record_signal(SignalCategory.CORRECTION, key, note=key, metadata={},
                                now=T0 + timedelta(minutes=i), new_id=new_id())
    listed = store.list_signals(min_count=3, surfaced=False)
    assert [s.pattern_key for s in listed] == ["c", "a"]
    ids = [s.id for s in listed]
    assert store.mark_signals_surfaced([*ids, ids[0]], now=T0) == ids
    assert store.mark_signals_surfaced(ids, now=T0) == []  # never twice
    assert store.list_signals(min_count=3, surfaced=False) == []
    assert {s.pattern_key for s in store.list_signals(surfaced=True)} == {"a", "c"}
    assert store.get_signal(SignalCategory.CORRECTION, "c").surfaced_at == T0
    assert [s.pattern_key for s in store.list_signals(category=SignalCategory.CAPABILITY_GAP)] == []


def test_concurrent_signal_recordings_count_every_one(store):
    def work() -> None:
        for _ in range(10):
            store.record_signal(SignalCategory.WORKFLOW_PATTERN, "weekly report", note="",
                                metadata={}, now=T0, new_id=new_id())

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    (s,) = store.list_signals()
    assert s.count == 40


# -- execution traces -------------------------------------------------------------------------
def trace(i: int, outcome=TraceOutcome.SUCCESS, **kw) -> ExecutionTrace:
    kw.setdefault("created_at", T0 + timedelta(hours=i))
    return ExecutionTrace(task=f"task {i}", outcome=outcome, trace={"steps": [i]}, **kw)


def test_traces_by_outcome_and_time(store):
    for i in range(6):
        store.insert_trace(trace(i, TraceOutcome.SUCCESS if i % 2 else TraceOutcome.FAILURE))
    newest_first = store.list_traces()
    assert [t.task for t in newest_first] == [f"task {i}" for i in range(5, -1, -1)]
    assert [t.task for t in store.list_traces(outcome=TraceOutcome.FAILURE)] == [
        "task 4", "task 2", "task 0",
    ]
    window = store.list_traces(since=T0 + timedelta(hours=2), until=T0 + timedelta(hours=4))
    assert [t.task for t in window] == ["task 3", "task 2"]
    assert store.trace_counts() == {"failure": 3, "success": 3}
    t = newest_first[0]
    assert store.get_trace(t.id) == t and t.trace == {"steps": [5]}
    with pytest.raises(ConflictError):
        store.insert_trace(t)


def test_trace_records_its_procedure_outcome_in_one_transaction(store):
    p = proc()
    store.insert_procedure(p)
    got = store.insert_trace(trace(0, procedure_id=p.id, cost=2.5), success=True)
    assert (got.runs, got.successes, got.avg_cost) == (1, 1, 2.5)
    assert store.list_traces(procedure_id=p.id)[0].cost == 2.5
    orphan = trace(1, procedure_id=new_id())
    with pytest.raises(NotFound):
        store.insert_trace(orphan, success=False)
    assert store.get_trace(orphan.id) is None  # nothing written


def test_trace_retention_by_age_and_count(store):
    for i in range(10):
        store.insert_trace(trace(i))
    cutoff = T0 + timedelta(hours=3)  # traces 0-2 are older
    assert store.prune_traces(before=cutoff, keep=5, dry_run=True) == 5  # 0-4
    assert store.trace_counts() == {"success": 10}
    assert store.prune_traces(before=cutoff, keep=None) == 3
    assert store.prune_traces(before=None, keep=5) == 2
    assert [t.task for t in store.list_traces()] == [f"task {i}" for i in range(9, 4, -1)]
    assert store.prune_traces(before=None, keep=None) == 0


# -- evolution runs ---------------------------------------------------------------------------
def test_evolution_lifecycle_decided_once_and_promotes(store):
    base, cand = proc(version=1), proc(version=2)
    store.insert_procedure(base)
    store.insert_procedure(cand)
    run = EvolutionRun(target="procedure:summarise", kind=EvolutionKind.PROMPT,
                       baseline_id=base.id, candidate_id=cand.id, proposal={"why": "shorter"},
                       created_at=T0)
    store.insert_evolution_run(run)
    assert store.get_evolution_run(run.id) == run
    run.status = EvolutionStatus.ACCEPTED
    run.baseline_metrics = {"success_rate": 0.5}
    run.candidate_metrics = {"success_rate": 0.8}
    run.reason = "better"
    run.decided_at = T0 + timedelta(hours=1)
    store.decide_evolution_run(run, promote=cand.id)
    got = store.get_evolution_run(run.id)
    assert got == run and got.winner == "candidate"
    assert store.get_procedure(cand.id).active
    with pytest.raises(ConflictError):
        store.decide_evolution_run(run)
    ghost = EvolutionRun(target="x", status=EvolutionStatus.REJECTED, decided_at=T0)
    with pytest.raises(NotFound):
        store.decide_evolution_run(ghost)


def test_evolution_history_per_target(store):
    for i, target in enumerate(["procedure:a", "schema:memories", "procedure:a"]):
        kind = EvolutionKind.SCHEMA if target.startswith("schema") else EvolutionKind.PROMPT
        store.insert_evolution_run(
            EvolutionRun(target=target, kind=kind, created_at=T0 + timedelta(minutes=i))
        )
    runs = store.list_evolution_runs(target="procedure:a")
    assert [r.created_at for r in runs] == [T0 + timedelta(minutes=2), T0]
    assert len(store.list_evolution_runs(status=EvolutionStatus.PROPOSED)) == 3
    assert store.list_evolution_runs(status=EvolutionStatus.ACCEPTED) == []


# -- install audit ----------------------------------------------------------------------------
def test_install_audit_is_append_only(store):
    entries = [
        InstallAuditEntry(capability="web-search", kind=InstallKind.MCP, risk=InstallRisk.MEDIUM,
                          trust_source="marketplace", approval_class="user_approved",
                          details={"version": "1.2"}, created_at=T0),
        InstallAuditEntry(capability="shell", kind=InstallKind.NATIVE,
                          action=InstallAction.DENY, risk=InstallRisk.CRITICAL,
                          trust_source="url", approval_class="policy_denied", created_at=T0),
    ]
    for e in entries:
        store.append_install_audit(e)
    assert store.install_audit() == entries[::-1]  # newest (last appended) first
    assert store.install_audit(kind=InstallKind.MCP) == entries[:1]
    assert store.install_audit(capability="shell") == entries[1:]
    assert not hasattr(store, "delete_install_audit")
    with pytest.raises(StoreError):  # the table itself refuses, whatever the caller
        _raw(store, "DELETE FROM {s}install_audit")
    with pytest.raises(StoreError):
        _raw(store, "UPDATE {s}install_audit SET risk = 'low'")
    assert store.agent_counts()["install_audit"] == 2


def _raw(store, statement: str) -> None:
    """Run `statement` on the audit table behind the store's methods (its own connection on
    SQLite, a pooled one on PostgreSQL)."""
    if store.backend == "sqlite":
        import sqlite3

        db = sqlite3.connect(store.path)
        try:
            db.execute(statement.format(s=""))
        except sqlite3.DatabaseError as e:
            raise StoreError(str(e)) from e
        finally:
            db.close()
    else:
        with store._tx() as conn:
            conn.execute(store._q(statement.replace("{s}", "{s}.")))


def test_agent_counts(store):
    store.insert_procedure(proc())
    store.record_signal(SignalCategory.CORRECTION, "k", note="", metadata={}, now=T0,
                        new_id=new_id())
    store.insert_trace(trace(0))
    store.insert_evolution_run(EvolutionRun(target="t", created_at=T0))
    assert store.agent_counts() == {
        "procedures": 1, "signals": 1, "traces": 1, "evolution_runs": 1, "install_audit": 0,
    }
