"""The MCP memory protocol: the reference memory server's nine tools (`create_entities`,
`create_relations`, `add_observations`, `delete_entities`, `delete_observations`,
`delete_relations`, `read_graph`, `search_nodes`, `open_nodes`), same names, same argument and
result shapes, so a client written for that server works against a Salience mind unchanged.

How the reference model maps onto a mind:

| reference | Salience |
|---|---|
| entity `{name, entityType}` | a knowledge-graph entity; the client's exact name and type are kept in its properties (`mcp_name`, `mcp_type`) — the graph's own type is the type lower-cased (`entity` when it is not an identifier) |
| observation (a string on an entity) | a memory `"<name>: <observation>"` linked to the entity, tagged `observation`, stored as given (no triage, no contradiction check): searchable by `search_memories`, in the prompt context, found by `search_graph` |
| relation `{from, to, relationType}` | a graph relation between the two entities (endpoints that do not exist yet are created, type `entity`) |
| delete an entity / a relation | retired (the graph is bitemporal: `as_of` queries still see it); the entity's observations are deleted |
| delete an observation | its memory is deleted |
| `search_nodes` | the reference's case-insensitive substring match on names, types and observations, plus the entities whose observations the mind's hybrid search ranks in its top 10 with a keyword match |
| `read_graph` | every live entity of the mind, including those its other write paths (turns, imports, `add_memory`) put in the graph |

Names match case-insensitively (the graph's name keys): "alice" opens "Alice".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, ConfigDict, Field

from ..errors import NotFound
from ..graph.kg import KnowledgeGraph
from ..graph.ontology import Ontology
from ..mind import Mind
from ..models import Memory, MemoryFilter, Source
from ..models.graph import AUTO_ENTITY_TYPE, Entity, Relation

OBSERVATION_TAG = "observation"
_PAGE = 1000


class EntityIn(BaseModel):
    name: str = Field(min_length=1, max_length=200, description="The name of the entity")
    entityType: str = Field(max_length=200, description="The type of the entity")
    observations: list[str] = Field(
        default_factory=list,
        description="An array of observation contents associated with the entity",
    )


class RelationIn(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    source: str = Field(
        alias="from", min_length=1, description="The name of the entity where the relation starts"
    )
    target: str = Field(
        alias="to", min_length=1, description="The name of the entity where the relation ends"
    )
    relationType: str = Field(
        min_length=1, max_length=200, description="The type of the relation"
    )


class ObservationsIn(BaseModel):
    entityName: str = Field(description="The name of the entity to add the observations to")
    contents: list[str] = Field(description="An array of observation contents to add")


class DeletionIn(BaseModel):
    entityName: str = Field(description="The name of the entity containing the observations")
    observations: list[str] = Field(description="An array of observations to delete")


def type_key(raw: str) -> str:
    """The graph's type for a client's type string: lower-cased words joined by `_`, or
    `entity` when that is not an identifier (pure)."""
    v = "_".join(raw.strip().lower().split())
    ok = 0 < len(v) <= 64 and all(ch.isalnum() or ch in "_-" for ch in v)
    return v if ok else AUTO_ENTITY_TYPE


class ReferenceGraph:
    """The reference memory server's operations over one mind (see the module docstring)."""

    def __init__(self, mind: Mind) -> None:
        self.mind = mind
        # the protocol lets clients name any entity and relation type: no schemas to enforce
        self.graph = KnowledgeGraph(mind.store, mind.clock, ontology=Ontology(strict=False))

    # -- rendering ------------------------------------------------------------------------------
    @staticmethod
    def _name(e: Entity) -> str:
        return str(e.properties.get("mcp_name") or e.name)

    def _entity_out(self, e: Entity, observations: dict[str, list[Memory]]) -> dict[str, Any]:
        return {
            "name": self._name(e),
            "entityType": str(e.properties.get("mcp_type") or e.entity_type),
            "observations": [str(m.metadata["observation"]) for m in observations.get(e.id, [])],
        }

    def _relations_out(self, rels: Iterable[Relation]) -> list[dict[str, Any]]:
        rels = list(rels)
        ends = self.mind.store.get_entities(
            list({i for r in rels for i in (r.source_id, r.target_id)})
        )
        out = []
        for r in rels:
            if r.source_id in ends and r.target_id in ends:
                out.append({
                    "from": self._name(ends[r.source_id]),
                    "to": self._name(ends[r.target_id]),
                    "relationType": str(r.properties.get("mcp_type") or r.relation_type),
                })
        return out

    def _graph_out(self, entities: Sequence[Entity]) -> dict[str, Any]:
        """Entities with their observations and every live relation touching one of them."""
        obs = self._observations([e.id for e in entities])
        now = self.mind.clock.now()
        rels = self.mind.store.relations_of([e.id for e in entities], as_of=now) if entities else []
        uniq = {r.id: r for r in rels}
        return {
            "entities": [self._entity_out(e, obs) for e in entities],
            "relations": self._relations_out(uniq.values()),
        }

    # -- lookups --------------------------------------------------------------------------------
    def _find(self, name: str) -> Entity | None:
        return self.graph.resolve(name)

    def _all_entities(self) -> list[Entity]:
        out: list[Entity] = []
        while True:
            page = self.graph.entities(limit=_PAGE, offset=len(out))
            out.extend(page)
            if len(page) < _PAGE:
                return out

    def _observation_memories(self, ids: Sequence[str] | None = None) -> list[Memory]:
        flt = MemoryFilter(tags=[OBSERVATION_TAG], ids=list(ids) if ids is not None else None)
        out: list[Memory] = []
        while True:
            page = self.mind.list(flt, limit=_PAGE, offset=len(out), order="created_asc")
            out.extend(page)
            if len(page) < _PAGE:
                return [m for m in out if "observation" in m.metadata]

    def _observations(self, entity_ids: Sequence[str]) -> dict[str, list[Memory]]:
        wanted = set(entity_ids)
        by_entity: dict[str, list[Memory]] = {}
        for m in self._observation_memories():
            eid = m.metadata.get("entity_id")
            if eid in wanted:
                by_entity.setdefault(eid, []).append(m)
        return by_entity

    # -- writes ---------------------------------------------------------------------------------
    def _create(self, name: str, entity_type: str) -> Entity:
        return self.graph.add_entity(
            name,
            type_key(entity_type),
            properties={"mcp_name": name, "mcp_type": entity_type},
        )

    def _observe(self, e: Entity, contents: Iterable[str]) -> list[str]:
        have = {m.metadata["observation"] for m in self._observations([e.id]).get(e.id, [])}
        added: list[str] = []
        for text in contents:
            if text in have or not text.strip():
                continue
            # stored as given, like the reference (no contradiction check), and not mined for
            # more entities: the client structures its graph itself
            self.mind.add_many(
                [{
                    "content": f"{self._name(e)}: {text}",
                    "memory_type": "fact",
                    "tags": [OBSERVATION_TAG],
                    "entities": [e.name],
                    "source": Source.AGENT_INFERRED,
                    "metadata": {"observation": text, "entity_id": e.id},
                }],
                graph=False,
            )
            have.add(text)
            added.append(text)
        return added

    def create_entities(self, entities: Sequence[EntityIn]) -> list[dict[str, Any]]:
        """Create the entities whose names are new (others are ignored); returns those."""
        created: list[dict[str, Any]] = []
        for spec in entities:
            if self._find(spec.name) is not None or any(
                c["name"] == spec.name for c in created
            ):
                continue
            e = self._create(spec.name, spec.entityType)
            self._observe(e, spec.observations)
            created.append(spec.model_dump())
        return created

    def create_relations(self, relations: Sequence[RelationIn]) -> list[dict[str, Any]]:
        """Create the relations not already present; returns those."""
        now = self.mind.clock.now()
        created: list[dict[str, Any]] = []
        for spec in relations:
            src = self._find(spec.source) or self._create(spec.source, AUTO_ENTITY_TYPE)
            dst = self._find(spec.target) or self._create(spec.target, AUTO_ENTITY_TYPE)
            rtype = type_key(spec.relationType)
            existing = self.mind.store.relations_of([src.id], as_of=now, relation_type=rtype)
            if any(r.source_id == src.id and r.target_id == dst.id for r in existing):
                continue
            self.graph.add_relation(
                src.id, rtype, dst.id, properties={"mcp_type": spec.relationType}
            )
            created.append(spec.model_dump(by_alias=True))
        return created

    def add_observations(self, observations: Sequence[ObservationsIn]) -> list[dict[str, Any]]:
        """Add observations to existing entities. Raises `NotFound` for an unknown entity
        (before anything is written)."""
        found = []
        for o in observations:
            e = self._find(o.entityName)
            if e is None:
                raise NotFound(f"Entity with name {o.entityName} not found")
            found.append((o, e))
        return [
            {"entityName": o.entityName, "addedObservations": self._observe(e, o.contents)}
            for o, e in found
        ]

    def delete_entities(self, names: Sequence[str]) -> None:
        """Retire the entities and their relations; delete their observations."""
        now = self.mind.clock.now()
        for name in names:
            e = self._find(name)
            if e is None:
                continue
            for r in self.mind.store.relations_of([e.id], as_of=now):
                self.graph.retire_relation(r.id)
            self.graph.retire_entity(e.id)
            gone = [m.id for m in self._observations([e.id]).get(e.id, [])]
            if gone:
                self.mind.store.delete(gone)

    def delete_observations(self, deletions: Sequence[DeletionIn]) -> None:
        """Delete the named observations (unknown entities and texts are ignored)."""
        for d in deletions:
            e = self._find(d.entityName)
            if e is None:
                continue
            drop = set(d.observations)
            gone = [
                m.id
                for m in self._observations([e.id]).get(e.id, [])
                if m.metadata["observation"] in drop
            ]
            if gone:
                self.mind.store.delete(gone)

    def delete_relations(self, relations: Sequence[RelationIn]) -> None:
        """Retire the given relations (missing ones are ignored)."""
        now = self.mind.clock.now()
        for spec in relations:
            src, dst = self._find(spec.source), self._find(spec.target)
            if src is None or dst is None:
                continue
            rtype = type_key(spec.relationType)
            for r in self.mind.store.relations_of([src.id], as_of=now, relation_type=rtype):
                if r.source_id == src.id and r.target_id == dst.id:
                    self.graph.retire_relation(r.id)

    # -- reads ----------------------------------------------------------------------------------
    def read_graph(self) -> dict[str, Any]:
        return self._graph_out(self._all_entities())

    def open_nodes(self, names: Sequence[str]) -> dict[str, Any]:
        found: dict[str, Entity] = {}
        for name in names:
            e = self._find(name)
            if e is not None:
                found.setdefault(e.id, e)
        return self._graph_out(list(found.values()))

    def search_nodes(self, query: str) -> dict[str, Any]:
        q = query.casefold()
        entities = self._all_entities()
        obs = self._observations([e.id for e in entities])
        hit: dict[str, Entity] = {}
        for e in entities:
            texts = [self._name(e), e.entity_type, str(e.properties.get("mcp_type") or "")]
            texts += [str(m.metadata["observation"]) for m in obs.get(e.id, [])]
            if any(q in t.casefold() for t in texts):
                hit[e.id] = e
        if q.strip():
            by_id = {e.id: e for e in entities}
            owner = {m.id: m.metadata.get("entity_id") for ms in obs.values() for m in ms}
            flt = MemoryFilter(tags=[OBSERVATION_TAG])
            for h in self.mind.search(query, limit=10, flt=flt, feedback=False):
                eid = owner.get(h.memory.id)
                if eid in by_id and _keyword_match(h.explanation):
                    hit.setdefault(eid, by_id[eid])
        return self._graph_out([e for e in entities if e.id in hit])


