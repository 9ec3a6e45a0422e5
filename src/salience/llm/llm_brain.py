"""`LLMBrain`: the `Brain` backed by a language model.

Renders the prompts of `salience.llm.prompts`, asks the `LLM` for schema-constrained JSON
with the call site's thinking mode, and maps short integer ids back to the caller's
positions. Model failures surface as `LLMError`; the caller decides whether to retry
(the triage queue does) or fall back (recall may use the heuristic ranking).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel

from ..errors import InvalidInput
from ..models import MemoryType
from . import prompts as P
from .base import LLM, THINKING_BY_CALL_SITE, CallSite, LLMStatus, thinking_for
from .brain import (
    TRIAGE_KINDS,
    Episode,
    Fact,
    IdentityProfile,
    Quality,
    Reflection,
    Triage,
    TriageKind,
)

if TYPE_CHECKING:
    from ..models import Memory

log = logging.getLogger("salience.llm")
M = TypeVar("M", bound=BaseModel)

MAX_TAGS = 8


def _unique(values: Sequence[str], *, lower: bool = False, limit: int | None = None) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for v in values:
        v = " ".join(str(v).split())
        if lower:
            v = v.lower()
        key = v.lower()
        if v and key not in seen:
            seen.add(key)
            out.append(v)
    return out[:limit] if limit is not None else out


def map_ids(ids: Sequence[int], n: int) -> list[int]:
    """1-based ids from a model answer → 0-based positions; out-of-range and repeats dropped."""
    out: list[int] = []
    for i in ids:
        if isinstance(i, int) and 1 <= i <= n and (i - 1) not in out:
            out.append(i - 1)
        elif not (isinstance(i, int) and 1 <= i <= n):
            log.debug("model cited unknown id %r (valid: 1..%d); ignored", i, n)
    return out


class LLMBrain:
    """Every call site answered by a language model through `llm`.

    Args:
        llm: the model client (e.g. `OpenAICompatibleLLM`); it records each call.
        thinking: per-call-site overrides of design A's thinking table.
    """

    def __init__(self, llm: LLM, *, thinking: Mapping[str, bool] | None = None) -> None:
        self._llm = llm
        self._thinking = dict(thinking or {})

    def __repr__(self) -> str:
        return f"LLMBrain(llm={self._llm!r})"

    @property
    def llm(self) -> LLM:
        """The underlying model client."""
        return self._llm

    def close(self) -> None:
        """Close the model client's connections, if it has any."""
        close = getattr(self._llm, "close", None)
        if callable(close):
            close()

    def status(self) -> LLMStatus:
        """The client's status with the effective thinking table."""
        s = self._llm.status()
        sites = {str(k) for k in THINKING_BY_CALL_SITE} | set(self._thinking)
        s.thinking = {site: thinking_for(site, self._thinking) for site in sorted(sites)}
        return s

    def _ask(
        self, site: CallSite, prompt: P.Prompt, schema: type[M], *, grammar: str | None = None
    ) -> M:
        return self._llm.complete_json(
            prompt.user,
            schema,
            call_site=str(site),
            thinking=thinking_for(site, self._thinking),
            system=prompt.system,
            grammar=grammar,
        )

    # -- call sites ---------------------------------------------------------------------------

    def triage(self, text: str, *, kind: TriageKind = "conversation") -> Triage:
        """Model triage (GBNF-constrained when the client sends grammars)."""
        if kind not in TRIAGE_KINDS:
            raise InvalidInput(
                f"unknown triage kind {kind!r}; expected one of: {', '.join(TRIAGE_KINDS)}"
            )
        a = self._ask(
            CallSite.TRIAGE, P.triage_prompt(text, kind), P.TriageAnswer, grammar=P.TRIAGE_GBNF
        )
        mtype = MemoryType(a.memory_type)
        if kind == "email":
            mtype = MemoryType.EMAIL
        elif kind == "calendar":
            mtype = MemoryType.CALENDAR
        return Triage(
            salience=a.salience,
            summary=a.summary,
            memory_type=mtype,
            tags=_unique(a.tags, lower=True, limit=MAX_TAGS),
            entities=_unique(a.entities, limit=25),
            save=a.save,
        )

    def quality(self, text: str, *, existing: Sequence[str] = ()) -> Quality:
        """Model quality scores."""
        a = self._ask(CallSite.QUALITY, P.quality_prompt(text, list(existing)), P.QualityAnswer)
        return Quality(
            specificity=a.specificity,
            uniqueness=a.uniqueness,
            confidence=a.confidence,
            entities=_unique(a.entities, limit=25),
        )

    def extract_entities(self, text: str) -> list[str]:
        """Model entity extraction."""
        a = self._ask(CallSite.ENTITIES, P.entities_prompt(text), P.EntitiesAnswer)
        return _unique(a.entities, limit=25)

    def contradicts(self, new: str, candidates: Sequence[str]) -> list[int]:
        """CONTRADICTS/COMPATIBLE per numbered candidate; no call when there are none."""
        cands = list(candidates)
        if not cands:
            return []
        a = self._ask(
            CallSite.CONTRADICTION, P.contradiction_prompt(new, cands), P.ContradictionAnswer
        )
        ids = [v.id for v in a.verdicts if v.verdict == "CONTRADICTS"]
        return sorted(map_ids(ids, len(cands)))

    def rewrite_query(self, query: str, *, n: int = 3) -> list[str]:
        """Up to `n` model variations, without repeats of the query."""
        if n < 1:
            raise InvalidInput("n must be at least 1")
        a = self._ask(CallSite.QUERY_REWRITE, P.rewrite_prompt(query, n), P.RewriteAnswer)
        original = " ".join(query.split()).lower()
        return [v for v in _unique(a.variations) if v.lower() != original][:n]

    def rerank(self, query: str, candidates: Sequence[str]) -> list[int]:
        """The model's order; ids it left out keep their incoming order at the end."""
        cands = list(candidates)
        if len(cands) <= 1:
            return list(range(len(cands)))
        a = self._ask(CallSite.RERANK, P.rerank_prompt(query, cands), P.RerankAnswer)
        order = map_ids(a.order, len(cands))
        return order + [i for i in range(len(cands)) if i not in order]

    def is_useful(self, response: str, memory: str) -> bool:
        """The model's YES/NO."""
        a = self._ask(
            CallSite.USEFULNESS, P.usefulness_prompt(response, memory), P.UsefulnessAnswer
        )
        return a.answer == "YES"

    def distill(self, text: str) -> list[Fact]:
        """Model-distilled facts with salience."""
        a = self._ask(CallSite.DISTILLATION, P.distill_prompt(text), P.DistillAnswer)
        seen: set[str] = set()
        out: list[Fact] = []
        for f in a.facts:
            key = f.text.lower()
            if key not in seen:
                seen.add(key)
                out.append(Fact(text=f.text, salience=f.salience))
        return out

    def synthesize_episode(self, memories: Sequence[Memory]) -> Episode:
        """Model episode title, summary and entities."""
        mems = list(memories)
        if not mems:
            raise InvalidInput("an episode needs at least one memory")
        a = self._ask(CallSite.EPISODE_SYNTHESIS, P.episode_prompt(mems), P.EpisodeAnswer)
        return Episode(title=a.title, summary=a.summary, entities=_unique(a.entities, limit=25))

    def reflect(self, memories: Sequence[Memory]) -> Reflection:
        """Model reflection (thinking on by default); no call for no memories."""
        mems = list(memories)
        if not mems:
            return Reflection()
        a = self._ask(CallSite.REFLECTION, P.reflection_prompt(mems), P.ReflectionAnswer)
        return Reflection(
            patterns=_unique(a.patterns),
            evolving_interests=_unique(a.evolving_interests),
            connections=_unique(a.connections),
            predictions=_unique(a.predictions),
            entities=_unique(a.entities, limit=25),
        )

    def consolidate(
        self,
        memories: Sequence[Memory],
        *,
        previous: IdentityProfile | None = None,
        paradigm_shift: bool = False,
    ) -> IdentityProfile:
        """Model user profile; attributes of `previous` survive unless overridden. Cited
        memory ids become the attributes' `sources`. A paradigm shift runs at its own call
        site (design A: thinking on)."""
        mems = list(memories)[: P.MAX_LIST_ITEMS]
        prompt = P.consolidation_prompt(
            mems, previous.profile if previous else None, paradigm_shift=paradigm_shift
        )
        site = CallSite.PARADIGM_SHIFT if paradigm_shift else CallSite.CONSOLIDATION
        a = self._ask(site, prompt, P.ConsolidationAnswer)
        attributes = dict(previous.attributes) if previous else {}
        sources = {k: list(v) for k, v in previous.sources.items()} if previous else {}
        for attr in a.attributes:
            key = " ".join(attr.name.lower().split())
            attributes[key] = attr.value
            cited = [mems[i - 1].id for i in dict.fromkeys(attr.memories) if 1 <= i <= len(mems)]
            if cited:
                sources[key] = cited
            else:
                sources.pop(key, None)
        return IdentityProfile(
            profile=a.profile,
            attributes=attributes,
            traits=_unique(a.traits, limit=8),
            sources={k: v for k, v in sources.items() if k in attributes},
        )
