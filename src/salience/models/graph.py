"""Knowledge-graph record types shared by every backend: `Entity` and `Relation`.

Both are bitemporal (design B §8.1): `valid_from` / `valid_to` say when a fact was true in the
world, `recorded_at` says when this mind wrote it down. A record is *visible as of* a time `t`
when it was recorded by `t` and valid at `t` (see `visible_at`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..clock import ensure_utc
from ..errors import InvalidInput
from . import new_id

AUTO_ENTITY_TYPE = "entity"  # type of entities created from `Memory.entities` at ingestion


@dataclass(slots=True)
class Entity:
    """A typed node. `aliases` are alternative names that resolve to it ("Bob" for Robert)."""

    name: str
    entity_type: str = AUTO_ENTITY_TYPE
    id: str = field(default_factory=new_id)
    properties: dict[str, Any] = field(default_factory=dict)
    aliases: list[str] = field(default_factory=list)
    confidence: float = 1.0
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    recorded_at: datetime | None = None

    def visible_at(self, when: datetime) -> bool:
        return visible_at(self.valid_from, self.valid_to, self.recorded_at, when)


@dataclass(slots=True)
class Relation:
    """A typed, directed edge `source_id -[relation_type]-> target_id` with a confidence.

    `memory_id` is the memory whose statement the relation came from (None when it was added
    through the graph API)."""

    source_id: str
    target_id: str
    relation_type: str
    id: str = field(default_factory=new_id)
    confidence: float = 1.0
    properties: dict[str, Any] = field(default_factory=dict)
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    recorded_at: datetime | None = None
    memory_id: str | None = None

    def visible_at(self, when: datetime) -> bool:
        return visible_at(self.valid_from, self.valid_to, self.recorded_at, when)

    def other(self, entity_id: str) -> str:
        """The endpoint that is not `entity_id` (the source for a self-loop)."""
        return self.target_id if self.source_id == entity_id else self.source_id


def visible_at(
    valid_from: datetime | None,
    valid_to: datetime | None,
    recorded_at: datetime | None,
    when: datetime,
) -> bool:
    """Known by `when` (recorded_at <= when) and valid then (valid_from <= when < valid_to)."""
    if recorded_at is not None and recorded_at > when:
        return False
    if valid_from is not None and valid_from > when:
        return False
    return valid_to is None or valid_to > when


def check_interval(valid_from: datetime | None, valid_to: datetime | None) -> None:
    """Raise `InvalidInput` when `valid_to` is before `valid_from` (equal is allowed: a fact
    retired at the instant it was recorded)."""
    if valid_from is not None and valid_to is not None and valid_to < valid_from:
        raise InvalidInput(
            f"valid_to ({valid_to.isoformat()}) is before valid_from ({valid_from.isoformat()})"
        )


def check_type_name(value: Any, what: str) -> str:
    """Entity and relation types: non-empty identifiers, lower-cased (`works_at`, `person`)."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{what} must be a non-empty string")
    v = "_".join(value.strip().lower().split())
    if len(v) > 64 or not all(ch.isalnum() or ch in "_-" for ch in v):
        raise InvalidInput(f"invalid {what} {value!r}: use letters, digits, '_' or '-' (≤ 64)")
    return v


def _check_props(props: Any, what: str) -> dict[str, Any]:
    if not isinstance(props, dict):
        raise InvalidInput(f"{what} must be a JSON object (dict)")
    try:
        json.dumps(props, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise InvalidInput(f"{what} must be JSON-serialisable (no NaN/inf): {e}") from None
    return props


def _check_confidence(value: Any) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidInput(f"confidence must be a number, got {value!r}") from None
    if not math.isfinite(v) or not 0.0 <= v <= 1.0:
        raise InvalidInput(f"confidence must be in [0, 1], got {value!r}")
    return v


def _times(rec: Entity | Relation) -> None:
    for name in ("valid_from", "valid_to", "recorded_at"):
        v = getattr(rec, name)
        if v is not None:
            if not isinstance(v, datetime):
                raise InvalidInput(f"{name} must be a datetime")
            setattr(rec, name, ensure_utc(v))
    check_interval(rec.valid_from, rec.valid_to)


def validate_entity(e: Entity) -> Entity:
    """Check and normalise an entity in place (not the ontology: see `graph.ontology`)."""
    from .names import clean_name

    e.name = clean_name(e.name)
    if not e.name:
        raise InvalidInput("entity name is empty")
    e.entity_type = check_type_name(e.entity_type, "entity_type")
    e.properties = _check_props(e.properties, "entity properties")
    e.confidence = _check_confidence(e.confidence)
    if isinstance(e.aliases, str):
        raise InvalidInput("aliases must be a list of strings")
    e.aliases = list(dict.fromkeys(a for a in (clean_name(x) for x in e.aliases) if a))
    _times(e)
    return e


def validate_relation(r: Relation) -> Relation:
    """Check and normalise a relation in place (not the ontology)."""
    r.relation_type = check_type_name(r.relation_type, "relation_type")
    r.properties = _check_props(r.properties, "relation properties")
    r.confidence = _check_confidence(r.confidence)
    if r.memory_id is not None and (not isinstance(r.memory_id, str) or not r.memory_id.strip()):
        raise InvalidInput("memory_id must be a non-empty string or None")
    _times(r)
    return r


# -- what one memory adds to the graph (built by `graph.extract`, written by `store.graph_writer`)

@dataclass(frozen=True, slots=True)
class Mention:
    """A name the memory mentions and the entity type it most likely has."""

    name: str
    entity_type: str = AUTO_ENTITY_TYPE


@dataclass(frozen=True, slots=True)
class Fact:
    """One relation a memory states: `subject —relation_type→ obj`.

    `slot` names what the fact is about for its subject (the claim attribute, or the role word
    of an apposition); a *functional* fact has one value per (subject, relation_type, slot) at a
    time. A negated fact ends the matching relation instead of asserting one.
    """

    subject: Mention
    relation_type: str
    obj: Mention
    slot: str
    functional: bool = False
    negated: bool = False


@dataclass(frozen=True, slots=True)
class MemoryGraph:
    """What one memory adds to the graph (see the module docstring)."""

    memory_id: str
    valid_from: datetime | None
    mentions: tuple[Mention, ...] = ()
    facts: tuple[Fact, ...] = ()
    aliases: tuple[tuple[str, str], ...] = ()  # (entity name, alias): "my name is Ada"

    @property
    def names(self) -> list[str]:
        """The names the memory is linked to (its mentions)."""
        return [m.name for m in self.mentions]
