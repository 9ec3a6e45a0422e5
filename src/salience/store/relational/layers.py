"""The mind's layers written once: identity, awareness, sessions/frames, time travel, and the
write-path hook that keeps sessions, `t`, frame rules, `superseded_at` and entity links in step
with every memory write (see `store.base.LayerStore`).

Serialisation: `t` is assigned with the session's row locked (`_lock_rows`, sessions in id
order, so two writers never deadlock); the awareness cap and entity auto-creation hold the
mind's "layers" scope (`_serialize`) for their transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

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
from .core import RelationalCore, Run


class LayersCore(RelationalCore):
    """Identity, awareness, sessions and frames (see `store.base.LayerStore`)."""

    if TYPE_CHECKING:

        def _link_entities(self, run: Run, pk: int, m: Memory) -> None: ...

    # -- write-path hook (after the rows of an insert or update are written) ------------------
    def _write_layers(
        self,
        run: Run,
        memories: Sequence[Memory],
        pks: Sequence[int] | None = None,
        *,
        updating: bool = False,
    ) -> None:
        """Register sessions and assign `t`, check frame rules, stamp `superseded_at`, relink
        entities — in the caller's transaction, after the rows are written (`pks`: their row
        keys when the backend knows them). On update, a base frame that no longer exists (it
        was deleted) is tolerated so orphaned patches stay updatable; on insert it is an
        error. Inserts that need none of it cost no query."""
        todo = [
            (i, m)
            for i, m in enumerate(memories)
            if updating
            or m.session_id is not None
            or m.base_frame_id is not None
            or m.frame_type is not FrameType.I
            or m.superseded_by is not None
            or m.entities
        ]
        if not todo:
            return
        ts = self._dialect.ts
        for sid in sorted({m.session_id for _, m in todo if m.session_id is not None}):
            check_session_id(sid)
            first = min(
                (ts(m.created_at or m.updated_at) for _, m in todo if m.session_id == sid),
                key=lambda d: (d is None, d),
            )
            run("REGISTER_SESSION", (sid, first, first))
            self._lock_rows(run, "LOCK_SESSION", (sid,))
        if any(m.entities for _, m in todo):
            self._serialize(run, "layers")
        for i, m in todo:
            pk = pks[i] if pks is not None else run("PK_BY_ID", (m.id,)).fetchone()[0]
            if m.session_id is not None:
                if m.t is None:
                    (t,) = run("NEXT_T", (m.session_id,)).fetchone()
                    run("SET_T", (int(t), pk))
                    m.t = int(t)
                elif run("COUNT_T", (m.session_id, m.t, m.parent_id or m.id)).fetchone()[0]:
                    raise InvalidInput(f"t={m.t} is already used in session {m.session_id!r}")
            base = None
            if m.base_frame_id is not None:
                row = run("FRAME_BASE", (m.base_frame_id,)).fetchone()
                if row is not None:
                    base = BaseInfo(FrameType(row[0]), row[1])
            check_frame(m, base, missing_base_ok=updating)
            if updating or m.superseded_by is not None:
                run("SET_SUPERSEDED_AT", (ts(m.updated_at or m.created_at), pk))
            if updating:
                run("DELETE_LINKS", (pk,))
            if m.entities:
                self._link_entities(run, pk, m)

    # -- identity ---------------------------------------------------------------------------
    def get_identity(self) -> Identity | None:
        row = self._first("GET_IDENTITY")
        return rows.identity(row) if row else None

    def create_identity(self, identity: Identity) -> None:
        with self._write() as run:
            if run("INSERT_IDENTITY", self._identity_params(identity)).rowcount == 0:
                raise ConflictError(
                    f"mind {self._mind!r} already has an identity; update it instead"
                )

    def update_identity(self, identity: Identity) -> None:
        with self._write() as run:
            if run("UPDATE_IDENTITY", self._identity_params(identity)).rowcount == 0:
                raise NotFound(f"mind {self._mind!r} has no identity yet; create it first")

    # -- awareness --------------------------------------------------------------------------
    def add_awareness(self, item: AwarenessItem, *, now: datetime, cap: int) -> None:
        with self._write() as run:
            self._serialize(run, "layers")
            (active,) = run("COUNT_ACTIVE_AWARENESS", (self._dialect.ts(now),)).fetchone()
            if active >= cap:
                raise AwarenessFull(
                    f"awareness of mind {self._mind!r} already holds {active} active items "
                    f"(cap {cap}); remove, complete or expire one first"
                )
            try:
                with run.savepoint():
                    run("INSERT_AWARENESS", self._awareness_params(item))
            except self._integrity_errors:
                raise ConflictError(f"awareness item {item.id} already exists") from None

    def get_awareness(self, item_id: str) -> AwarenessItem | None:
        row = self._first("GET_AWARENESS", (item_id,))
        return rows.awareness(row) if row else None

    def list_awareness(
        self, *, now: datetime, category: AwarenessCategory | None = None, limit: int = 10
    ) -> list[AwarenessItem]:
        cat = None if category is None else AwarenessCategory(category).value
        found = self._all("LIST_AWARENESS", (self._dialect.ts(now), cat, cat, int(limit)))
        return [rows.awareness(r) for r in found]

    def update_awareness(self, item: AwarenessItem) -> None:
        p = self._awareness_params(item)
        with self._write() as run:
            if run("UPDATE_AWARENESS", (*p[1:], p[0])).rowcount == 0:
                raise NotFound(f"awareness item {item.id} not found")

    def delete_awareness(self, item_id: str) -> bool:
        with self._write() as run:
            return run("DELETE_AWARENESS", (item_id,)).rowcount > 0

    def purge_awareness(self, now: datetime) -> int:
        with self._write() as run:
            return int(run("PURGE_AWARENESS", (self._dialect.ts(now),)).rowcount)

    # -- sessions and frames ----------------------------------------------------------------
    def create_session(self, session: Session) -> None:
        with self._write() as run:
            if run("INSERT_SESSION", self._session_params(session)).rowcount == 0:
                raise ConflictError(f"session {session.id!r} already exists")

    def get_session(self, session_id: str) -> Session | None:
        row = self._first("GET_SESSION", (session_id,))
        return rows.session(row) if row else None

    def update_session(self, session: Session) -> None:
        p = self._session_params(session)
        with self._write() as run:
            if run("UPDATE_SESSION", (*p[1:], p[0])).rowcount == 0:
                raise NotFound(f"session {session.id!r} not found")

    def list_sessions(
        self,
        *,
        project_id: str | None = None,
        status: SessionStatus | None = None,
        limit: int = 100,
    ) -> list[Session]:
        st = None if status is None else SessionStatus(status).value
        found = self._all("LIST_SESSIONS", (project_id, project_id, st, st, int(limit)))
        return [rows.session(r) for r in found]

    def session_frames(
        self,
        session_id: str,
        *,
        frame_type: FrameType | None = None,
        base_frame_id: str | None = None,
    ) -> list[Memory]:
        ft = None if frame_type is None else FrameType(frame_type).value
        params = (session_id, ft, ft, base_frame_id, base_frame_id)
        return [self._memory(r) for r in self._all("SESSION_FRAMES", params)]

    def session_turns(self, session_id: str, t_from: int, t_to: int) -> list[Memory]:
        params = (session_id, int(t_from), int(t_to))
        return [self._memory(r) for r in self._all("SESSION_TURNS", params)]

    def visible_as_of(self, ids: Sequence[str], as_of: datetime) -> set[str]:
        t = self._dialect.ts(as_of)
        return {r[0] for r in self._all_in("VISIBLE_AS_OF", ids, after=(t, t))}

    # -- parameters ---------------------------------------------------------------------------
    def _identity_params(self, i: Identity) -> tuple[Any, ...]:
        d = self._dialect
        return (
            i.name, i.role, i.department, i.personality, i.capabilities, i.system_prompt,
            d.obj(i.traits), d.ts(i.created_at), d.ts(i.updated_at),
        )

    def _awareness_params(self, a: AwarenessItem) -> tuple[Any, ...]:
        d = self._dialect
        return (
            a.id, AwarenessCategory(a.category).value, a.content, int(a.priority),
            d.obj(a.metadata), d.ts(a.created_at), d.ts(a.updated_at), d.ts(a.expires_at),
        )

    def _session_params(self, s: Session) -> tuple[Any, ...]:
        d = self._dialect
        return (
            s.id, s.project_id, SessionStatus(s.status).value, s.summary,
            d.ts(s.opened_at), d.ts(s.closed_at), d.ts(s.updated_at),
        )
