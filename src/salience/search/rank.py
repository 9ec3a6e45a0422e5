"""Ranking as pure functions over candidate lists (every backend ranks identically)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..models import Candidate

RRF_K = 60  # design B §7.2: the canonical Reciprocal Rank Fusion constant


def rrf_fuse(
    sources: Mapping[str, Sequence[Candidate]], k: int = RRF_K
) -> list[tuple[str, float, dict[str, float]]]:
    """Reciprocal Rank Fusion: score(d) = Σ_sources 1 / (k + rank_source(d)).

    Returns (id, rrf score, explanation) best first; the explanation holds each source's rank
    and raw score. Ties are broken by id for a deterministic order.
    """
    scores: dict[str, float] = {}
    explain: dict[str, dict[str, float]] = {}
    for name, cands in sources.items():
        for c in cands:
            scores[c.id] = scores.get(c.id, 0.0) + 1.0 / (k + c.rank)
            e = explain.setdefault(c.id, {})
            e[f"{name}_rank"] = float(c.rank)
            e[f"{name}_score"] = float(c.score)
    ordered = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(i, s, {"rrf": s, **explain[i]}) for i, s in ordered]
