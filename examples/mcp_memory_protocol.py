"""A client written for the reference MCP memory server, pointed at Salience's MCP server:
the same tool calls (create_entities, add_observations, search_nodes, ...) work unchanged,
and Salience's own tools (remember_turn, search_memories) sit beside them.

    pip install 'salience[mcp]'
    python examples/mcp_memory_protocol.py
    # in a client config: {"command": "salience", "args": ["mcp", "--mind", "me", "--create"]}
"""

from __future__ import annotations

import anyio
from _home import example_config
from mcp import Client

from salience import Mind
from salience.interfaces.mcp import create_server


async def main() -> None:
    with Mind.open("mcp-example", config=example_config()) as mind:
        async with Client(create_server(mind)) as client:
            await client.call_tool("create_entities", {"entities": [
                {"name": "Maya", "entityType": "person", "observations": ["allergic to penicillin"]},
            ]})
            await client.call_tool("create_relations", {"relations": [
                {"from": "Maya", "to": "Acme", "relationType": "works_at"},
            ]})
            graph = await client.call_tool("search_nodes", {"query": "penicillin"})
            print("search_nodes:", graph.structured_content)
            turn = await client.call_tool("remember_turn", {"user": "I moved to Lisbon."})
            print("remember_turn:", turn.structured_content)
            hits = await client.call_tool("search_memories", {"query": "Maya allergy"})
            print("search_memories:", [r["content"] for r in hits.structured_content["results"]])


if __name__ == "__main__":
    anyio.run(main)
