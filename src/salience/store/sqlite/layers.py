"""SQLite storage of the mind's layers: identity, awareness, sessions/frames, time travel, and
the write-path hook that keeps sessions, `t`, frame rules, `superseded_at` and entity links in
step with every memory write. Mixed into `SQLiteStore`; every statement lives in `sql.py`."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ...clock import format_ts
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
from .filters import chunks as _chunks

if TYPE_CHECKING:
    _Base = Any
else:
    _Base = object


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


class LayersMixin(_Base):
    """Identity, awareness, sessions and frames for `SQLiteStore` (see `store.base.LayerStore`)."""

    _db: sqlite3.Connection
    _lock: threading.RLock
    _mind: str

    if TYPE_CHECKING:

        def _tx(self) -> AbstractContextManager[sqlite3.Connection]: ...

        def _link_entities(self, db: sqlite3.Connection, pk: int, m: Memory) -> None: ...

    # -- write-path hook (called for every inserted or updated memory row) ----------------
    def _write_layers(
        self, db: sqlite3.Connection, pk: int, m: Memory, *, updating: bool = False
    ) -> None:
        """Register the session, assign `t`, check frame rules, stamp `superseded_at` and
        relink entities. On update, a base frame that no longer exists (it was deleted) is
        tolerated so orphaned patches stay updatable; on insert it is an error."""
        if m.session_id is not None:
            check_session_id(m.session_id)
            stamp = format_ts(m.created_at or m.updated_at)
            db.execute(sql.REGISTER_SESSION, (m.session_id, stamp, stamp))
            if m.t is None:
                (t,) = db.execute(sql.NEXT_T, (m.session_id,)).fetchone()
                db.execute(sql.SET_T, (int(t), pk))
                m.t = int(t)
            elif db.execute(sql.COUNT_T, (m.session_id, m.t, m.parent_id or m.id)).fetchone()[0]:
                raise InvalidInput(f"t={m.t} is already used in session {m.session_id!r}")
        base = None
        if m.base_frame_id is not None:
            row = db.execute(sql.FRAME_BASE, (m.base_frame_id,)).fetchone()
            if row is not None:
                base = BaseInfo(FrameType(row[0]), row[1])
        check_frame(m, base, missing_base_ok=updating)
        if updating or m.superseded_by is not None:
            db.execute(sql.SET_SUPERSEDED_AT, (format_ts(m.updated_at or m.created_at), pk))
        if updating:
            db.execute(sql.DELETE_LINKS, (pk,))
        if m.entities:
            self._link_entities(db, pk, m)

    # -- identity ---------------------------------------------------------------------------
    def get_identity(self) -> Identity | None:
        with self._lock:
            row = self._db.execute(sql.GET_IDENTITY).fetchone()
        return rows.identity(row) if row else None

    def create_identity(self, identity: Identity) -> None:
        with self._tx() as db:
            if db.execute(sql.GET_IDENTITY).fetchone() is not None:
                raise ConflictError(
                    f"mind {self._mind!r} already has an identity; update it instead"
                )
            db.execute(sql.INSERT_IDENTITY, _identity_params(identity))

    def update_identity(self, identity: Identity) -> None:
        with self._tx() as db:
            if db.execute(sql.UPDATE_IDENTITY, _identity_params(identity)).rowcount == 0:
                raise NotFound(f"mind {self._mind!r} has no identity yet; create it first")

    # -- awareness --------------------------------------------------------------------------
    def add_awareness(self, item: AwarenessItem, *, now: datetime, cap: int) -> None:
        with self._tx() as db:
            (active,) = db.execute(sql.COUNT_ACTIVE_AWARENESS, (format_ts(now),)).fetchone()
            if active >= cap:
                raise AwarenessFull(
                    f"awareness of mind {self._mind!r} already holds {active} active items "
                    f"(cap {cap}); remove, complete or expire one first"
                )
            try:
                db.execute(sql.INSERT_AWARENESS, _awareness_params(item))
            except sqlite3.IntegrityError as e:
                raise ConflictError(f"awareness item {item.id} already exists: {e}") from None

    def get_awareness(self, item_id: str) -> AwarenessItem | None:
        with self._lock:
            row = self._db.execute(sql.GET_AWARENESS, (item_id,)).fetchone()
        return rows.awareness(row) if row else None

    def list_awareness(
        self, *, now: datetime, category: AwarenessCategory | None = None, limit: int = 10
    ) -> list[AwarenessItem]:
        cat = None if category is None else AwarenessCategory(category).value
        with self._lock:
            found = self._db.execute(
                sql.LIST_AWARENESS, (format_ts(now), cat, cat, int(limit))
            ).fetchall()
        return [rows.awareness(r) for r in found]

    def update_awareness(self, item: AwarenessItem) -> None:
        p = _awareness_params(item)
        with self._tx() as db:
            if db.execute(sql.UPDATE_AWARENESS, (*p[1:], p[0])).rowcount == 0:
                raise NotFound(f"awareness item {item.id} not found")

    def delete_awareness(self, item_id: str) -> bool:
        with self._tx() as db:
            return db.execute(sql.DELETE_AWARENESS, (item_id,)).rowcount > 0

    def purge_awareness(self, now: datetime) -> int:
        with self._tx() as db:
            return int(db.execute(sql.PURGE_AWARENESS, (format_ts(now),)).rowcount)

    # -- sessions and frames ----------------------------------------------------------------
    def create_session(self, session: Session) -> None:
        with self._tx() as db:
            if db.execute(sql.INSERT_SESSION, _session_params(session)).rowcount == 0:
                raise ConflictError(f"session {session.id!r} already exists")

    def get_session(self, session_id: str) -> Session | None:
        with self._lock:
            row = self._db.execute(sql.GET_SESSION, (session_id,)).fetchone()
        return rows.session(row) if row else None

    def update_session(self, session: Session) -> None:
        p = _session_params(session)
        with self._tx() as db:
            if db.execute(sql.UPDATE_SESSION, (*p[1:], p[0])).rowcount == 0:
                raise NotFound(f"session {session.id!r} not found")

    def list_sessions(
        self,
        *,
        project_id: str | None = None,
        status: SessionStatus | None = None,
        limit: int = 100,
    ) -> list[Session]:
        st = None if status is None else SessionStatus(status).value
        with self._lock:
            found = self._db.execute(
                sql.LIST_SESSIONS, (project_id, project_id, st, st, int(limit))
            ).fetchall()
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
        with self._lock:
            found = self._db.execute(sql.SESSION_FRAMES, params).fetchall()
        return [_memory(r) for r in found]

    def visible_as_of(self, ids: Sequence[str], as_of: datetime) -> set[str]:
        out: set[str] = set()
        t = format_ts(as_of)
        with self._lock:
            for chunk in _chunks(list(dict.fromkeys(ids))):
                q = sql.VISIBLE_AS_OF.format(marks=", ".join("?" for _ in chunk))
                out.update(r[0] for r in self._db.execute(q, (*chunk, t, t)))
        return out


def _identity_params(i: Identity) -> tuple[Any, ...]:
    return (
        i.name,
        i.role,
        i.department,
        i.personality,
        i.capabilities,
        i.system_prompt,
        _dumps(i.traits),
        format_ts(i.created_at),
        format_ts(i.updated_at),
    )


def _awareness_params(a: AwarenessItem) -> tuple[Any, ...]:
    return (
        a.id,
        AwarenessCategory(a.category).value,
        a.content,
        int(a.priority),
        _dumps(a.metadata),
        format_ts(a.created_at),
        format_ts(a.updated_at),
        format_ts(a.expires_at),
    )


def _session_params(s: Session) -> tuple[Any, ...]:
    return (
        s.id,
        s.project_id,
        SessionStatus(s.status).value,
        s.summary,
        format_ts(s.opened_at),
        format_ts(s.closed_at),
        format_ts(s.updated_at),
    )
