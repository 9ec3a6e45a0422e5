"""Decoding a stored memory row into a `Memory` — shared by every backend.

Both backends select the memory columns in the same order (`pk` first, then the fields listed
in `MEMORY_FIELDS`); they differ only in how timestamps, lists and the metadata object come
back from their driver, so each passes its own decoders.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from ..models import FrameType, Importance, Memory, MemoryType, Source

MEMORY_FIELDS = (
    "id", "content", "summary", "memory_type", "importance", "source", "salience",
    "confidence", "usefulness", "retrieval_count", "last_retrieved_at", "tags", "entities",
    "superseded_by", "related_ids", "parent_id", "chunk_index", "session_id", "t",
    "frame_type", "base_frame_id", "pinned", "occurred_at", "metadata", "content_hash",
    "created_at", "updated_at",
)


def memory_from_row(
    row: Sequence[Any],
    *,
    ts: Callable[[Any], datetime | None],
    array: Callable[[Any], list[str]],
    obj: Callable[[Any], dict[str, Any]],
) -> Memory:
    """`row` = (pk, *MEMORY_FIELDS, ...extra columns ignored)."""
    v = dict(zip(MEMORY_FIELDS, row[1 : 1 + len(MEMORY_FIELDS)], strict=True))
    return Memory(
        content=v["content"],
        id=v["id"],
        summary=v["summary"],
        memory_type=MemoryType(v["memory_type"]),
        importance=Importance(v["importance"]),
        source=Source(v["source"]),
        salience=float(v["salience"]),
        confidence=float(v["confidence"]),
        usefulness=float(v["usefulness"]),
        retrieval_count=int(v["retrieval_count"]),
        last_retrieved_at=ts(v["last_retrieved_at"]),
        tags=array(v["tags"]),
        entities=array(v["entities"]),
        superseded_by=v["superseded_by"],
        related_ids=array(v["related_ids"]),
        parent_id=v["parent_id"],
        chunk_index=int(v["chunk_index"]),
        session_id=v["session_id"],
        t=int(v["t"]) if v["t"] is not None else None,
        frame_type=FrameType(v["frame_type"]),
        base_frame_id=v["base_frame_id"],
        pinned=bool(v["pinned"]),
        occurred_at=ts(v["occurred_at"]),
        metadata=obj(v["metadata"]),
        content_hash=v["content_hash"],
        created_at=ts(v["created_at"]),
        updated_at=ts(v["updated_at"]),
    )
