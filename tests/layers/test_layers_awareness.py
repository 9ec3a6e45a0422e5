"""Awareness: the 10-item working memory, its hard cap, expiry by the injected clock."""

from __future__ import annotations

from datetime import timedelta

import pytest

from salience import InvalidInput, NotFound
from salience.layers.awareness import AwarenessLayer, render_awareness
from salience.models.layers import AwarenessCategory, AwarenessFull, AwarenessItem


def test_eleventh_item_is_a_clear_error(mind):
    for i in range(10):
        mind.awareness.add(f"task {i}", priority=i)
    with pytest.raises(AwarenessFull, match="10 active items"):
        mind.awareness.add("one too many", priority=99)
    assert len(mind.awareness.get_all()) == 10
    assert mind.awareness.get_all()[0].content == "task 9"  # highest priority first


def test_expiry_follows_the_injected_clock(mind, clock):
    item = mind.awareness.add("call back", category="pending", ttl=timedelta(hours=1))
    for i in range(9):
        mind.awareness.add(f"t{i}")
    with pytest.raises(AwarenessFull):
        mind.awareness.add("full")
    clock.advance(hours=1)
    assert item.id not in {i.id for i in mind.awareness.get_all()}
    with pytest.raises(NotFound):
        mind.awareness.get(item.id)
    mind.awareness.add("fits again")  # the expired item no longer counts
    assert mind.awareness.purge_expired() == 1


def test_categories_status_update_complete(mind, clock):
    a = mind.awareness.add("write report", status="in_progress", priority=2)
    b = mind.awareness.add("sent the invoice", category="action")
    c = mind.awareness.add("waiting on Bob", category=AwarenessCategory.PENDING, status="blocked")
    assert [i.id for i in mind.awareness.get_by_category("task")] == [a.id]
    assert [i.id for i in mind.awareness.get_by_status("blocked")] == [c.id]
    clock.advance(minutes=1)
    upd = mind.awareness.update(c.id, status="unblocked", priority=5, content="Bob replied")
    assert upd.status == "unblocked" and upd.priority == 5
    assert mind.awareness.get_all()[0].id == c.id
    done = mind.awareness.complete(a.id)
    assert done.status == "done"
    assert {i.id for i in mind.awareness.get_all()} == {b.id, c.id}
    mind.awareness.remove(b.id)
    with pytest.raises(NotFound):
        mind.awareness.remove(b.id)


def test_to_context_groups_by_category(mind):
    mind.awareness.add("ship v1", priority=3, status="in_progress")
    mind.awareness.add("low-disk warning", category="flag")
    mind.awareness.add("ran tests", category="action")
    mind.awareness.add("fix bug", priority=1)
    assert mind.awareness.to_context() == (
        "## Active Tasks\n- ship v1 [in_progress]\n- fix bug\n"
        "## Recent Actions\n- ran tests\n"
        "## Context Flags\n- low-disk warning"
    )
    assert render_awareness([], 100) == ""


@pytest.mark.parametrize(
    "kwargs",
    [
        {"content": "  "},
        {"content": "x", "category": "chore"},
        {"content": "x", "priority": 1.5},
        {"content": "x", "priority": True},
        {"content": "x", "metadata": {"n": float("nan")}},
        {"content": "x", "expires_at": "tomorrow"},
        {"content": "x", "ttl": timedelta(hours=-1)},
        {"content": "x", "ttl": timedelta(hours=1), "expires_at": None},
    ],
)
def test_bad_awareness_input(mind, clock, kwargs):
    kwargs = dict(kwargs)
    if "expires_at" in kwargs and kwargs["expires_at"] is None:
        kwargs["expires_at"] = clock.now() + timedelta(hours=2)
    with pytest.raises(InvalidInput):
        mind.awareness.add(**kwargs)
    assert mind.awareness.get_all() == []


def test_cap_is_configurable_and_checked(mind):
    small = AwarenessLayer(mind.store, mind.clock, cap=2)
    small.add("a")
    small.add("b")
    with pytest.raises(AwarenessFull, match="cap 2"):
        small.add("c")
    with pytest.raises(InvalidInput):
        AwarenessLayer(mind.store, mind.clock, cap=0)


def test_render_is_pure_and_budgeted():
    items = [AwarenessItem(content="x" * 400) for _ in range(5)]
    text = render_awareness(items, 50)
    assert len(text) <= 200 and text.startswith("## Active Tasks")
