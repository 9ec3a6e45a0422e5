"""The ingestion paths end to end on every backend (SQLite and PostgreSQL)."""

from __future__ import annotations

import zlib

import pytest
from ingest_helpers import ScriptedBrain, open_mind

from salience.llm.brain import Fact


@pytest.fixture
def any_mind(backend_config, clock, request):
    brain = ScriptedBrain(salience_for=lambda text: 8, contradict=lambda new, c: [0] if c else [],
                          facts=lambda text: [Fact("Eva is a nurse", 7)])
    name = "ing" + format(zlib.crc32(request.node.nodeid.encode()), "d")
    mind = open_mind(backend_config, clock, brain, name=name)
    yield mind
    drop = getattr(mind.store, "drop_mind", None)
    if drop is not None:
        drop()
    mind.close()


def test_paths_queue_and_history_on_every_backend(any_mind, tmp_path):
    m = any_mind
    m.remember_turn("I live in Lisbon", "ok")
    m.remember_turn("hi", "hello")
    assert m.queue_status()["pending_triage"] == 2
    report = m.drain_pending_triage()
    assert report.processed == 2 and m.queue_status()["pending_triage"] == 0
    new = m.remember_turn("I live in Porto now", "ok", defer=False)
    assert len(new.superseded) == 1
    assert [x.id for x in m.history(new.id)][-1] == new.id
    arch = m.archive_context(["User: my sister Eva is a nurse"])
    assert len(arch.saved) == 2
    box = tmp_path / "m.mbox"
    box.write_bytes(b"From a@x Tue Feb  3 09:30:00 2026\nSubject: Hi\nMessage-ID: <q@x>\n\nBody.\n")
    assert m.import_mbox(box).saved == 1
    assert m.import_mbox(box).already_imported == 1
    assert {r["call_site"] for r in m.store.interactions()} >= {"triage", "quality"}
