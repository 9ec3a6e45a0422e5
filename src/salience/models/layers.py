"""Record types of the mind's layers shared by every backend: identity, awareness, sessions.

(The memory record itself is `salience.models.Memory`; graph records are in
`salience.models.graph`.)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from ..errors import ConflictError, InvalidInput
from . import Memory, new_id

IDENTITY_TEXT_FIELDS = (
    "name",
    "role",
    "department",
    "personality",
    "capabilities",
    "system_prompt",
)


class AwarenessFull(ConflictError):
    """The awareness layer already holds its maximum number of active items."""

    code = "awareness_full"


@dataclass(slots=True)
class Identity:
    """Who this mind is (design B §4; design A's consolidated identity profile).

    Only `name` is required. `traits` is a JSON object (e.g. personality trait scores).
    """

    name: str
    role: str = ""
    department: str = ""
    personality: str = ""
    capabilities: str = ""
    system_prompt: str = ""
    traits: dict[str, Any] = field(default_factory=dict)
    created_at: datetime | None = None
    updated_at: datetime | None = None


class AwarenessCategory(StrEnum):
    """Design B §5 categories of working-memory items."""

    TASK = "task"
    ACTION = "action"
    PENDING = "pending"
    FLAG = "flag"


@dataclass(slots=True)
class AwarenessItem:
    """One working-memory item. Higher `priority` comes first; `metadata["status"]` is the
    item's status (free text: "in_progress", "blocked", "done", ...)."""

    content: str
    category: AwarenessCategory = AwarenessCategory.TASK
    priority: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)
    id: str = field(default_factory=new_id)
    created_at: datetime | None = None
    updated_at: datetime | None = None
    expires_at: datetime | None = None

    @property
    def status(self) -> str | None:
        v = self.metadata.get("status")
        return None if v is None else str(v)

    def active_at(self, when: datetime) -> bool:
        return self.expires_at is None or self.expires_at > when


class SessionStatus(StrEnum):
    OPEN = "open"
    CLOSED = "closed"


@dataclass(slots=True)
class Session:
    """Design B's GOP: a conversation/topic bucket whose memories carry a sequence number `t`."""

    id: str = field(default_factory=new_id)
    project_id: str | None = None
    status: SessionStatus = SessionStatus.OPEN
    summary: str = ""
    opened_at: datetime | None = None
    closed_at: datetime | None = None
    updated_at: datetime | None = None


@dataclass(slots=True)
class ReconstructedState:
    """Design B §6.3: the latest I-frame of a session, its P-frames in `t` order, and the
    current content (the I-frame's content followed by each patch's, one per line)."""

    iframe: Memory
    patches: list[Memory]
    current_content: str
    frame_count: int


def check_json_object(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidInput(f"{what} must be a JSON object (dict)")
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise InvalidInput(f"{what} must be JSON-serialisable (no NaN/inf): {e}") from None
    return dict(value)


def check_plain_text(value: Any, what: str, *, max_chars: int, allow_empty: bool = True) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be text, got {type(value).__name__}")
    if "\x00" in value:
        raise InvalidInput(f"{what} contains a NUL character")
    if len(value) > max_chars:
        raise InvalidInput(f"{what} is longer than {max_chars:,} characters")
    if not allow_empty and not value.strip():
        raise InvalidInput(f"{what} is empty")
    return value


def check_session_id(value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 200 or "\x00" in value:
        raise InvalidInput(f"invalid session id {value!r}: expected 1-200 characters of text")
    return value
