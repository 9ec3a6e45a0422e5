"""The ontology registry: which entity and relation types exist, and what they require.

Design B §8.2: entities are typed so bad data is caught at write time. An `Ontology` holds
- one `EntitySchema` per entity type: the properties an entity of that type must carry;
- one `RelationSchema` per relation type: the source and target entity types it may join
  (`None` = any type).

`check_entity` / `check_relation` are pure and raise `OntologyViolation` (an `InvalidInput`)
with a message naming the type, the missing properties or the allowed endpoint types. A strict
ontology (the default) also rejects unknown types; `strict=False` accepts unknown types but
still enforces the schemas it knows. The generic type `entity` (what ingestion creates from
`Memory.entities`) is always registered.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInput
from ..models.graph import AUTO_ENTITY_TYPE, check_type_name


class OntologyViolation(InvalidInput):
    """A write that the knowledge graph's ontology forbids."""

    code = "ontology_violation"


@dataclass(frozen=True, slots=True)
class EntitySchema:
    name: str
    required: frozenset[str] = frozenset()
    description: str = ""


@dataclass(frozen=True, slots=True)
class RelationSchema:
    name: str
    sources: frozenset[str] | None = None  # allowed source entity types; None = any
    targets: frozenset[str] | None = None  # allowed target entity types; None = any
    description: str = ""


class Ontology:
    """A registry of entity and relation schemas (see the module docstring)."""

    def __init__(
        self,
        entities: Iterable[EntitySchema] = (),
        relations: Iterable[RelationSchema] = (),
        *,
        strict: bool = True,
    ) -> None:
        self.strict = strict
        self._entities: dict[str, EntitySchema] = {}
        self._relations: dict[str, RelationSchema] = {}
        self.register_entity(AUTO_ENTITY_TYPE, description="generic entity (from ingestion)")
        for e in entities:
            self.register_entity(e.name, e.required, e.description)
        for r in relations:
            self.register_relation(r.name, r.sources, r.targets, r.description)

    @property
    def entity_types(self) -> dict[str, EntitySchema]:
        return dict(self._entities)

    @property
    def relation_types(self) -> dict[str, RelationSchema]:
        return dict(self._relations)

    def register_entity(
        self, name: str, required: Iterable[str] = (), description: str = ""
    ) -> EntitySchema:
        """Add or replace the schema of entity type `name`; returns it."""
        key = check_type_name(name, "entity_type")
        schema = EntitySchema(key, frozenset(required), description)
        self._entities[key] = schema
        return schema

    def register_relation(
        self,
        name: str,
        sources: Iterable[str] | None = None,
        targets: Iterable[str] | None = None,
        description: str = "",
    ) -> RelationSchema:
        """Add or replace the schema of relation type `name`; returns it."""

        def types(values: Iterable[str] | None) -> frozenset[str] | None:
            if values is None:
                return None
            return frozenset(check_type_name(v, "entity_type") for v in values)

        key = check_type_name(name, "relation_type")
        schema = RelationSchema(key, types(sources), types(targets), description)
        self._relations[key] = schema
        return schema

    def check_entity(self, entity_type: str, properties: Mapping[str, Any]) -> None:
        """Raise `OntologyViolation` if an entity of this type with these properties is not
        allowed (unknown type in a strict ontology, or missing required properties)."""
        schema = self._entities.get(entity_type)
        if schema is None:
            if self.strict:
                known = ", ".join(sorted(self._entities))
                raise OntologyViolation(
                    f"unknown entity type {entity_type!r}; registered types: {known} "
                    "(register it with ontology.register_entity)"
                )
            return
        missing = sorted(p for p in schema.required if properties.get(p) in (None, ""))
        if missing:
            raise OntologyViolation(
                f"entity type {entity_type!r} requires properties: {', '.join(missing)}"
            )

    def check_relation(self, relation_type: str, source_type: str, target_type: str) -> None:
        """Raise `OntologyViolation` if `source_type -[relation_type]-> target_type` is not
        allowed."""
        schema = self._relations.get(relation_type)
        if schema is None:
            if self.strict:
                known = ", ".join(sorted(self._relations))
                raise OntologyViolation(
                    f"unknown relation type {relation_type!r}; registered types: {known} "
                    "(register it with ontology.register_relation)"
                )
            return
        for end, actual, allowed in (
            ("source", source_type, schema.sources),
            ("target", target_type, schema.targets),
        ):
            if allowed is not None and actual not in allowed:
                raise OntologyViolation(
                    f"relation {relation_type!r} does not allow a {end} of type {actual!r}; "
                    f"allowed: {', '.join(sorted(allowed))}"
                )


def default_ontology(*, strict: bool = True) -> Ontology:
    """Common personal-assistant types, including every type the write path derives from
    memories (`salience.graph.extract`). Extend it with `register_entity`/`register_relation`."""
    people = ("person",)
    orgs = ("organization",)
    return Ontology(
        entities=[
            EntitySchema("person"),
            EntitySchema("organization"),
            EntitySchema("place"),
            EntitySchema("project"),
            EntitySchema("event"),
            EntitySchema("concept"),
            EntitySchema("tool"),
            EntitySchema("document"),
            EntitySchema("pet"),
            EntitySchema("role", description="a job or position (works_as)"),
            EntitySchema("date"),
            EntitySchema("amount", description="a sum of money"),
            EntitySchema("email", description="an email address"),
            EntitySchema("url"),
            EntitySchema("handle", description="an @handle"),
        ],
        relations=[
            RelationSchema("knows", frozenset(people), frozenset(people)),
            RelationSchema("reports_to", frozenset(people), frozenset(people)),
            RelationSchema("family_of", frozenset(people), frozenset(people)),
            RelationSchema("works_at", frozenset(people), frozenset(orgs)),
            RelationSchema("works_as", frozenset(people), frozenset(("role",))),
            RelationSchema("lives_in", None, frozenset(("place",))),
            RelationSchema("has_diet", None, frozenset(("concept",))),
            RelationSchema("favourite", None, None, "favourite X (slot in properties)"),
            RelationSchema("member_of", frozenset(people), frozenset((*orgs, "project"))),
            RelationSchema("works_on", frozenset((*people, *orgs)), frozenset(("project",))),
            RelationSchema("attended", frozenset(people), frozenset(("event",))),
            RelationSchema("located_in", None, frozenset(("place",))),
            RelationSchema("part_of"),
            RelationSchema("uses"),
            RelationSchema("owns"),
            RelationSchema("mentions"),
            RelationSchema("related_to"),
        ],
        strict=strict,
    )
