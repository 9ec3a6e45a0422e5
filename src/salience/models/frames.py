"""I/P/B frames (design B §6) as pure functions: write-time validation and reconstruction.

Rules, enforced by every store inside its write transaction (`check_frame`):
- an **I-frame** (snapshot) stands alone: no base frame;
- a **P-frame** (patch) needs a base that is an I-frame of the *same* session;
- a **B-frame** (branch) needs a base, which may be any existing frame of this mind.

Reconstruction (`reconstruct`): the latest I-frame of a session (highest `t`), the P-frames
based on it ordered by `t`, and the current content = the I-frame's content followed by each
patch's content, joined by newlines. Patches *append*, as in design B §6.6: a P-frame says
"here is more", not "replace line N"; to correct a fact, update or supersede the I-frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import InvalidInput
from . import FrameType, Memory
from .layers import ReconstructedState

PATCH_SEPARATOR = "\n"


@dataclass(frozen=True, slots=True)
class BaseInfo:
    """What the write path knows about a frame's base: its type and session."""

    frame_type: FrameType
    session_id: str | None


def check_frame(m: Memory, base: BaseInfo | None, *, missing_base_ok: bool = False) -> None:
    """Raise `InvalidInput` unless `m`'s frame type and base follow the rules above.

    `base` is the stored base frame (None when `m.base_frame_id` is None or unknown).
    `missing_base_ok` tolerates a base id that is not stored (used on update, so a patch whose
    I-frame was deleted stays updatable).
    """
    ft = FrameType(m.frame_type)
    if m.base_frame_id is not None and m.base_frame_id == m.id:
        raise InvalidInput(f"frame {m.id} cannot be its own base")
    if ft is FrameType.I:
        if m.base_frame_id is not None:
            raise InvalidInput(
                f"I-frame {m.id} is a standalone snapshot and cannot have a base frame "
                f"(got {m.base_frame_id}); use a P-frame to patch or a B-frame to branch"
            )
        return
    if m.base_frame_id is None:
        raise InvalidInput(f"a {ft.value}-frame needs a base frame (base_frame_id)")
    if base is None:
        if missing_base_ok:
            return
        raise InvalidInput(f"base frame {m.base_frame_id} of {ft.value}-frame {m.id} not found")
    if ft is FrameType.P:
        if base.frame_type is not FrameType.I:
            raise InvalidInput(
                f"the base of P-frame {m.id} must be an I-frame; {m.base_frame_id} is a "
                f"{base.frame_type.value}-frame"
            )
        if m.session_id is None or base.session_id != m.session_id:
            raise InvalidInput(
                f"the base of P-frame {m.id} must be an I-frame of the same session "
                f"({m.session_id!r}); {m.base_frame_id} belongs to session {base.session_id!r}"
            )


def _seq(m: Memory) -> tuple[int, str]:
    return (m.t if m.t is not None else -1, m.id)


def reconstruct(frames: Sequence[Memory]) -> ReconstructedState | None:
    """Design B's `reconstructState` over one session's frames (any order); None when the
    session has no I-frame."""
    iframes = [f for f in frames if f.frame_type is FrameType.I]
    if not iframes:
        return None
    iframe = max(iframes, key=_seq)
    patches = sorted(
        (f for f in frames if f.frame_type is FrameType.P and f.base_frame_id == iframe.id),
        key=_seq,
    )
    content = PATCH_SEPARATOR.join([iframe.content, *(p.content for p in patches)])
    return ReconstructedState(
        iframe=iframe, patches=patches, current_content=content, frame_count=1 + len(patches)
    )
