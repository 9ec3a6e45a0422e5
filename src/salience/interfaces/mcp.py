"""The MCP server (official `mcp` SDK 2.x, `MCPServer`): memory tools for one mind.

Run it with `salience mcp --mind NAME [--transport stdio|http]` or
`python -m salience.interfaces.mcp --mind NAME`. Every tool calls one `Mind` method; errors
come back to the model as tool errors that start with the stable error code
(e.g. `not_found: memory ... not found`).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from ..errors import InvalidInput, MissingExtra, SalienceError, public_message
from ..models import Importance, Memory, MemoryFilter, MemoryType, SearchHit, Source

try:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError as e:  # pragma: no cover - depends on the installed extras
    raise MissingExtra("mcp", "mcp") from e

from ..config import Config
from ..mind import Mind
from .mcp_agent import register_agent_tools
from .mcp_memory import register_memory_protocol
from .mcp_records import register_record_tools

INSTRUCTIONS = """\
Long-term memory for this assistant (Salience). Use it to remember what matters across
conversations and to recall it later.
- Before answering something that may depend on the past (the user's preferences, people,
  plans, earlier decisions), call search_memories or recall_context.
- After each exchange, call remember_turn with what the user said and your reply: Salience
  keeps what matters. For a single fact you want stored as written, call add_memory with a
  self-contained sentence (name people and dates; avoid "he", "yesterday").
- When a memory turns out wrong or outdated, call update_memory (or add the new fact and set
  superseded_by on the old one); delete_memory only for things that should not be kept.
- At the start of a session, catch_up returns the important and the most recent memories.
- When the user corrects how you work (a format, the tone, a wrong assumption), call
  record_correction with a short key that stays the same each time it recurs.
