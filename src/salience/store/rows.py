"""Decoding a stored memory row into a `Memory` — shared by every backend.

Both backends select the memory columns in the same order (`pk` first, then `MEMORY_FIELDS`,
derived from the one column spec in `relational/columns.py`); they differ only in how
timestamps, lists and the metadata object come back from their driver, so each passes its own
decoders.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from ..checks import YEAR_MAX, YEAR_MIN, json_depth_ok
from ..models import FrameType, Importance, Memory, MemoryType, Source
from .relational.columns import MEMORY_FIELDS

log = logging.getLogger(__name__)


#: what a decoder raises on a value it cannot read
_UNREADABLE = (TypeError, ValueError, OverflowError, KeyError, AttributeError, RecursionError)
#: each field's position in a row (after `pk`)
_AT = {name: i + 1 for i, name in enumerate(MEMORY_FIELDS)}


def memory_from_row(
    row: Sequence[Any],
    *,
    ts: Callable[[Any], datetime | None],
    array: Callable[[Any], list[str]],
    obj: Callable[[Any], dict[str, Any]],
) -> Memory:
    """`row` = (pk, *MEMORY_FIELDS, ...extra columns ignored).

    Never raises on a bad value: a row written by an older version, by hand or by a restore
    that bypassed validation decodes with each unreadable field replaced by its default (and
    over-deep metadata replaced by a note), so one row never takes a list, search, catch-up
    or export of the whole mind down. Each repair is logged once per row.

    A row whose every field reads is decoded in one pass with the same checks (a search
    hydrates ~100 rows); the first unreadable value sends the row through the field-by-field
    repair instead.
    """
    if len(row) < 1 + len(MEMORY_FIELDS):
        raise ValueError(f"a memory row has {len(row)} columns, fewer than {1 + len(MEMORY_FIELDS)}")
    try:
        return _readable(row, ts, array, obj)
    except _UNREADABLE:
        return _repaired(row, ts=ts, array=array, obj=obj)


def _readable(
    row: Sequence[Any],
    ts: Callable[[Any], datetime | None],
    array: Callable[[Any], list[str]],
    obj: Callable[[Any], dict[str, Any]],
) -> Memory:
    """`memory_from_row` of a row that needs no repair; raises one of `_UNREADABLE` on the
    first value `_repaired` would replace."""

    def when(value: Any) -> datetime | None:
        out = ts(value)
        if out is not None and not YEAR_MIN <= out.year <= YEAR_MAX:
            raise ValueError("timestamp out of range")
        return out

    a = _AT
    metadata = obj(row[a["metadata"]])
    if not isinstance(metadata, dict) or not json_depth_ok(metadata):
        raise ValueError("metadata")
    return Memory(
        content=_text(row[a["content"]]),
        id=row[a["id"]],
        summary=_text(row[a["summary"]]),
        memory_type=MemoryType(row[a["memory_type"]]),
        importance=Importance(row[a["importance"]]),
        source=Source(row[a["source"]]),
        salience=_finite(row[a["salience"]]),
        confidence=_finite(row[a["confidence"]]),
        usefulness=_finite(row[a["usefulness"]]),
        retrieval_count=int(row[a["retrieval_count"]]),
        last_retrieved_at=when(row[a["last_retrieved_at"]]),
        tags=array(row[a["tags"]]),
        entities=array(row[a["entities"]]),
        superseded_by=row[a["superseded_by"]],
        related_ids=array(row[a["related_ids"]]),
        parent_id=row[a["parent_id"]],
        chunk_index=int(row[a["chunk_index"]]),
        session_id=row[a["session_id"]],
        t=_opt_int(row[a["t"]]),
        frame_type=FrameType(row[a["frame_type"]]),
        base_frame_id=row[a["base_frame_id"]],
        pinned=bool(row[a["pinned"]]),
        occurred_at=when(row[a["occurred_at"]]),
        metadata=metadata,
        content_hash=row[a["content_hash"]] or "",
        created_at=when(row[a["created_at"]]),
        updated_at=when(row[a["updated_at"]]),
    )


def _repaired(
    row: Sequence[Any],
    *,
    ts: Callable[[Any], datetime | None],
    array: Callable[[Any], list[str]],
    obj: Callable[[Any], dict[str, Any]],
) -> Memory:
    """`memory_from_row` field by field, each unreadable value replaced by its default."""
    v = dict(zip(MEMORY_FIELDS, row[1 : 1 + len(MEMORY_FIELDS)], strict=True))
    bad: list[str] = []

    def get(name: str, decode: Callable[[Any], Any], default: Any) -> Any:
        try:
            return decode(v[name])
        except _UNREADABLE:
            bad.append(name)
            return default

    def when(value: Any) -> datetime | None:
        out = ts(value)
        if out is not None and not YEAR_MIN <= out.year <= YEAR_MAX:
            raise ValueError("timestamp out of range")
        return out

    metadata = get("metadata", obj, {})
    if not isinstance(metadata, dict) or not json_depth_ok(metadata):
        bad.append("metadata")
        metadata = {"_unreadable": "metadata was not a JSON object within the depth limit"}
    m = Memory(
        content=get("content", _text, ""),
        id=v["id"],
        summary=get("summary", _text, ""),
        memory_type=get("memory_type", MemoryType, MemoryType.GENERAL),
        importance=get("importance", Importance, Importance.NORMAL),
        source=get("source", Source, Source.USER_STATED),
        salience=get("salience", _finite, 5.0),
        confidence=get("confidence", _finite, 0.5),
        usefulness=get("usefulness", _finite, 0.5),
        retrieval_count=get("retrieval_count", int, 0),
        last_retrieved_at=get("last_retrieved_at", when, None),
        tags=get("tags", array, []),
        entities=get("entities", array, []),
        superseded_by=v["superseded_by"],
        related_ids=get("related_ids", array, []),
        parent_id=v["parent_id"],
        chunk_index=get("chunk_index", int, 0),
        session_id=v["session_id"],
        t=get("t", _opt_int, None),
        frame_type=get("frame_type", FrameType, FrameType.I),
        base_frame_id=v["base_frame_id"],
        pinned=bool(v["pinned"]),
        occurred_at=get("occurred_at", when, None),
        metadata=metadata,
        content_hash=v["content_hash"] or "",
        created_at=get("created_at", when, None),
        updated_at=get("updated_at", when, None),
    )
    if bad:
        log.warning("memory %s: unreadable field(s) %s replaced by defaults", m.id, ", ".join(bad))
    return m


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError("not text")
    return value


def _finite(value: Any) -> float:
    f = float(value)
    if not math.isfinite(f):
        raise ValueError("not finite")
    return f


def _opt_int(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError("not an integer")
    return int(value)
