"""HTTP routes for the facade's layers and ingestion state: memory history, ingestion queue,
prompt context, self-awareness, identity and the knowledge graph. Each route calls one facade
method; each group is registered only when the facade in this version has it."""

from datetime import datetime
from typing import Annotated, Any

from fastapi import FastAPI, Path, Query, Response
from pydantic import BaseModel, ConfigDict, Field

from ..mind import Mind


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class ContextIn(_In):
    """What to build the system-prompt context for."""

    model_config = ConfigDict(
        extra="forbid",
        allow_inf_nan=False,
        json_schema_extra={"examples": [{"query": "plan Maya's trip", "budget_tokens": 1500}]},
    )

    query: str | None = Field(None, max_length=10_000, description="This turn's message.")
    budget_tokens: int = Field(2000, ge=50, le=32_000)
    limit: int = Field(8, ge=1, le=50)
    tools: list[Annotated[str, Field(max_length=200)]] | None = Field(
        None, max_length=100, description="Tools the agent has this turn (self-awareness)."
    )
    skills: list[Annotated[str, Field(max_length=200)]] | None = Field(None, max_length=100)
    mode: str | None = Field(None, max_length=100, examples=["local"])
    version: str | None = Field(None, max_length=100, description="The agent's version.")
    surface_signals: bool = Field(
        True, description="Show actionable improvement signals (each once) and mark them."
    )


ItemId = Annotated[
    str,
    Path(description="Awareness item id (from the list), or a unique prefix of it.", max_length=64),
]


class AwarenessIn(_In):
    """A working-memory item (at most 10 are active; 409 when full)."""

    model_config = ConfigDict(
        extra="forbid",
        allow_inf_nan=False,
        json_schema_extra={"examples": [{"content": "Draft the trip budget", "category": "task"}]},
    )

    content: str = Field(min_length=1, max_length=2000)
    category: str = Field("task", max_length=32, description="task, state, flag, ...")
    priority: int = Field(0, ge=-1000, le=1000)
    status: str | None = Field(None, max_length=100)


class EntityIn(_In):
    name: str = Field(min_length=1, max_length=200, examples=["Maya"])
    entity_type: str | None = Field(None, max_length=64, description="Ontology type, e.g. person.")
    aliases: list[Annotated[str, Field(max_length=200)]] = Field(
        default_factory=list, max_length=20
    )


class RelationIn(_In):
    source_id: str = Field(min_length=1, max_length=64)
    relation_type: str = Field(min_length=1, max_length=64, examples=["knows"])
    target_id: str = Field(min_length=1, max_length=64)
    confidence: float = Field(1.0, ge=0, le=1)


def register_layer_routes(app: FastAPI, Reader: Any, Writer: Any) -> None:
    """Add the routes whose facade methods exist (see the module docstring)."""
    tags = ["layers"]

    if hasattr(Mind, "history"):

        @app.get("/v1/minds/{mind}/memories/{memory_id}/history", tags=["memories"])
        def memory_history(memory_id: Annotated[str, Path(max_length=64)], m: Reader) -> Any:
            """The supersession chain through a memory (id or unique id prefix), oldest first."""
            return {"items": [r.to_dict() for r in m.history(m.resolve_id(memory_id))]}

    if hasattr(Mind, "queue_status"):

        @app.get("/v1/minds/{mind}/queue", tags=["ingestion"])
        def queue_status(m: Reader) -> dict[str, Any]:
            """Pending and failed ingestion work, and import sources."""
            return m.queue_status()

    if hasattr(Mind, "context"):

        @app.post("/v1/minds/{mind}/context", tags=tags)
        def context(body: ContextIn, m: Reader) -> dict[str, Any]:
            """System-prompt sections (identity, self-awareness, recalled memories) in budget."""
            pc = m.context(**body.model_dump())
            return {
                "text": pc.text,
                "tokens": pc.tokens,
                "sections": list(pc.sections),
                "signals": [s.to_dict() for s in pc.signals],
            }

    if hasattr(Mind, "awareness"):

        @app.get("/v1/minds/{mind}/awareness", tags=tags)
        def list_awareness(m: Reader) -> dict[str, Any]:
            """The active working-memory items."""
            return {"items": m.awareness.get_all()}

        @app.post("/v1/minds/{mind}/awareness", status_code=201, tags=tags)
        def add_awareness(body: AwarenessIn, m: Writer) -> Any:
            """Add a working-memory item (the same text and category again updates the active
            item instead of adding a copy)."""
            return m.awareness.add(**body.model_dump())

        @app.post("/v1/minds/{mind}/awareness/{item_id}/complete", tags=tags)
        def complete_awareness(item_id: ItemId, m: Writer) -> Any:
            """Mark an item (id or unique id prefix) done and take it out of working memory;
            returns the final item."""
            return m.awareness.complete(m.awareness.resolve_id(item_id))

        @app.delete("/v1/minds/{mind}/awareness/{item_id}", status_code=204, tags=tags)
        def remove_awareness(item_id: ItemId, m: Writer) -> Response:
            """Remove an item (id or unique id prefix) from working memory."""
            m.awareness.remove(m.awareness.resolve_id(item_id))
            return Response(status_code=204)

    if hasattr(Mind, "identity"):

        @app.get("/v1/minds/{mind}/identity", tags=tags)
        def identity(m: Reader) -> dict[str, Any]:
            """Who this mind is (null when no identity was set)."""
            return {"identity": m.identity.get()}

    if hasattr(Mind, "graph"):

        @app.post("/v1/minds/{mind}/graph/entities", status_code=201, tags=["graph"])
        def add_entity(body: EntityIn, m: Writer) -> Any:
            """Record an entity (person, place, project, ...)."""
            kw = body.model_dump(exclude_none=True)
            return m.graph.add_entity(kw.pop("name"), **kw)

        @app.post("/v1/minds/{mind}/graph/relations", status_code=201, tags=["graph"])
        def add_relation(body: RelationIn, m: Writer) -> Any:
            """Record `source -[relation_type]-> target` between two entity ids."""
            return m.graph.add_relation(
                body.source_id, body.relation_type, body.target_id, confidence=body.confidence
            )

        @app.get("/v1/minds/{mind}/graph/entities/{entity_id}/neighbors", tags=["graph"])
        def neighbors(
            entity_id: Annotated[str, Path(max_length=64)],
            m: Reader,
            as_of: Annotated[datetime | None, Query(description="Graph as it was then.")] = None,
        ) -> dict[str, Any]:
            """Entities one hop away (optionally as of a past time)."""
            return {"items": m.graph.neighbors(entity_id, as_of=as_of)}

        @app.get("/v1/minds/{mind}/graph/about", tags=["graph"])
        def about(
            m: Reader,
            name: Annotated[str, Query(min_length=1, max_length=200)],
            depth: Annotated[int, Query(ge=0, le=3)] = 0,
            limit: Annotated[int, Query(ge=1, le=100)] = 20,
        ) -> dict[str, Any]:
            """Memories about an entity (and, with depth, its neighbourhood)."""
            return {"items": [r.to_dict() for r in m.graph.about(name, depth=depth, limit=limit)]}
