"""The LLM layer: one typed `Brain` per mind, heuristic by default, a real model one config
line away.

    from salience.llm import make_brain
    brain = make_brain(config)            # HeuristicBrain, or LLMBrain over an OpenAI-compatible server
    verdict = brain.triage("I'm moving to Lisbon in May", kind="conversation")

Importing this package does not import httpx; the HTTP client loads when an `openai` brain
is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .base import (
    LLM,
    THINKING_BY_CALL_SITE,
    CallSite,
    InteractionRecord,
    LLMStatus,
    LLMUnavailable,
    Recorder,
    thinking_for,
)
from .brain import (
    TRIAGE_KINDS,
    Brain,
    Episode,
    Fact,
    IdentityProfile,
    Quality,
    Reflection,
    Triage,
    TriageKind,
)
from .heuristic import HeuristicBrain
from .llm_brain import LLMBrain

if TYPE_CHECKING:
    from ..clock import Clock
    from ..config import Config

__all__ = [
    "LLM",
    "THINKING_BY_CALL_SITE",
    "TRIAGE_KINDS",
    "Brain",
    "CallSite",
    "Episode",
    "Fact",
    "HeuristicBrain",
    "IdentityProfile",
    "InteractionRecord",
    "LLMBrain",
    "LLMStatus",
    "LLMUnavailable",
    "Quality",
    "Recorder",
    "Reflection",
    "Triage",
    "TriageKind",
    "make_brain",
    "make_llm",
    "thinking_for",
]


def make_llm(
    config: Config, *, on_call: Recorder | None = None, clock: Clock | None = None, **kw: Any
) -> LLM:
    """The raw `LLM` client `config` selects (`llm="openai"`). Raises `ValueError` otherwise:
    the heuristic engine is a `Brain`, not a text model."""
    if config.llm == "openai":
        from .openai import OpenAICompatibleLLM

        return OpenAICompatibleLLM.from_config(config, on_call=on_call, clock=clock, **kw)
    raise ValueError(f"llm={config.llm!r} has no text-model client; use make_brain()")


def make_brain(
    config: Config,
    on_call: Recorder | None = None,
    *,
    clock: Clock | None = None,
    thinking: Mapping[str, bool] | None = None,
) -> Brain:
    """The `Brain` `config` selects: `HeuristicBrain` for `llm="heuristic"` (the default),
    `LLMBrain` over `OpenAICompatibleLLM` for `llm="openai"`.

    Args:
        config: settings (`llm`, `llm_base_url`, `llm_model`, `llm_api_key`, `llm_grammar`,
            `llm_max_retries`, `http_timeout_s`).
        on_call: recorder called with an `InteractionRecord` for every model call.
        clock: stamps the records' `started_at`.
        thinking: per-call-site thinking overrides (default: `config.llm_thinking` when the
            config has it, else design A's table).
    """
    if config.llm == "heuristic":
        return HeuristicBrain(on_call=on_call, clock=clock)
    if thinking is None:
        thinking = getattr(config, "llm_thinking", None)
    return LLMBrain(make_llm(config, on_call=on_call, clock=clock), thinking=thinking)
