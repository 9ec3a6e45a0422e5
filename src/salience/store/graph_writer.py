"""Writing `MemoryGraph`s (see `graph.extract`) into a store, the same on every backend.

Each backend implements the small `GraphTx` interface over one open transaction; `apply_graph`
runs the rules below inside it, so a memory and its graph records commit together (the ingest
paths call it from `Store.commit_ingest`; `Store.write_graph` wraps it in its own transaction).

- **Mentions.** A mention resolves to an existing entity (by name, then alias;
  case-insensitive) or is created with its type, and is linked to the memory
  (`memory_entity_links`, kind `mention`: kept when the memory is updated, unlike the links of
  `Memory.entities`); a generic (`entity`) type is upgraded when the mention knows better; a
  specific type is never overwritten.
- **Facts.** A fact already true (the same open relation), or already written for the same
  memory (a replay), is not written twice. A negated fact ends the matching open relation
  stated before it, at the statement's time (a negated `*` fact — "switched from vim" — every
  open relation from its subject to that object). A functional fact ends the open relations
  of its slot that hold another value and were stated before it (valid_to = the new
  statement's valid_from); if a *later* statement of the slot is already stored (an older
  message imported afterwards), the new relation is written already ended at that later
  statement.
- **Supersession.** When memory `old` is superseded by `new`, the open relations `old` asserted
  on the slots `new` speaks about are ended (by the fact rules above); when `new` says nothing
  about any of `old`'s slots (the supersession came from a judgement the graph cannot see),
  all of `old`'s open relations are ended at `new`'s time.

Relations record their source memory (`Relation.memory_id`) and, when ended, `retired_by` (the
memory whose statement ended them) and `retired_at` (when the mind wrote that down) in their
properties. Nothing is deleted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from ..clock import format_ts
from ..errors import InvalidInput
from ..models.graph import AUTO_ENTITY_TYPE, Entity, Fact, MemoryGraph, Mention, Relation
from ..models.names import ParsedName, entity_key, parse_name

Slot = tuple[str, str, str]  # (source entity id, relation type, slot)
ANY_RELATION = "*"  # a negated fact of this type ends every open relation to its object


class GraphTx(Protocol):
    """What `apply_graph` needs from a backend, inside one transaction."""

    def find_entity(self, parsed: ParsedName) -> Entity | None:
        """The entity a mention refers to: by its canonical key, else an alias key."""
        ...

    def create_entity(self, entity: Entity) -> None: ...

    def set_entity_type(self, entity_id: str, entity_type: str) -> None: ...

    def add_aliases(self, entity_id: str, aliases: Sequence[str]) -> None: ...

    def open_relations(self, source_id: str, relation_type: str | None) -> list[Relation]:
        """Relations from `source_id` (of `relation_type`; None = any) with no `valid_to`."""
        ...

    def memory_relations(self, memory_id: str) -> list[Relation]:
        """Relations whose source memory is `memory_id`, ended ones included."""
        ...

    def create_relation(self, relation: Relation) -> None: ...

    def link(self, memory_id: str, entity_id: str) -> None:
        """Link a memory to an entity it mentions (a link its updates keep)."""
        ...

    def end_relation(self, relation: Relation) -> None:
        """Store the relation's new `valid_to` and properties."""
        ...


@dataclass(slots=True)
class GraphWrite:
    """What `apply_graph` changed (ids), for tests and stats."""

    entities: list[str] = field(default_factory=list)  # created
    retyped: list[str] = field(default_factory=list)
    asserted: list[str] = field(default_factory=list)  # relations created
    retired: list[str] = field(default_factory=list)  # relations ended


def apply_graph(
    tx: GraphTx,
    graphs: Sequence[MemoryGraph],
    *,
    supersede: Sequence[tuple[str, str]] = (),
    now: datetime | None,
) -> GraphWrite:
    """Write `graphs` (in order) and end what the (old, new) memory `supersede` pairs retire.
    `now` (when the mind writes this down) defaults to the latest statement time; raises
    `InvalidInput` when there is none."""
    if not graphs and not supersede:
        return GraphWrite()
    now = now or max((g.valid_from for g in graphs if g.valid_from), default=None)
    if now is None:
        raise InvalidInput("writing graph facts needs a time (IngestBatch.now)")
    w = _Writer(tx, now)
    by_memory = {g.memory_id: g for g in graphs}
    for g in graphs:
        w.write(g)
    for old, new in supersede:
        g = by_memory.get(new)
        at = (g.valid_from if g is not None else None) or now
        w.supersede(old, new, at)
    return w.result


def supersession_retirements(
    old_relations: Sequence[Relation], new_slots: set[Slot] | None
) -> list[Relation]:
    """Which relations of a superseded memory (`old_relations`, ended ones included) to end:
    none when the new memory speaks about one of their slots (the fact rules replaced what it
    replaces, the rest still holds), every open one when it speaks about none of them."""
    slots = {_slot_of(r) for r in old_relations}
    if new_slots and slots & new_slots:
        return []
    return [r for r in old_relations if r.valid_to is None]