"""

# inline enums (Literal) read better for a model than $ref'd enum classes
MemoryTypeName = Literal[tuple(t.value for t in MemoryType)]  # type: ignore[valid-type]
ImportanceName = Literal[tuple(i.value for i in Importance)]  # type: ignore[valid-type]
SourceName = Literal[tuple(s.value for s in Source)]  # type: ignore[valid-type]

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})

MemoryIdArg = Annotated[
    str,
    Field(
        description="A memory id as returned by add_memory or search_memories (a unique "
        "prefix of it is enough).",
        max_length=64,
    ),
]
TagsArg = Annotated[
    list[str] | None,
    Field(description="Short lowercase topic labels, e.g. ['health', 'travel'].", max_length=50),
]


def _fail(e: SalienceError) -> ToolError:
    return ToolError(f"{e.code}: {public_message(e)}")


def _memory(m: Memory) -> dict[str, Any]:
    """The fields a model needs to use a memory (full records are long)."""
    out: dict[str, Any] = {
        "id": m.id,
        "content": m.content,
        "memory_type": m.memory_type.value,
        "salience": m.salience,
        "importance": m.importance.value,
        "source": m.source.value,
        "tags": list(m.tags),
        "entities": list(m.entities),
        "created_at": m.created_at.isoformat() if m.created_at else None,
    }
    if m.summary:
        out["summary"] = m.summary
    if m.occurred_at:
        out["occurred_at"] = m.occurred_at.isoformat()
    if m.superseded_by:
        out["superseded_by"] = m.superseded_by
    return out


def _hits(hits: Sequence[SearchHit]) -> dict[str, Any]:
    return {
        "results": [{**_memory(h.memory), "score": round(h.score, 6), "mind": h.mind} for h in hits]
    }


def _call(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except SalienceError as e:
        raise _fail(e) from e


def create_server(mind: Mind, *, name: str = "salience") -> MCPServer:
    """An MCP server whose tools and resources act on `mind`."""
    server: MCPServer = MCPServer(name=name, instructions=INSTRUCTIONS)

    @server.tool()
    def add_memory(
        content: Annotated[
            str,
            Field(
                description="The memory as one self-contained statement, e.g. "
                "'Maya (the user's sister) is allergic to penicillin.'",
                min_length=1,
            ),
        ],
        memory_type: Annotated[
            MemoryTypeName, Field(description="What kind of memory this is.")
        ] = "general",
        salience: Annotated[
            float,
            Field(
                ge=1,
                le=10,
                description="How much it matters: 1 trivia, 5 ordinary, 8 important, "
                "10 critical (health, safety, hard commitments).",
            ),
        ] = 5.0,
        tags: TagsArg = None,
        entities: Annotated[
            list[str] | None,
            Field(description="People, places, projects it is about.", max_length=50),
        ] = None,
        importance: Annotated[
            ImportanceName,
            Field(description="Retention class: critical memories are never pruned."),
        ] = "normal",
        source: Annotated[
            SourceName,
            Field(
                description="user_stated if the user said it, agent_inferred if you concluded "
                "it, tool_verified if a tool confirmed it."
            ),
        ] = "user_stated",
    ) -> dict[str, Any]:
        """Save one memory as given (a direct save: no triage; what it contradicts is
        superseded). For things said in conversation prefer remember_turn. Returns the memory
        id (identical content already stored returns the existing id)."""
        mid = _call(
            lambda: mind.add(
                content,
                memory_type=memory_type,
                salience=salience,
                tags=tags,
                entities=entities,
                importance=importance,
                source=source,
            )
        )
        return {"id": mid}

    @server.tool()
    def search_memories(
        query: Annotated[
            str,
            Field(
                description="What to look for, in natural language, e.g. 'Maya allergies'.",
                min_length=1,
            ),
        ],
        limit: Annotated[int, Field(ge=1, le=50, description="How many results.")] = 5,
        memory_types: Annotated[
            list[MemoryTypeName] | None, Field(description="Only these kinds of memory.")
        ] = None,
        tags: TagsArg = None,
        preset: Annotated[
            str | None,
            Field(description="Ranking preset; leave empty for the default.", max_length=64),
        ] = None,
    ) -> dict[str, Any]:
        """Search long-term memory (keywords and meaning). Results are best first."""
        types = [MemoryType(t) for t in memory_types] if memory_types else None
        flt = MemoryFilter(memory_types=types, tags=tags) if types or tags else None
        return _hits(_call(lambda: mind.search(query, limit=limit, flt=flt, preset=preset)))

    @server.tool()
    def get_memory(memory_id: MemoryIdArg) -> dict[str, Any]:
        """Read one memory by id."""
        return _memory(_call(lambda: mind.get(mind.resolve_id(memory_id))))

    @server.tool()
    def update_memory(
        memory_id: MemoryIdArg,
        content: Annotated[
            str | None, Field(description="New text (replaces the old text).", min_length=1)
        ] = None,
        salience: Annotated[float | None, Field(ge=1, le=10, description="New salience.")] = None,
        tags: TagsArg = None,
        importance: Annotated[
            ImportanceName | None, Field(description="New retention class.")
        ] = None,
        memory_type: Annotated[MemoryTypeName | None, Field(description="New kind.")] = None,
        superseded_by: Annotated[
            str | None, Field(description="Id of a newer memory that replaces this one.")
        ] = None,
    ) -> dict[str, Any]:
        """Correct or refine a memory. Only the fields given change."""
        changes = {
            k: v
            for k, v in {
                "content": content,
                "salience": salience,
                "tags": tags,
                "importance": importance,
                "memory_type": memory_type,
                "superseded_by": superseded_by,
            }.items()
            if v is not None
        }
        if not changes:
            raise _fail(InvalidInput("give at least one field to change"))
        return _memory(_call(lambda: mind.update(mind.resolve_id(memory_id), **changes)))

    @server.tool()
    def delete_memory(memory_id: MemoryIdArg) -> dict[str, Any]:
        """Forget a memory permanently. Prefer update_memory for corrections."""
        full = _call(lambda: mind.resolve_id(memory_id))
        _call(lambda: mind.delete(full))
        return {"deleted": full}

    _register_recall_tools(server, mind)
    register_agent_tools(server, mind, _call, _memory)
    register_memory_protocol(server, mind, _call)
    _register_layer_tools(server, mind)
    register_record_tools(server, mind, _call)
    _register_resources(server, mind)
    return server


def _register_recall_tools(server: MCPServer, mind: Mind) -> None:
    """Tools for the facade's recall paths."""

    @server.tool()
    def recall_context(
        current_message: Annotated[
            str, Field(description="The user's latest message.", min_length=1)
        ],
        recent_messages: Annotated[
            list[str] | None,
            Field(description="A few preceding messages, oldest first.", max_length=20),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=20, description="How many memories.")] = 5,
    ) -> dict[str, Any]:
        """Memories relevant to where the conversation is now (uses the recent messages as
        context). Call it when a new user message arrives."""
        return _hits(
            _call(lambda: mind.prefetch(recent_messages or [], current_message, limit=limit))
        )

    @server.tool()
    def catch_up(
        limit: Annotated[int, Field(ge=1, le=50, description="How many memories.")] = 10,
        topic: Annotated[
            str | None,
            Field(max_length=500, description="Only this topic, e.g. 'payments' (optional)."),
        ] = None,
    ) -> dict[str, Any]:
        """What to know at the start of a session: important memories and decisions, then
        the most recent ones; with `topic`, that topic's decisions and important memories."""
        return _hits(_call(lambda: mind.catch_up(topic, limit=limit)))

    @server.tool()
    def memory_feedback(
        memory_ids: Annotated[
            list[str], Field(description="Ids of recalled memories.", min_length=1, max_length=50)
        ],
        useful: Annotated[bool, Field(description="True if they helped answer, else false.")],
    ) -> dict[str, Any]:
        """Say whether recalled memories helped; useful ones rank higher later."""
        rows = _call(lambda: mind.mark_useful(memory_ids, useful))
        return {"updated": [{"id": r.id, "usefulness": r.usefulness} for r in rows]}


