"""Search described as data: a typed `SearchConfig` and the named presets shared by the SDK, the
CLI, HTTP and MCP (`salience search --preset NAME`, `Mind.search(q, preset=NAME)`).

A preset fixes the candidate sources, the ranking function and the pipeline levers. Presets are
immutable; derive a variant with `dataclasses.replace(get_preset(name), ...)`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from ..errors import InvalidInput

Ranking = Literal["formula", "rrf", "bounded"]
SourceName = Literal["text", "vector", "entity"]


@dataclass(frozen=True, slots=True)
class Profile:
    """Design B's scoring-profile weights (§7.3): relevance = Σ weight × signal."""

    temporal: float
    popularity: float
    contextual: float
    importance: float


PROFILES: Mapping[str, Profile] = MappingProxyType(
    {
        "none": Profile(temporal=0.0, popularity=0.0, contextual=0.0, importance=0.0),
        "balanced": Profile(temporal=0.4, popularity=0.2, contextual=0.2, importance=0.2),
        "recent": Profile(temporal=0.6, popularity=0.1, contextual=0.2, importance=0.1),
        "important": Profile(temporal=0.1, popularity=0.1, contextual=0.2, importance=0.6),
        "connected": Profile(temporal=0.1, popularity=0.1, contextual=0.6, importance=0.2),
    }
)


@dataclass(frozen=True, slots=True)
class SearchConfig:
    """Everything that decides what a search returns.

    Attributes:
        name: the preset name (shown in explanations and benchmark tables).
        ranking: "formula" (design A, lower is better), "rrf" (design B, RRF × profile) or
            "bounded" (design A's relevance terms, priors within `prior_weight`).
        profile: design B's weights (ranking="rrf"); ignored by the formula.
        sources: candidate sources gathered: "text" (full-text), "vector", "entity".
        source_weights: per-source multiplier of a source's RRF contribution (1.0 = plain RRF).
        rrf_k: the RRF constant (design B: 60).
        pool: candidates per source per query.
        rewrites: query variations added by the brain in the deep search (design A: 3).
        variant_pool: candidates per source per variation (design A: 5, "4 queries × 5").
        variant_weight: RRF weight of a variation's lists relative to the original query's.
        entity_hops: follow shared entities from the top hits (design A's multi-hop, 0.8×).
        hop_penalty: score multiplier of a hop hit relative to the hit it came from.
        time_aware: parse temporal phrases ("last week", "in May 2023") and boost memories whose
            `occurred_at` falls in the range (a boost, not a filter: parsing is never certain).
        time_told: a memory is also in the range when its own words tell of a time in it
            ("yesterday I went bowling", said the day after; `temporal.about_time`).
        time_boost: multiplier of an in-range memory's score (ranking="rrf").
        recency_intent: for queries about the present ("these days", "currently", "still")
            with no explicit date, scale candidates by up to `time_boost` by their position
            in time (newest most): the newest statement of a changing fact wins. Off by
            default: on LoCoMo it measured −0.003 R@10 (0.659 → 0.656, e5/formula).
        context_window: neighbouring turns (same session, |Δt| ≤ window; the chunks of one
            item share its `t`) whose relevance spills over to a hit; 0 disables it.
        context_weight: the share of a neighbour's relevance above the candidates' median
            that spills over (`rank.spread_context`).
        context_seeds: the neighbours of this many top candidates join the candidates before
            the spill-over (a reply is found through the turn it answers, though it shares no
            word with the query); 0 spreads among the gathered candidates only.
        formula_bm25_scale: the BM25 term of the formula is `scale · raw / max raw` over the
            candidate set (see `rank.normalise_bm25`).
        rerank: re-rank the top hits with the brain when it is a real LLM.
        time_shift: ranking="bounded": what an in-range memory gains (instead of
            `time_boost`), in cosine distance.
        recency_shift: ranking="bounded" with `recency_intent`: the newest candidate's score
            gains this much (in cosine distance), the oldest nothing.
        bm25_coverage: ranking="bounded": weight a memory's BM25 by the share of the query's
            content terms it contains (see `rank.bounded_rank`), raised to
            `bm25_coverage_power`.
        newer_wins: among the top hits, a newer memory that contradicts an older one on a
            claim's slot takes its place; the older follows, marked `stale`.
        slot_first: among the top hits (at most 10), the memories that make a claim on the
            slot the question asks about ("Where do I live?" → a residence) come first.
        update_first: among the top hits (at most 10), a newer memory that announces a change
            ("now", "gave up", "moved to", "new number") on an older hit's topic takes its
            place — claims-free; skipped for questions about the past.
        prior_weight: ranking="bounded": how far the priors (salience, usefulness, recency,
            confidence, popularity; together in [0, 1]) may move a memory, in cosine distance.
        bm25_k1, bm25_b: the full-text BM25's parameters (Salience computes BM25 for every
            backend, `store/bm25.py`); 0.9 / 0.4 measured best on LoCoMo 0–4.
        participant_shift: ranking="bounded": what a memory by a participant the query names
            gains (speaker, sender, organiser; `search/participants.py`), in cosine distance;
            0 disables it.
    """

    name: str
    ranking: Ranking = "rrf"
    profile: Profile = field(default_factory=lambda: PROFILES["balanced"])
    sources: tuple[SourceName, ...] = ("text", "vector", "entity")
    source_weights: Mapping[str, float] = field(default_factory=dict)
    rrf_k: int = 60
    pool: int = 50
    rewrites: int = 3
    variant_pool: int = 5
    variant_weight: float = 1.0
    entity_hops: bool = True
    hop_penalty: float = 0.8
    time_aware: bool = True
    time_told: bool = False
    time_boost: float = 1.5
    recency_intent: bool = False
    context_window: int = 0
    context_weight: float = 0.0
    context_seeds: int = 10
    formula_bm25_scale: float = 0.1
    rerank: bool = True
    prior_weight: float = 0.03
    newer_wins: bool = True
    slot_first: bool = True
    update_first: bool = True
    bm25_coverage: bool = True
    bm25_coverage_power: float = 1.0
    recency_shift: float = 0.05
    time_shift: float = 0.1
    bm25_k1: float = 0.9
    bm25_b: float = 0.4
    participant_shift: float = 0.0

    def weight(self, source: str) -> float:
        return float(self.source_weights.get(source, 1.0))


