"""Chat transcripts as JSONL (OpenAI-style `{"role", "content"}` messages), as items of the
conversation path.

Accepted line shapes (they may be mixed in one file):

- a conversation per line: `{"messages": [...], "id"?: ..., "created_at"?: ...}` or a bare
  JSON array of messages;
- a message per line: `{"role": "user", "content": "..."}` — all such lines of a file form one
  conversation, in file order.

Each user message and the assistant reply that follows it form one exchange (design A's unit of
conversation triage). An exchange with a `tool`/`function` message or assistant `tool_calls`
in it is tool-grounded (threshold 3); otherwise the reply is parametric (threshold 5). `system`
messages are ignored; `content` may be a string or a list of `{"type": "text", "text": ...}`
parts. Blank lines are skipped; malformed lines are reported and skipped. The item key is a
hash of the exchange text, so re-importing (or appending to) a file is incremental.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..checks import json_depth_ok
from ..clock import ensure_utc
from ..errors import InvalidInput
from .items import IngestItem
from .source import SourceRecord

_TOOL_ROLES = frozenset({"tool", "function"})


MAX_LINE_DEPTH = 64  # a transcript line nests a few levels; deeper is hostile or broken


def content_text(content: Any) -> str:
    """The text of an OpenAI-style `content` (string, or a list of parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content.replace("\x00", "")
    if isinstance(content, Sequence):
        parts = []
        for p in content:
            if isinstance(p, str):
                parts.append(p)
            elif isinstance(p, Mapping) and isinstance(p.get("text"), str):
                parts.append(p["text"])
        return "\n".join(parts).replace("\x00", "")
    return ""


def _when(value: Any) -> datetime | None:
    try:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return datetime.fromtimestamp(float(value), tz=UTC)
        if isinstance(value, str) and value.strip():
            return ensure_utc(datetime.fromisoformat(value.strip().replace("Z", "+00:00")))
    except (ValueError, OverflowError, OSError):
        return None
    return None


def exchanges(
    messages: Sequence[Any], *, conversation: str, started: datetime | None = None
) -> Iterator[SourceRecord]:
    """One record per user→assistant exchange of `messages`."""
    user: str | None = None
    replies: list[str] = []
    grounded = False
    when: datetime | None = None

    def flush() -> SourceRecord | None:
        if user is None or not replies:
            return None
        assistant = "\n".join(r for r in replies if r.strip())
        if not (user.strip() or assistant.strip()):
            return None
        text = f"User: {user.strip()}\nAssistant: {assistant.strip()}"
        key = "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
        item = IngestItem(
            path="conversation", text=text, user_text=user.strip(), tool_grounded=grounded, occurred_at=when or started,
            tags=["chat"], imported=True, metadata={"conversation": conversation},
        )
        return SourceRecord(key=key, item=item)

    for msg in messages:
        if not isinstance(msg, Mapping):
            continue
        role = str(msg.get("role", "")).lower()
        text = content_text(msg.get("content"))
        if role == "user":
            rec = flush()
            if rec is not None:
                yield rec
            user, replies, grounded = text, [], False
            when = _when(msg.get("timestamp") or msg.get("created_at"))
        elif role == "assistant":
            if msg.get("tool_calls") or msg.get("function_call"):
                grounded = True
            if text.strip():
                replies.append(text)
        elif role in _TOOL_ROLES:
            grounded = True
    rec = flush()
    if rec is not None:
        yield rec


def read_chat(path: Path, *, source: str) -> Iterator[SourceRecord]:
    """Records of every exchange in the JSONL transcript file at `path`.

    Raises `InvalidInput` if `path` is not a readable file.
    """
    if not path.is_file():
        raise InvalidInput(f"{path} is not a file")
    loose: list[Any] = []  # message-per-line lines: one conversation per file
    with path.open("rb") as f:
        for n, raw in enumerate(f, start=1):
            line = raw.decode("utf-8", errors="replace").strip()
            if not line:
                continue
            try:
                data = json.loads(line)
            except (ValueError, RecursionError) as e:
                why = "nested too deeply" if isinstance(e, RecursionError) else f"not JSON ({e})"
                yield SourceRecord(key=f"broken:{n}", item=None, notes=[f"line {n}: {why}"])
                continue
            if not json_depth_ok(data, MAX_LINE_DEPTH):
                yield SourceRecord(
                    key=f"broken:{n}", item=None,
                    notes=[f"line {n}: nested deeper than {MAX_LINE_DEPTH} levels"],
                )
                continue
            if isinstance(data, list):
                yield from exchanges(data, conversation=f"{source}#{n}")
            elif isinstance(data, Mapping) and isinstance(data.get("messages"), list):
                conv = str(data.get("id") or f"{source}#{n}")
                yield from exchanges(data["messages"], conversation=conv,
                                     started=_when(data.get("created_at")))
            elif isinstance(data, Mapping) and "role" in data:
                loose.append(data)
            else:
                yield SourceRecord(key=f"broken:{n}", item=None,
                                   notes=[f"line {n}: not a message or a conversation"])
    if loose:
        yield from exchanges(loose, conversation=source)
