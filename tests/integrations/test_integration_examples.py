"""Each integration's example in examples/ runs as a user would run it (a subprocess, a fresh
data directory, the hash embedder)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CASES = {  # example -> (module it needs, text its output must contain)
    "langgraph_store.py": ("langgraph", "Oslo"),
    "openai_agents_session.py": ("agents", "reply: In Lisbon."),
    "claude_memory_tool.py": ("anthropic", "/memories/user.md"),
    "mcp_memory_protocol.py": ("mcp", "penicillin"),
    "mem0_switch.py": ("salience", "'event': 'UPDATE'"),
    "async_mind.py": ("salience", "Book Maya's flights"),
    "otel_traces.py": ("opentelemetry.sdk", "search_memory otel-example"),
    "http_turns.py": ("fastapi", "top hit: User: I moved to Lisbon"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_example_runs(name: str, tmp_path: Path) -> None:
    needs, expected = CASES[name]
    if importlib.util.find_spec(needs.split(".")[0]) is None:
        pytest.skip(f"{needs} is not installed")
    env = {**os.environ, "SALIENCE_HOME": str(tmp_path), "SALIENCE_EMBEDDER": "hash",
           "HF_HUB_OFFLINE": "1"}
    env.pop("ANTHROPIC_API_KEY", None)
    env.pop("OPENAI_API_KEY", None)
    r = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True, text=True,
                       env=env, cwd=EXAMPLES, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert expected in r.stdout, r.stdout[-2000:]
