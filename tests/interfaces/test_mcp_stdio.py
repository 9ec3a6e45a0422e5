"""The MCP server over stdio, driven by the official SDK's client (a real subprocess)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

REQUIRED_TOOLS = {
    "add_memory",
    "search_memories",
    "get_memory",
    "update_memory",
    "delete_memory",
    "recall_context",
    "catch_up",
}


def _params(home: Path, mind: str = "agent") -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "salience.interfaces.mcp", "--mind", mind, "--create"],
        env={"SALIENCE_HOME": str(home), "SALIENCE_EMBEDDER": "hash", "HF_HUB_OFFLINE": "1"},
    )


def _data(result: Any) -> Any:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


async def _session_run(home: Path, body: Any) -> Any:
    with open(home / "mcp-stderr.log", "w") as errlog:
        async with (
            stdio_client(_params(home), errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await body(session)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    return h


def test_lists_tools_with_described_schemas(home: Path) -> None:
    async def body(session: ClientSession) -> Any:
        return (await session.list_tools()).tools

    tools = anyio.run(_session_run, home, body)
    by_name = {t.name: t for t in tools}
    assert set(by_name) >= REQUIRED_TOOLS
    for tool in tools:
        assert tool.description and len(tool.description) > 20, tool.name
        schema = tool.input_schema
        assert schema["type"] == "object"
        for prop, spec in schema.get("properties", {}).items():
            assert spec.get("description"), f"{tool.name}.{prop} has no description"
    add = by_name["add_memory"].input_schema
    assert add["required"] == ["content"]
    assert "fact" in add["properties"]["memory_type"]["enum"]
    assert add["properties"]["salience"]["maximum"] == 10


def test_add_search_get_update_delete_recall(home: Path) -> None:
    async def body(session: ClientSession) -> dict[str, Any]:
        out: dict[str, Any] = {}
        added = _data(
            await session.call_tool(
                "add_memory",
                {
                    "content": "Maya is allergic to penicillin.",
                    "memory_type": "fact",
                    "salience": 9,
                    "tags": ["health"],
                    "entities": ["Maya"],
                },
            )
        )
        await session.call_tool("add_memory", {"content": "The team standup moved to 10am."})
        mid = added["id"]
        out["search"] = _data(
            await session.call_tool("search_memories", {"query": "penicillin allergy", "limit": 3})
        )
        out["get"] = _data(await session.call_tool("get_memory", {"memory_id": mid}))
        out["update"] = _data(
            await session.call_tool("update_memory", {"memory_id": mid, "salience": 10})
        )
        out["recall"] = _data(
            await session.call_tool(
                "recall_context",
                {"current_message": "Can Maya take amoxicillin?", "recent_messages": ["hi"]},
            )
        )
        out["catch_up"] = _data(await session.call_tool("catch_up", {"limit": 5}))
        out["catch_up_topic"] = _data(
            await session.call_tool("catch_up", {"limit": 5, "topic": "penicillin"})
        )
        out["delete"] = _data(await session.call_tool("delete_memory", {"memory_id": mid}))
        out["missing"] = await session.call_tool("get_memory", {"memory_id": mid})
        out["bad"] = await session.call_tool("add_memory", {"content": "x", "salience": 11})
        out["mid"] = mid
        return out

    out = anyio.run(_session_run, home, body)
    mid = out["mid"]
    assert out["search"]["results"][0]["id"] == mid
    assert out["search"]["results"][0]["content"] == "Maya is allergic to penicillin."
    assert out["get"]["tags"] == ["health"]
    assert out["update"]["salience"] == 10
    assert mid in [r["id"] for r in out["recall"]["results"]]
    assert out["catch_up"]["results"]
    assert out["catch_up_topic"]["results"][0]["id"] == mid
    assert out["delete"] == {"deleted": mid}
    assert out["missing"].is_error
    assert "not_found" in out["missing"].content[0].text
    assert out["bad"].is_error


def test_memories_persist_in_the_named_mind(home: Path) -> None:
    async def add(session: ClientSession) -> Any:
        return _data(await session.call_tool("add_memory", {"content": "Persisted fact."}))

    mid = anyio.run(_session_run, home, add)["id"]
    from salience import Config, Mind

    with Mind.open("agent", config=Config(home=home, embedder="hash")) as m:
        assert m.get(mid).content == "Persisted fact."


def test_awareness_and_graph_tools(home: Path) -> None:
    from salience.mind import Mind

    if not (hasattr(Mind, "awareness") and hasattr(Mind, "graph")):
        pytest.skip("the facade has no awareness/graph layers in this version")

    async def body(session: ClientSession) -> dict[str, Any]:
        out: dict[str, Any] = {}
        await session.call_tool("save_awareness", {"content": "Waiting for Bob's reply"})
        out["aware"] = _data(await session.call_tool("list_awareness", {}))
        await session.call_tool(
            "add_memory", {"content": "Maya works at Acme.", "entities": ["Maya"]}
        )
        maya = _data(
            await session.call_tool("add_entity", {"name": "Maya", "entity_type": "person"})
        )
        bob = _data(await session.call_tool("add_entity", {"name": "Bob", "entity_type": "person"}))
        out["rel"] = _data(
            await session.call_tool(
                "add_relation",
                {"source_id": maya["id"], "relation_type": "knows", "target_id": bob["id"]},
            )
        )
        out["graph"] = _data(await session.call_tool("search_graph", {"name": "Maya"}))
        resources = await session.list_resources()
        out["resources"] = {str(r.uri) for r in resources.resources}
        read = await session.read_resource("salience://awareness")
        out["awareness_text"] = read.contents[0].text
        return out

    out = anyio.run(_session_run, home, body)
    assert [i["content"] for i in out["aware"]["items"]] == ["Waiting for Bob's reply"]
    assert out["rel"]["relation_type"] == "knows"
    assert [r["content"] for r in out["graph"]["results"]] == ["Maya works at Acme."]
    assert {"salience://identity", "salience://awareness", "salience://stats"} <= out["resources"]
    assert "Waiting for Bob's reply" in out["awareness_text"]
