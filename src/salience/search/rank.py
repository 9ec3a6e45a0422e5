"""Ranking as pure functions over candidate lists (every backend ranks identically).

Two designs, both explained term by term:

- design A's linear formula (`formula_score`, lower is better);
- design B's RRF (K=60) × relevance, relevance = Σ profile weight × signal (`rrf_rank`);
- relevance first with bounded priors (`bounded_rank`): design A's relevance terms, then the
  priors squeezed into a band of `prior_weight` (the default preset, "relevance").

Every ranked entry is `(id, score, explanation)` with a higher `score` better; the formula's
own value (lower is better) is kept in the explanation as `formula` and the entry's score is
its negation, so hops, boosts and multi-mind fusion treat both designs alike.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import lru_cache

from ..models import IMPORTANCE_WEIGHTS, Candidate, Importance, Memory
from ..models.text import WORD_STEM_CACHE, cached_stem, normal_word, text_cache, word_tokens
from .config import Profile

RRF_K = 60  # design B §7.2: the canonical Reciprocal Rank Fusion constant
DAY_S = 86_400.0

Ranked = tuple[str, float, dict[str, float]]

# design B §7.3: contextual score by knowledge-graph BFS distance
CONTEXT_BY_DISTANCE: Mapping[int, float] = {0: 1.0, 1: 0.7, 2: 0.4, 3: 0.2}
TEMPORAL_FULL_DAYS = 7.0  # design B: full temporal score for 7 days ...
TEMPORAL_HALF_LIFE_DAYS = 30.0  # ... then a 30-day half-life
RECENCY_HALF_LIFE_DAYS = 30.0  # design A: ~30-day half-life on the creation date

# design A's coefficients (memory.RankingOrderBy)
FORMULA_BM25 = 10.0
FORMULA_SALIENCE = 0.1
FORMULA_USEFULNESS = 0.15
FORMULA_RECENCY = 0.03
FORMULA_CONFIDENCE = 0.03
FORMULA_POPULARITY = 0.02
FORMULA_ENTITY = 0.2


def rrf_fuse(
    sources: Mapping[str, Sequence[Candidate]],
    k: int = RRF_K,
    weights: Mapping[str, float] | None = None,
) -> list[Ranked]:
    """Reciprocal Rank Fusion: score(d) = Σ_sources weight_s / (k + rank_s(d)).

    Returns (id, rrf score, explanation) best first; the explanation holds each source's rank
    and raw score. `weights` defaults to 1.0 per source. Ties are broken by id.
    """
    scores: dict[str, float] = {}
    explain: dict[str, dict[str, float]] = {}
    for name, cands in sources.items():
        w = 1.0 if weights is None else float(weights.get(name, 1.0))
        for c in cands:
            scores[c.id] = scores.get(c.id, 0.0) + w / (k + c.rank)
            e = explain.setdefault(c.id, {})
            e[f"{name}_rank"] = float(c.rank)
            e[f"{name}_score"] = float(c.score)
    ordered = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(i, s, {"rrf": s, **explain[i]}) for i, s in ordered]


# -- design B's signals ------------------------------------------------------------------------
def days_between(earlier: datetime | None, now: datetime) -> float:
    """Days from `earlier` to `now` (0 when unknown or in the future)."""
    if earlier is None:
        return 0.0
    return max((now - earlier).total_seconds() / DAY_S, 0.0)


def temporal_signal(last_access: datetime | None, now: datetime) -> float:
    """1.0 within 7 days of the last access, then halving every 30 days."""
    days = days_between(last_access, now)
    if days <= TEMPORAL_FULL_DAYS:
        return 1.0
    return 0.5 ** ((days - TEMPORAL_FULL_DAYS) / TEMPORAL_HALF_LIFE_DAYS)


def popularity_signal(access_count: int) -> float:
    """1 + log10(1 + access_count) · 0.1 (1000 reads beat a fresh memory by ~0.3)."""
    return 1.0 + math.log10(1.0 + max(access_count, 0)) * 0.1


def contextual_signal(distance: int | None) -> float:
    """1.0 / 0.7 / 0.4 / 0.2 at knowledge-graph distance 0 / 1 / 2 / 3, else 0."""
    if distance is None:
        return 0.0
    return CONTEXT_BY_DISTANCE.get(int(distance), 0.0)


def importance_signal(importance: Importance | str) -> float:
    """Design B's importance weights: critical 2.0 … deprecated 0.3."""
    return IMPORTANCE_WEIGHTS[Importance(importance)]


