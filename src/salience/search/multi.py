"""Recall over several minds (design B §9.3: a personal mind plus workspace minds), fused into
one list in which every hit names the mind it came from."""

from __future__ import annotations

from collections.abc import Sequence

from ..models import SearchHit


def fuse_minds(per_mind: Sequence[Sequence[SearchHit]], limit: int) -> list[SearchHit]:
    """Merge ranked hit lists of several minds searched with the same preset (so their scores
    share one scale): best score first, ties by each list's order, the first mind winning
    exact-duplicate contents. Each hit keeps its `mind` attribution."""
    merged: list[tuple[float, int, int, SearchHit]] = []
    for m_idx, hits in enumerate(per_mind):
        for pos, h in enumerate(hits):
            merged.append((-h.score, pos, m_idx, h))
    merged.sort(key=lambda x: (x[0], x[1], x[2]))
    seen: set[str] = set()
    out: list[SearchHit] = []
    for _, _, _, h in merged:
        if h.memory.content_hash in seen:
            continue
        seen.add(h.memory.content_hash)
        out.append(h)
        if len(out) >= limit:
            break
    return out
