"""The `LLM` protocol, call sites and their thinking mode, and the interaction record.

An `LLM` is a raw text model behind one of three call shapes (plain, JSON-schema constrained,
grammar constrained). Salience code does not call an `LLM` directly: it calls a `Brain`
(see `salience.llm.brain`), whose `LLMBrain` implementation renders the prompts of
`salience.llm.prompts` and maps the answers back to typed results.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from ..errors import LLMError, ProviderUnavailable
from ..models.interactions import InteractionRecord

log = logging.getLogger("salience.llm")

M = TypeVar("M", bound=BaseModel)


class CallSite(StrEnum):
    """Every place Salience asks a model something. Values are stable (they are logged)."""

    TRIAGE = "triage"
    QUALITY = "quality"
    ENTITIES = "entities"
    CONTRADICTION = "contradiction"
    QUERY_REWRITE = "query_rewrite"
    RERANK = "rerank"
    USEFULNESS = "usefulness"
    DISTILLATION = "distillation"
    EPISODE_SYNTHESIS = "episode_synthesis"
    REFLECTION = "reflection"
    CONSOLIDATION = "consolidation"
    # Agent-side call sites of design A's table; Salience does not call them itself, but an
    # agent built on Salience can use the same table through `thinking_for`.
    DEEP_THINKER = "deep_thinker"
    PLAN_DECOMPOSITION = "plan_decomposition"
    REPLANNING = "replanning"
    PLAN_STEP = "plan_step"
    BOOTSTRAP_PROFILE = "bootstrap_profile"
    PARADIGM_SHIFT = "paradigm_shift"


#: Design A's "Thinking mode by call site" table. Structured classification and JSON
#: transformations run with thinking off (it wastes the token budget); open-ended analysis
#: (reflection, deep thinking, bootstrap profile, paradigm shift) runs with thinking on.
#: The subagent call sites design A does not list (quality, contradiction, rewriting,
#: re-ranking, usefulness, distillation, entities) are short structured answers: off.
THINKING_BY_CALL_SITE: Mapping[str, bool] = MappingProxyType(
    {
        CallSite.TRIAGE: False,
        CallSite.QUALITY: False,
        CallSite.ENTITIES: False,
        CallSite.CONTRADICTION: False,
        CallSite.QUERY_REWRITE: False,
        CallSite.RERANK: False,
        CallSite.USEFULNESS: False,
        CallSite.DISTILLATION: False,
        CallSite.EPISODE_SYNTHESIS: False,
        CallSite.REFLECTION: True,
        CallSite.CONSOLIDATION: False,
        CallSite.DEEP_THINKER: True,
        CallSite.PLAN_DECOMPOSITION: False,
        CallSite.REPLANNING: False,
        CallSite.PLAN_STEP: True,
        CallSite.BOOTSTRAP_PROFILE: True,
        CallSite.PARADIGM_SHIFT: True,
    }
)


def thinking_for(call_site: str, overrides: Mapping[str, bool] | None = None) -> bool:
    """Whether `call_site` runs with thinking on: `overrides` first, then the design table.

    Unknown call sites default to thinking off.
    """
    key = str(call_site)
    if overrides and key in overrides:
        return bool(overrides[key])
    return bool(THINKING_BY_CALL_SITE.get(key, False))


#: The recorder callback type. It must not raise; if it does, the error is logged and ignored.
Recorder = Callable[[InteractionRecord], None]


def emit(on_call: Recorder | None, record: InteractionRecord) -> None:
    """Hand `record` to the recorder, if any; a failing recorder never fails the model call."""
    if on_call is None:
        return
    try:
        on_call(record)
    except Exception as e:  # a broken log sink must not break ingestion
        log.warning("interaction recorder failed (%s: %s); record dropped", type(e).__name__, e)


@dataclass(slots=True)
class LLMStatus:
    """What a model provider (or a `Brain`) reports about itself."""

    provider: str  # "heuristic" or "openai"
    model: str
    heuristic: bool  # True when answers come from rules, not a language model
    base_url: str | None = None
    grammar: bool = False  # GBNF grammars are sent (llama.cpp server)
    thinking: dict[str, bool] = field(default_factory=dict)  # effective table per call site
    detail: str = ""


class LLMUnavailable(LLMError, ProviderUnavailable):
    """The model server could not be reached (connection refused, DNS, repeated timeouts)."""

    code = "llm_unavailable"


@runtime_checkable
class LLM(Protocol):
    """A text model. Every call is reported to the provider's `on_call` recorder.

    All methods raise `LLMError` when the call fails after retries or the output is unusable
    (`LLMUnavailable` when the server cannot be reached).
    """

    def complete(
        self, prompt: str, *, system: str | None = None, thinking: bool, call_site: str
    ) -> str:
        """Free-text completion of `prompt` (with an optional system message)."""
        ...

    def complete_json(
        self,
        prompt: str,
        schema: type[M],
        *,
        call_site: str,
        thinking: bool = False,
        system: str | None = None,
        grammar: str | None = None,
    ) -> M:
        """A completion constrained to `schema`'s JSON schema, parsed and validated.

        `grammar`: an equivalent GBNF grammar the provider may use instead of the JSON
        schema when it is configured for grammars (llama.cpp).
        """
        ...

    def complete_grammar(
        self, prompt: str, grammar: str, *, call_site: str, system: str | None = None
    ) -> str:
        """A completion constrained by a GBNF grammar (llama.cpp server); thinking off."""
        ...

    def status(self) -> LLMStatus: ...