def relevance(
    memory: Memory, profile: Profile, now: datetime, distance: int | None = None
) -> tuple[float, dict[str, float]]:
    """Design B's computeRelevance: Σ weight × signal, with every signal in the explanation.

    The temporal signal uses the last retrieval time, else the creation time.
    """
    signals = {
        "temporal": temporal_signal(memory.last_retrieved_at or memory.created_at, now),
        "popularity": popularity_signal(memory.retrieval_count),
        "contextual": contextual_signal(distance),
        "importance": importance_signal(memory.importance),
    }
    if profile.temporal == profile.popularity == profile.contextual == profile.importance == 0:
        return 1.0, {**signals, "relevance": 1.0}  # the empty profile: plain RRF
    value = (
        profile.temporal * signals["temporal"]
        + profile.popularity * signals["popularity"]
        + profile.contextual * signals["contextual"]
        + profile.importance * signals["importance"]
    )
    return value, {**signals, "relevance": value}


def rrf_rank(
    fused: Sequence[Ranked],
    memories: Mapping[str, Memory],
    profile: Profile,
    now: datetime,
    distances: Mapping[str, int] | None = None,
) -> list[Ranked]:
    """finalScore = rrfScore × relevance (multiplicative: importance cannot rescue a memory
    that neither index path found). Ids missing from `memories` are dropped."""
    out: list[Ranked] = []
    for mid, rrf, expl in fused:
        m = memories.get(mid)
        if m is None:
            continue
        rel, terms = relevance(m, profile, now, (distances or {}).get(mid))
        score = rrf * rel
        out.append((mid, score, {**expl, **terms, "score": score}))
    out.sort(key=lambda r: (-r[1], r[0]))
    return out


# -- design A's formula --------------------------------------------------------------------------
def recency_signal(created_at: datetime | None, now: datetime) -> float:
    """Design A: 0.5^(age in days / 30) on the creation date (1.0 when unknown)."""
    return 0.5 ** (days_between(created_at, now) / RECENCY_HALF_LIFE_DAYS)


def normalise_bm25(text_scores: Mapping[str, float], scale: float = 0.1) -> dict[str, float]:
    """Backend-neutral BM25 for the formula: `scale · raw / max(raw)` over the candidate set.

    Stores report full-text relevance as s = x / (1 + x) of the backend's raw relevance x
    (SQLite's -bm25(), PostgreSQL's ts_rank). We invert that to x = s / (1 - s) and divide by
    the best raw value among the candidates: both backends' relevances are monotone but on
    different scales (bm25 ≈ 2–20, ts_rank ≈ 0.01–0.1), so only the ratio is comparable. The
    scale (default 0.1) puts the best match where design A's ts_rank usually peaks, so the
    keyword boost `1 + BM25·10` stays within [1, 2] as it does in design A; measured on
    LoCoMo conversations 0–4 (docs/benchmarks.md).
    """
    raw = {i: (s / (1.0 - s) if s < 1.0 else 1e9) for i, s in text_scores.items() if s > 0}
    if not raw:
        return {}
    top = max(raw.values())
    return {i: scale * x / top for i, x in raw.items()}


def formula_score(
    memory: Memory,
    *,
    cosine: float | None,
    bm25: float,
    entity_match: bool,
    now: datetime,
) -> tuple[float, dict[str, float]]:
    """Design A's ranking formula (lower is better), every term in the explanation.

    cosine_distance / (1 + BM25·10) − salience·0.1 − usefulness·0.15 − recency·0.03
    − confidence·0.03 − ln(retrieval_count + 1)·0.02 − entity_exact_match·0.2.
    A memory without a vector has cosine distance 1 (orthogonal).
    """
    dist = 1.0 - cosine if cosine is not None else 1.0
    rec = recency_signal(memory.created_at, now)
    terms = {
        "cosine_distance": dist,
        "bm25": bm25,
        "semantic": dist / (1.0 + bm25 * FORMULA_BM25),
        "salience_term": -memory.salience * FORMULA_SALIENCE,
        "usefulness_term": -memory.usefulness * FORMULA_USEFULNESS,
        "recency": rec,
        "recency_term": -rec * FORMULA_RECENCY,
        "confidence_term": -memory.confidence * FORMULA_CONFIDENCE,
        "popularity_term": -math.log(memory.retrieval_count + 1) * FORMULA_POPULARITY,
        "entity_match": 1.0 if entity_match else 0.0,
        "entity_term": -FORMULA_ENTITY if entity_match else 0.0,
    }
    value = terms["semantic"] + sum(v for k, v in terms.items() if k.endswith("_term"))
    terms["formula"] = value
    return value, terms


