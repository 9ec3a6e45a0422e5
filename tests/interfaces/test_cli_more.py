"""`config show`, awareness, identity, context, catch-up, recall and about — as subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def run(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    full = {**os.environ, "SALIENCE_HOME": str(home), "SALIENCE_EMBEDDER": "hash", **env}
    return subprocess.run(
        [sys.executable, "-m", "salience.interfaces.cli", *args],
        capture_output=True, text=True, env=full, timeout=300,
    )


def test_config_show_names_sources_and_masks_secrets(tmp_path: Path):
    r = run(tmp_path, "config", "show", "--json", SALIENCE_OPENAI_API_KEY="sk-secret-123")
    assert r.returncode == 0, r.stderr
    rows = {row["name"]: row for row in json.loads(r.stdout)}
    assert rows["home"]["source"] == "env SALIENCE_HOME"
    assert rows["embedder"]["value"] == "hash"
    assert rows["chunk_bytes"] == {"name": "chunk_bytes", "value": 1200, "source": "default"}
    assert rows["openai_api_key"]["value"] == "***"
    assert "sk-secret-123" not in r.stdout
    bad = run(tmp_path, "config", "show", SALIENCE_CHUNK_BYTES="lots")
    assert bad.returncode == 2 and "SALIENCE_CHUNK_BYTES" in bad.stderr and "Traceback" not in bad.stderr


def test_layer_and_recall_commands(tmp_path: Path):
    assert run(tmp_path, "add", "We decided to use PostgreSQL for the clinic app.",
               "--importance", "important").returncode == 0
    assert run(tmp_path, "add", "Workspace note: the clinic app ships in June.", "--mind", "work").returncode == 0
    r = run(tmp_path, "awareness", "add", "Ship the clinic app", "--priority", "3", "--json")
    assert r.returncode == 0, r.stderr
    r = run(tmp_path, "awareness", "list", "--json")
    assert [i["content"] for i in json.loads(r.stdout)] == ["Ship the clinic app"]
    r = run(tmp_path, "identity", "--json")
    assert r.returncode == 0 and json.loads(r.stdout) is None
    r = run(tmp_path, "context", "what database?", "--json")
    ctx = json.loads(r.stdout)
    assert "PostgreSQL" in ctx["text"] and "Ship the clinic app" in ctx["text"]
    r = run(tmp_path, "catch-up", "--json")
    assert any("decided" in h["memory"]["content"] for h in json.loads(r.stdout))
    r = run(tmp_path, "catch-up", "database", "--json")
    assert "PostgreSQL" in json.loads(r.stdout)[0]["memory"]["content"]
    r = run(tmp_path, "recall", "clinic app", "--also", "work", "--json")
    assert {h["mind"] for h in json.loads(r.stdout)} == {"default", "work"}
    r = run(tmp_path, "about", "nobody")
    assert r.returncode in (0, 2) and "Traceback" not in r.stderr
