"""The direct write path's pure planning: chunking, duplicate detection and chunk links."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from salience.errors import InvalidInput
from salience.ingest.direct import new_records, prepare

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def prep(content: str, **kw) -> list:
    return prepare({"content": content, **kw}, NOW, max_bytes=100_000, chunk_bytes=64)


def test_new_records_skip_stored_and_repeated_content_and_link_chunks():
    long = " ".join(f"word{i}" for i in range(40))  # several 64-byte chunks
    items = [prep("alpha"), prep(long), prep("alpha"), prep("beta")]
    stored = {items[3][0].content_hash: "stored-beta"}
    records, ids, given = new_records(items, stored)
    assert ids[0] == items[0][0].id
    assert ids[2] == ids[0]  # same content later in the batch: the first one's id
    assert ids[3] == "stored-beta"  # already in the mind: nothing new
    assert [r.id for r in records] == [items[0][0].id, *(c.id for c in items[1])]
    assert given == [0] + [1] * len(items[1])
    assert len(items[1]) > 1 and all(c.parent_id == items[1][0].id for c in items[1][1:])
    assert items[1][0].parent_id is None


def test_prepare_rejects_unknown_fields_and_bad_lists():
    with pytest.raises(InvalidInput, match="unknown memory fields: colour"):
        prep("x", colour="red")
    with pytest.raises(InvalidInput, match="tags must be a list"):
        prep("x", tags="a,b")
    with pytest.raises(InvalidInput, match="metadata must be a JSON object"):
        prep("x", metadata=[1])
