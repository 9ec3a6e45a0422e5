"""Parse a model's JSON answer: strict first, then one repair attempt, then `LLMError`.

The repair is deliberately small and predictable: drop `<think>` blocks, strip Markdown code
fences, take the first balanced `{...}` object, and remove trailing commas. Anything else is a
model failure that the caller should see (and retry later), not something to guess at.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..errors import LLMError

M = TypeVar("M", bound=BaseModel)

_THINK_RE = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE_RE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)


def strip_thinking(text: str) -> str:
    """Remove `<think>…</think>` blocks (and an unterminated leading one) from model output."""
    text = _THINK_RE.sub("", text)
    low = text.lower()
    if "<think>" in low and "</think>" not in low:
        text = text[: low.index("<think>")]
    return text.strip()


def first_json_object(text: str) -> str | None:
    """The first balanced `{...}` in `text` (braces inside JSON strings are ignored)."""
    start = text.find("{")
    while start != -1:
        depth = 0
        in_str = False
        escaped = False
        for i in range(start, len(text)):
            ch = text[i]
            if in_str:
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == '"':
                    in_str = False
            elif ch == '"':
                in_str = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return text[start : i + 1]
        start = text.find("{", start + 1)
    return None


def remove_trailing_commas(text: str) -> str:
    """Drop commas directly before `}` or `]`, outside JSON strings."""
    out: list[str] = []
    in_str = False
    escaped = False
    i = 0
    while i < len(text):
        ch = text[i]
        if in_str:
            out.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
            out.append(ch)
        elif ch == ",":
            j = i + 1
            while j < len(text) and text[j] in " \t\r\n":
                j += 1
            if j >= len(text) or text[j] not in "}]":
                out.append(ch)
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def repair_json(text: str) -> str | None:
    """One repair attempt; returns candidate JSON text, or None when there is no object."""
    cleaned = strip_thinking(text)
    fence = _FENCE_RE.search(cleaned)
    if fence:
        cleaned = fence.group(1)
    obj = first_json_object(cleaned)
    if obj is None:
        return None
    return remove_trailing_commas(obj)


def parse_json_object(text: str) -> dict[str, Any]:
    """Parse `text` as one JSON object, repairing once if needed. Raises `LLMError`."""
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        repaired = repair_json(text or "")
        if repaired is None:
            raise LLMError(f"model returned no JSON object: {_preview(text)}") from None
        try:
            value = json.loads(repaired)
        except json.JSONDecodeError as e:
            raise LLMError(
                f"model returned malformed JSON that could not be repaired ({e.msg} at "
                f"position {e.pos}): {_preview(text)}"
            ) from None
    if not isinstance(value, dict):
        raise LLMError(f"model returned JSON {type(value).__name__}, expected an object")
    return value


def parse_model_output(text: str, schema: type[M]) -> M:
    """Parse and validate `text` against `schema`. Raises `LLMError` with the validation message."""
    data = parse_json_object(text)
    try:
        return schema.model_validate(data)
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}"
            for err in e.errors()[:8]
        )
        raise LLMError(f"model output does not match {schema.__name__}: {problems}") from None


def _preview(text: str | None, n: int = 160) -> str:
    text = (text or "").strip().replace("\n", " ")
    return repr(text[:n] + ("…" if len(text) > n else ""))
