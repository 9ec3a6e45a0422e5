"""Time travel over memories: search as of a past time."""

from __future__ import annotations

from datetime import timedelta

import pytest

from salience import InvalidInput, MemoryFilter
from salience.layers.timetravel import as_of_filter


def test_search_as_of_sees_what_was_known_then(mind, clock):
    t0 = clock.now()
    old = mind.add("Maya lives in Porto.", check_contradictions=False)
    clock.advance(days=10)
    new = mind.add("Maya lives in Lisbon now.", check_contradictions=False)  # superseded by hand below
    clock.advance(days=1)
    mind.update(old, superseded_by=new)
    clock.advance(days=1)

    def ids(hits):
        return {h.memory.id for h in hits}

    assert ids(mind.search("where does Maya live")) == {new}
    assert ids(mind.search_as_of("where does Maya live", t0 + timedelta(days=1))) == {old}
    assert ids(mind.search_as_of("where does Maya live", t0 + timedelta(days=10, hours=1))) == {
        old,
        new,
    }
    assert ids(mind.search_as_of("where does Maya live", clock.now())) == {new}
    assert mind.search_as_of("where does Maya live", t0 - timedelta(days=1)) == []
    with pytest.raises(InvalidInput):
        mind.search_as_of("x", "yesterday")  # type: ignore[arg-type]


def test_as_of_filter_is_pure(clock):
    now = clock.now()
    f = as_of_filter(MemoryFilter(tags=["a"]), now)
    assert f.include_superseded and f.tags == ["a"] and f.until == now + timedelta(microseconds=1)
    earlier = as_of_filter(MemoryFilter(until=now - timedelta(days=1)), now)
    assert earlier.until == now - timedelta(days=1)
