"""The knowledge graph written once: bitemporal entities with aliases, relations, the
memory↔entity links kept by the write path and the facts memories state (`write_graph`, run by
`store.graph_writer.apply_graph` over `_GraphTx`). See `store.base.LayerStore`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ...errors import ConflictError, InvalidInput, NotFound
from ...models import Memory
from ...models import layer_rows as rows
from ...models.graph import AUTO_ENTITY_TYPE, Entity, Relation
from ...models.names import ParsedName, entity_key, parse_name
from ..graph_writer import GraphWrite, apply_graph
from .core import RelationalCore, Run

if TYPE_CHECKING:
    from ...models.graph import MemoryGraph


class GraphCore(RelationalCore):
    """The knowledge graph (see `store.base.LayerStore`)."""

    # -- write path: link a memory's entities (the caller holds the "layers" scope) ----------
    def _link_entities(self, run: Run, pk: int, m: Memory) -> None:
        for raw in m.entities:
            try:
                parsed = parse_name(raw)
            except InvalidInput:  # unusable mention (too long, ...): no link, the memory stays
                continue
            if not parsed.canonical:
                continue
            found = self._find_entities(run, list(parsed.keys[:1])) or self._find_entities(
                run, list(parsed.keys[1:])
            )
            if not found:
                when = m.created_at or m.updated_at
                e = Entity(
                    name=parsed.canonical,
                    entity_type=AUTO_ENTITY_TYPE,
                    aliases=list(parsed.aliases),
                    valid_from=when,
                    recorded_at=when,
                )
                self._insert_entity(run, e)
                eid = e.id
            else:
                eid = found[0].id
                self._add_aliases(run, eid, parsed.aliases)
            run("INSERT_LINK", (pk, eid))

    # -- write path: the facts memories state ------------------------------------------------
    def write_graph(
        self,
        graphs: Sequence[MemoryGraph],
        *,
        supersede: Sequence[tuple[str, str]] = (),
        now: datetime,
    ) -> GraphWrite:
        with self._write() as run:
            return self._write_graph(run, graphs, supersede=supersede, now=now)

    def _write_graph(
        self,
        run: Run,
        graphs: Sequence[MemoryGraph],
        *,
        supersede: Sequence[tuple[str, str]] = (),
        now: datetime | None,
    ) -> GraphWrite:
        """`apply_graph` inside the caller's transaction (commit_ingest), in the "layers"
        scope that serialises entity creation."""
        if graphs or supersede:
            self._serialize(run, "layers")
        return apply_graph(_GraphTx(self, run), graphs, supersede=supersede, now=now)

    def _insert_entity(self, run: Run, e: Entity) -> None:
        run("INSERT_ENTITY_ROW", self._entity_params(e))
        self._add_aliases(run, e.id, e.aliases)

    def _add_aliases(self, run: Run, entity_id: str, aliases: Sequence[str]) -> None:
        for a in aliases:
            key = entity_key(a)
            if key:
                run("INSERT_ALIAS", (key, entity_id, a))

    # -- entities -----------------------------------------------------------------------------
    def insert_entity(self, entity: Entity) -> None:
        with self._write() as run:
            try:
                with run.savepoint():
                    self._insert_entity(run, entity)
            except self._integrity_errors as e:
                if self._is_unique(e):
                    raise ConflictError(f"entity {entity.id} already exists") from None
                raise InvalidInput(f"entity {entity.id} violates a constraint: {e}") from None

    def get_entity(self, entity_id: str) -> Entity | None:
        return self.get_entities([entity_id]).get(entity_id)

    def get_entities(self, entity_ids: Sequence[str]) -> dict[str, Entity]:
        found = (rows.entity(r) for r in self._all_in("GET_ENTITIES", entity_ids))
        return {e.id: e for e in found}

    def update_entity(self, entity: Entity) -> None:
        with self._write() as run:
            try:
                with run.savepoint():
                    cur = run("UPDATE_ENTITY_ROW", (*self._entity_params(entity)[1:], entity.id))
            except self._integrity_errors as e:
                raise InvalidInput(f"entity {entity.id} violates a constraint: {e}") from None
            if cur.rowcount == 0:
                raise NotFound(f"entity {entity.id} not found")
            run("DELETE_ALIASES", (entity.id,))
            self._add_aliases(run, entity.id, entity.aliases)

    def find_entities(self, keys: Sequence[str]) -> list[Entity]:
        ks = [k for k in keys if k]
        return self._read_with(lambda run: self._find_entities(run, ks)) if ks else []

    def _find_entities(self, run: Run, keys: Sequence[str]) -> list[Entity]:
        """Entities whose name key or an alias key is in `keys`: name matches first, then
        open ones (no valid_to), then oldest recorded. Any number of keys: the statement names
        the list three times, so it runs in chunks and the chunks' rows are merged here."""
        if not keys:
            return []
        found = self._all_in("FIND_ENTITIES", keys, uses=3, run=run)
        by_name: dict[str, bool] = {}
        entities: dict[str, Entity] = {}
        for r in found:
            e = rows.entity(r)
            entities.setdefault(e.id, e)
            by_name[e.id] = by_name.get(e.id, False) or bool(r[9])
        return sorted(
            entities.values(),
            key=lambda e: (not by_name[e.id], e.valid_to is not None, e.recorded_at, e.id),
        )

    def list_entities(
        self,
        *,
        as_of: datetime | None = None,
        entity_type: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Entity]:
        t = self._dialect.ts(as_of)
        params = (t, t, t, t, entity_type, entity_type, int(limit), int(offset))
        return [rows.entity(r) for r in self._all("LIST_ENTITIES", params)]

    # -- relations ----------------------------------------------------------------------------
    def insert_relation(self, relation: Relation) -> None:
        with self._write() as run:
            self._check_endpoints(run, relation)
            try:
                with run.savepoint():
                    run("INSERT_RELATION_ROW", self._relation_params(relation))
            except self._integrity_errors as e:
                if self._is_unique(e):
                    raise ConflictError(f"relation {relation.id} already exists") from None
                raise InvalidInput(f"relation {relation.id} violates a constraint: {e}") from None

    def get_relation(self, relation_id: str) -> Relation | None:
        row = self._first("GET_RELATION", (relation_id,))
        return rows.relation(row) if row else None

    def update_relation(self, relation: Relation) -> None:
        with self._write() as run:
            self._check_endpoints(run, relation)
            p = self._relation_params(relation)
            try:
                with run.savepoint():
                    cur = run("UPDATE_RELATION_ROW", (*p[1:], p[0]))
            except self._integrity_errors as e:
                raise InvalidInput(f"relation {relation.id} violates a constraint: {e}") from None
            if cur.rowcount == 0:
                raise NotFound(f"relation {relation.id} not found")

    def _check_endpoints(self, run: Run, r: Relation) -> None:
        ids = [r.source_id, r.target_id]
        found = {row[0] for row in self._all_in("ENTITY_EXISTS", ids, run=run)}
        missing = [i for i in ids if i not in found]
        if missing:
            raise NotFound(f"unknown entity id(s): {', '.join(dict.fromkeys(missing))}")

    def relations_of(
        self,
        entity_ids: Sequence[str],
        *,
        as_of: datetime | None = None,
        relation_type: str | None = None,
    ) -> list[Relation]:
        t = self._dialect.ts(as_of)
        after = (t, t, t, t, relation_type, relation_type)
        found = self._all_in("RELATIONS_OF", entity_ids, uses=2, after=after)
        out = {rel.id: rel for rel in map(rows.relation, found)}  # chunks may repeat a relation
        return sorted(out.values(), key=lambda r: (r.recorded_at or datetime.min, r.id))

    # -- memory links -------------------------------------------------------------------------
    def entity_memory_links(self, entity_ids: Sequence[str]) -> list[tuple[str, str]]:
        return [(a, b) for a, b in self._all_in("ENTITY_MEMORY_LINKS", entity_ids)]

    def memory_entity_ids(self, memory_ids: Sequence[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for mid, eid in self._all_in("MEMORY_ENTITY_IDS", memory_ids):
            out.setdefault(mid, []).append(eid)
        return out

    def graph_counts(self) -> dict[str, int]:
        e, r, links, sessions, aware = self._first("GRAPH_COUNTS")
        return {
            "entities": int(e),
            "relations": int(r),
            "entity_links": int(links),
            "sessions": int(sessions),
            "awareness_items": int(aware),
        }

    # -- parameters ---------------------------------------------------------------------------
    def _entity_params(self, e: Entity) -> tuple[Any, ...]:
        d = self._dialect
        return (
            e.id, e.entity_type, e.name, entity_key(e.name), d.obj(e.properties),
            float(e.confidence), d.ts(e.valid_from or e.recorded_at), d.ts(e.valid_to),
            d.ts(e.recorded_at or e.valid_from),
        )

    def _relation_params(self, r: Relation) -> tuple[Any, ...]:
        d = self._dialect
        return (
            r.id, r.source_id, r.target_id, r.relation_type, float(r.confidence),
            d.obj(r.properties), d.ts(r.valid_from or r.recorded_at), d.ts(r.valid_to),
            d.ts(r.recorded_at or r.valid_from), r.memory_id,
        )


class _GraphTx:
    """`store.graph_writer.GraphTx` over an open transaction of either backend."""

    def __init__(self, store: GraphCore, run: Run) -> None:
        self.store = store
        self.run = run

    def find_entity(self, parsed: ParsedName) -> Entity | None:
        keys = list(parsed.keys)
        for group in (keys[:1], keys[1:]):
            found = self.store._find_entities(self.run, group)
            if found:
                return found[0]
        return None

    def create_entity(self, entity: Entity) -> None:
        self.store._insert_entity(self.run, entity)

    def set_entity_type(self, entity_id: str, entity_type: str) -> None:
        self.run("SET_ENTITY_TYPE", (entity_type, entity_id))

    def add_aliases(self, entity_id: str, aliases: Sequence[str]) -> None:
        self.store._add_aliases(self.run, entity_id, aliases)

    def open_relations(self, source_id: str, relation_type: str | None) -> list[Relation]:
        found = self.run("OPEN_RELATIONS_FROM", (source_id, relation_type, relation_type))
        return [rows.relation(r) for r in found.fetchall()]

    def memory_relations(self, memory_id: str) -> list[Relation]:
        found = self.run("RELATIONS_OF_MEMORY", (memory_id,)).fetchall()
        return [rows.relation(r) for r in found]

    def create_relation(self, relation: Relation) -> None:
        self.run("INSERT_RELATION_ROW", self.store._relation_params(relation))

    def link(self, memory_id: str, entity_id: str) -> None:
        self.run("INSERT_MENTION_LINK", (entity_id, memory_id))

    def end_relation(self, relation: Relation) -> None:
        d = self.store._dialect
        params = (d.ts(relation.valid_to), d.obj(relation.properties), relation.id)
        self.run("END_RELATION", params)
