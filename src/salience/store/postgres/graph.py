"""PostgreSQL storage of the knowledge graph: bitemporal entities with aliases, relations, the
memory↔entity links kept by the write path and the facts memories state (`write_graph`, run by
`store.graph_writer.apply_graph` over `_PostgresGraphTx`). Mixed into `PostgresStore`; SQL in
`sql.py`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

import psycopg
from psycopg import sql as psql
from psycopg.types.json import Jsonb

from ...clock import ensure_utc
from ...errors import ConflictError, InvalidInput, NotFound
from ...models import Memory
from ...models import layer_rows as rows
from ...models.graph import AUTO_ENTITY_TYPE, Entity, Relation
from ...models.names import ParsedName, entity_key, parse_name
from ..graph_writer import GraphWrite, apply_graph
from . import sql

T = TypeVar("T")

if TYPE_CHECKING:
    from ...models.graph import MemoryGraph

    _Base = Any
else:
    _Base = object


def _ts(value: datetime | None) -> datetime | None:
    return ensure_utc(value) if value is not None else None


class GraphMixin(_Base):
    """The knowledge graph for `PostgresStore` (see `store.base.LayerStore`)."""

    _lock_key: str

    if TYPE_CHECKING:

        def _q(self, template: str, **parts: psql.Composable) -> psql.Composed: ...

        def _tx(self) -> AbstractContextManager[psycopg.Connection]: ...

        def _read(self, fn: Callable[[psycopg.Connection], T]) -> T: ...

    # -- write path: link a memory's entities (caller holds the :layers advisory lock) ---------
    def _link_entities(self, run: Any, pk: int, m: Memory) -> None:
        conn = run.conn
        for raw in m.entities:
            try:
                parsed = parse_name(raw)
            except InvalidInput:  # unusable mention: no link, the memory stays
                continue
            if not parsed.canonical:
                continue
            eid = self._resolve(conn, parsed)
            if eid is None:
                when = m.created_at or m.updated_at
                e = Entity(
                    name=parsed.canonical,
                    entity_type=AUTO_ENTITY_TYPE,
                    aliases=list(parsed.aliases),
                    valid_from=when,
                    recorded_at=when,
                )
                self._insert_entity(conn, e)
                eid = e.id
            else:
                self._add_aliases(conn, eid, parsed.aliases)
            conn.execute(self._q(sql.INSERT_LINK), (pk, eid))

    def _resolve(self, conn: psycopg.Connection, parsed: ParsedName) -> str | None:
        e = _PostgresGraphTx(self, conn).find_entity(parsed)
        return e.id if e is not None else None

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
        run: Any,
        graphs: Sequence[MemoryGraph],
        *,
        supersede: Sequence[tuple[str, str]] = (),
        now: datetime | None,
    ) -> GraphWrite:
        """`apply_graph` inside the caller's transaction (commit_ingest), under the :layers
        advisory lock that serialises entity creation."""
        conn = run.conn
        if graphs or supersede:
            conn.execute(sql.ADVISORY_LOCK, (self._lock_key + sql.LAYERS_LOCK_SUFFIX,))
        return apply_graph(_PostgresGraphTx(self, conn), graphs, supersede=supersede, now=now)

    def _insert_entity(self, conn: psycopg.Connection, e: Entity) -> None:
        conn.execute(self._q(sql.INSERT_ENTITY_ROW), _entity_params(e))
        self._add_aliases(conn, e.id, e.aliases)

    def _add_aliases(
        self, conn: psycopg.Connection, entity_id: str, aliases: Sequence[str]
    ) -> None:
        for a in aliases:
            key = entity_key(a)
            if key:
                conn.execute(self._q(sql.INSERT_ALIAS), (key, entity_id, a))

    # -- entities -----------------------------------------------------------------------------
    def insert_entity(self, entity: Entity) -> None:
        with self._tx() as conn:
            try:
                with conn.transaction():
                    self._insert_entity(conn, entity)
            except psycopg.errors.UniqueViolation:
                raise ConflictError(f"entity {entity.id} already exists") from None
            except psycopg.errors.IntegrityError as e:
                raise InvalidInput(f"entity {entity.id} violates a constraint: {e}") from None

    def get_entity(self, entity_id: str) -> Entity | None:
        return self.get_entities([entity_id]).get(entity_id)

    def get_entities(self, entity_ids: Sequence[str]) -> dict[str, Entity]:
        ids = list(dict.fromkeys(entity_ids))
        if not ids:
            return {}
        found = self._read(lambda c: c.execute(self._q(sql.GET_ENTITIES), (ids,)).fetchall())
        return {e.id: e for e in (rows.entity(r) for r in found)}

    def update_entity(self, entity: Entity) -> None:
        with self._tx() as conn:
            try:
                with conn.transaction():
                    cur = conn.execute(
                        self._q(sql.UPDATE_ENTITY_ROW), (*_entity_params(entity)[1:], entity.id)
                    )
            except psycopg.errors.IntegrityError as e:
                raise InvalidInput(f"entity {entity.id} violates a constraint: {e}") from None
            if cur.rowcount == 0:
                raise NotFound(f"entity {entity.id} not found")
            conn.execute(self._q(sql.DELETE_ALIASES), (entity.id,))
            self._add_aliases(conn, entity.id, entity.aliases)

    def find_entities(self, keys: Sequence[str]) -> list[Entity]:
        ks = list(dict.fromkeys(k for k in keys if k))
        if not ks:
            return []
        found = self._read(lambda c: c.execute(self._q(sql.FIND_ENTITIES), (ks, ks, ks)).fetchall())
        return [rows.entity(r) for r in found]

    def list_entities(
        self,
        *,
        as_of: datetime | None = None,
        entity_type: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Entity]:
        t = _ts(as_of)
        params = (t, t, t, t, entity_type, entity_type, int(limit), int(offset))
        found = self._read(lambda c: c.execute(self._q(sql.LIST_ENTITIES), params).fetchall())
        return [rows.entity(r) for r in found]

    # -- relations ----------------------------------------------------------------------------
    def insert_relation(self, relation: Relation) -> None:
        with self._tx() as conn:
            self._check_endpoints(conn, relation)
            try:
                with conn.transaction():
                    conn.execute(self._q(sql.INSERT_RELATION_ROW), _relation_params(relation))
            except psycopg.errors.UniqueViolation:
                raise ConflictError(f"relation {relation.id} already exists") from None
            except psycopg.errors.IntegrityError as e:
                raise InvalidInput(f"relation {relation.id} violates a constraint: {e}") from None

    def get_relation(self, relation_id: str) -> Relation | None:
        row = self._read(lambda c: c.execute(self._q(sql.GET_RELATION), (relation_id,)).fetchone())
        return rows.relation(row) if row else None

    def update_relation(self, relation: Relation) -> None:
        with self._tx() as conn:
            self._check_endpoints(conn, relation)
            p = _relation_params(relation)
            try:
                with conn.transaction():
                    cur = conn.execute(self._q(sql.UPDATE_RELATION_ROW), (*p[1:], p[0]))
            except psycopg.errors.IntegrityError as e:
                raise InvalidInput(f"relation {relation.id} violates a constraint: {e}") from None
            if cur.rowcount == 0:
                raise NotFound(f"relation {relation.id} not found")

    def _check_endpoints(self, conn: psycopg.Connection, r: Relation) -> None:
        ids = [r.source_id, r.target_id]
        found = {row[0] for row in conn.execute(self._q(sql.ENTITY_EXISTS), (ids,))}
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
        ids = list(dict.fromkeys(entity_ids))
        if not ids:
            return []
        t = _ts(as_of)
        params = (ids, ids, t, t, t, t, relation_type, relation_type)
        found = self._read(lambda c: c.execute(self._q(sql.RELATIONS_OF), params).fetchall())
        return [rows.relation(r) for r in found]

    # -- memory links -------------------------------------------------------------------------
    def entity_memory_links(self, entity_ids: Sequence[str]) -> list[tuple[str, str]]:
        ids = list(dict.fromkeys(entity_ids))
        if not ids:
            return []
        found = self._read(lambda c: c.execute(self._q(sql.ENTITY_MEMORY_LINKS), (ids,)).fetchall())
        return [(a, b) for a, b in found]

    def memory_entity_ids(self, memory_ids: Sequence[str]) -> dict[str, list[str]]:
        ids = list(dict.fromkeys(memory_ids))
        out: dict[str, list[str]] = {}
        if not ids:
            return out
        found = self._read(lambda c: c.execute(self._q(sql.MEMORY_ENTITY_IDS), (ids,)).fetchall())
        for mid, eid in found:
            out.setdefault(mid, []).append(eid)
        return out

    def graph_counts(self) -> dict[str, int]:
        e, r, links, sessions, aware = self._read(
            lambda c: c.execute(self._q(sql.GRAPH_COUNTS)).fetchone()
        )
        return {
            "entities": int(e),
            "relations": int(r),
            "entity_links": int(links),
            "sessions": int(sessions),
            "awareness_items": int(aware),
        }


class _PostgresGraphTx:
    """`store.graph_writer.GraphTx` over an open PostgreSQL transaction."""

    def __init__(self, store: GraphMixin, conn: psycopg.Connection) -> None:
        self.store = store
        self.conn = conn

    def _all(self, template: str, params: Sequence[Any]) -> list[Any]:
        return self.conn.execute(self.store._q(template), params).fetchall()

    def find_entity(self, parsed: ParsedName) -> Entity | None:
        keys = list(parsed.keys)
        for group in (keys[:1], keys[1:]):
            if group:
                found = self._all(sql.FIND_ENTITIES, (group, group, group))
                if found:
                    return rows.entity(found[0])
        return None

    def create_entity(self, entity: Entity) -> None:
        self.store._insert_entity(self.conn, entity)

    def set_entity_type(self, entity_id: str, entity_type: str) -> None:
        self.conn.execute(self.store._q(sql.SET_ENTITY_TYPE), (entity_type, entity_id))

    def add_aliases(self, entity_id: str, aliases: Sequence[str]) -> None:
        self.store._add_aliases(self.conn, entity_id, aliases)

    def open_relations(self, source_id: str, relation_type: str | None) -> list[Relation]:
        params = (source_id, relation_type, relation_type)
        found = self._all(sql.OPEN_RELATIONS_FROM, params)
        return [rows.relation(r) for r in found]

    def memory_relations(self, memory_id: str) -> list[Relation]:
        return [rows.relation(r) for r in self._all(sql.RELATIONS_OF_MEMORY, (memory_id,))]

    def create_relation(self, relation: Relation) -> None:
        self.conn.execute(self.store._q(sql.INSERT_RELATION_ROW), _relation_params(relation))

    def link(self, memory_id: str, entity_id: str) -> None:
        self.conn.execute(self.store._q(sql.INSERT_MENTION_LINK), (entity_id, memory_id))

    def end_relation(self, relation: Relation) -> None:
        self.conn.execute(
            self.store._q(sql.END_RELATION),
            (_ts(relation.valid_to), Jsonb(relation.properties), relation.id),
        )


def _entity_params(e: Entity) -> tuple[Any, ...]:
    return (
        e.id,
        e.entity_type,
        e.name,
        entity_key(e.name),
        Jsonb(e.properties),
        float(e.confidence),
        _ts(e.valid_from or e.recorded_at),
        _ts(e.valid_to),
        _ts(e.recorded_at or e.valid_from),
    )


def _relation_params(r: Relation) -> tuple[Any, ...]:
    return (
        r.id,
        r.source_id,
        r.target_id,
        r.relation_type,
        float(r.confidence),
        Jsonb(r.properties),
        _ts(r.valid_from or r.recorded_at),
        _ts(r.valid_to),
        _ts(r.recorded_at or r.valid_from),
        r.memory_id,
    )
