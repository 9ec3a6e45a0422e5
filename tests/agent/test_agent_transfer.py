"""Agent records travel with a mind: export on one backend, restore on the other, every record
as it was (counts, surfaced flags, verdicts, the active version), and a second restore adds
nothing; the audit stays append-only on the target."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from pydantic import SecretStr

from salience import Config, FrozenClock, Mind
from salience.transfer import export_mind, restore_mind


def _populate(m: Mind, clock: FrozenClock) -> None:
    v1 = m.procedures.create("reply", "Reply: {msg}")
    v2 = m.procedures.new_version("reply", "Briefly: {msg}")
    m.traces.record("reply to Bob", "failure", trace={"steps": [1]}, procedure_id=v1.id, cost=2)
    clock.advance(timedelta(minutes=1))
    m.traces.record("reply to Ann", "success", procedure_id=v2.id, cost=1)
    run = m.evolution.propose("procedure:reply", baseline_id=v1.id, candidate_id=v2.id)
    m.evolution.evaluate(run.id)
    for _ in range(3):
        m.signals.correction("date format", "ISO")
    m.context()  # surfaces the signal
    m.signals.record("capability_gap", "pdf export")
    m.installs.record("github", "mcp", risk="high")
    m.installs.record("shell", "native", action="deny", risk="critical")


def _snapshot(m: Mind) -> dict:
    return {
        "procedures": [p.to_dict() for p in m.procedures.list()],
        "signals": [s.to_dict() for s in m.signals.list()],
        "traces": [t.to_dict() for t in m.traces.list()],
        "evolution": [r.to_dict() for r in m.evolution.history()],
        "installs": [a.to_dict() for a in m.installs.list()],
    }


@pytest.mark.postgres
def test_agent_records_roundtrip_sqlite_to_postgres(config: Config, pg_dsn: str, clock):
    src = Mind.open("agent-src", config=config, clock=clock)
    pg = config.model_copy(update={"backend": "postgres", "dsn": SecretStr(pg_dsn)})
    dst = Mind.open("agent-dst", config=pg, clock=clock)
    try:
        _populate(src, clock)
        buf = io.StringIO()
        summary = export_mind(src, buf)
        assert {k: summary.counts[k] for k in ("procedure", "signal", "trace", "evolution_run",
                                                "install_audit")} == {
            "procedure": 2, "signal": 2, "trace": 2, "evolution_run": 1, "install_audit": 2,
        }
        first = restore_mind(dst, io.StringIO(buf.getvalue()))
        assert first.counts["install_audit"] == 2
        assert _snapshot(dst) == _snapshot(src)
        assert dst.procedures.active("reply").version == 2
        again = restore_mind(dst, io.StringIO(buf.getvalue()))
        assert again.skipped.get("signal") == 2 and again.skipped.get("install_audit") == 2
        assert "install_audit" not in again.counts
        assert _snapshot(dst) == _snapshot(src)
    finally:
        dst.store.drop_mind()
        dst.close()
        src.close()