def _keyword_match(explanation: dict[str, Any]) -> bool:
    """Whether a hit was found by the full-text search (not only by its vector)."""
    return "text_rank" in explanation


def register_memory_protocol(
    server: MCPServer, mind: Mind, call: Callable[[Callable[[], Any]], Any]
) -> ReferenceGraph:
    """Add the reference memory server's tools to `server`; returns the adapter."""
    kg = ReferenceGraph(mind)

    @server.tool()
    def create_entities(
        entities: Annotated[list[EntityIn], Field(description="The entities to create")],
    ) -> dict[str, Any]:
        """Create multiple new entities in the knowledge graph"""
        return {"entities": call(lambda: kg.create_entities(entities))}

    @server.tool()
    def create_relations(
        relations: Annotated[list[RelationIn], Field(description="The relations to create")],
    ) -> dict[str, Any]:
        """Create multiple new relations between entities in the knowledge graph. Relations
        should be in active voice"""
        return {"relations": call(lambda: kg.create_relations(relations))}

    @server.tool()
    def add_observations(
        observations: Annotated[
            list[ObservationsIn], Field(description="Observations to add, per entity")
        ],
    ) -> dict[str, Any]:
        """Add new observations to existing entities in the knowledge graph"""
        return {"results": call(lambda: kg.add_observations(observations))}

    @server.tool()
    def delete_entities(
        entityNames: Annotated[
            list[str], Field(description="An array of entity names to delete")
        ],
    ) -> dict[str, Any]:
        """Delete multiple entities and their associated relations from the knowledge graph"""
        call(lambda: kg.delete_entities(entityNames))
        return {"success": True, "message": "Entities deleted successfully"}

    @server.tool()
    def delete_observations(
        deletions: Annotated[
            list[DeletionIn], Field(description="Observations to delete, per entity")
        ],
    ) -> dict[str, Any]:
        """Delete specific observations from entities in the knowledge graph"""
        call(lambda: kg.delete_observations(deletions))
        return {"success": True, "message": "Observations deleted successfully"}

    @server.tool()
    def delete_relations(
        relations: Annotated[
            list[RelationIn], Field(description="An array of relations to delete")
        ],
    ) -> dict[str, Any]:
        """Delete multiple relations from the knowledge graph"""
        call(lambda: kg.delete_relations(relations))
        return {"success": True, "message": "Relations deleted successfully"}

    @server.tool()
    def read_graph() -> dict[str, Any]:
        """Read the entire knowledge graph"""
        return dict(call(kg.read_graph))

    @server.tool()
    def search_nodes(
        query: Annotated[
            str,
            Field(
                description="The search query to match against entity names, types, and "
                "observation content"
            ),
        ],
    ) -> dict[str, Any]:
        """Search for nodes in the knowledge graph based on a query"""
        return dict(call(lambda: kg.search_nodes(query)))

    @server.tool()
    def open_nodes(
        names: Annotated[list[str], Field(description="An array of entity names to retrieve")],
    ) -> dict[str, Any]:
        """Open specific nodes in the knowledge graph by their names"""
        return dict(call(lambda: kg.open_nodes(names)))

    return kg
