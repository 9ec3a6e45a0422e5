"""The knowledge graph (design B §8): typed, bitemporal entities and relations, the ontology
registry that validates them, the entity normaliser, and BFS traversal for recall.

Use it through `mind.graph` (a `KnowledgeGraph`)."""

from ..models.graph import AUTO_ENTITY_TYPE, Entity, Relation
from ..models.names import ParsedName, entity_key, parse_name
from .kg import KnowledgeGraph, Neighbor
from .ontology import EntitySchema, Ontology, OntologyViolation, RelationSchema, default_ontology

__all__ = [
    "AUTO_ENTITY_TYPE",
    "Entity",
    "EntitySchema",
    "KnowledgeGraph",
    "Neighbor",
    "Ontology",
    "OntologyViolation",
    "ParsedName",
    "Relation",
    "RelationSchema",
    "default_ontology",
    "entity_key",
    "parse_name",
]