def _since(r: Relation, when: datetime) -> bool:
    """Whether `r` was already valid at `when` (stated before a statement made then)."""
    return r.valid_from is None or r.valid_from <= when


def _slot_of(r: Relation) -> Slot:
    return (r.source_id, r.relation_type, str(r.properties.get("slot", "")))


class _Writer:
    def __init__(self, tx: GraphTx, now: datetime) -> None:
        self.tx = tx
        self.now = now
        self.result = GraphWrite()
        self.slots: dict[str, set[Slot]] = {}  # memory id -> slots its facts touched
        self._ids: dict[str, Entity] = {}

    def entity(self, m: Mention, *, when: datetime | None, create: bool = True) -> Entity | None:
        parsed = parse_name(m.name)
        if not parsed.canonical:
            return None
        key = entity_key(parsed.canonical)
        e = self._ids.get(key) or self.tx.find_entity(parsed)
        if e is None:
            if not create:
                return None
            e = Entity(
                name=parsed.canonical,
                entity_type=m.entity_type,
                aliases=list(parsed.aliases),
                valid_from=when or self.now,
                recorded_at=self.now,
            )
            self.tx.create_entity(e)
            self.result.entities.append(e.id)
        elif e.entity_type == AUTO_ENTITY_TYPE and m.entity_type != AUTO_ENTITY_TYPE:
            self.tx.set_entity_type(e.id, m.entity_type)
            e.entity_type = m.entity_type
            self.result.retyped.append(e.id)
        self._ids[key] = e
        return e

    def write(self, g: MemoryGraph) -> None:
        touched = self.slots.setdefault(g.memory_id, set())
        for m in g.mentions:
            e = self.entity(m, when=g.valid_from)
            if e is not None:
                self.tx.link(g.memory_id, e.id)
        for who, alias in g.aliases:
            e = self.entity(Mention(who, "person"), when=g.valid_from)
            if e is not None and entity_key(alias) not in {entity_key(a) for a in e.aliases}:
                self.tx.add_aliases(e.id, [alias])
                e.aliases.append(alias)
        if g.facts:  # what this memory already stated (a replay: `KnowledgeGraph.fill`)
            stated = {(*_slot_of(r), r.target_id) for r in self.tx.memory_relations(g.memory_id)}
            for f in g.facts:
                self.fact(g, f, touched, stated)

    def fact(
        self, g: MemoryGraph, f: Fact, touched: set[Slot], stated: set[tuple[str, ...]]
    ) -> None:
        when = g.valid_from or self.now
        s = self.entity(f.subject, when=when, create=not f.negated)
        o = self.entity(f.obj, when=when, create=not f.negated)
        if s is None or o is None:
            return
        if f.relation_type == ANY_RELATION:  # a denial of the value, whatever its slot
            rels = self.tx.open_relations(s.id, None)
            self.end(
                [r for r in rels if r.target_id == o.id and _since(r, when)], when, g.memory_id
            )
            return
        slot = (s.id, f.relation_type, f.slot)
        touched.add(slot)
        if not f.negated and (*slot, o.id) in stated:
            return  # this memory's statement is already written
        same = [r for r in self.tx.open_relations(s.id, f.relation_type) if _slot_of(r) == slot]
        if f.negated:  # a denial ends what was stated before it, not a later restatement
            self.end(
                [r for r in same if r.target_id == o.id and _since(r, when)], when, g.memory_id
            )
            return
        if any(r.target_id == o.id for r in same):
            return  # already known: a restatement
        valid_to: datetime | None = None
        if f.functional:
            older = [r for r in same if _since(r, when)]
            later = [r.valid_from for r in same if r.valid_from is not None and r.valid_from > when]
            self.end(older, when, g.memory_id)
            valid_to = min(later) if later else None
        r = Relation(
            source_id=s.id,
            target_id=o.id,
            relation_type=f.relation_type,
            properties={"slot": f.slot},
            valid_from=when,
            valid_to=valid_to,
            recorded_at=self.now,
            memory_id=g.memory_id,
        )
        self.tx.create_relation(r)
        self.result.asserted.append(r.id)

    def supersede(self, old: str, new: str, at: datetime) -> None:
        rels = self.tx.memory_relations(old)
        self.end(supersession_retirements(rels, self.slots.get(new)), at, new)

    def end(self, rels: Iterable[Relation], at: datetime, by: str) -> None:
        for r in rels:
            end = max(at, r.valid_from) if r.valid_from is not None else at
            r.valid_to = end
            r.properties = {**r.properties, "retired_by": by, "retired_at": format_ts(self.now)}
            self.tx.end_relation(r)
            self.result.retired.append(r.id)


__all__ = ["GraphTx", "GraphWrite", "apply_graph", "supersession_retirements"]
