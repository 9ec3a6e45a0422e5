"""Prompt context assembly (design B §9.1): the system-prompt sections of one agent turn.

`build_context` returns, in this fixed order, each within its own token budget:
1. **identity** — `# Identity`, the agent's persona from the identity row (written only by
   the developer); cached by `ContextBuilder` until the row's `updated_at` changes (design B
   caches it because it rarely changes);
2. **profile** — `# About the User`, the user profile consolidation keeps
   (`layers.profile`; not in design B, whose identity section was the only profile); cached
   until a new revision is written;
3. **self-awareness** — `# Self-Awareness` (design B §9.1): mode and version, the tools and
   skills the caller declares, one line of memory stats (memories, entities, relations,
   sessions; procedures and runs when there are any), the actionable improvement signals
   (`agent.rules.actionable`, as many as fit whole — each is then marked surfaced, so it is
   shown once), then the active awareness items grouped by category;
4. **memories** — `# Context From Your Memory`: the top `mind.search(query)` hits in rank
   order, one dated line each (omitted without a query; identity-typed memories — the
   persona mirror and the user profile — are left out, their sections already say them).

Budgets: identity ≤ min(500, 30 % of the total); profile ≤ min(400, 15 %); self-awareness
≤ 25 %; memories get the rest (at least what the others left unused). Tokens are counted with
`models.tokens` (≈ chars / 4). Empty sections are left out. Output is deterministic for a
given state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from .. import __version__
from ..agent.awareness import (
    Capabilities,
    capability_lines,
    check_capabilities,
    mode_line,
    render_signals,
    signals_that_fit,
)
from ..errors import InvalidInput
from ..models import MemoryFilter, MemoryType, SearchHit
from ..models.agent import ImprovementSignal
from ..models.tokens import approx_tokens, fit_lines
from .awareness import render_awareness
from .identity import IDENTITY_BUDGET_TOKENS, render_identity
from .profile import PROFILE_BUDGET_TOKENS, ProfileLayer, UserProfile, live_text, render_profile

if TYPE_CHECKING:
    from ..agent.signals import Signals
    from ..store.base import Store
    from .awareness import AwarenessLayer


class ContextSource(Protocol):
    """What `ContextBuilder` reads from a mind (the `Mind` facade is one); a protocol, so
    the layers do not import the facade."""

    @property
    def store(self) -> Store: ...

    @property
    def profile(self) -> ProfileLayer: ...

    @property
    def awareness(self) -> AwarenessLayer: ...

    @property
    def signals(self) -> Signals: ...

    def search(
        self, query: str, *, limit: int = 10, flt: MemoryFilter | None = None
    ) -> list[SearchHit]: ...


DEFAULT_BUDGET_TOKENS = 2000
MIN_BUDGET_TOKENS = 50
IDENTITY_SHARE = 0.30
PROFILE_SHARE = 0.15
AWARENESS_SHARE = 0.25
SECTION_SEP = "\n\n"


@dataclass(frozen=True, slots=True)
class Section:
    name: str  # "identity", "profile", "self_awareness", "memories"
    text: str
    budget_tokens: int

    @property
    def tokens(self) -> int:
        return approx_tokens(self.text)


@dataclass(frozen=True, slots=True)
class PromptContext:
    """The assembled sections; `text` is what goes into the system prompt."""

    sections: tuple[Section, ...]
    budget_tokens: int
    hits: tuple[SearchHit, ...] = field(default=())
    signals: tuple[ImprovementSignal, ...] = field(default=())  # surfaced by this context

    @property
    def text(self) -> str:
        return SECTION_SEP.join(s.text for s in self.sections)

    @property
    def tokens(self) -> int:
        return approx_tokens(self.text)

    def section(self, name: str) -> Section | None:
        return next((s for s in self.sections if s.name == name), None)

    def __str__(self) -> str:
        return self.text


def split_budget(total: int) -> tuple[int, int]:
    """(identity, awareness) budgets for a total budget; memories get the rest."""
    ident = min(IDENTITY_BUDGET_TOKENS, int(total * IDENTITY_SHARE))
    return ident, int(total * AWARENESS_SHARE)


def profile_budget(total: int) -> int:
    """The `# About the User` budget for a total budget."""
    return min(PROFILE_BUDGET_TOKENS, int(total * PROFILE_SHARE))


def render_stats(stats: dict[str, int]) -> str:
    parts = [
        f"{stats[k]} {k.replace('_', ' ')}"
        for k in ("memories", "entities", "relations", "sessions")
        if k in stats
    ]
    return "Memory: " + ", ".join(parts) if parts else ""


def render_agent_stats(counts: dict[str, int], outcomes: dict[str, int]) -> str:
    """"Agent: 2 procedures, 14 runs (10 succeeded)"; "" when there are neither."""
    parts = []
    if counts.get("procedures"):
        parts.append(f"{counts['procedures']} procedures")
    runs = sum(outcomes.values())
    if runs:
        parts.append(f"{runs} runs ({outcomes.get('success', 0)} succeeded)")
    return "Agent: " + ", ".join(parts) if parts else ""


def render_hits(hits: list[SearchHit], budget_tokens: int) -> str:
    lines = ["# Context From Your Memory"]
    for h in hits:
        m = h.memory
        when = m.occurred_at or m.created_at
        stamp = f"[{when.date().isoformat()}] " if when else ""
        lines.append(f"- {stamp}{' '.join(m.text.split())}")
    return fit_lines(lines, budget_tokens) if len(lines) > 1 else ""


class ContextBuilder:
    """Builds `PromptContext`s for one mind, caching the identity section."""

    def __init__(self, mind: ContextSource) -> None:
        self._mind = mind
        self._identity_cache: tuple[datetime | None, int, str] | None = None
        self._profile_cache: tuple[tuple[str, int, frozenset[str]], str] | None = None

    def identity_section(self, budget_tokens: int) -> str:
        ident = self._mind.store.get_identity()
        if ident is None:
            self._identity_cache = None
            return ""
        cached = self._identity_cache
        if cached is not None and cached[0] == ident.updated_at and cached[1] == budget_tokens:
            return cached[2]
        text = render_identity(ident, budget_tokens)
        self._identity_cache = (ident.updated_at, budget_tokens, text)
        return text

    def profile_section(self, budget_tokens: int) -> str:
        """`# About the User`; a revision never changes, so its id (with the attributes that
        went stale since) keys the cache."""
        layer = self._mind.profile
        m = layer.memory()
        p = UserProfile.from_memory(m) if m is not None else None
        if p is None:
            self._profile_cache = None
            return ""
        stale = layer.stale(p)
        key = (p.memory_id, budget_tokens, frozenset(stale))
        cached = self._profile_cache
        if cached is None or cached[0] != key:
            cached = self._profile_cache = (key, render_profile(live_text(p, stale), budget_tokens))
        return cached[1]

    def build(
        self,
        query: str | None = None,
        *,
        budget_tokens: int = DEFAULT_BUDGET_TOKENS,
        limit: int = 8,
        flt: MemoryFilter | None = None,
        tools: Sequence[str] | None = None,
        skills: Sequence[str] | None = None,
        mode: str | None = None,
        version: str | None = None,
        surface_signals: bool = True,
    ) -> PromptContext:
        caps = check_capabilities(tools, skills, mode, version)
        if not isinstance(budget_tokens, int) or budget_tokens < MIN_BUDGET_TOKENS:
            raise InvalidInput(f"budget_tokens must be an integer ≥ {MIN_BUDGET_TOKENS}")
        if limit <= 0:
            raise InvalidInput("limit must be positive")
        mind = self._mind
        ident_budget, aware_budget = split_budget(budget_tokens)
        sections: list[Section] = []
        ident = self.identity_section(ident_budget)
        if ident:
            sections.append(Section("identity", ident, ident_budget))
        prof_budget = profile_budget(budget_tokens)
        prof = self.profile_section(prof_budget)
        if prof:
            sections.append(Section("profile", prof, prof_budget))
        aware, surfaced = self.self_awareness(caps, aware_budget, surface=surface_signals)
        sections.append(Section("self_awareness", aware, aware_budget))
        used = sum(approx_tokens(s.text) for s in sections) + 2 * len(sections)
        hits: list[SearchHit] = []
        if query is not None and query.strip():
            # the persona mirror and the user profile repeat their sections: leave them out
            hits = [
                h
                for h in mind.search(query, limit=limit + 1, flt=flt)
                if h.memory.memory_type is not MemoryType.IDENTITY
            ][:limit]
            mem_budget = budget_tokens - used
            text = render_hits(hits, mem_budget)
            if text:
                sections.append(Section("memories", text, mem_budget))
        return PromptContext(tuple(sections), budget_tokens, tuple(hits), tuple(surfaced))

    def self_awareness(
        self, caps: Capabilities, budget_tokens: int, *, surface: bool = True
    ) -> tuple[str, list[ImprovementSignal]]:
        """The `# Self-Awareness` section and the signals it shows. Signals are claimed
        (`mark_surfaced` flips only unsurfaced ones) before they are rendered, so two
        concurrent prompts never both show one; with `surface=False` nothing is shown or
        marked."""
        mind = self._mind
        stats = {"memories": mind.store.count(MemoryFilter()), **mind.store.graph_counts()}
        agent = render_agent_stats(mind.store.agent_counts(), mind.store.trace_counts())
        head = [  # design B §9.1's order: tools, skills, memory stats, mode, version
            "# Self-Awareness",
            *capability_lines(caps),
            render_stats(stats),
            *([agent] if agent else []),
            mode_line(caps, __version__),
        ]
        head = fit_lines(head, budget_tokens).split("\n")
        room = budget_tokens - approx_tokens("\n".join(head)) - 1
        shown: list[ImprovementSignal] = []
        if surface and room > 0:
            found = mind.signals.actionable()
            fit = [found[i] for i in signals_that_fit(found, room)]
            if fit:
                claimed = set(mind.signals.mark_surfaced([s.id for s in fit]))
                shown = [s for s in fit if s.id in claimed]
        lines = [*head, *render_signals(shown)]
        room = budget_tokens - approx_tokens("\n".join(lines)) - 1
        body = render_awareness(mind.awareness.get_all(), room) if room > 0 else ""
        return fit_lines([*lines, *([body] if body else [])], budget_tokens), shown
