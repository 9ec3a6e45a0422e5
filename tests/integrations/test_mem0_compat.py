"""`salience.compat.mem0.Memory`: mem0's API and result shapes on a real mind (the offline
heuristic triage stands in for mem0's LLM; no model is called)."""

from __future__ import annotations

from pathlib import Path

import pytest

from salience import Config, Mind
from salience.compat.mem0 import Memory, matches, speaker_label


@pytest.fixture
def memory(backend_mind: Mind) -> Memory:
    return Memory(backend_mind)


def test_add_search_get_all_with_mem0_shapes(memory: Memory) -> None:
    added = memory.add(
        [{"role": "user", "content": "I am allergic to penicillin."},
         {"role": "assistant", "content": "I'll remember that."}],
        user_id="alice", metadata={"source": "chat"},
    )
    [item] = added["results"]
    assert item["event"] == "ADD" and "penicillin" in item["memory"]
    memory.add("I love green tea.", user_id="bob")
    found = memory.search("penicillin allergy", filters={"user_id": "alice"})["results"]
    assert [r["id"] for r in found] == [item["id"]]
    r = found[0]
    assert {"id", "memory", "hash", "metadata", "score", "created_at", "updated_at", "user_id"} <= set(r)
    assert r["user_id"] == "alice" and r["metadata"]["source"] == "chat"
    tea = memory.search("green tea", user_id="alice")["results"]
    assert all(r["user_id"] == "alice" for r in tea)  # scoped: bob's tea is not alice's
    assert [m["memory"] for m in memory.get_all(filters={"user_id": "bob"})["results"]] == [
        "Bob: I love green tea."
    ]
    assert memory.get(item["id"])["memory"] == item["memory"]
    assert memory.get("0" * 32) is None
    with pytest.raises(ValueError):
        memory.search("tea")  # mem0 requires a scope
    with pytest.raises(ValueError):
        memory.add("hello there")


def test_infer_supersedes_within_a_user_only(memory: Memory) -> None:
    leeds = memory.add("I live in Leeds.", user_id="alice")["results"][0]
    memory.add("I live in Paris.", user_id="bob")
    moved = memory.add("I moved to Lisbon.", user_id="alice")["results"][0]
    assert moved["event"] == "UPDATE" and moved["previous_memory"] == leeds["memory"]
    alice = [m["memory"] for m in memory.get_all(user_id="alice")["results"]]
    assert alice == ["Alice: I moved to Lisbon."]  # Leeds is superseded
    assert [m["memory"] for m in memory.get_all(user_id="bob")["results"]] == ["Bob: I live in Paris."]
    events = memory.history(leeds["id"])
    assert [e["event"] for e in events] == ["ADD", "UPDATE"]
    assert events[1]["new_memory"] == "Alice: I moved to Lisbon."
    assert memory.add("thanks!", user_id="alice")["results"] == []  # small talk is not kept


def test_raw_add_update_history_delete(memory: Memory) -> None:
    res = memory.add([{"role": "user", "content": "Likes: jazz"}, {"role": "system", "content": "x"}],
                     user_id="u", agent_id="a", infer=False)["results"]
    assert [r["memory"] for r in res] == ["Likes: jazz"] and res[0]["event"] == "ADD"
    mid = res[0]["id"]
    assert memory.update(mid, text="Likes: blues") == {"message": "Memory updated successfully!"}
    assert memory.get(mid)["memory"] == "Likes: blues"
    assert [(e["event"], e["old_memory"], e["new_memory"]) for e in memory.history(mid)] == [
        ("ADD", None, "Likes: jazz"), ("UPDATE", "Likes: jazz", "Likes: blues"),
    ]
    assert memory.get(mid)["agent_id"] == "a"
    assert memory.get_all(filters={"user_id": "u", "agent_id": "other"})["results"] == []
    assert memory.delete(mid) == {"message": "Memory deleted successfully!"}
    with pytest.raises(ValueError):
        memory.delete(mid)


