"""`salience import` and `salience queue`, run as real subprocesses against a temp data dir."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SALIENCE = [sys.executable, "-m", "salience.interfaces.cli"]

MBOX = b"""From a@example.com Tue Feb  3 09:30:00 2026
Subject: Flight TP123
From: Airline <no-reply@airline.example>
To: me@example.com
Message-ID: <m1@example.com>
Date: Tue, 03 Feb 2026 09:30:00 +0100

Your flight TP123 to Lisbon leaves on March 3 at 10:00.

From b@example.com Tue Feb  3 10:30:00 2026
Subject: Dinner
From: Marco <marco@example.com>
Message-ID: <m2@example.com>

Dinner with Marco on Friday at 8pm at Casa Ana.
"""


def run(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "SALIENCE_HOME": str(home), "SALIENCE_EMBEDDER": "hash"}
    return subprocess.run([*SALIENCE, *args], capture_output=True, text=True, env=env, timeout=300)


def test_import_and_queue_commands(tmp_path: Path):
    box = tmp_path / "mail.mbox"
    box.write_bytes(MBOX)
    r = run(tmp_path, "import", "mbox", str(box), "--mind", "me", "--json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert (rep["kind"], rep["items"], rep["saved"] + rep["skipped"]) == ("mbox", 2, 2)
    r = run(tmp_path, "import", "mbox", str(box), "--mind", "me", "--json")
    assert json.loads(r.stdout)["already_imported"] == 2

    chat = tmp_path / "chat.jsonl"
    chat.write_text(json.dumps({"messages": [
        {"role": "user", "content": "My sister Eva is a nurse in Porto."},
        {"role": "assistant", "content": "Got it."}]}) + "\n")
    r = run(tmp_path, "import", "chat", str(chat), "--mind", "me", "--defer", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["queued"] == 1

    r = run(tmp_path, "queue", "--mind", "me", "--json")
    status = json.loads(r.stdout)
    assert (status["pending_triage"], status["failed_operations"]) == (1, 0)
    assert len(status["sources"]) == 2
    r = run(tmp_path, "queue", "--mind", "me", "--drain", "--retry-failed", "--json")
    out = json.loads(r.stdout)
    assert out["drain"]["processed"] == 1 and out["pending_triage"] == 0 and out["retried"] == 0
    r = run(tmp_path, "queue", "--mind", "me")
    assert r.returncode == 0 and "pending_triage" in r.stdout
    r = run(tmp_path, "import", "ics", str(tmp_path / "missing.ics"), "--mind", "me")
    assert r.returncode == 2 and "not a file" in r.stderr
    r = run(tmp_path, "import", "pdf", str(box))
    assert r.returncode != 0
