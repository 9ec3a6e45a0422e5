"""The mind's layers above the memory store (design B §4–§6, §9.1, §11).

- `identity` — who the mind is (one row; the source of truth for design A's identity profile);
- `awareness` — working memory, at most 10 active items;
- `sessions` / `frames` — sessions (GOPs) and I/P/B frames with reconstruction;
- `context` — system-prompt assembly within a token budget;
- `timetravel` — what the mind knew at a past time.

Reach them through the facade: `mind.identity`, `mind.awareness`, `mind.sessions`,
`mind.context(...)`; the knowledge graph is `mind.graph` (`salience.graph`).
"""

from ..models.layers import (
    AwarenessCategory,
    AwarenessFull,
    AwarenessItem,
    Identity,
    ReconstructedState,
    Session,
    SessionStatus,
)
from .awareness import AwarenessLayer
from .identity import IdentityLayer
from .sessions import SessionLayer

__all__ = [
    "AwarenessCategory",
    "AwarenessFull",
    "AwarenessItem",
    "AwarenessLayer",
    "Identity",
    "IdentityLayer",
    "ReconstructedState",
    "Session",
    "SessionLayer",
    "SessionStatus",
]
