"""`salience remember`: the agent path (triage, admission, contradiction check) on the CLI, run
as a real subprocess against a temp data directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

SALIENCE = [sys.executable, "-m", "salience.interfaces.cli"]


def _run(home: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "SALIENCE_HOME": str(home), "SALIENCE_EMBEDDER": "hash"}
    return subprocess.run(
        [*SALIENCE, *args], capture_output=True, text=True, env=env, input=input, timeout=300
    )


def _json(home: Path, *args: str, input: str | None = None) -> Any:
    r = _run(home, *args, "--json", input=input)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_remember_triages_supersedes_and_drops_small_talk(tmp_path: Path) -> None:
    leeds = _json(tmp_path, "remember", "I live in Leeds.", "-m", "me")["result"]
    lisbon = _json(tmp_path, "remember", "I moved to Lisbon.", "Noted.", "-m", "me")["result"]
    assert lisbon["superseded"] == leeds["saved"]
    noise = _json(tmp_path, "remember", "-", "-m", "me", input="thanks!\n")["result"]
    assert noise["saved"] == [] and noise["skipped"] == "noise"
    queued = _json(tmp_path, "remember", "My dog is Rex.", "-m", "me", "--defer")
    assert isinstance(queued["queued"], int)
    [tick] = _json(tmp_path, "heartbeat", "-m", "me")
    drain = next(s for s in tick["steps"] if s["name"] == "drain")
    assert drain["detail"]["saved"] == 1


def test_remember_human_output_and_errors(tmp_path: Path) -> None:
    r = _run(tmp_path, "remember", "My sister Maya is allergic to penicillin.", "-m", "me")
    assert r.returncode == 0, r.stderr
    assert "kept 1 memory" in r.stdout
    r = _run(tmp_path, "remember", "hello", "-m", "me", "--speaker", "Assistant")
    assert r.returncode == 2 and "reserved" in r.stderr
