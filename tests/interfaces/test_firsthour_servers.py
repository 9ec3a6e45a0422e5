"""A new user's first hour over HTTP and MCP (issue 19): reads never create minds (also with
--insecure-local), awareness items can be removed and completed, the README's system-prompt
snippet can run every time the agent starts."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("mcp")

from mcp import ClientSession
from mcp.client.stdio import stdio_client
from test_http_live import live_server
from test_mcp_stdio import _data, _params

README = Path(__file__).resolve().parents[2] / "README.md"


# -- HTTP --------------------------------------------------------------------------------------
def test_http_reads_on_an_unknown_mind_are_404_and_create_nothing(tmp_path: Path):
    with live_server(tmp_path, insecure_local=True) as live:
        c = live.client
        assert c.post("/v1/minds/notes/memories", json={"content": "hello"}).status_code == 201
        for method, path, body in [
            ("POST", "/v1/minds/anything/search", {"query": "hello"}),
            ("GET", "/v1/minds/anything/memories", None),
            ("GET", "/v1/minds/anything/stats", None),
            ("GET", "/v1/minds/anything/awareness", None),
            ("POST", "/v1/minds/anything/context", {"query": "hello"}),
            ("GET", "/v1/minds/notse/catch-up", None),
        ]:
            r = c.request(method, path, json=body)
            assert r.status_code == 404, (path, r.text)
            assert r.json()["error"]["code"] == "mind_not_found"
        assert "notes" in c.get("/v1/minds/notse/catch-up").json()["error"]["message"]
        assert not (tmp_path / "minds" / "anything.db").exists()
        assert not (tmp_path / "minds" / "notse.db").exists()
        # a write still creates the mind
        assert c.post("/v1/minds/fresh/memories", json={"content": "hi"}).status_code == 201
        assert c.post("/v1/minds/fresh/search", json={"query": "hi"}).status_code == 200


def test_http_memory_routes_take_unique_id_prefixes(tmp_path: Path):
    with live_server(tmp_path, insecure_local=True) as live:
        c = live.client
        ids = c.post("/v1/minds/notes/memories/batch",
                     json={"items": [{"content": "alpha fact"}, {"content": "beta fact"}]}
                     ).json()["ids"]
        base = "/v1/minds/notes/memories/"
        common = next(n for n in range(32) if ids[0][n] != ids[1][n])
        n = max(12, common + 1)  # ids made in one millisecond share 12 characters or more
        assert c.get(base + ids[0][:n]).json()["id"] == ids[0]
        assert c.get(base + ids[1][:n].upper()).json()["content"] == "beta fact"
        r = c.patch(base + ids[0][:n], json={"tags": ["x"]})
        assert r.status_code == 200 and r.json()["tags"] == ["x"]
        assert c.get(base + ids[0][:n] + "/history").json()["items"][0]["id"] == ids[0]
        assert common >= 4  # ids from one batch share their timestamp prefix
        r = c.get(base + ids[0][:common])
        assert r.status_code == 409 and r.json()["error"]["code"] == "ambiguous_id"
        assert ids[0] in r.json()["error"]["message"] and ids[1] in r.json()["error"]["message"]
        assert c.get(base + "f" * 12).status_code == 404
        assert c.get(base + "not-hex").status_code == 404
        assert c.delete(base + ids[1][:n]).status_code == 204
        assert c.get(base + ids[1]).status_code == 404


def test_http_awareness_remove_and_complete(tmp_path: Path):
    with live_server(tmp_path, insecure_local=True) as live:
        c = live.client
        ids = []
        for i in range(10):
            r = c.post("/v1/minds/agent/awareness", json={"content": f"task {i}"})
            assert r.status_code == 201, r.text
            ids.append(r.json()["id"])
        assert c.post("/v1/minds/agent/awareness", json={"content": "one more"}).status_code == 409
        r = c.post(f"/v1/minds/agent/awareness/{ids[0][:12]}/complete")  # a prefix will do
        assert r.status_code == 200, r.text
        assert r.json()["metadata"]["status"] == "done" and r.json()["id"] == ids[0]
        assert c.delete(f"/v1/minds/agent/awareness/{ids[1][:12]}").status_code == 204
        assert c.delete(f"/v1/minds/agent/awareness/{ids[1]}").status_code == 404
        common = next(n for n in range(32) if ids[2][n] != ids[3][n])
        r = c.delete(f"/v1/minds/agent/awareness/{ids[2][:common]}")
        assert r.status_code == 409 and r.json()["error"]["code"] == "ambiguous_id", r.text
        left = [i["id"] for i in c.get("/v1/minds/agent/awareness").json()["items"]]
        assert len(left) == 8 and ids[0] not in left and ids[1] not in left
        assert c.post("/v1/minds/agent/awareness", json={"content": "one more"}).status_code == 201


# -- MCP ---------------------------------------------------------------------------------------
def test_mcp_on_an_unknown_mind_refuses_and_names_close_minds(tmp_path: Path):
    """`salience mcp --mind typo` exits 2 naming the close mind and creates nothing (both entry
    points); `--create` serves a new mind (the other tests here start with it)."""
    from salience import Config, Mind

    Mind.open("notes", config=Config(home=tmp_path, embedder="hash")).close()
    env = {**os.environ, "SALIENCE_HOME": str(tmp_path), "SALIENCE_EMBEDDER": "hash"}
    for entry in (["salience.interfaces.cli", "mcp"], ["salience.interfaces.mcp"]):
        r = subprocess.run([sys.executable, "-m", *entry, "--mind", "notse"], env=env,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        assert r.returncode == 2, (entry, r.stdout, r.stderr)
        assert "no mind named 'notse'" in r.stderr and "'notes'" in r.stderr, r.stderr
        assert "--create" in r.stderr and "Traceback" not in r.stderr
    assert sorted(p.name for p in (tmp_path / "minds").glob("*.db")) == ["notes.db"]


def test_mcp_agent_can_free_working_memory(tmp_path: Path):
    async def body() -> dict[str, Any]:
        with open(tmp_path / "mcp-stderr.log", "w") as errlog:
            async with (
                stdio_client(_params(tmp_path), errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                names = {t.name for t in (await session.list_tools()).tools}
                ids = []
                for i in range(10):
                    got = await session.call_tool("save_awareness", {"content": f"task {i}"})
                    ids.append(_data(got)["id"])
                full = await session.call_tool("save_awareness", {"content": "eleventh"})
                done = _data(await session.call_tool("complete_awareness", {"item_id": ids[0]}))
                gone = _data(await session.call_tool("remove_awareness",
                                                     {"item_id": ids[1][:12]}))
                again = await session.call_tool("remove_awareness", {"item_id": ids[1]})
                added = await session.call_tool("save_awareness", {"content": "eleventh"})
                left = _data(await session.call_tool("list_awareness", {}))
                return {"names": names, "ids": ids, "full": full, "done": done, "gone": gone,
                        "again": again, "added": added, "left": left}

    out = anyio.run(body)
    assert {"complete_awareness", "remove_awareness"} <= out["names"]
    assert out["full"].is_error
    assert out["done"]["status"] == "done" and out["done"]["id"] == out["ids"][0]
    assert out["gone"] == {"removed": out["ids"][1]}
    assert out["again"].is_error and "not_found" in out["again"].content[0].text
    assert not out["added"].is_error
    assert len(out["left"]["items"]) == 9


# -- the README's system-prompt snippet ------------------------------------------------------
def _readme_block(heading: str) -> str:
    text = README.read_text()
    section = text.split(heading, 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_readme_system_prompt_snippet_runs_every_time(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("SALIENCE_HOME", str(tmp_path))
    monkeypatch.setenv("SALIENCE_EMBEDDER", "hash")
    code = _readme_block("### Building an agent's system prompt")
    for _ in range(7):  # an agent that starts seven times (the 6th used to raise AwarenessFull)
        exec(compile(code, "README.md", "exec"), {"print": lambda *a, **k: None})
    from salience import Mind

    with Mind.open("assistant") as mind:
        items = mind.awareness.get_all()
        assert sorted(i.content for i in items) == [
            "Draft the Apollo launch plan", "Waiting on Bob's budget numbers",
        ]
        assert mind.context("When is the Apollo launch?").text.count("Draft the Apollo") == 1


def test_mcp_tools_take_id_prefixes(tmp_path: Path):
    async def body() -> dict[str, Any]:
        with open(tmp_path / "mcp-stderr.log", "w") as errlog:
            async with (
                stdio_client(_params(tmp_path), errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                a = _data(await session.call_tool("add_memory", {"content": "Maya likes tea."}))
                b = _data(await session.call_tool("add_memory", {"content": "Bob likes coffee."}))
                got = _data(await session.call_tool("get_memory", {"memory_id": a["id"][:28]}))
                common = a["id"]
                while not b["id"].startswith(common):
                    common = common[:-1]
                ambiguous = await session.call_tool("get_memory", {"memory_id": common})
                gone = _data(await session.call_tool("delete_memory", {"memory_id": b["id"][:28]}))
                return {"a": a, "b": b, "got": got, "ambiguous": ambiguous, "gone": gone}

    out = anyio.run(body)
    assert out["got"]["id"] == out["a"]["id"]
    assert out["ambiguous"].is_error and "ambiguous_id" in out["ambiguous"].content[0].text
    assert out["gone"] == {"deleted": out["b"]["id"]}
