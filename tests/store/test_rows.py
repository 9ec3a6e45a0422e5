"""Decoding a stored row into a `Memory` (store/rows.py): the one-pass decode of a readable row
and the field-by-field repair of a bad one give the same memory where both apply."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

import pytest

from salience.clock import parse_ts
from salience.models import FrameType, Importance, Memory, MemoryType, Source
from salience.store import rows
from salience.store.relational.columns import MEMORY_FIELDS
from salience.store.sqlite.store import _params

NOW = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
DECODERS = {"ts": parse_ts, "array": json.loads, "obj": json.loads}


def full_memory() -> Memory:
    return Memory(
        id="a" * 32, content="Priya moved to Lisbon", summary="a move", memory_type=MemoryType.FACT,
        importance=Importance.IMPORTANT, source=Source.TOOL_VERIFIED, salience=7.5, confidence=0.9,
        usefulness=0.25, retrieval_count=3, last_retrieved_at=NOW, tags=["move", "home"],
        entities=["Priya", "Lisbon"], superseded_by="b" * 32, related_ids=["c" * 32],
        parent_id="d" * 32, chunk_index=2, session_id="s1", t=4, frame_type=FrameType.P,
        base_frame_id="e" * 32, pinned=True, occurred_at=NOW, metadata={"k": [1, {"x": None}]},
        content_hash="h", created_at=NOW, updated_at=NOW,
    )


def stored(m: Memory) -> tuple:
    return (1, *_params(m))


def test_a_readable_row_decodes_in_one_pass_as_the_repair_would():
    row = stored(full_memory())
    fast = rows.memory_from_row(row, **DECODERS)
    assert fast == rows._repaired(row, **DECODERS) == full_memory()


@pytest.mark.parametrize(
    ("field", "value", "default"),
    [("salience", float("nan"), 5.0), ("t", "abc", None), ("created_at", "9999-99-99", None),
     ("tags", "not json", []), ("memory_type", "no-such-type", MemoryType.GENERAL)],
)
def test_one_unreadable_field_is_repaired_and_logged(field, value, default, caplog):
    row = list(stored(full_memory()))
    row[1 + MEMORY_FIELDS.index(field)] = value
    with caplog.at_level(logging.WARNING, logger="salience.store.rows"):
        got = rows.memory_from_row(row, **DECODERS)
    assert getattr(got, field) == default
    assert got.content == "Priya moved to Lisbon" and got.salience == (
        5.0 if field == "salience" else 7.5)
    assert f"unreadable field(s) {field}" in caplog.text


def test_a_short_row_is_an_error():
    with pytest.raises(ValueError, match="columns"):
        rows.memory_from_row(stored(full_memory())[:5], **DECODERS)
