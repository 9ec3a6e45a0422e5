"""Sessions (GOPs) and I/P/B frames through the facade, and reconstruction as a pure function."""

from __future__ import annotations

import pytest

from salience import FrameType, InvalidInput, Memory, NotFound
from salience.errors import ConflictError
from salience.models.frames import BaseInfo, check_frame, reconstruct
from salience.models.layers import SessionStatus


def test_open_close_summary(mind, clock):
    s = mind.sessions.open("chat-1", project_id="apollo")
    with pytest.raises(ConflictError):
        mind.sessions.open("chat-1")
    assert mind.sessions.get("chat-1").project_id == "apollo"
    clock.advance(hours=1)
    closed = mind.sessions.close("chat-1", summary="Planned the launch.")
    assert closed.status is SessionStatus.CLOSED and closed.closed_at > s.opened_at
    assert mind.sessions.get("chat-1").summary == "Planned the launch."
    again = mind.sessions.close("chat-1")  # idempotent, keeps summary and closing time
    assert again.closed_at == closed.closed_at and again.summary == "Planned the launch."
    other = mind.sessions.open(project_id="apollo")
    assert [x.id for x in mind.sessions.list(project_id="apollo")] == [other.id, "chat-1"]
    assert [x.id for x in mind.sessions.list(status="closed")] == ["chat-1"]
    mind.sessions.summarize(other.id, "Second chat.")
    assert mind.sessions.get(other.id).summary == "Second chat."
    with pytest.raises(NotFound):
        mind.sessions.get("nope")
    with pytest.raises(InvalidInput):
        mind.sessions.list(status="paused")
    with pytest.raises(InvalidInput):
        mind.sessions.open("")


def test_memories_in_a_session_get_increasing_t(mind):
    ids = [mind.add(f"turn {i}", session_id="gop") for i in range(4)]
    assert [mind.get(i).t for i in ids] == [1, 2, 3, 4]
    assert mind.sessions.get("gop").status is SessionStatus.OPEN  # registered on first write
    assert [m.id for m in mind.sessions.frames("gop")] == ids


def test_frames_and_reconstruction(mind):
    mind.sessions.open("s")
    i1 = mind.sessions.add_frame("s", "Project Apollo: launch in May.")
    p1 = mind.sessions.add_frame("s", "Budget approved.", frame_type="P", base_frame_id=i1)
    p2 = mind.sessions.add_frame("s", "Venue booked.", frame_type="P", base_frame_id=i1)
    state = mind.sessions.reconstruct_state("s")
    assert state.iframe.id == i1 and [p.id for p in state.patches] == [p1, p2]
    assert (
        state.current_content == "Project Apollo: launch in May.\nBudget approved.\nVenue booked."
    )
    assert state.frame_count == 3
    # a new snapshot starts a new state; older patches no longer apply
    i2 = mind.sessions.add_frame("s", "Project Apollo: launch moved to June.")
    state = mind.sessions.reconstruct_state("s")
    assert state.iframe.id == i2 and state.patches == [] and state.frame_count == 1
    # B-frames branch from anything, in any session
    mind.sessions.open("t")
    b = mind.sessions.add_frame("t", "What if we launch in July?", frame_type="B", base_frame_id=p1)
    assert mind.get(b).base_frame_id == p1
    assert mind.sessions.reconstruct_state("t") is None  # no I-frame there
    with pytest.raises(NotFound):
        mind.sessions.reconstruct_state("missing")


def test_p_frame_rules_through_the_facade(mind):
    i1 = mind.sessions.add_frame("a", "snapshot A")
    i_other = mind.sessions.add_frame("b", "snapshot B")
    p = mind.sessions.add_frame("a", "patch", frame_type="P", base_frame_id=i1)
    with pytest.raises(InvalidInput, match="same session"):
        mind.sessions.add_frame("a", "cross", frame_type="P", base_frame_id=i_other)
    with pytest.raises(InvalidInput, match="must be an I-frame"):
        mind.sessions.add_frame("a", "patch of patch", frame_type="P", base_frame_id=p)
    with pytest.raises(InvalidInput, match="needs a base"):
        mind.sessions.add_frame("a", "orphan", frame_type="P")
    with pytest.raises(InvalidInput):
        mind.sessions.add_frame("a", "x", frame_type="Q")
    assert len(mind.sessions.frames("a")) == 2


def frame(id_: str, ft: str, t: int, base: str | None = None, content: str = "") -> Memory:
    return Memory(
        content=content or id_,
        id=id_ * 32,
        frame_type=FrameType(ft),
        t=t,
        base_frame_id=base * 32 if base else None,
        session_id="s",
    )


def test_reconstruct_is_pure_and_orders_by_t():
    frames = [
        frame("c", "P", 5, "a"),
        frame("a", "I", 1),
        frame("b", "P", 3, "a"),
        frame("d", "I", 0),
        frame("e", "B", 6, "a"),
    ]
    state = reconstruct(frames)
    assert state.iframe.id == "a" * 32
    assert [p.id[0] for p in state.patches] == ["b", "c"]
    assert state.current_content == "a\nb\nc"
    assert reconstruct([frame("e", "B", 1, "a")]) is None


def test_check_frame_is_pure():
    i = frame("a", "I", 1)
    check_frame(i, None)
    p = frame("b", "P", 2, "a")
    check_frame(p, BaseInfo(FrameType.I, "s"))
    with pytest.raises(InvalidInput):
        check_frame(p, BaseInfo(FrameType.B, "s"))
    with pytest.raises(InvalidInput):
        check_frame(p, BaseInfo(FrameType.I, "other"))
    with pytest.raises(InvalidInput):
        check_frame(p, None)
    check_frame(p, None, missing_base_ok=True)
    with pytest.raises(InvalidInput, match="own base"):
        check_frame(frame("a", "B", 1, "a"), BaseInfo(FrameType.I, "s"))
