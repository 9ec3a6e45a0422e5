"""MCP tools of the agent path: `remember_turn` (a conversation turn through triage),
`list_memories` (a page of memories) and `heartbeat` (drain the queued turns now).

`add_memory` (in `mcp.py`) is the direct save: no triage or admission (its contradiction check
still runs); `remember_turn` is the path that decides what of a conversation is worth keeping.
Registered on the server by `register_agent_tools(server, mind, call, memory)`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from ..mind import Mind
from ..models import MemoryFilter, MemoryType

Order = Literal["created_desc", "created_asc", "salience_desc", "occurred_desc", "occurred_asc"]


def register_agent_tools(
    server: MCPServer,
    mind: Mind,
    call: Callable[[Callable[[], Any]], Any],
    memory: Callable[[Any], dict[str, Any]],
) -> None:
    """Add the agent-path tools; `call` maps Salience errors to tool errors, `memory` renders
    a memory for the model."""

    @server.tool()
    def remember_turn(
        user: Annotated[
            str, Field(description="What the user (or another person) said.", min_length=1)
        ],
        assistant: Annotated[str, Field(description="Your reply (may be empty).")] = "",
        speaker: Annotated[
            str | None,
            Field(description="Who spoke, e.g. 'Maya'; 'User' when omitted.", max_length=80),
        ] = None,
        tool_grounded: Annotated[
            bool, Field(description="True if your reply rests on a tool's result.")
        ] = False,
        defer: Annotated[
            bool,
            Field(description="Only queue the turn (the heartbeat tool triages it later)."),
        ] = False,
    ) -> dict[str, Any]:
        """Remember a conversation turn. Salience decides what is worth keeping (small talk
        is dropped, durable facts kept, outdated statements superseded). Call it after each
        exchange; prefer it to add_memory for things said in conversation."""
        out = call(
            lambda: mind.remember_turn(
                user, assistant, speaker=speaker, tool_grounded=tool_grounded, defer=defer
            )
        )
        if defer:
            return {"queued": out}
        return {"result": out.to_dict()}

    @server.tool()
    def list_memories(
        limit: Annotated[int, Field(ge=1, le=100, description="How many memories.")] = 20,
        offset: Annotated[int, Field(ge=0, le=10_000_000, description="How many to skip.")] = 0,
        order: Annotated[Order, Field(description="Sort order.")] = "created_desc",
        memory_types: Annotated[
            list[Literal[tuple(t.value for t in MemoryType)]] | None,  # type: ignore[valid-type]
            Field(description="Only these kinds of memory."),
        ] = None,
        tags: Annotated[
            list[str] | None, Field(description="Only memories with any of these tags.")
        ] = None,
    ) -> dict[str, Any]:
        """Browse memories (newest first by default), a page at a time; `next_offset` is null
        on the last page."""
        types = [MemoryType(t) for t in memory_types] if memory_types else None
        flt = MemoryFilter(memory_types=types, tags=tags)
        rows = call(lambda: mind.list(flt, limit=limit + 1, offset=offset, order=order))
        more = len(rows) > limit
        return {
            "items": [memory(r) for r in rows[:limit]],
            "next_offset": offset + limit if more else None,
        }

    @server.tool()
    def heartbeat() -> dict[str, Any]:
        """Process queued turns (remember_turn with defer) and run maintenance when it is
        due. Call it now and then, e.g. at the end of a session."""
        return dict(call(mind.heartbeat).to_dict())
