"""Sessions (design B's GOP, §11) and I/P/B frames (§6).

A session groups memories (frames) of one conversation or topic, optionally under a project.
Every memory stored with a `session_id` registers that session (open) if it is new and gets
the next sequence number `t` in the store's write transaction (see `store.base.LayerStore`).
Frame rules and reconstruction are the pure functions in `salience.models.frames`.

Closing a session records `closed_at` and optionally a summary; it does not freeze the
session (late frames are still accepted and numbered).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..clock import Clock
from ..errors import InvalidInput, NotFound
from ..models import FrameType, Memory, parse_enum
from ..models.frames import reconstruct
from ..models.layers import (
    ReconstructedState,
    Session,
    SessionStatus,
    check_plain_text,
    check_session_id,
)

if TYPE_CHECKING:
    from ..store.base import Store

AddFn = Callable[[Mapping[str, Any]], str]  # one add() item → memory id (the Mind's add_many)
_MAX_SUMMARY = 20_000


class SessionLayer:
    """open / get / close / summarize / list / frames / add_frame / reconstruct_state."""

    def __init__(self, store: Store, clock: Clock, *, add: AddFn | None = None) -> None:
        self._store = store
        self._clock = clock
        self._add = add

    def open(self, session_id: str | None = None, *, project_id: str | None = None) -> Session:
        """Open a new session (id generated when None). Raises `ConflictError` if it exists."""
        now = self._clock.now()
        kw: dict[str, Any] = {} if session_id is None else {"id": check_session_id(session_id)}
        if project_id is not None:
            project_id = check_plain_text(project_id, "project_id", max_chars=200)
        s = Session(project_id=project_id, opened_at=now, updated_at=now, **kw)
        self._store.create_session(s)
        return s

    def get(self, session_id: str) -> Session:
        """A session by id. Raises `NotFound`."""
        s = self._store.get_session(session_id)
        if s is None:
            raise NotFound(f"session {session_id!r} not found")
        return s

    def close(self, session_id: str, *, summary: str | None = None) -> Session:
        """Mark a session closed (idempotent), optionally setting its summary."""
        s = self.get(session_id)
        now = self._clock.now()
        new = replace(
            s,
            status=SessionStatus.CLOSED,
            closed_at=s.closed_at or now,
            updated_at=now,
            summary=s.summary if summary is None else _summary(summary),
        )
        self._store.update_session(new)
        return new

    def summarize(self, session_id: str, summary: str) -> Session:
        """Set a session's summary."""
        s = self.get(session_id)
        new = replace(s, summary=_summary(summary), updated_at=self._clock.now())
        self._store.update_session(new)
        return new

    def set_project(self, session_id: str, project_id: str | None) -> Session:
        s = self.get(session_id)
        if project_id is not None:
            project_id = check_plain_text(project_id, "project_id", max_chars=200)
        new = replace(s, project_id=project_id, updated_at=self._clock.now())
        self._store.update_session(new)
        return new

    def list(
        self,
        *,
        project_id: str | None = None,
        status: SessionStatus | str | None = None,
        limit: int = 100,
    ) -> list[Session]:
        """Sessions, most recently opened first."""
        st = None if status is None else parse_enum(SessionStatus, status, "session status")
        if limit <= 0:
            raise InvalidInput("limit must be positive")
        return self._store.list_sessions(project_id=project_id, status=st, limit=limit)

    def frames(self, session_id: str, *, frame_type: FrameType | str | None = None) -> list[Memory]:
        """The session's memories ordered by `t` (superseded ones included)."""
        self.get(session_id)
        ft = None if frame_type is None else parse_enum(FrameType, frame_type, "frame_type")
        return self._store.session_frames(session_id, frame_type=ft)

    def add_frame(
        self,
        session_id: str,
        content: str,
        *,
        frame_type: FrameType | str = FrameType.I,
        base_frame_id: str | None = None,
        **fields: Any,
    ) -> str:
        """Store a frame in a session through the mind (embedded, indexed); returns its id.

        I-frames stand alone; a P-frame's base must be an I-frame of this session; a B-frame's
        base may be any frame. Raises `InvalidInput` when the rules are broken. Note: content
        already stored verbatim is not stored twice (the existing id is returned).
        """
        if self._add is None:
            raise InvalidInput("this session layer has no writer; use mind.sessions")
        item = dict(
            fields,
            content=content,
            session_id=check_session_id(session_id),
            frame_type=parse_enum(FrameType, frame_type, "frame_type"),
            base_frame_id=base_frame_id,
        )
        return self._add(item)

    def reconstruct_state(self, session_id: str) -> ReconstructedState | None:
        """Latest I-frame, its P-frames in `t` order and the current content (see
        `models.frames.reconstruct`); None when the session has no I-frame. Raises `NotFound`
        for an unknown session."""
        self.get(session_id)
        iframes = self._store.session_frames(session_id, frame_type=FrameType.I)
        if not iframes:
            return None
        latest = reconstruct(iframes)
        assert latest is not None
        patches = self._store.session_frames(
            session_id, frame_type=FrameType.P, base_frame_id=latest.iframe.id
        )
        return reconstruct([latest.iframe, *patches])


def _summary(text: str) -> str:
    return check_plain_text(text, "summary", max_chars=_MAX_SUMMARY).strip()
