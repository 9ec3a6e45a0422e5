"""SQLite storage of the knowledge graph: bitemporal entities with aliases, relations, the
memory↔entity links kept by the write path and the facts memories state (`write_graph`, run by
`store.graph_writer.apply_graph` over `_SQLiteGraphTx`). Mixed into `SQLiteStore`; SQL in `sql.py`."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ...clock import format_ts
from ...errors import ConflictError, InvalidInput, NotFound
from ...models import Memory
from ...models import layer_rows as rows
from ...models.graph import AUTO_ENTITY_TYPE, Entity, Relation
from ...models.names import ParsedName, entity_key, parse_name
from ..graph_writer import GraphWrite, apply_graph
from . import sql

if TYPE_CHECKING:
    from ...models.graph import MemoryGraph

    _Base = Any
else:
    _Base = object


class GraphMixin(_Base):
    """The knowledge graph for `SQLiteStore` (see `store.base.LayerStore`)."""

    _db: sqlite3.Connection
    _lock: threading.RLock

    if TYPE_CHECKING:

        def _tx(self) -> AbstractContextManager[sqlite3.Connection]: ...

    # -- write path: link a memory's entities ------------------------------------------------
    def _link_entities(self, run: Any, pk: int, m: Memory) -> None:
        db = run.conn
        for raw in m.entities:
            try:
                parsed = parse_name(raw)
            except InvalidInput:  # unusable mention (too long, ...): no link, the memory stays
                continue
            if not parsed.canonical:
                continue
            eid = _resolve(db, parsed)
            if eid is None:
                when = m.created_at or m.updated_at
                e = Entity(
                    name=parsed.canonical,
                    entity_type=AUTO_ENTITY_TYPE,
                    aliases=list(parsed.aliases),
                    valid_from=when,
                    recorded_at=when,
                )
                _insert_entity(db, e)
                eid = e.id
            else:
                _add_aliases(db, eid, parsed.aliases)
            db.execute(sql.INSERT_LINK, (pk, eid))

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
        """`apply_graph` inside the caller's transaction (commit_ingest)."""
        return apply_graph(_SQLiteGraphTx(run.conn), graphs, supersede=supersede, now=now)

    # -- entities -----------------------------------------------------------------------------
    def insert_entity(self, entity: Entity) -> None:
        with self._tx() as db:
            try:
                _insert_entity(db, entity)
            except sqlite3.IntegrityError as e:
                if "UNIQUE" in str(e):
                    raise ConflictError(f"entity {entity.id} already exists") from None
                raise InvalidInput(f"entity {entity.id} violates a constraint: {e}") from None

    def get_entity(self, entity_id: str) -> Entity | None:
        return self.get_entities([entity_id]).get(entity_id)

    def get_entities(self, entity_ids: Sequence[str]) -> dict[str, Entity]:
        out: dict[str, Entity] = {}
        with self._lock:
            for chunk in _chunks(list(dict.fromkeys(entity_ids))):
                q = sql.GET_ENTITIES.format(marks=_marks(chunk))
                for r in self._db.execute(q, chunk):
                    e = rows.entity(r)
                    out[e.id] = e
        return out

    def update_entity(self, entity: Entity) -> None:
        with self._tx() as db:
            cur = db.execute(sql.UPDATE_ENTITY_ROW, (*_entity_params(entity)[1:], entity.id))
            if cur.rowcount == 0:
                raise NotFound(f"entity {entity.id} not found")
            db.execute(sql.DELETE_ALIASES, (entity.id,))
            _add_aliases(db, entity.id, entity.aliases)

    def find_entities(self, keys: Sequence[str]) -> list[Entity]:
        ks = list(dict.fromkeys(k for k in keys if k))[:300]
        if not ks:
            return []
        q = sql.FIND_ENTITIES.format(marks=_marks(ks))
        with self._lock:
            found = self._db.execute(q, (*ks, *ks, *ks)).fetchall()
        return [rows.entity(r) for r in found]

    def list_entities(
        self,
        *,
        as_of: datetime | None = None,
        entity_type: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[Entity]:
        t = format_ts(as_of)
        with self._lock:
            found = self._db.execute(
                sql.LIST_ENTITIES,
                (t, t, t, t, entity_type, entity_type, int(limit), int(offset)),
            ).fetchall()
        return [rows.entity(r) for r in found]

    # -- relations ----------------------------------------------------------------------------
    def insert_relation(self, relation: Relation) -> None:
        with self._tx() as db:
            _check_endpoints(db, relation)
            try:
                db.execute(sql.INSERT_RELATION_ROW, _relation_params(relation))
            except sqlite3.IntegrityError as e:
                if "UNIQUE" in str(e):
                    raise ConflictError(f"relation {relation.id} already exists") from None
                raise InvalidInput(f"relation {relation.id} violates a constraint: {e}") from None

    def get_relation(self, relation_id: str) -> Relation | None:
        with self._lock:
            row = self._db.execute(sql.GET_RELATION, (relation_id,)).fetchone()
        return rows.relation(row) if row else None

    def update_relation(self, relation: Relation) -> None:
        with self._tx() as db:
            _check_endpoints(db, relation)
            p = _relation_params(relation)
            try:
                cur = db.execute(sql.UPDATE_RELATION_ROW, (*p[1:], p[0]))
            except sqlite3.IntegrityError as e:
                raise InvalidInput(f"relation {relation.id} violates a constraint: {e}") from None
            if cur.rowcount == 0:
                raise NotFound(f"relation {relation.id} not found")

    def relations_of(
        self,
        entity_ids: Sequence[str],
        *,
        as_of: datetime | None = None,
        relation_type: str | None = None,
    ) -> list[Relation]:
        t = format_ts(as_of)
        out: dict[str, Relation] = {}
        with self._lock:
            for chunk in _chunks(list(dict.fromkeys(entity_ids)), 400):
                q = sql.RELATIONS_OF.format(marks=_marks(chunk))
                params = (*chunk, *chunk, t, t, t, t, relation_type, relation_type)
                for r in self._db.execute(q, params):
                    rel = rows.relation(r)
                    out[rel.id] = rel
        return sorted(out.values(), key=lambda r: (r.recorded_at or datetime.min, r.id))

    # -- memory links -------------------------------------------------------------------------
    def entity_memory_links(self, entity_ids: Sequence[str]) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        with self._lock:
            for chunk in _chunks(list(dict.fromkeys(entity_ids))):
                q = sql.ENTITY_MEMORY_LINKS.format(marks=_marks(chunk))
                out.extend((a, b) for a, b in self._db.execute(q, chunk))
        return out

    def memory_entity_ids(self, memory_ids: Sequence[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        with self._lock:
            for chunk in _chunks(list(dict.fromkeys(memory_ids))):
                q = sql.MEMORY_ENTITY_IDS.format(marks=_marks(chunk))
                for mid, eid in self._db.execute(q, chunk):
                    out.setdefault(mid, []).append(eid)
        return out

    def graph_counts(self) -> dict[str, int]:
        with self._lock:
            e, r, links, sessions, aware = self._db.execute(sql.GRAPH_COUNTS).fetchone()
        return {
            "entities": int(e),
            "relations": int(r),
            "entity_links": int(links),
            "sessions": int(sessions),
            "awareness_items": int(aware),
        }


class _SQLiteGraphTx:
    """`store.graph_writer.GraphTx` over an open SQLite transaction."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def find_entity(self, parsed: ParsedName) -> Entity | None:
        keys = parsed.keys
        for group in (keys[:1], keys[1:]):
            if group:
                q = sql.FIND_ENTITIES.format(marks=_marks(group))
                row = self.db.execute(q, (*group, *group, *group)).fetchone()
                if row is not None:
                    return rows.entity(row)
        return None

    def create_entity(self, entity: Entity) -> None:
        _insert_entity(self.db, entity)

    def set_entity_type(self, entity_id: str, entity_type: str) -> None:
        self.db.execute(sql.SET_ENTITY_TYPE, (entity_type, entity_id))

    def add_aliases(self, entity_id: str, aliases: Sequence[str]) -> None:
        _add_aliases(self.db, entity_id, aliases)

    def open_relations(self, source_id: str, relation_type: str | None) -> list[Relation]:
        params = (source_id, relation_type, relation_type)
        found = self.db.execute(sql.OPEN_RELATIONS_FROM, params).fetchall()
        return [rows.relation(r) for r in found]

    def memory_relations(self, memory_id: str) -> list[Relation]:
        found = self.db.execute(sql.RELATIONS_OF_MEMORY, (memory_id,)).fetchall()
        return [rows.relation(r) for r in found]

    def create_relation(self, relation: Relation) -> None:
        self.db.execute(sql.INSERT_RELATION_ROW, _relation_params(relation))

    def link(self, memory_id: str, entity_id: str) -> None:
        self.db.execute(sql.INSERT_MENTION_LINK, (entity_id, memory_id))

    def end_relation(self, relation: Relation) -> None:
        self.db.execute(
            sql.END_RELATION,
            (format_ts(relation.valid_to), _json(relation.properties), relation.id),
        )


def _resolve(db: sqlite3.Connection, parsed: ParsedName) -> str | None:
    """The entity a parsed mention refers to: by its canonical key, else by an alias key."""
    e = _SQLiteGraphTx(db).find_entity(parsed)
    return e.id if e is not None else None


def _insert_entity(db: sqlite3.Connection, e: Entity) -> None:
    db.execute(sql.INSERT_ENTITY_ROW, _entity_params(e))
    _add_aliases(db, e.id, e.aliases)


def _add_aliases(db: sqlite3.Connection, entity_id: str, aliases: Sequence[str]) -> None:
    for a in aliases:
        key = entity_key(a)
        if key:
            db.execute(sql.INSERT_ALIAS, (key, entity_id, a))


def _check_endpoints(db: sqlite3.Connection, r: Relation) -> None:
    found = {row[0] for row in db.execute(sql.ENTITY_EXISTS.format(marks="?, ?"), (r.source_id, r.target_id))}
    missing = [i for i in (r.source_id, r.target_id) if i not in found]
    if missing:
        raise NotFound(f"unknown entity id(s): {', '.join(dict.fromkeys(missing))}")


def _entity_params(e: Entity) -> tuple[Any, ...]:
    return (
        e.id,
        e.entity_type,
        e.name,
        entity_key(e.name),
        _json(e.properties),
        float(e.confidence),
        format_ts(e.valid_from or e.recorded_at),
        format_ts(e.valid_to),
        format_ts(e.recorded_at or e.valid_from),
    )


def _relation_params(r: Relation) -> tuple[Any, ...]:
    return (
        r.id,
        r.source_id,
        r.target_id,
        r.relation_type,
        float(r.confidence),
        _json(r.properties),
        format_ts(r.valid_from or r.recorded_at),
        format_ts(r.valid_to),
        format_ts(r.recorded_at or r.valid_from),
        r.memory_id,
    )


def _json(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _marks(values: Sequence[Any]) -> str:
    return ", ".join("?" for _ in values)


def _chunks(values: list[Any], size: int = 900) -> Iterator[list[Any]]:
    for i in range(0, len(values), size):
        yield values[i : i + size]
