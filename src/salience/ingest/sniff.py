"""What kind of import file a file is, from its first bytes (so `salience import mbox chat.jsonl`
fails loudly instead of importing nothing with success).

Pure: `guess_kind(head)` decides from bytes; `check_kind(kind, path)` reads the head and raises.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InvalidInput

HEAD_BYTES = 8192
_WHAT = {"mbox": "an mbox file", "ics": "a valid iCalendar file", "chat": "a chat JSONL file"}
_LOOKS = {
    "mbox": "an mbox mailbox (it starts with a 'From ' line)",
    "ics": "an iCalendar file (BEGIN:VCALENDAR)",
    "chat": "a chat transcript (JSON lines)",
}
_EXPECT = {
    "mbox": "an mbox file starts with a 'From sender date' separator line",
    "ics": "an ICS file starts with BEGIN:VCALENDAR",
    "chat": "a chat file holds one JSON object or array per line",
}


def guess_kind(head: bytes) -> str | None:
    """"mbox", "ics" or "chat" for the first bytes of a file, or None (empty or unknown)."""
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if text.startswith(b"From "):
        return "mbox"
    if text[:15].upper() == b"BEGIN:VCALENDAR":
        return "ics"
    if text[:1] in (b"{", b"["):
        return "chat"
    return None


def check_kind(kind: str, path: Path) -> None:
    """Raise `InvalidInput` unless `path` looks like an import file of `kind`; the message
    says what it looks like instead and the command that would read it. Kinds this module
    does not know (e.g. `mem0`, JSON read by its own importer) are not checked."""
    if kind not in _WHAT:
        return
    try:
        with path.open("rb") as f:
            head = f.read(HEAD_BYTES)
    except OSError as e:
        raise InvalidInput(f"cannot read {path}: {e.strerror or e}") from None
    if not head.strip():
        raise InvalidInput(f"{path} is empty: nothing to import")
    found = guess_kind(head)
    if found == kind:
        return
    if found is None:
        raise InvalidInput(f"{path} is not {_WHAT[kind]}: {_EXPECT[kind]}")
    raise InvalidInput(
        f"{path} is not {_WHAT[kind]}: it looks like {_LOOKS[found]}; "
        f"import it with `salience import {found} {path}`"
    )
