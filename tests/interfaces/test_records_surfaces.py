"""Agent records through every surface (issue 20): HTTP over loopback, the MCP client SDK
(in-process transport) and the CLI as subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from test_http_live import Live, live_server

from salience import Config, Mind


# -- HTTP ------------------------------------------------------------------------------------------
@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    with live_server(tmp_path / "home") as srv:
        yield srv


def test_http_records_lifecycle(live: Live) -> None:
    h = live.key(mind="m")
    post, get = live.client.post, live.client.get
    r = post("/v1/minds/m/procedures", json={"name": "reply", "template": "Reply: {msg}"},
             headers=h)
    assert r.status_code == 201
    base = r.json()
    assert post("/v1/minds/m/procedures", json={"name": "reply", "template": "x"},
                headers=h).status_code == 409
    cand = post("/v1/minds/m/procedures/reply/versions", json={"template": "Briefly: {msg}"},
                headers=h).json()
    assert cand["version"] == 2
    for pid, ok in [(base["id"], False), (cand["id"], True)]:
        r = post(f"/v1/minds/m/procedures/{pid}/outcomes", json={"success": ok, "cost": 1},
                 headers=h)
        assert r.status_code == 200
    r = post(f"/v1/minds/m/procedures/{base['id']}/outcomes",
             json={"success": True, "cost": -1}, headers=h)
    assert r.status_code == 422
    run = post("/v1/minds/m/evolution", json={"target": "procedure:reply",
               "baseline_id": base["id"], "candidate_id": cand["id"]}, headers=h).json()
    decided = post(f"/v1/minds/m/evolution/{run['id']}/evaluate", json={}, headers=h).json()
    assert decided["status"] == "accepted" and decided["winner"] == "candidate"
    again = post(f"/v1/minds/m/evolution/{run['id']}/evaluate", json={}, headers=h)
    assert again.status_code == 409
    assert get("/v1/minds/m/procedures/reply/best", headers=h).json()["id"] == cand["id"]
    hist = get("/v1/minds/m/evolution", params={"target": "procedure:reply"}, headers=h).json()
    assert [x["id"] for x in hist["items"]] == [run["id"]]

    for _ in range(3):
        s = post("/v1/minds/m/signals", json={"category": "correction",
                 "pattern_key": "Date format", "note": "ISO dates"}, headers=h)
    assert s.status_code == 201 and s.json()["count"] == 3
    bad = post("/v1/minds/m/signals", json={"category": "nope", "pattern_key": "k"}, headers=h)
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_input"
    actionable = get("/v1/minds/m/signals", params={"actionable": "true"}, headers=h).json()
    assert [x["pattern_key"] for x in actionable["items"]] == ["date format"]
    ctx = post("/v1/minds/m/context", json={"tools": ["calendar"], "mode": "server"},
               headers=h).json()
    assert "[correction ×3] date format: ISO dates" in ctx["text"]
    assert "Tools: calendar" in ctx["text"] and [x["pattern_key"] for x in ctx["signals"]] == [
        "date format"
    ]
    ctx2 = post("/v1/minds/m/context", json={}, headers=h).json()
    assert "Improvement Signals" not in ctx2["text"] and ctx2["signals"] == []

    t = post("/v1/minds/m/traces", json={"task": "reply to Bob", "outcome": "success",
             "trace": {"steps": ["draft", "send"]}, "procedure_id": cand["id"]}, headers=h)
    assert t.status_code == 201
    assert get("/v1/minds/m/traces", params={"outcome": "success"},
               headers=h).json()["items"][0]["trace"] == {"steps": ["draft", "send"]}
    assert get("/v1/minds/m/traces", params={"outcome": "won"}, headers=h).status_code == 422

    a = post("/v1/minds/m/installs", json={"capability": "github", "kind": "mcp",
             "risk": "high", "trust_source": "url"}, headers=h)
    assert a.status_code == 201
    assert [x["capability"] for x in get("/v1/minds/m/installs", headers=h).json()["items"]] == [
        "github"
    ]
    assert live.client.delete("/v1/minds/m/installs", headers=h).status_code == 405


# -- MCP -------------------------------------------------------------------------------------------
def test_mcp_corrections_become_a_signal_seen_once(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from mcp import Client

    from salience.interfaces.mcp import create_server

    async def ok(client: Any, tool: str, args: dict[str, Any]) -> Any:
        r = await client.call_tool(tool, args)
        assert not r.is_error, r.content
        return r.structured_content

    with Mind.open("mcp-rec", config=Config(home=tmp_path / "home", embedder="hash")) as m:
        p = m.procedures.create("triage", "Triage: {mail}")

        async def main() -> None:
            async with Client(create_server(m)) as c:
                for _ in range(3):
                    got = await ok(c, "record_correction",
                                   {"pattern_key": "tone too formal", "note": "be casual"})
                assert got["count"] == 3 and not got["surfaced"]
                gap = await ok(c, "record_signal", {"category": "capability_gap",
                                                    "pattern_key": "pdf export"})
                assert gap["count"] == 1
                proc = await ok(c, "get_procedure", {"name": "triage"})
                assert proc["id"] == p.id and proc["template"] == "Triage: {mail}"
                run = await ok(c, "record_run", {"task": "triage inbox", "outcome": "success",
                                                 "steps": ["read", "label"],
                                                 "procedure_id": p.id})
                assert run["outcome"] == "success"
                bad = await c.call_tool("record_run", {"task": "x", "outcome": "won"})
                assert bad.is_error
                missing = await c.call_tool("get_procedure", {"name": "nothing"})
                assert missing.is_error and "not_found" in missing.content[0].text

        anyio.run(main)
        assert m.procedures.get(p.id).runs == 1
        first = m.context().text
        assert "[correction ×3] tone too formal: be casual" in first
        assert "tone too formal" not in m.context().text


# -- CLI -------------------------------------------------------------------------------------------
def _cli(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "SALIENCE_HOME": str(home), "SALIENCE_EMBEDDER": "hash"}
    return subprocess.run([sys.executable, "-m", "salience.interfaces.cli", *args],
                          capture_output=True, text=True, env=env, timeout=300)


def test_cli_records(tmp_path: Path) -> None:
    """One command per group (each is a subprocess: kept few)."""
    home = tmp_path / "home"
    p = json.loads(_cli(home, "procedures", "create", "reply", "Reply: {msg}", "--json").stdout)
    r = _cli(home, "procedures", "outcome", p["id"], "--success", "--cost", "2", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["runs"] == 1
    r = _cli(home, "signals", "record", "correction", "Date  format", "ISO")
    assert r.returncode == 0 and "'date format': seen 1 times" in r.stdout, r.stderr
    bad = _cli(home, "traces", "record", "reply", "failure", "--trace", "{nope")
    assert bad.returncode == 2 and "not valid JSON" in bad.stderr and "Traceback" not in bad.stderr
    wrong = _cli(home, "installs", "record", "github", "browser")
    assert wrong.returncode == 2 and "install kind" in wrong.stderr
    run = json.loads(_cli(home, "evolution", "propose", "procedure:reply", "--baseline", p["id"],
                          "--json").stdout)
    r = _cli(home, "evolution", "evaluate", run["id"], "--candidate", '{"success_rate": 0.5}')
    assert r.returncode == 0 and r.stdout.startswith("rejected"), r.stderr  # 1.0 -> 0.5
