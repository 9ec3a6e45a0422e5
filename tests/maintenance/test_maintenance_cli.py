"""`salience maintain`, `salience heartbeat` and the run status in `salience stats`."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from salience.interfaces.cli import app


def test_maintain_dry_run_heartbeat_and_stats(tmp_path, monkeypatch):
    monkeypatch.setenv("SALIENCE_HOME", str(tmp_path))
    monkeypatch.setenv("SALIENCE_EMBEDDER", "hash")
    run = CliRunner().invoke
    assert run(app, ["add", "Garden notes for the week", "--mind", "m1"]).exit_code == 0
    out = run(app, ["maintain", "--dry-run", "--mind", "m1"])
    assert out.exit_code == 0 and "would change" in out.output and "pruned" in out.output
    data = json.loads(run(app, ["maintain", "--dry-run", "--json", "--mind", "m1"]).output)
    assert data["dry_run"] and data["scanned"] == 1 and data["pruned"] == {}
    ticks = json.loads(run(app, ["heartbeat", "--json"]).output)
    assert [t["mind"] for t in ticks] == ["m1"] and ticks[0]["ran"]
    assert [s["name"] for s in ticks[0]["steps"]] == ["drain", "prefetch", "maintenance", "cognitive"]
    st = json.loads(run(app, ["stats", "--json", "--mind", "m1"]).output)
    assert st["last_runs"]["heartbeat"] and "pending_triage" in st["queues"]
