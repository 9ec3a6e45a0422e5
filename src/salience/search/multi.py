"""Recall over several minds (design B §9.3: a personal mind plus workspace minds), fused into
one list in which every hit names the mind it came from.

The minds' lists are fused by rank, not by score (issue 14): Reciprocal Rank Fusion with
design B's K = 60 (`rank.rrf_fuse`), each mind one source. Scores of different minds do not
share a scale — priors such as salience, importance and usefulness are each mind's own, and a
personal mind full of high-salience memories would otherwise crowd a workspace's decision out
of the list — while a rank says the same in every mind: "this mind's best answer".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..models import Candidate, SearchHit
from .rank import RRF_K, rrf_fuse


def fuse_minds(
    per_mind: Sequence[Sequence[SearchHit]], limit: int, *, k: int = RRF_K
) -> list[SearchHit]:
    """Fuse the ranked hit lists of several minds by RRF: score = Σ 1 / (k + rank in a mind).

    A memory held by several minds (the same content hash) is one hit with every mind's
    contribution, attributed to the first mind holding it. Ties go to the better rank, then
    to the earlier mind. Each hit keeps its `mind`; its score becomes the fused score and its
    explanation gains `mind_rank` and `mind_score` (the rank and score in its own mind).
    """
    sources: dict[str, list[Candidate]] = {}
    first: dict[str, tuple[int, SearchHit]] = {}  # content hash -> (its rank, hit) in its mind
    best: dict[str, tuple[int, int]] = {}  # content hash -> (best rank, first mind)
    for m_idx, hits in enumerate(per_mind):
        ranked = sources[str(m_idx)] = []
        listed: set[str] = set()
        for pos, h in enumerate(hits, start=1):
            key = h.memory.content_hash
            if key in listed:  # a mind lists a content once
                continue
            listed.add(key)
            ranked.append(Candidate(id=key, rank=pos, score=h.score))
            first.setdefault(key, (pos, h))
            best[key] = min(best.get(key, (pos, m_idx)), (pos, m_idx))
    fused = rrf_fuse(sources, k=k)
    fused.sort(key=lambda r: (-r[1], *best[r[0]]))
    out: list[SearchHit] = []
    for key, score, _ in fused[:limit]:
        pos, h = first[key]
        explanation = {**h.explanation, "mind_rank": float(pos), "mind_score": float(h.score)}
        out.append(replace(h, score=score, explanation=explanation))
    return out