def formula_rank(
    memories: Mapping[str, Memory],
    *,
    cosine: Mapping[str, float],
    bm25: Mapping[str, float],
    entity_ids: set[str] | frozenset[str],
    now: datetime,
    explain: Mapping[str, dict[str, float]] | None = None,
) -> list[Ranked]:
    """Rank every memory of `memories` by design A's formula; score = −formula."""
    out: list[Ranked] = []
    for mid, m in memories.items():
        value, terms = formula_score(
            m,
            cosine=cosine.get(mid),
            bm25=bm25.get(mid, 0.0),
            entity_match=mid in entity_ids,
            now=now,
        )
        base = dict((explain or {}).get(mid, {}))
        out.append((mid, -value, {**base, **terms, "score": -value}))
    out.sort(key=lambda r: (-r[1], r[0]))
    return out


# -- relevance first, priors bounded (the default preset) -----------------------------------------
#: design A's prior coefficients times each signal's span, so the priors keep design A's
#: proportions inside the bound: salience (1–10) · 0.1, usefulness · 0.15, recency · 0.03,
#: confidence · 0.03, popularity ln(1 + n) · 0.02 up to 100 retrievals
PRIOR_SHARES: Mapping[str, float] = {
    "salience": 9 * FORMULA_SALIENCE,
    "usefulness": FORMULA_USEFULNESS,
    "recency": FORMULA_RECENCY,
    "confidence": FORMULA_CONFIDENCE,
    "popularity": math.log(101) * FORMULA_POPULARITY,
}
POPULARITY_CAP = 100


def prior_signal(memory: Memory, now: datetime) -> tuple[float, dict[str, float]]:
    """The memory's priors as one number in [0, 1]: design A's salience, usefulness, recency,
    confidence and popularity, each scaled to [0, 1] and weighted by design A's coefficients
    (`PRIOR_SHARES`). Every part is in the explanation."""
    parts = {
        "salience": (min(max(memory.salience, 1.0), 10.0) - 1.0) / 9.0,
        "usefulness": min(max(memory.usefulness, 0.0), 1.0),
        "recency": recency_signal(memory.created_at, now),
        "confidence": min(max(memory.confidence, 0.0), 1.0),
        "popularity": min(math.log1p(max(memory.retrieval_count, 0)) / math.log1p(POPULARITY_CAP), 1.0),
    }
    total = sum(PRIOR_SHARES.values())
    value = sum(PRIOR_SHARES[k] * v for k, v in parts.items()) / total
    return value, {f"prior_{k}": v for k, v in parts.items()} | {"prior": value}


STEM_CACHE = 4096  # memories whose stemmed words are kept (a search ranks ~100)


@lru_cache(maxsize=WORD_STEM_CACHE)
def _token_stem(token: str) -> str:
    """`cached_stem` of one token as written (`word_tokens`), normalised as `words` does."""
    return cached_stem(normal_word(token))


@text_cache(STEM_CACHE)
def stemmed_words(text: str) -> frozenset[str]:
    """The light-stemmed words of `text` (cached: the same candidates recur across searches;
    a text not seen yet is mostly tokens that were, whose stems are cached as written, so a
    new text costs one tokenising pass and cache lookups)."""
    return frozenset(map(_token_stem, word_tokens(text)))


def term_coverage(terms: Sequence[str], text: str) -> float:
    """Share of the query's content `terms` that occur in `text` (compared after a light
    suffix strip, as the full-text index stems them): 1.0 when every term is there."""
    if not terms:
        return 1.0
    have = stemmed_words(text)
    return sum(1 for t in terms if cached_stem(t) in have) / len(terms)


