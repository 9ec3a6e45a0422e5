"""Pure decisions of the cognitive engine and the heartbeat: when a cognitive run fires, how
memories cluster into episodes, when a reflection is due and which groups it covers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from ..models import Memory


@dataclass(frozen=True, slots=True)
class Trigger:
    """Whether a cognitive run should fire now, and why."""

    fire: bool
    reason: str


def cognitive_trigger(
    *,
    unreflected: int,
    idle_s: float | None,
    since_last_run_s: float | None,
    buffer_threshold: int = 20,
    lull_s: float = 1200.0,
    ceiling_s: float = 14_400.0,
) -> Trigger:
    """Design A's event-driven trigger: fire when more than `buffer_threshold` memories are
    unreflected AND the user has been idle for `lull_s`, or when `ceiling_s` has passed since
    the last run (before the first run: since the first memory) — the ceiling forces a run
    regardless of the lull, but a run with nothing new to think about is skipped.

    `idle_s` is None when there was no user activity yet (counts as idle).
    """
    if unreflected <= 0:
        return Trigger(False, "nothing new since the last run")
    idle = idle_s is None or idle_s >= lull_s
    if unreflected > buffer_threshold and idle:
        return Trigger(True, f"buffer: {unreflected} unreflected > {buffer_threshold}, idle")
    if since_last_run_s is not None and since_last_run_s >= ceiling_s:
        return Trigger(True, f"ceiling: {since_last_run_s / 3600:.1f} h since the last run")
    if unreflected > buffer_threshold:
        return Trigger(False, f"buffer full ({unreflected}) but the user is active")
    return Trigger(False, f"{unreflected} unreflected <= {buffer_threshold}")


def due(last: datetime | None, now: datetime, interval_s: float) -> bool:
    """Whether a periodic job (last run `last`) is due at `now`."""
    return last is None or (now - last).total_seconds() >= interval_s


def cluster_vectors(vectors: np.ndarray, threshold: float = 0.7) -> list[list[int]]:
    """Group rows of L2-normalised `vectors` (in their given, chronological order).

    Each row joins the existing cluster whose centroid it is most similar to, if that cosine
    similarity is >= `threshold` (design A: 0.7, i.e. cosine distance <= 0.3); otherwise it
    starts a new cluster. Deterministic; returns lists of row positions, each in input order.
    """
    clusters: list[list[int]] = []
    sums: list[np.ndarray] = []
    for i, v in enumerate(np.asarray(vectors, dtype=np.float32)):
        best, best_sim = -1, threshold
        for c, s in enumerate(sums):
            norm = float(np.linalg.norm(s))
            sim = float(v @ s) / norm if norm > 0 else 0.0
            if sim >= best_sim:
                best, best_sim = c, sim
        if best < 0:
            clusters.append([i])
            sums.append(v.astype(np.float64))
        else:
            clusters[best].append(i)
            sums[best] = sums[best] + v
    return clusters


def reflection_groups(
    memories: Sequence[Memory], min_group: int = 5
) -> dict[str, list[Memory]]:
    """Memories grouped by "source/type", keeping groups of at least `min_group`."""
    groups: dict[str, list[Memory]] = {}
    for m in memories:
        groups.setdefault(f"{m.source.value}/{m.memory_type.value}", []).append(m)
    return {k: v for k, v in sorted(groups.items()) if len(v) >= min_group}


def same_members(a: Sequence[str], b: Sequence[str]) -> bool:
    return set(a) == set(b)
