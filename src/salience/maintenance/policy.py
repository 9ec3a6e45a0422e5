"""Decisions of maintenance as pure functions: decay curves, usefulness regression, what to
prune and what to compact (design A "Decay & Pruning", design B §6.4).

Every function takes values (including `now` and the time of the previous run) and returns
values, so the curves can be checked by hand and run identically on every backend.

**Decay is applied for elapsed time, not per call.** A memory decays over the interval
[start, now] with start = the latest of: the previous maintenance run, its creation, and one
day after its last retrieval (design A: "only affects memories not accessed in the last day").
Two runs at the same instant therefore change nothing, and the result does not depend on how
often maintenance runs. Within the interval the rate is the standard 0.977/day until the memory
is 14 days old and, for a memory never retrieved, the accelerated 0.954/day after that (the
accelerated rate replaces the standard one: ~15-day half-life, as the design states).

**Nothing important dies of age alone** (issue 13; deviations from design A recorded in
docs/architecture.md): critical and important memories, pinned ones and memories that proved
useful (usefulness above neutral: they answered something) never take the accelerated rate and
are never pruned; what the user stated is never pruned as stale (it fades in rank instead);
superseded memories are kept as history unless `prune_superseded` is set (design A deletes them
after a 7-day grace, which loses the old value behind every update); a `temporary` memory that
was retrieved within its 30-day window lives on.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ..models import Importance, Memory, MemoryType, Source

if TYPE_CHECKING:
    from ..config import Config

DAY_S = 86_400.0


@dataclass(frozen=True, slots=True)
class Policy:
    """The maintenance constants (from `Config`; see its "maintenance" block)."""

    standard_rate: float = 0.977
    accelerated_rate: float = 0.954
    accelerated_after_days: float = 14.0
    floor: float = 1.0
    skip_accessed_days: float = 1.0
    regression_after_days: float = 30.0
    regression_rate: float = 0.05
    neutral_usefulness: float = 0.5
    tick_days: float = 1.0
    prune_max_salience: float = 1.0
    staleness_days: float = 90.0
    superseded_grace_days: float = 7.0
    prune_superseded: bool = False
    exempt_types: frozenset[MemoryType] = frozenset(
        {MemoryType.IDENTITY, MemoryType.EPISODE, MemoryType.REFLECTION}
    )
    prune_pinned: bool = False
    temporary_days: float = 30.0
    deprecated_days: float = 90.0
    pframes_when: int = 10
    pframes_keep: int = 5

    @classmethod
    def from_config(cls, cfg: Config) -> Policy:
        return cls(
            standard_rate=cfg.decay_standard_rate,
            accelerated_rate=cfg.decay_accelerated_rate,
            accelerated_after_days=cfg.decay_accelerated_after_days,
            floor=cfg.decay_floor,
            skip_accessed_days=cfg.decay_skip_accessed_days,
            regression_after_days=cfg.usefulness_regression_after_days,
            regression_rate=cfg.usefulness_regression_rate,
            tick_days=cfg.maintenance_interval_s / DAY_S,
            prune_max_salience=cfg.prune_max_salience,
            staleness_days=cfg.prune_staleness_days,
            superseded_grace_days=cfg.superseded_grace_days,
            prune_superseded=cfg.prune_superseded,
            exempt_types=frozenset(MemoryType(t) for t in cfg.prune_exempt_types),
            prune_pinned=cfg.prune_pinned,
            temporary_days=cfg.compact_temporary_days,
            deprecated_days=cfg.compact_deprecated_days,
            pframes_when=cfg.compact_pframes_when,
            pframes_keep=cfg.compact_pframes_keep,
        )


def _days(a: datetime, b: datetime) -> float:
    """Days from `a` to `b` (negative when b is earlier)."""
    return (b - a).total_seconds() / DAY_S


def decay_start(
    created_at: datetime,
    last_retrieved_at: datetime | None,
    last_run: datetime | None,
    policy: Policy = Policy(),
) -> datetime:
    """Where this run's decay interval begins (see the module docstring)."""
    start = created_at if last_run is None else max(created_at, last_run)
    if last_retrieved_at is not None:
        start = max(start, last_retrieved_at + timedelta(days=policy.skip_accessed_days))
    return start


def is_protected(m: Memory, policy: Policy) -> bool:
    """Memories that age alone never removes: exempt types, pinned (unless `prune_pinned`),
    critical or important, or useful (usefulness above neutral: they answered something)."""
    return (
        is_exempt(m, policy)
        or m.importance in (Importance.CRITICAL, Importance.IMPORTANT)
        or m.usefulness > policy.neutral_usefulness
    )


