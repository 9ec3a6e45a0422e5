"""PostgreSQL storage of the mind's layers: identity, awareness, sessions/frames, time travel,
and the write-path hook run after every memory insert/update (sessions, `t`, frame rules,
`superseded_at`, entity links). Mixed into `PostgresStore`; every statement lives in `sql.py`.

Serialisation: `t` is assigned under a row lock on the session (sessions locked in id order, so
two writers never deadlock); the awareness cap and entity auto-creation hold the mind's
`:layers` advisory lock for their transaction.
"""

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
from ...models import FrameType, Memory
from ...models import layer_rows as rows
from ...models.frames import BaseInfo, check_frame
from ...models.layers import (
    AwarenessCategory,
    AwarenessFull,
    AwarenessItem,
    Identity,
    Session,
    SessionStatus,
    check_session_id,
)
from . import sql

T = TypeVar("T")

if TYPE_CHECKING:
    _Base = Any
else:
    _Base = object


def _ts(value: datetime | None) -> datetime | None:
    return ensure_utc(value) if value is not None else None


class LayersMixin(_Base):
    """Identity, awareness, sessions and frames for `PostgresStore` (see `LayerStore`)."""

    _mind: str
    _lock_key: str

    if TYPE_CHECKING:

        def _q(self, template: str, **parts: psql.Composable) -> psql.Composed: ...

        def _tx(self) -> AbstractContextManager[psycopg.Connection]: ...

        def _read(self, fn: Callable[[psycopg.Connection], T]) -> T: ...

        def _link_entities(self, conn: psycopg.Connection, pk: int, m: Memory) -> None: ...

    # -- write-path hook ----------------------------------------------------------------------
    def _write_layers(
        self, conn: psycopg.Connection, memories: Sequence[Memory], *, updating: bool = False
    ) -> None:
        """After the rows are written (same transaction): register sessions and assign `t`,
        check frame rules, stamp `superseded_at`, relink entities. Inserts that need none of
        it cost no query."""
        todo = [
            m
            for m in memories
            if updating
            or m.session_id is not None
            or m.base_frame_id is not None
            or m.frame_type is not FrameType.I
            or m.superseded_by is not None
            or m.entities
        ]
        if not todo:
            return
        q = self._q
        for sid in sorted({m.session_id for m in todo if m.session_id is not None}):
            check_session_id(sid)
            first = min(
                (_ts(m.created_at or m.updated_at) for m in todo if m.session_id == sid),
                key=lambda d: d or datetime.max,
            )
            conn.execute(q(sql.REGISTER_SESSION), (sid, first, first))
            conn.execute(q(sql.LOCK_SESSION), (sid,))
        if any(m.entities for m in todo):
            conn.execute(sql.ADVISORY_LOCK, (self._lock_key + sql.LAYERS_LOCK_SUFFIX,))
        for m in todo:
            (pk,) = conn.execute(q(sql.PK_BY_ID), (m.id,)).fetchone()
            if m.session_id is not None:
                if m.t is None:
                    (t,) = conn.execute(q(sql.NEXT_T), (m.session_id,)).fetchone()
                    conn.execute(q(sql.SET_T), (int(t), pk))
                    m.t = int(t)
                elif conn.execute(
                    q(sql.COUNT_T), (m.session_id, m.t, m.parent_id or m.id)
                ).fetchone()[0]:
                    raise InvalidInput(f"t={m.t} is already used in session {m.session_id!r}")
            base = None
            if m.base_frame_id is not None:
                row = conn.execute(q(sql.FRAME_BASE), (m.base_frame_id,)).fetchone()
                if row is not None:
                    base = BaseInfo(FrameType(row[0]), row[1])
            check_frame(m, base, missing_base_ok=updating)
            conn.execute(q(sql.SET_SUPERSEDED_AT), (_ts(m.updated_at or m.created_at), pk))
            if updating:
                conn.execute(q(sql.DELETE_LINKS), (pk,))
            self._link_entities(conn, pk, m)

    # -- identity -----------------------------------------------------------------------------
    def get_identity(self) -> Identity | None:
        row = self._read(lambda c: c.execute(self._q(sql.GET_IDENTITY)).fetchone())
        return rows.identity(row) if row else None

    def create_identity(self, identity: Identity) -> None:
        with self._tx() as conn:
            if conn.execute(self._q(sql.INSERT_IDENTITY), _identity_params(identity)).rowcount == 0:
                raise ConflictError(
                    f"mind {self._mind!r} already has an identity; update it instead"
                )

    def update_identity(self, identity: Identity) -> None:
        with self._tx() as conn:
            if conn.execute(self._q(sql.UPDATE_IDENTITY), _identity_params(identity)).rowcount == 0:
                raise NotFound(f"mind {self._mind!r} has no identity yet; create it first")

    # -- awareness ----------------------------------------------------------------------------
    def add_awareness(self, item: AwarenessItem, *, now: datetime, cap: int) -> None:
        with self._tx() as conn:
            conn.execute(sql.ADVISORY_LOCK, (self._lock_key + sql.LAYERS_LOCK_SUFFIX,))
            (active,) = conn.execute(self._q(sql.COUNT_ACTIVE_AWARENESS), (now,)).fetchone()
            if active >= cap:
                raise AwarenessFull(
                    f"awareness of mind {self._mind!r} already holds {active} active items "
                    f"(cap {cap}); remove, complete or expire one first"
                )
            try:
                with conn.transaction():
                    conn.execute(self._q(sql.INSERT_AWARENESS), _awareness_params(item))
            except psycopg.errors.UniqueViolation:
                raise ConflictError(f"awareness item {item.id} already exists") from None

    def get_awareness(self, item_id: str) -> AwarenessItem | None:
        row = self._read(lambda c: c.execute(self._q(sql.GET_AWARENESS), (item_id,)).fetchone())
        return rows.awareness(row) if row else None

    def list_awareness(
        self, *, now: datetime, category: AwarenessCategory | None = None, limit: int = 10
    ) -> list[AwarenessItem]:
        cat = None if category is None else AwarenessCategory(category).value
        found = self._read(
            lambda c: c.execute(self._q(sql.LIST_AWARENESS), (now, cat, cat, int(limit))).fetchall()
        )
        return [rows.awareness(r) for r in found]

    def update_awareness(self, item: AwarenessItem) -> None:
        p = _awareness_params(item)
        with self._tx() as conn:
            if conn.execute(self._q(sql.UPDATE_AWARENESS), (*p[1:], p[0])).rowcount == 0:
                raise NotFound(f"awareness item {item.id} not found")

    def delete_awareness(self, item_id: str) -> bool:
        with self._tx() as conn:
            return conn.execute(self._q(sql.DELETE_AWARENESS), (item_id,)).rowcount > 0

    def purge_awareness(self, now: datetime) -> int:
        with self._tx() as conn:
            return int(conn.execute(self._q(sql.PURGE_AWARENESS), (now,)).rowcount)

    # -- sessions and frames ------------------------------------------------------------------
    def create_session(self, session: Session) -> None:
        with self._tx() as conn:
            if conn.execute(self._q(sql.INSERT_SESSION), _session_params(session)).rowcount == 0:
                raise ConflictError(f"session {session.id!r} already exists")

    def get_session(self, session_id: str) -> Session | None:
        row = self._read(lambda c: c.execute(self._q(sql.GET_SESSION), (session_id,)).fetchone())
        return rows.session(row) if row else None

    def update_session(self, session: Session) -> None:
        p = _session_params(session)
        with self._tx() as conn:
            if conn.execute(self._q(sql.UPDATE_SESSION), (*p[1:], p[0])).rowcount == 0:
                raise NotFound(f"session {session.id!r} not found")

    def list_sessions(
        self,
        *,
        project_id: str | None = None,
        status: SessionStatus | None = None,
        limit: int = 100,
    ) -> list[Session]:
        st = None if status is None else SessionStatus(status).value
        params = (project_id, project_id, st, st, int(limit))
        found = self._read(lambda c: c.execute(self._q(sql.LIST_SESSIONS), params).fetchall())
        return [rows.session(r) for r in found]

    def session_frames(
        self,
        session_id: str,
        *,
        frame_type: FrameType | None = None,
        base_frame_id: str | None = None,
    ) -> list[Memory]:
        from .store import _memory

        ft = None if frame_type is None else FrameType(frame_type).value
        params = (session_id, ft, ft, base_frame_id, base_frame_id)
        found = self._read(lambda c: c.execute(self._q(sql.SESSION_FRAMES), params).fetchall())
        return [_memory(r) for r in found]

    def visible_as_of(self, ids: Sequence[str], as_of: datetime) -> set[str]:
        t = ensure_utc(as_of)
        params = (list(dict.fromkeys(ids)), t, t)
        found = self._read(lambda c: c.execute(self._q(sql.VISIBLE_AS_OF), params).fetchall())
        return {r[0] for r in found}


def _identity_params(i: Identity) -> tuple[Any, ...]:
    return (
        i.name,
        i.role,
        i.department,
        i.personality,
        i.capabilities,
        i.system_prompt,
        Jsonb(i.traits),
        _ts(i.created_at),
        _ts(i.updated_at),
    )


def _awareness_params(a: AwarenessItem) -> tuple[Any, ...]:
    return (
        a.id,
        AwarenessCategory(a.category).value,
        a.content,
        int(a.priority),
        Jsonb(a.metadata),
        _ts(a.created_at),
        _ts(a.updated_at),
        _ts(a.expires_at),
    )


def _session_params(s: Session) -> tuple[Any, ...]:
    return (
        s.id,
        s.project_id,
        SessionStatus(s.status).value,
        s.summary,
        _ts(s.opened_at),
        _ts(s.closed_at),
        _ts(s.updated_at),
    )
