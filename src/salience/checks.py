"""The field rules every write path applies (SDK, HTTP, MCP, restore, importers), in one place.

Pure functions over values; each returns the clean value or raises `InvalidInput`. The same
rules hold on every backend: whatever one backend would refuse (NUL in text or JSON, a lone
surrogate, a timestamp outside what both engines and Python can do arithmetic on) is refused
before it reaches either, so a row that was written can always be read back, serialised and
exported.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

from .errors import ContentTooLarge, InvalidInput

METADATA_MAX_DEPTH = 32  # nesting levels of objects/arrays (JSON encoders fail from ~256)
METADATA_MAX_BYTES = 64 * 1024  # serialised as UTF-8 JSON
SUMMARY_MAX_BYTES = 64 * 1024
LABEL_MAX_CHARS = 256  # one tag, entity, session id
LABELS_MAX = 256  # tags or entities on one memory
RELATED_MAX = 1000
INT_MAX = 2**63 - 1  # the common range of SQLite INTEGER, PostgreSQL bigint and JSON readers
YEAR_MIN, YEAR_MAX = 1, 9998  # UTC; leaves a year of room for date arithmetic


def check_text(
    content: Any, *, max_bytes: int, what: str = "content", allow_empty: bool = False
) -> str:
    """Validate text at the edge: str (or UTF-8 bytes), non-empty (unless `allow_empty`),
    no NUL, no lone surrogate, within the limit (`ContentTooLarge` above it)."""
    if isinstance(content, bytes | bytearray | memoryview):
        try:
            content = bytes(content).decode("utf-8")
        except UnicodeDecodeError as e:
            raise InvalidInput(f"{what} is not valid UTF-8 (byte {e.start}): {e.reason}") from None
    if not isinstance(content, str):
        raise InvalidInput(f"{what} must be text, got {type(content).__name__}")
    if "\x00" in content:
        raise InvalidInput(f"{what} contains a NUL character")
    try:
        size = len(content.encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidInput(f"{what} contains unpaired surrogates (not valid Unicode)") from None
    if not content.strip() and not allow_empty:
        raise InvalidInput(f"{what} is empty")
    if size > max_bytes:
        raise ContentTooLarge(
            f"{what} is {size:,} bytes; the limit is {max_bytes:,} bytes (config max_content_bytes)"
        )
    return content


def check_label(value: Any, what: str, *, max_chars: int = LABEL_MAX_CHARS) -> str:
    """A short label (tag, entity, session id): text, no NUL or lone surrogate, bounded."""
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be text, got {type(value).__name__}")
    if len(value) > max_chars:
        raise InvalidInput(f"{what} is {len(value):,} characters; the limit is {max_chars}")
    return check_text(value, max_bytes=4 * max_chars, what=what, allow_empty=True)


def check_int(value: Any, what: str, *, lo: int = 0, hi: int = INT_MAX) -> int:
    """An integer (not a bool, not a string) in [lo, hi]."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"{what} must be an integer, got {type(value).__name__}")
    if not lo <= value <= hi:
        raise InvalidInput(f"{what} must be in [{lo}, {hi}], got {value}")
    return value


def check_bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(f"{what} must be true or false, got {type(value).__name__}")
    return value


def check_datetime(value: Any, what: str) -> datetime:
    """An aware UTC datetime (naive ones are taken as UTC; ISO-8601 strings are parsed) whose
    UTC date falls in years 1-9998."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise InvalidInput(f"{what} is not an ISO-8601 timestamp: {value[:64]!r}") from None
    if not isinstance(value, datetime):
        raise InvalidInput(f"{what} must be a datetime, got {type(value).__name__}")
    try:
        utc = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    except (OverflowError, ValueError):
        utc = None
    if utc is None or not YEAR_MIN <= utc.year <= YEAR_MAX:
        raise InvalidInput(
            f"{what} must fall between years {YEAR_MIN:04d} and {YEAR_MAX} in UTC, "
            f"got {value.isoformat()}"
        )
    return utc


def check_json_object(
    value: Any,
    what: str = "metadata",
    *,
    max_depth: int = METADATA_MAX_DEPTH,
    max_bytes: int = METADATA_MAX_BYTES,
) -> dict[str, Any]:
    """A JSON object both backends store and every encoder reads back: string keys, values of
    JSON types (finite numbers, 64-bit integers), text without NUL or lone surrogates, at most
    `max_depth` levels and `max_bytes` serialised. Returns a copy. Walks iteratively, so no
    input can exhaust the stack."""
    if not isinstance(value, dict):
        raise InvalidInput(f"{what} must be a JSON object (dict)")
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list | tuple):
            if depth > max_depth:
                raise InvalidInput(f"{what} is nested deeper than {max_depth} levels")
            if isinstance(node, dict):
                for k, v in node.items():
                    if not isinstance(k, str):
                        raise InvalidInput(f"{what} keys must be strings, got {type(k).__name__}")
                    _check_json_text(k, what)
                    stack.append((v, depth + 1))
            else:
                stack.extend((v, depth + 1) for v in node)
        elif isinstance(node, str):
            _check_json_text(node, what)
        elif isinstance(node, bool) or node is None:
            continue
        elif isinstance(node, int):
            if not -INT_MAX - 1 <= node <= INT_MAX:
                raise InvalidInput(f"{what} integers must fit in 64 bits")
        elif isinstance(node, float):
            if not math.isfinite(node):
                raise InvalidInput(f"{what} numbers must be finite (no NaN/inf)")
        else:
            raise InvalidInput(f"{what} must hold JSON values only, got {type(node).__name__}")
    size = len(json.dumps(value, ensure_ascii=False).encode("utf-8"))
    if size > max_bytes:
        raise ContentTooLarge(f"{what} is {size:,} bytes as JSON; the limit is {max_bytes:,}")
    return json.loads(json.dumps(value))


def _check_json_text(text: str, what: str) -> None:
    if "\x00" in text:
        raise InvalidInput(f"{what} contains a NUL character")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(f"{what} contains unpaired surrogates (not valid Unicode)") from None


def json_depth_ok(value: Any, max_depth: int = METADATA_MAX_DEPTH) -> bool:
    """True if `value` nests at most `max_depth` levels (iterative; for robust reads)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list | tuple):
            if depth > max_depth:
                return False
            stack.extend((v, depth + 1) for v in (node.values() if isinstance(node, dict) else node))
    return True
