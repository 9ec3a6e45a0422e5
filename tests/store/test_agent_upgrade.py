"""Minds created before the agent records existed upgrade in place: the SQLite file made at
schema version 7 by the previous release (tests/store/data/mind_schema7.db.gz: an identity,
three memories, one awareness item) and a PostgreSQL mind migrated only up to the previous
migration both open at the current version, keep everything, and take agent records."""

from __future__ import annotations

import gzip
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from salience.config import Config
from salience.mind import Mind
from salience.store.sqlite.migrations import MIGRATIONS as SQLITE_MIGRATIONS

FIXTURE = Path(__file__).parent / "data" / "mind_schema7.db.gz"
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def _exercise(m: Mind) -> None:
    """Every record kind writes and reads on the upgraded mind."""
    p = m.procedures.create("summarise", "Summarise: {text}")
    m.procedures.record_outcome(p.id, success=True, cost=1.0)
    for _ in range(3):
        s = m.signals.correction("date format", "use ISO dates")
    assert s.count == 3
    m.traces.record("summarise the inbox", "success", trace={"steps": 2}, procedure_id=p.id)
    run = m.evolution.propose("procedure:summarise", baseline_id=p.id)
    assert m.evolution.get(run.id).status.value == "proposed"
    m.installs.record("web-search", "mcp", risk="medium", trust_source="marketplace")
    assert m.store.agent_counts() == {
        "procedures": 1, "signals": 1, "traces": 1, "evolution_runs": 1, "install_audit": 1,
    }


def test_sqlite_mind_at_schema_7_upgrades_in_place(tmp_path: Path):
    path = tmp_path / "old.db"
    with gzip.open(FIXTURE, "rb") as src, open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
    import sqlite3

    raw = sqlite3.connect(path)
    applied = [r[0] for r in raw.execute("SELECT name FROM _migrations ORDER BY rowid")]
    raw.close()
    assert applied == [m.name for m in SQLITE_MIGRATIONS[:7]]  # really the previous schema
    cfg = Config(home=tmp_path / "home", embedder="hash")
    with Mind.open(path, config=cfg) as m:
        assert m.store.schema_version() == len(SQLITE_MIGRATIONS) == 9
        assert m.identity.get().name == "Ada"
        assert m.count() == 4  # three memories and the identity mirror
        assert [i.content for i in m.awareness.get_all()] == ["Draft the trip budget"]
        assert m.search("penicillin", limit=1)[0].memory.content.startswith("My sister Maya")
        _exercise(m)
    with Mind.open(path, config=cfg) as m:  # reopening applies nothing twice
        assert m.store.schema_version() == 9
        assert m.signals.get("correction", "date format").count == 3


@pytest.mark.postgres
def test_postgres_mind_at_previous_schema_upgrades_in_place(pg_dsn, tmp_path):
    import psycopg
    from pydantic import SecretStr

    from salience.store.base import SCHEMA_VERSION_KEY
    from salience.store.postgres.migrations import MIGRATIONS

    cfg = Config(
        home=tmp_path / "home", embedder="hash", backend="postgres", dsn=SecretStr(pg_dsn)
    )
    with Mind.open("upgrade-agent", config=cfg) as m:
        m.identity.create("Ada")
        m.add("My sister Maya is allergic to penicillin.")
        schema = m.store.schema
    # back to the schema before the agent records: their migration and the later ones undone
    # (the later ones' tables dropped too: today's statements read them)
    agent = next(i for i, mig in enumerate(MIGRATIONS) if mig.name == "0007_agent_records")
    later = ("procedures", "improvement_signals", "execution_traces", "evolution_runs",
             "install_audit", "memory_retrievals", "memory_claims")
    with psycopg.connect(pg_dsn, autocommit=True) as c:
        for table in later:
            c.execute(f'DROP TABLE "{schema}".{table} CASCADE')
        c.execute(f'DROP FUNCTION "{schema}".install_audit_append_only()')
        undo = [mig.name for mig in MIGRATIONS[agent:]]
        c.execute(f'DELETE FROM "{schema}"._migrations WHERE name = ANY(%s)', (undo,))
        c.execute(
            f'UPDATE "{schema}".meta SET value = %s WHERE key = %s',
            (str(agent), SCHEMA_VERSION_KEY),
        )
        assert c.execute("SELECT to_regclass(%s)", (f'"{schema}".procedures',)).fetchone()[0] is None
    with Mind.open("upgrade-agent", config=cfg) as m:
        try:
            assert m.store.schema_version() == len(MIGRATIONS)
            assert m.identity.get().name == "Ada"
            assert m.search("penicillin", limit=1)[0].memory.content.startswith("My sister")
            _exercise(m)
        finally:
            m.store.drop_mind()
