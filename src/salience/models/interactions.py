"""The record of one model call (the store's `ai_interactions` row), below the store and the
model clients that produce it (`llm.base` re-exports it with the `Recorder` type)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal


@dataclass(slots=True, frozen=True)
class InteractionRecord:
    """One model call, as handed to the `on_call` recorder (the store's `ai_interactions` row).

    Never contains the prompt or output text, only their sizes (design B's Art. 12 log).
    """

    call_site: str
    provider: str  # "heuristic", "openai", ...
    model: str
    prompt_chars: int
    output_chars: int
    latency_ms: float
    outcome: Literal["ok", "error"]
    error: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    thinking: bool = False
    attempts: int = 1
    started_at: datetime | None = None  # from the injected clock, when one was given