AwarenessId = Annotated[
    str,
    Field(description="The item's id (from list_awareness), or a unique prefix.", max_length=64),
]


def _register_layer_tools(server: MCPServer, mind: Mind) -> None:
    """Tools for self-awareness and the knowledge graph, when the facade has them."""
    if hasattr(Mind, "awareness"):

        @server.tool()
        def save_awareness(
            content: Annotated[
                str,
                Field(
                    description="A short working-memory note, e.g. 'Waiting for Bob's reply "
                    "about the venue'.",
                    min_length=1,
                    max_length=2000,
                ),
            ],
            category: Annotated[
                str, Field(description="task (default), action, pending or flag.", max_length=32)
            ] = "task",
            priority: Annotated[
                int, Field(ge=-1000, le=1000, description="Higher shows first.")
            ] = 0,
            ttl_minutes: Annotated[
                float | None,
                Field(gt=0, le=525_600, description="Let it expire after this many minutes "
                      "(e.g. 60 for something that matters this hour); empty: until removed."),
            ] = None,
        ) -> dict[str, Any]:
            """Keep something in working memory (what you are doing or waiting for). At most
            10 items are active; complete_awareness or remove_awareness old ones when it is
            full. Saving the same text again updates the item instead of adding a copy."""
            ttl = timedelta(minutes=ttl_minutes) if ttl_minutes else None
            item = _call(
                lambda: mind.awareness.add(content, category=category, priority=priority, ttl=ttl)
            )
            out = {"id": item.id, "content": item.content, "category": str(item.category)}
            if item.expires_at is not None:
                out["expires_at"] = item.expires_at.isoformat()
            return out

        @server.tool()
        def complete_awareness(item_id: AwarenessId) -> dict[str, Any]:
            """Mark a working-memory item done; it leaves working memory and frees its slot."""
            item = _call(lambda: mind.awareness.complete(mind.awareness.resolve_id(item_id)))
            return {"id": item.id, "content": item.content, "status": item.status}

        @server.tool()
        def remove_awareness(item_id: AwarenessId) -> dict[str, Any]:
            """Remove a working-memory item that no longer matters (frees its slot)."""
            full = _call(lambda: mind.awareness.resolve_id(item_id))
            _call(lambda: mind.awareness.remove(full))
            return {"removed": full}

        @server.tool()
        def list_awareness() -> dict[str, Any]:
            """The active working-memory items, highest priority first."""
            items = _call(mind.awareness.get_all)
            return {
                "items": [
                    {
                        "id": i.id,
                        "content": i.content,
                        "category": str(i.category),
                        "priority": i.priority,
                    }
                    for i in items
                ]
            }

    if hasattr(Mind, "graph"):

        @server.tool()
        def add_entity(
            name: Annotated[
                str, Field(description="Canonical name, e.g. 'Robert (Bob)'.", min_length=1)
            ],
            entity_type: Annotated[
                str | None, Field(description="person, place, organization, project, ...")
            ] = None,
        ) -> dict[str, Any]:
            """Record a person, place, project or other entity; returns its id for
            add_relation."""
            kw = {"entity_type": entity_type} if entity_type else {}
            e = _call(lambda: mind.graph.add_entity(name, **kw))
            return {"id": e.id, "name": e.name, "entity_type": e.entity_type}

        @server.tool()
        def add_relation(
            source_id: Annotated[str, Field(description="Entity id (from add_entity).")],
            relation_type: Annotated[
                str, Field(description="e.g. knows, works_at, lives_in.", min_length=1)
            ],
            target_id: Annotated[str, Field(description="Entity id (from add_entity).")],
        ) -> dict[str, Any]:
            """Record that source relates to target, e.g. Maya -works_at-> Acme."""
            r = _call(lambda: mind.graph.add_relation(source_id, relation_type, target_id))
            return {
                "id": r.id,
                "source_id": r.source_id,
                "relation_type": r.relation_type,
                "target_id": r.target_id,
            }

        @server.tool()
        def search_graph(
            name: Annotated[
                str, Field(description="An entity name or id, e.g. 'Maya'.", min_length=1)
            ],
            depth: Annotated[
                int, Field(ge=0, le=3, description="0: only this entity; 1-3: also neighbours.")
            ] = 0,
            limit: Annotated[int, Field(ge=1, le=50, description="How many memories.")] = 10,
        ) -> dict[str, Any]:
            """Everything remembered about an entity (and, with depth, related entities)."""
            rows = _call(lambda: mind.graph.about(name, depth=depth, limit=limit))
            return {"results": [_memory(m) for m in rows]}


