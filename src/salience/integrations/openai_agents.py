"""`SalienceSession`: an OpenAI Agents SDK `Session` backed by a mind's session (design B's
GOP), whose conversation is also remembered through the agent path.

    from agents import Agent, Runner
    from salience import Mind
    from salience.integrations.openai_agents import SalienceSession

    session = SalienceSession("chat-42", Mind.open("assistant"))
    await Runner.run(agent, "I moved to Lisbon.", session=session)

- The transcript: every item the Runner adds is one frame of the mind's session `session_id`
  (numbered by the store's sequence `t`), its exact JSON in the frame's metadata, so
  `get_items` returns what was added, in order. Frames are pinned, salience 3 (design A's raw
  archive level), full-text indexed but not embedded, tagged `agents-item`.
- The agent path: each user message and the assistant's reply after it go to
  `mind.remember_turn` (queued for triage by default, `triage="now"` to triage at once,
  `None` to skip), so what matters outlives the transcript; a reply after a tool result is
  tool-grounded. `clear_session` deletes the transcript, not what triage kept.
- Every call runs the synchronous core in a worker thread: the event loop never blocks.

Requires the `agents` extra (`pip install 'salience[agents]'`).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeVar

from ..errors import MissingExtra
from ..mind import Mind
from ..models import Memory, MemoryFilter, Source, content_hash, new_id, validate_memory

try:
    from agents.memory import SessionSettings
    from agents.memory.session_settings import resolve_session_limit
except ImportError as e:  # pragma: no cover - depends on the installed extras
    raise MissingExtra("openai-agents", "agents") from e

ITEM_TAG = "agents-item"
META = "agents_item"
TRANSCRIPT_SALIENCE = 3.0
_TEXT_MAX = 4000
T = TypeVar("T")


def item_text(item: Mapping[str, Any]) -> tuple[str | None, str]:
    """(role, text) of a Responses-API input item: a message's text parts joined, a tool call
    as `name(arguments)`, a tool result as its output (pure)."""
    kind = item.get("type")
    if kind == "function_call":
        return "tool_call", f"{item.get('name')}({item.get('arguments', '')})"
    if kind == "function_call_output":
        return "tool_result", str(item.get("output", ""))
    content = item.get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = "\n".join(
            str(p.get("text") or p.get("refusal") or "") for p in content if isinstance(p, Mapping)
        )
    else:
        text = ""
    return (str(item["role"]) if item.get("role") else kind and str(kind)), text


class SalienceSession:
    """An Agents SDK session on `mind` (see the module docstring)."""

    def __init__(
        self,
        session_id: str,
        mind: Mind,
        *,
        triage: Literal["defer", "now"] | None = "defer",
        session_settings: SessionSettings | None = None,
    ) -> None:
        self.session_id = session_id
        self.mind = mind
        self.triage = triage
        self.session_settings = session_settings or SessionSettings()
        self._lock = threading.Lock()  # one writer per session object: `t` order == add order
        self._pending_user: str | None = None
        self._grounded = False

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(fn, *args)

    # -- Session protocol -----------------------------------------------------------------------
    async def get_items(self, limit: int | None = None) -> list[Any]:
        """The session's items in order; with `limit`, the latest `limit` of them."""
        n = resolve_session_limit(limit, self.session_settings)
        rows = await self._run(self._frames)
        items = [m.metadata[META] for m in rows]
        return items[-n:] if n is not None and n > 0 else ([] if n == 0 else items)

    async def add_items(self, items: list[Any]) -> None:
        """Append `items` to the transcript and hand finished turns to the agent path."""
        if items:
            await self._run(self._add, list(items))

    async def pop_item(self) -> Any | None:
        """Remove and return the latest item (None when the session is empty)."""
        return await self._run(self._pop)

    async def clear_session(self) -> None:
        """Delete the session's transcript (memories triage kept from it stay)."""
        await self._run(self._clear)

    async def flush(self) -> None:
        """Remember a user message that is still waiting for its reply."""
        await self._run(self._remember_pending)

    # -- the synchronous core -------------------------------------------------------------------
    def _frames(self) -> list[Memory]:
        rows = self.mind.sessions.frames(self.session_id) if self._exists() else []
        return [m for m in rows if ITEM_TAG in m.tags and META in m.metadata]

    def _exists(self) -> bool:
        from ..errors import NotFound

        try:
            self.mind.sessions.get(self.session_id)
        except NotFound:
            return False
        return True

    def _record(self, item: Mapping[str, Any]) -> Memory:
        role, text = item_text(item)
        body = text.strip() or json.dumps(item, ensure_ascii=False)[:_TEXT_MAX]
        label = {"user": "User", "assistant": "Assistant"}.get(role or "", role or "item")
        now = self.mind.clock.now()
        m = Memory(
            content=f"{label}: {body}"[:_TEXT_MAX], id=new_id(), session_id=self.session_id,
            tags=[ITEM_TAG], metadata={META: dict(item)}, pinned=True,
            salience=TRANSCRIPT_SALIENCE,
            source=Source.USER_STATED if role == "user" else Source.AGENT_INFERRED,
            created_at=now, updated_at=now,
        )
        validate_memory(m, max_bytes=self.mind.config.max_content_bytes)
        m.content_hash = content_hash(json.dumps([self.session_id, m.id, m.content]))
        return m

    def _add(self, items: Sequence[Mapping[str, Any]]) -> None:
        with self._lock:
            self.mind.store.insert([self._record(i) for i in items])
            for item in items:
                self._follow(item)

    def _follow(self, item: Mapping[str, Any]) -> None:
        """Pair user messages with the assistant reply that follows them."""
        if self.triage is None:
            return
        role, text = item_text(item)
        if role == "user" and text.strip():
            self._remember_pending()
            self._pending_user, self._grounded = text, False
        elif role == "tool_result":
            self._grounded = True
        elif role == "assistant" and self._pending_user is not None and text.strip():
            user, self._pending_user = self._pending_user, None
            self._remember(user, text, self._grounded)

    def _remember_pending(self) -> None:
        if self._pending_user is not None:
            user, self._pending_user = self._pending_user, None
            self._remember(user, "", self._grounded)

    def _remember(self, user: str, reply: str, grounded: bool) -> None:
        self.mind.remember_turn(
            user, reply, tool_grounded=grounded, defer=self.triage == "defer",
            session_id=self.session_id,
        )

    def _pop(self) -> Any | None:
        with self._lock:
            rows = self._frames()
            if not rows:
                return None
            last = rows[-1]
            self.mind.store.delete([last.id])
            return last.metadata[META]

    def _clear(self) -> None:
        with self._lock:
            self._pending_user = None
            rows = self.mind.list(
                MemoryFilter(tags=[ITEM_TAG], session_id=self.session_id, include_superseded=True),
                limit=1_000_000,
            )
            if rows:
                self.mind.store.delete([m.id for m in rows])


__all__ = ["SalienceSession", "item_text"]