def decay_factor(
    start: datetime,
    now: datetime,
    created_at: datetime,
    never_retrieved: bool,
    policy: Policy = Policy(),
) -> float:
    """The multiplier of salience over [start, now]: standard rate per day, switching to the
    accelerated rate once a never-retrieved memory is older than `accelerated_after_days`."""
    if now <= start:
        return 1.0
    total = _days(start, now)
    if not never_retrieved:
        return float(policy.standard_rate**total)
    switch = created_at + timedelta(days=policy.accelerated_after_days)
    standard_days = min(max(_days(start, switch), 0.0), total)
    return float(
        policy.standard_rate**standard_days * policy.accelerated_rate ** (total - standard_days)
    )


def decayed_salience(m: Memory, now: datetime, last_run: datetime | None, policy: Policy) -> float:
    """Salience of `m` after decay up to `now` (never below the floor; a memory already at or
    below the floor is left as it is)."""
    assert m.created_at is not None
    if m.salience <= policy.floor:
        return m.salience
    start = decay_start(m.created_at, m.last_retrieved_at, last_run, policy)
    accelerated = m.retrieval_count == 0 and not is_protected(m, policy)
    f = decay_factor(start, now, m.created_at, accelerated, policy)
    return max(policy.floor, m.salience * f)


def regressed_usefulness(
    m: Memory, now: datetime, last_run: datetime | None, policy: Policy
) -> float:
    """Usefulness after regression toward 0.5: `regression_rate` of the gap per tick (one
    maintenance interval, a day by default) for the time `m` has gone unretrieved beyond
    `regression_after_days` (since its creation when never retrieved), counted from the
    previous run."""
    assert m.created_at is not None
    ref = m.last_retrieved_at or m.created_at
    start = ref + timedelta(days=policy.regression_after_days)
    if last_run is not None:
        start = max(start, last_run)
    if now <= start or policy.tick_days <= 0:
        return m.usefulness
    ticks = _days(start, now) / policy.tick_days
    keep = (1.0 - policy.regression_rate) ** ticks
    return policy.neutral_usefulness + (m.usefulness - policy.neutral_usefulness) * keep


def is_exempt(m: Memory, policy: Policy) -> bool:
    """Identity, episode and reflection memories, and pinned ones, are never deleted by
    maintenance unless configured (`prune_exempt_types`, `prune_pinned`)."""
    return m.memory_type in policy.exempt_types or (m.pinned and not policy.prune_pinned)


def prune_reason(m: Memory, salience: float, now: datetime, policy: Policy) -> str | None:
    """Why `m` (with its post-decay `salience`) should be deleted, or None.

    - "superseded" (only with `prune_superseded`): replaced more than `superseded_grace_days`
      ago, whatever its salience (the supersession time is `updated_at`, which the superseding
      write stamps);
    - "stale": salience <= `prune_max_salience`, older than `staleness_days`, and superseded
      or never retrieved — never for protected memories (`is_protected`) nor for what the
      user stated.
    """
    if is_protected(m, policy):
        return None
    assert m.created_at is not None
    if m.superseded_by is not None and policy.prune_superseded:
        since = m.updated_at or m.created_at
        if _days(since, now) >= policy.superseded_grace_days:
            return "superseded"
    if m.source is Source.USER_STATED:
        return None
    if (
        salience <= policy.prune_max_salience
        and _days(m.created_at, now) >= policy.staleness_days
        and (m.superseded_by is not None or m.retrieval_count == 0)
    ):
        return "stale"
    return None


def compaction_reason(m: Memory, now: datetime, policy: Policy) -> str | None:
    """Design B §6.4: "temporary" older than 30 days, "deprecated" older than 90 days (pinned
    and exempt types are kept; a temporary memory retrieved within the last 30 days too)."""
    if is_exempt(m, policy):
        return None
    assert m.created_at is not None
    age = _days(m.created_at, now)
    if m.importance == Importance.TEMPORARY and age >= policy.temporary_days:
        used = m.last_retrieved_at is not None and _days(m.last_retrieved_at, now) < policy.temporary_days
        return None if used else "temporary"
    if m.importance == Importance.DEPRECATED and age >= policy.deprecated_days:
        return "deprecated"
    return None


def pframes_to_drop(patches: list[Memory], policy: Policy) -> list[str] | None:
    """Design B §6.4 for one session: when the P-frames on the current I-frame reach
    `pframes_when`, the ids of all but the `pframes_keep` most recent (by `t`) — they are
    merged into a new I-frame; None when no merge is due."""
    if len(patches) < policy.pframes_when:
        return None
    ordered = sorted(patches, key=lambda p: (p.t if p.t is not None else -1, p.id))
    keep = policy.pframes_keep
    return [p.id for p in (ordered[:-keep] if keep else ordered)]
