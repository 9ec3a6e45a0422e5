"""The `Brain`: one typed method per call site. This is what the rest of Salience calls.

Two implementations share this interface:

- `HeuristicBrain` (`salience.llm.heuristic`): deterministic rules, offline, the default;
- `LLMBrain` (`salience.llm.llm_brain`): renders the prompts of `salience.llm.prompts`, asks an
  `LLM` for schema-constrained JSON and maps short integer ids back to the caller's positions.

Candidate lists are passed as sequences of texts; answers that refer to candidates are
0-based positions in that sequence (so callers map them to memory ids with one index).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from ..models import MemoryType

if TYPE_CHECKING:
    from ..models import Memory
    from .base import LLMStatus

#: What is being triaged; selects the rules (and the prompt wording) for each ingestion path.
TriageKind = Literal["conversation", "email", "calendar", "note", "archive"]
TRIAGE_KINDS: tuple[str, ...] = ("conversation", "email", "calendar", "note", "archive")

#: Memory types a triage may assign (episode, reflection and identity come from synthesis).
TRIAGE_TYPES: tuple[MemoryType, ...] = (
    MemoryType.GENERAL,
    MemoryType.FACT,
    MemoryType.PREFERENCE,
    MemoryType.EVENT,
    MemoryType.EMAIL,
    MemoryType.CALENDAR,
)


@dataclass(slots=True)
class Triage:
    """Design A's triage verdict.

    `salience` follows the rubric: 1–3 routine noise, 4–6 temporal/project relevance,
    7–8 high value/identity, 9–10 critical/permanent (life-altering only).
    `save` is the engine's own opinion (email triage honours `save=False`); the ingestion
    path applies its thresholds on top.
    """

    salience: int
    summary: str
    memory_type: MemoryType
    tags: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    save: bool = True
    reasons: list[str] = field(default_factory=list)  # which rules fired (heuristic only)


@dataclass(slots=True)
class Quality:
    """Design A's quality score of one memory; all values in [0, 1]."""

    specificity: float
    uniqueness: float
    confidence: float
    entities: list[str] = field(default_factory=list)

    def boost(self, salience: float) -> float:
        """Design A's quality boost: salience + (specificity+uniqueness)/2 · (1 − salience/10).

        The result never exceeds 10.
        """
        boosted = salience + (self.specificity + self.uniqueness) / 2 * (1 - salience / 10)
        return min(10.0, boosted)


@dataclass(slots=True)
class Fact:
    """One fact distilled from an archived context slide, with its own salience (1–10)."""

    text: str
    salience: int


@dataclass(slots=True)
class Episode:
    """An episode synthesised from a cluster of related memories."""

    title: str
    summary: str
    entities: list[str] = field(default_factory=list)

    def render(self) -> str:
        """The episode memory's content: title line, then the summary."""
        return f"{self.title}\n\n{self.summary}".strip()


@dataclass(slots=True)
class Reflection:
    """Design A's reflection: four analytical sections over recent memories."""

    patterns: list[str] = field(default_factory=list)
    evolving_interests: list[str] = field(default_factory=list)
    connections: list[str] = field(default_factory=list)
    predictions: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)

    def render(self) -> str:
        """The reflection memory's content, one headed section per analysis."""
        parts = []
        for title, items in (
            ("PATTERNS", self.patterns),
            ("EVOLVING INTERESTS", self.evolving_interests),
            ("CONNECTIONS", self.connections),
            ("PREDICTIONS", self.predictions),
        ):
            body = "\n".join(f"- {item}" for item in items) if items else "- (none observed)"
            parts.append(f"{title}\n{body}")
        return "\n\n".join(parts)


@dataclass(slots=True)
class IdentityProfile:
    """The consolidated user profile (design A's identity profile): what the memories say
    about the user — a readable profile, key attributes and traits. It describes the user,
    never the agent's persona (the identity row, which only the developer writes).

    `sources` maps an attribute to the ids of the memories it was taken from (empty when the
    engine cannot tell)."""

    profile: str
    attributes: dict[str, str] = field(default_factory=dict)  # e.g. {"residence": "Lisbon"}
    traits: list[str] = field(default_factory=list)  # e.g. ["health-conscious"]
    sources: dict[str, list[str]] = field(default_factory=dict)  # {"residence": [memory id]}


@runtime_checkable
class Brain(Protocol):
    """Every judgement Salience asks of a model, one typed method per call site.

    `LLMBrain` methods raise `LLMError` when the model fails; `HeuristicBrain` never calls
    a network and only raises `InvalidInput` for unusable arguments.
    """

    def status(self) -> LLMStatus:
        """Provider, model, whether answers are heuristic, and the thinking table."""
        ...

    def triage(self, text: str, *, kind: TriageKind = "conversation") -> Triage:
        """Score and describe `text` before it is saved (design A's triage)."""
        ...

    def quality(self, text: str, *, existing: Sequence[str] = ()) -> Quality:
        """Specificity, uniqueness (against `existing` texts), confidence and entities."""
        ...

    def extract_entities(self, text: str) -> list[str]:
        """Named things in `text`: people, places, organisations, dates, emails, URLs, money."""
        ...

    def contradicts(self, new: str, candidates: Sequence[str]) -> list[int]:
        """Positions in `candidates` that `new` CONTRADICTS (the others are COMPATIBLE)."""
        ...

    def rewrite_query(self, query: str, *, n: int = 3) -> list[str]:
        """`n` distinct variations of a search query (never the query itself)."""
        ...

    def rerank(self, query: str, candidates: Sequence[str]) -> list[int]:
        """A permutation of `range(len(candidates))`, most relevant first."""
        ...

    def is_useful(self, response: str, memory: str) -> bool:
        """Whether `memory` contributed to `response` (design A's usefulness YES/NO)."""
        ...

    def distill(self, text: str) -> list[Fact]:
        """Durable facts worth keeping from an archived context slide."""
        ...

    def synthesize_episode(self, memories: Sequence[Memory]) -> Episode:
        """Title, summary and entities of one cluster of related memories."""
        ...

    def reflect(self, memories: Sequence[Memory]) -> Reflection:
        """PATTERNS, EVOLVING INTERESTS, CONNECTIONS and PREDICTIONS over `memories`."""
        ...

    def consolidate(
        self,
        memories: Sequence[Memory],
        *,
        previous: IdentityProfile | None = None,
        paradigm_shift: bool = False,
    ) -> IdentityProfile:
        """The user profile from the user's own statements in `memories`, updating `previous`
        if given. `paradigm_shift`: a core fact changed and the profile is rebuilt from
        scratch (design A's "paradigm shift transition", thinking on)."""
        ...