def bounded_rank(
    memories: Mapping[str, Memory],
    *,
    cosine: Mapping[str, float],
    bm25: Mapping[str, float],
    entity_ids: set[str] | frozenset[str],
    now: datetime,
    prior_weight: float,
    explain: Mapping[str, dict[str, float]] | None = None,
    terms: Sequence[str] | None = None,
    coverage_power: float = 1.0,
) -> list[Ranked]:
    """Relevance first, priors bounded (lower value is better; score = 1 − value, which
    reads like a cosine similarity and stays positive for any candidate worth showing):

        value = cosine_distance / (1 + BM25·10) − entity_exact_match·0.2 − prior_weight · prior

    The relevance part is design A's formula without its priors; `prior` (`prior_signal`)
    is in [0, 1], so salience, usefulness, recency, confidence and popularity together can
    move a memory by at most `prior_weight` — they reorder candidates whose relevance is that
    close and never lift an unrelated memory over a relevant one (in design A's formula the
    salience term alone spans 0.9, while e5's cosine distances between a relevant and an
    unrelated memory differ by ~0.1).

    With the query's content `terms`, a memory's BM25 is weighted by the share of them it
    contains (`term_coverage`): the candidate-relative BM25 gives the best full-text match the
    whole boost (halving its distance) even when it shares one light word with the query
    ("must", "called"), which outweighs any difference e5's distances can make."""
    out: list[Ranked] = []
    for mid, m in memories.items():
        cos = cosine.get(mid)
        dist = 1.0 - cos if cos is not None else 1.0
        b = bm25.get(mid, 0.0)
        if b > 0 and terms is not None:
            share = term_coverage(terms, f"{m.content} {m.summary} {' '.join(m.entities)}")
            b *= share**coverage_power
        hit = mid in entity_ids
        rel = dist / (1.0 + b * FORMULA_BM25) - (FORMULA_ENTITY if hit else 0.0)
        prior, pterms = prior_signal(m, now)
        value = rel - prior_weight * prior
        expl = {
            "cosine_distance": dist, "bm25": b, "entity_match": 1.0 if hit else 0.0,
            "relevance": rel, **pterms, "prior_term": -prior_weight * prior, "formula": value,
        }
        base = dict((explain or {}).get(mid, {}))
        out.append((mid, 1.0 - value, {**base, **expl, "score": 1.0 - value}))
    out.sort(key=lambda r: (-r[1], r[0]))
    return out


# -- adjustments shared by both designs ---------------------------------------------------------
def scale_score(score: float, factor: float) -> float:
    """Multiply a higher-is-better score by `factor` in the direction that keeps its meaning
    when the score is negative (a formula score): factor < 1 always demotes."""
    return score * factor if score >= 0 else score / factor


def spread_context(
    ranked: Sequence[Ranked],
    neighbours: Mapping[str, Sequence[str]],
    weight: float,
    *,
    floor: float = 0.0,
) -> list[Ranked]:
    """Neighbouring-turn context: each entry gains `weight` × how far the best score among its
    neighbours (ids in `neighbours[id]` that are themselves ranked) rises above `floor`
    (0 = plain scores, which must then be ≥ 0; the default search passes the candidates'
    median, `median_score`, so only a neighbour more relevant than a typical candidate lends
    anything)."""
    if weight <= 0:
        return list(ranked)
    base = {mid: max(s - floor, 0.0) for mid, s, _ in ranked}
    out: list[Ranked] = []
    for mid, s, expl in ranked:
        near = [base[n] for n in neighbours.get(mid, ()) if n in base]
        bonus = weight * max(near) if near else 0.0
        out.append((mid, s + bonus, {**expl, "context_bonus": bonus, "score": s + bonus}))
    out.sort(key=lambda r: (-r[1], r[0]))
    return out


def median_score(ranked: Sequence[Ranked]) -> float:
    """The median score of `ranked` (0 when empty)."""
    if not ranked:
        return 0.0
    scores = sorted(s for _, s, _ in ranked)
    mid = len(scores) // 2
    return scores[mid] if len(scores) % 2 else (scores[mid - 1] + scores[mid]) / 2.0