def _register_resources(server: MCPServer, mind: Mind) -> None:
    @server.resource(
        "salience://stats",
        name="stats",
        mime_type="application/json",
        description="Counts and the embedding model of this mind.",
    )
    def stats() -> str:
        st = {k: v for k, v in _call(mind.stats).items() if k != "path"}
        return json.dumps(st, default=str)

    if hasattr(Mind, "identity"):

        @server.resource(
            "salience://identity",
            name="identity",
            mime_type="text/markdown",
            description="Who this assistant is (name, role, personality), prompt-ready.",
        )
        def identity() -> str:
            return str(_call(mind.identity.to_context))

    if hasattr(Mind, "awareness"):

        @server.resource(
            "salience://awareness",
            name="awareness",
            mime_type="text/markdown",
            description="The active working-memory items, prompt-ready.",
        )
        def awareness() -> str:
            return str(_call(mind.awareness.to_context))


def run(
    mind_name: str,
    *,
    transport: Literal["stdio", "http"] = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    config: Config | None = None,
    allow_remote: bool = False,
    create: bool = False,
) -> None:
    """Open `mind_name` and serve it over stdio or streamable HTTP (at `/mcp`) until stopped.

    The HTTP transport has no authentication: it binds only to loopback addresses unless
    `allow_remote` (for use behind an authenticating proxy). The mind must exist unless
    `create` (a typo in `--mind` is an error naming close minds, as a CLI read is, not a new
    empty mind). Raises `InvalidInput`, `MindNotFound`.
    """
    if transport == "http" and host not in LOOPBACK and not allow_remote:
        raise InvalidInput(
            f"refusing to serve MCP over HTTP on {host!r} without authentication; bind "
            "127.0.0.1, or pass --allow-remote behind an authenticating reverse proxy"
        )
    from ..store.catalog import MindNotFound

    try:
        opened = Mind.open(mind_name, config=config or Config(), create=create)
    except MindNotFound as e:
        raise MindNotFound(f"{e} To serve a new mind, pass --create.") from None
    with opened as mind:
        server = create_server(mind)
        if transport == "stdio":
            server.run("stdio")
        else:
            server.run("streamable-http", host=host, port=port)


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m salience.interfaces.mcp --mind NAME [--transport stdio|http]`."""
    p = argparse.ArgumentParser(prog="salience-mcp", description="Salience MCP server")
    p.add_argument("--mind", default="default", help="mind name")
    p.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    p.add_argument("--host", default="127.0.0.1", help="HTTP transport: bind address")
    p.add_argument("--port", type=int, default=8765, help="HTTP transport: port")
    p.add_argument("--allow-remote", action="store_true", help="HTTP: allow non-loopback host")
    p.add_argument("--create", action="store_true", help="create the mind if it does not exist")
    args = p.parse_args(argv)
    try:
        run(
            args.mind,
            transport=args.transport,
            host=args.host,
            port=args.port,
            allow_remote=args.allow_remote,
            create=args.create,
        )
    except SalienceError as e:
        p.exit(2, f"error: {e}\n")


if __name__ == "__main__":
    main()
