"""The direct write path of `Mind.add` / `add_many`: validate, chunk, skip exact duplicates.

Pure functions (no store, no embedder): the facade does the one duplicate lookup and the one
insert around them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from ..errors import InvalidInput
from ..models import UPDATABLE_FIELDS, Memory, check_text, new_id, validate_memory
from .chunking import chunk_message


def prepare(
    fields: dict[str, Any], now: datetime, *, max_bytes: int, chunk_bytes: int
) -> list[Memory]:
    """Validate one `add()` item (a dict with `content`) and split it into chunk records."""
    unknown = set(fields) - UPDATABLE_FIELDS - {"content"}
    if unknown:
        raise InvalidInput(f"unknown memory fields: {', '.join(sorted(unknown))}")
    content = check_text(fields.pop("content"), max_bytes=max_bytes)
    clean = {k: v for k, v in fields.items() if v is not None}
    for key in ("tags", "entities", "related_ids"):
        value = clean.get(key, [])
        if isinstance(value, str) or not isinstance(value, Sequence):
            raise InvalidInput(f"{key} must be a list of strings")
        clean[key] = list(value)
    metadata = clean.get("metadata", {})
    if not isinstance(metadata, Mapping):
        raise InvalidInput("metadata must be a JSON object (dict)")
    clean["metadata"] = dict(metadata)
    out = []
    for i, piece in enumerate(chunk_message(content, chunk_bytes)):
        m = Memory(
            content=piece, id=new_id(), chunk_index=i, created_at=now, updated_at=now, **clean
        )
        validate_memory(m, max_bytes=max_bytes)
        out.append(m)
    return out


def new_records(
    prepared: Sequence[Sequence[Memory]], stored: Mapping[str, str]
) -> tuple[list[Memory], list[str], list[int]]:
    """Which chunk records to insert, given `stored` ({content hash: id} already in the mind).

    Returns (records to insert; one id per item — its first chunk's id, or the id of the stored
    or earlier identical content; for each record, the index of the item it came from). Later
    chunks link to their item's first chunk through `parent_id`.
    """
    seen = dict(stored)
    records: list[Memory] = []
    item_ids: list[str] = []
    given: list[int] = []
    for idx, chunks in enumerate(prepared):
        first_id: str | None = None
        for m in chunks:
            existing = seen.get(m.content_hash)
            if existing is not None:
                first_id = first_id or existing
                continue
            if first_id is None:
                first_id = m.id
            else:
                m.parent_id = first_id
            seen[m.content_hash] = m.id
            records.append(m)
            given.append(idx)
        assert first_id is not None  # chunk_message returns at least one chunk
        item_ids.append(first_id)
    return records, item_ids, given