def _rrf(name: str, profile: str, **kw: object) -> SearchConfig:
    return SearchConfig(name=name, ranking="rrf", profile=PROFILES[profile], **kw)  # type: ignore[arg-type]


PRESETS: Mapping[str, SearchConfig] = MappingProxyType(
    {
        # relevance first (design A's relevance terms), priors within a band of 0.03; one
        # query embedding (the heuristic rewrites measured ±0), participants named in the
        # query lift their memories, turns within 2 of the top candidates share their
        # relevance (issue 15, docs/benchmarks.md)
        "relevance": SearchConfig(
            name="relevance", ranking="bounded", rewrites=0, participant_shift=0.02,
            context_window=2, context_weight=0.3, time_told=True,
        ),
        # design A: the linear formula over text + vector + entity candidates
        "formula": SearchConfig(name="formula", ranking="formula"),
        # design B: RRF (K=60) × scoring profile
        "rrf-balanced": _rrf("rrf-balanced", "balanced"),
        "rrf-recent": _rrf("rrf-recent", "recent"),
        "rrf-important": _rrf("rrf-important", "important"),
        "rrf-connected": _rrf("rrf-connected", "connected"),
        # baselines: plain RRF of full-text and vector, and each source alone
        "rrf": _rrf(
            "rrf",
            "none",
            sources=("text", "vector"),
            rewrites=0,
            entity_hops=False,
            time_aware=False,
        ),
        "text-only": _rrf(
            "text-only", "none", sources=("text",), rewrites=0, entity_hops=False, time_aware=False
        ),
        "vector-only": _rrf(
            "vector-only",
            "none",
            sources=("vector",),
            rewrites=0,
            entity_hops=False,
            time_aware=False,
        ),
    }
)

DEFAULT_PRESET = "relevance"  # static + live LoCoMo and the ranking suite (docs/benchmarks.md)


def preset_names() -> list[str]:
    """Every preset name, in registry order (for CLI choices and API docs)."""
    return list(PRESETS)


def get_preset(name: str | SearchConfig) -> SearchConfig:
    """The preset called `name` (a `SearchConfig` is returned as is). Raises `InvalidInput`."""
    if isinstance(name, SearchConfig):
        return name
    try:
        return PRESETS[str(name).strip().lower()]
    except KeyError:
        raise InvalidInput(
            f"unknown search preset {name!r}; expected one of: {', '.join(PRESETS)}"
        ) from None