def test_delete_all_reset_and_metadata_filters(memory: Memory) -> None:
    for i, (user, kind) in enumerate([("u1", "food"), ("u1", "music"), ("u2", "food")]):
        memory.add(f"fact number {i} about {kind}", user_id=user, metadata={"kind": kind, "n": i},
                   infer=False)
    only = memory.get_all(filters={"user_id": "u1", "kind": "food"})["results"]
    assert [m["metadata"]["kind"] for m in only] == ["food"]
    ops = memory.get_all(filters={"user_id": "u1", "n": {"gte": 1}})["results"]
    assert [m["metadata"]["n"] for m in ops] == [1]
    with pytest.raises(ValueError):
        memory.delete_all()
    assert memory.delete_all(user_id="u1") == {"message": "Memories deleted successfully!"}
    assert memory.get_all(user_id="u1")["results"] == []
    assert len(memory.get_all(user_id="u2")["results"]) == 1
    memory.reset()
    assert memory.mind.count() == 0
    assert [speaker_label(u) for u in ("alice", "8f3a", "user", "", "a@b.c")] == [
        "Alice", "U8f3a", None, None, "Abc"
    ]
    assert matches({"a": "Hello"}, {"OR": [{"a": {"icontains": "hell"}}, {"b": 1}]})
    assert not matches({"a": 1}, {"NOT": [{"a": "*"}]})
    assert matches({"a": 2}, {"a": {"in": [1, 2]}, "AND": [{"a": {"ne": 3}}]})


def test_from_config_opens_its_own_mind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SALIENCE_EMBEDDER", "hash")
    with Memory.from_config({"mind": "mine", "home": str(tmp_path), "llm": {"provider": "x"}}) as m:
        m.add("My cat is Tom.", user_id="z")
        assert m.mind.name == "mine" and (tmp_path / "minds" / "mine.db").exists()


def test_import_a_mem0_export_with_the_cli(tmp_path: Path) -> None:
    import json
    import os
    import subprocess
    import sys

    export = {"results": [
        {"id": "a1b2", "memory": "Prefers window seats", "user_id": "alice",
         "metadata": {"category": "travel"}, "created_at": "2025-03-01T10:00:00-08:00"},
        {"id": "c3d4", "memory": "Is vegetarian", "user_id": "alice", "agent_id": "chef"},
        {"id": "e5f6", "memory": ""},
    ]}
    path = tmp_path / "mem0.json"
    path.write_text(json.dumps(export))
    env = {**os.environ, "SALIENCE_HOME": str(tmp_path / "home"), "SALIENCE_EMBEDDER": "hash"}
    cmd = [sys.executable, "-m", "salience.interfaces.cli", "import", "mem0", str(path),
           "-m", "moved", "--json"]
    first = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout) == {"records": 3, "imported": 2, "already_imported": 0,
                                        "invalid": 1}
    again = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert json.loads(again.stdout)["already_imported"] == 2  # idempotent
    with Mind.open("moved", config=Config(home=tmp_path / "home", embedder="hash")) as mind:
        m = Memory(mind)
        alice = m.get_all(filters={"user_id": "alice"})["results"]
        assert {r["memory"] for r in alice} == {"Prefers window seats", "Is vegetarian"}
        seat = next(r for r in alice if r["memory"] == "Prefers window seats")
        assert seat["metadata"]["category"] == "travel" and seat["metadata"]["mem0_id"] == "a1b2"
        assert mind.get(seat["id"]).occurred_at.isoformat() == "2025-03-01T18:00:00+00:00"
        assert [r["memory"] for r in m.get_all(filters={"user_id": "alice", "agent_id": "chef"})[
            "results"]] == ["Is vegetarian"]
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    r = subprocess.run([*cmd[:5], str(bad), "-m", "moved"], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 2 and "not a mem0 export" in r.stderr
