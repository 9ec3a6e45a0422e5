"""The MCP memory protocol (the reference memory server's tools) and the agent-path tools
(`remember_turn`, `list_memories`, `heartbeat`), driven by the official `mcp` client SDK.

The cases follow the reference server's own test suite (its knowledge-graph tests): creating,
deduplicating, observing, deleting with cascade, reading, searching and opening nodes — here
through real MCP tool calls (in-process transport; one run over stdio).
"""

from __future__ import annotations

import json
import sys
import zlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from salience import Config, Mind
from salience.interfaces.mcp import create_server
from salience.interfaces.mcp_memory import type_key

PROTOCOL_TOOLS = {
    "create_entities", "create_relations", "add_observations", "delete_entities",
    "delete_observations", "delete_relations", "read_graph", "search_nodes", "open_nodes",
}


def _run(mind: Mind, body: Callable[[Client], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with Client(create_server(mind)) as client:
            return await body(client)

    return anyio.run(main)


async def _ok(client: Client, tool: str, args: dict[str, Any] | None = None) -> Any:
    r = await client.call_tool(tool, args or {})
    assert not r.is_error, r.content
    return r.structured_content


def _names(graph: dict[str, Any]) -> set[str]:
    return {e["name"] for e in graph["entities"]}


def _rels(graph: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(r["from"], r["relationType"], r["to"]) for r in graph["relations"]}


@pytest.fixture
def mind(backend_config: Config, request: pytest.FixtureRequest) -> Any:
    """A mind on each backend (SQLite file, PostgreSQL schema), dropped afterwards."""
    m = Mind.open("kg" + format(zlib.crc32(request.node.nodeid.encode()), "d"),
                  config=backend_config)
    try:
        yield m
    finally:
        drop = getattr(m.store, "drop_mind", None)
        if drop is not None:
            drop()
        m.close()


ALICE = {"name": "Alice", "entityType": "person", "observations": ["works at Acme Corp"]}
BOB = {"name": "Bob", "entityType": "person", "observations": ["likes programming"]}


def test_tools_have_the_reference_names_and_argument_shapes(mind: Mind) -> None:
    async def body(c: Client) -> Any:
        return {t.name: t.input_schema for t in (await c.list_tools()).tools}

    schemas = _run(mind, body)
    assert set(schemas) >= PROTOCOL_TOOLS
    assert schemas["delete_entities"]["required"] == ["entityNames"]
    assert schemas["open_nodes"]["required"] == ["names"]
    assert schemas["search_nodes"]["required"] == ["query"]
    rel = schemas["create_relations"]["$defs"]["RelationIn"]
    assert rel["required"] == ["from", "to", "relationType"]
    obs = schemas["add_observations"]["$defs"]["ObservationsIn"]
    assert set(obs["properties"]) == {"entityName", "contents"}


def test_create_entities_skips_existing_names_and_empty_lists(mind: Mind) -> None:
    async def body(c: Client) -> Any:
        first = await _ok(c, "create_entities", {"entities": [ALICE, BOB]})
        again = await _ok(c, "create_entities", {"entities": [ALICE]})
        empty = await _ok(c, "create_entities", {"entities": []})
        return first, again, empty, await _ok(c, "read_graph")

    first, again, empty, graph = _run(mind, body)
    assert first["entities"] == [ALICE, BOB]
    assert again["entities"] == [] and empty["entities"] == []
    assert _names(graph) == {"Alice", "Bob"}
    alice = next(e for e in graph["entities"] if e["name"] == "Alice")
    assert alice == ALICE  # the client's exact name, type and observations come back


def test_relations_deduplicate_and_observations_append_once(mind: Mind) -> None:
    rel = {"from": "Alice", "to": "Bob", "relationType": "knows"}

    async def body(c: Client) -> Any:
        await _ok(c, "create_entities", {"entities": [ALICE, BOB]})
        r1 = await _ok(c, "create_relations", {"relations": [rel]})
        r2 = await _ok(c, "create_relations", {"relations": [rel]})
        o1 = await _ok(c, "add_observations", {
            "observations": [{"entityName": "Alice", "contents": ["speaks Spanish"]}]
        })
        o2 = await _ok(c, "add_observations", {
            "observations": [{"entityName": "Alice", "contents": ["speaks Spanish", "has a cat"]}]
        })
        missing = await c.call_tool("add_observations", {
            "observations": [{"entityName": "Nobody", "contents": ["x"]}]
        })
        return r1, r2, o1, o2, missing, await _ok(c, "open_nodes", {"names": ["Alice"]})

    r1, r2, o1, o2, missing, alice = _run(mind, body)
    assert r1["relations"] == [rel] and r2["relations"] == []
    assert o1["results"] == [{"entityName": "Alice", "addedObservations": ["speaks Spanish"]}]
    assert o2["results"] == [{"entityName": "Alice", "addedObservations": ["has a cat"]}]
    assert missing.is_error and "Nobody not found" in missing.content[0].text
    assert alice["entities"][0]["observations"] == [
        "works at Acme Corp", "speaks Spanish", "has a cat"
    ]
    assert _rels(alice) == {("Alice", "knows", "Bob")}


def test_deletes_cascade_and_ignore_unknown_names(mind: Mind) -> None:
    async def body(c: Client) -> Any:
        await _ok(c, "create_entities", {"entities": [ALICE, BOB]})
        await _ok(c, "create_relations", {"relations": [
            {"from": "Alice", "to": "Bob", "relationType": "knows"},
            {"from": "Bob", "to": "Alice", "relationType": "mentors"},
        ]})
        await _ok(c, "delete_relations", {"relations": [
            {"from": "Bob", "to": "Alice", "relationType": "mentors"}
        ]})
        after_rel = await _ok(c, "read_graph")
        await _ok(c, "delete_observations", {"deletions": [
            {"entityName": "Bob", "observations": ["likes programming"]},
            {"entityName": "Nobody", "observations": ["x"]},
        ]})
        after_obs = await _ok(c, "open_nodes", {"names": ["Bob"]})
        done = await _ok(c, "delete_entities", {"entityNames": ["Alice", "Nobody"]})
        return after_rel, after_obs, done, await _ok(c, "read_graph")

    after_rel, after_obs, done, graph = _run(mind, body)
    assert _rels(after_rel) == {("Alice", "knows", "Bob")}
    assert after_obs["entities"][0]["observations"] == []
    assert done == {"success": True, "message": "Entities deleted successfully"}
    assert _names(graph) == {"Bob"}
    assert graph["relations"] == []  # Alice's relations went with her
    # observations are memories: Alice's were deleted with her, Bob's one explicitly
    assert mind.count() == 0
    # the graph is bitemporal: a retired entity is still there as of before its deletion
    assert mind.graph.resolve("Alice") is None


def test_search_and_open_nodes_include_relations_touching_the_result(mind: Mind) -> None:
    async def body(c: Client) -> Any:
        await _ok(c, "create_entities", {"entities": [
            ALICE, BOB, {"name": "Acme Corp", "entityType": "organization", "observations": []},
        ]})
        await _ok(c, "create_relations", {"relations": [
            {"from": "Alice", "to": "Acme Corp", "relationType": "works_at"},
            {"from": "Bob", "to": "Alice", "relationType": "knows"},
        ]})
        return (
            await _ok(c, "search_nodes", {"query": "alice"}),
            await _ok(c, "search_nodes", {"query": "ORGANIZATION"}),
            await _ok(c, "search_nodes", {"query": "programming"}),
            await _ok(c, "search_nodes", {"query": "zebra"}),
            await _ok(c, "open_nodes", {"names": ["Bob", "Nobody"]}),
            await _ok(c, "open_nodes", {"names": []}),
        )

    by_name, by_type, by_obs, none, bob, empty = _run(mind, body)
    assert _names(by_name) == {"Alice"}
    assert _rels(by_name) == {("Alice", "works_at", "Acme Corp"), ("Bob", "knows", "Alice")}
    assert _names(by_type) == {"Acme Corp"}
    assert _names(by_obs) == {"Bob"}
    assert none == {"entities": [], "relations": []}
    assert _names(bob) == {"Bob"} and _rels(bob) == {("Bob", "knows", "Alice")}
    assert empty == {"entities": [], "relations": []}


def test_observations_are_searchable_memories(mind: Mind) -> None:
    async def body(c: Client) -> Any:
        await _ok(c, "create_entities", {"entities": [
            {"name": "Maya", "entityType": "Family Member", "observations": [
                "is allergic to penicillin"
            ]},
        ]})
        return await _ok(c, "search_memories", {"query": "penicillin allergy"})

    found = _run(mind, body)
    assert found["results"][0]["content"] == "Maya: is allergic to penicillin"
    assert [m.content for m in mind.graph.about("maya")] == ["Maya: is allergic to penicillin"]
    assert type_key("Family Member") == "family_member" and type_key("a/b") == "entity"


def test_remember_turn_list_memories_and_heartbeat(mind: Mind) -> None:
    async def body(c: Client) -> Any:
        first = await _ok(c, "remember_turn", {"user": "I live in Leeds."})
        moved = await _ok(c, "remember_turn", {"user": "I moved to Lisbon.", "assistant": "Ok."})
        noise = await _ok(c, "remember_turn", {"user": "thanks!"})
        queued = await _ok(c, "remember_turn", {"user": "My dog is Rex.", "defer": True})
        before = await _ok(c, "list_memories", {"limit": 1})
        tick = await _ok(c, "heartbeat")
        after = await _ok(c, "list_memories", {"limit": 10})
        page = await _ok(c, "list_memories", {"limit": 1})
        bad = await c.call_tool("remember_turn", {"user": "x", "speaker": "Assistant"})
        return first, moved, noise, queued, before, tick, after, page, bad

    first, moved, noise, queued, before, tick, after, page, bad = _run(mind, body)
    assert moved["result"]["superseded"] == first["result"]["saved"]
    assert noise["result"]["skipped"] == "noise"
    assert isinstance(queued["queued"], int)
    assert len(before["items"]) == 1 and before["next_offset"] is None  # Rex not triaged yet
    assert tick["ran"] and next(s for s in tick["steps"] if s["name"] == "drain")["status"] == "ok"
    assert [m["content"] for m in after["items"]] == [
        "User: My dog is Rex.", "User: I moved to Lisbon.\nAssistant: Ok."
    ]  # Leeds is superseded (hidden), "thanks!" was never kept
    assert after["next_offset"] is None and page["next_offset"] == 1
    assert bad.is_error and bad.content[0].text.startswith("Error executing tool")


def test_a_reference_client_over_stdio(tmp_path: Path) -> None:
    """What a client built for the reference server sends, over a real stdio subprocess."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "salience.interfaces.mcp", "--mind", "kg", "--create"],
        env={"SALIENCE_HOME": str(tmp_path), "SALIENCE_EMBEDDER": "hash", "HF_HUB_OFFLINE": "1"},
    )

    async def main() -> Any:
        with open(tmp_path / "stderr.log", "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as s,
            ):
                await s.initialize()
                await s.call_tool("create_entities", {"entities": [ALICE]})
                await s.call_tool("add_observations", {
                    "observations": [{"entityName": "Alice", "contents": ["prefers tea"]}]
                })
                r = await s.call_tool("read_graph", {})
                return json.loads(r.content[0].text)  # clients that read the text block

    graph = anyio.run(main)
    assert graph["entities"] == [{
        "name": "Alice", "entityType": "person",
        "observations": ["works at Acme Corp", "prefers tea"],
    }]


def test_save_awareness_with_a_ttl(tmp_path: Path) -> None:
    from salience import FrozenClock

    clock = FrozenClock()
    cfg = Config(home=tmp_path / "home", embedder="hash")
    with Mind.open("aw", config=cfg, clock=clock) as mind:

        async def save(c: Client) -> Any:
            short = await _ok(c, "save_awareness", {"content": "Call Bob back", "ttl_minutes": 30})
            lasting = await _ok(c, "save_awareness", {"content": "Plan the trip"})
            return short, lasting

        short, lasting = _run(mind, save)
        assert "expires_at" in short and "expires_at" not in lasting
        clock.advance(minutes=31)

        async def listed(c: Client) -> Any:
            return await _ok(c, "list_awareness")

        assert [i["content"] for i in _run(mind, listed)["items"]] == ["Plan the trip"]
