"""The maintenance job: decay, usefulness regression, pruning and compaction in one pass.

`plan_maintenance` reads the mind and decides (pure policy functions, no writes);
`apply_plan` writes the decisions — scores in one transaction, deletions in another — and logs
every deletion (count and ids) in `maintenance_log`; `maintain` does both (or only plans, for
a dry run). The time of the last run is kept in meta `maintenance_last_run_at`: decay covers
the time since then, so running twice at the same instant changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from statistics import fmean
from typing import TYPE_CHECKING, Any

from ..clock import format_ts, parse_ts
from ..models import FrameType, Memory, MemoryFilter, validate_memory
from ..store.maintenance import MaintenanceLogEntry, ScoreUpdate
from .policy import (
    Policy,
    compaction_reason,
    decayed_salience,
    is_exempt,
    pframes_to_drop,
    prune_reason,
    regressed_usefulness,
)

if TYPE_CHECKING:
    import numpy as np

    from ..store.base import Store

LAST_RUN_KEY = "maintenance_last_run_at"
_EPS = 1e-9
_PAGE = 2000

EmbedFn = Callable[[Sequence[str]], "np.ndarray"]


@dataclass(slots=True)
class ScoreChange:
    """One memory's salience and usefulness before and after this run."""

    id: str
    salience_before: float
    salience_after: float
    usefulness_before: float
    usefulness_after: float


@dataclass(slots=True)
class FrameMerge:
    """A session whose P-frames were (or would be) merged into a new I-frame."""

    session_id: str
    iframe_id: str
    patches: int
    dropped: list[str]
    new_iframe_id: str | None = None


@dataclass(slots=True)
class MaintenanceReport:
    """What one maintenance run changed (or, with `dry_run`, would change)."""

    at: datetime
    dry_run: bool
    last_run: datetime | None
    scanned: int = 0
    decayed: list[ScoreChange] = field(default_factory=list)
    regressed: list[ScoreChange] = field(default_factory=list)
    pruned: dict[str, str] = field(default_factory=dict)  # id -> reason
    compacted: dict[str, str] = field(default_factory=dict)  # id -> reason
    merges: list[FrameMerge] = field(default_factory=list)
    retention: dict[str, int] = field(default_factory=dict)  # agent records past retention
    claims: int = 0  # stored-claims rows (re)derived: missing, older engine, older text

    @property
    def mean_salience_change(self) -> float:
        """Mean (after − before) over the decayed memories (0 when none)."""
        if not self.decayed:
            return 0.0
        return fmean(c.salience_after - c.salience_before for c in self.decayed)

    @property
    def deleted(self) -> list[str]:
        return [*self.pruned, *self.compacted, *(i for mg in self.merges for i in mg.dropped)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "at": self.at.isoformat(),
            "dry_run": self.dry_run,
            "last_run": self.last_run.isoformat() if self.last_run else None,
            "scanned": self.scanned,
            "decayed": len(self.decayed),
            "mean_salience_change": self.mean_salience_change,
            "regressed": len(self.regressed),
            "mean_usefulness_change": (
                fmean(c.usefulness_after - c.usefulness_before for c in self.regressed)
                if self.regressed
                else 0.0
            ),
            "pruned": dict(self.pruned),
            "compacted": dict(self.compacted),
            "merges": [asdict(m) for m in self.merges],
            "retention": dict(self.retention),
            "claims": self.claims,
        }


def last_run(store: Store) -> datetime | None:
    """When maintenance last ran on this mind (None before the first run)."""
    return parse_ts(store.get_meta(LAST_RUN_KEY))


def iter_all(store: Store, page: int = _PAGE) -> Iterator[Memory]:
    """Every memory, superseded ones included, oldest first (paged, no vectors)."""
    flt = MemoryFilter(include_superseded=True)
    offset = 0
    while True:
        batch = store.list(flt, limit=page, offset=offset, order="created_asc")
        yield from batch
        if len(batch) < page:
            return
        offset += page


def plan_maintenance(
    store: Store, now: datetime, policy: Policy, *, dry_run: bool = True
) -> MaintenanceReport:
    """Decide decay, regression, pruning, compaction and P-frame merges at `now`."""
    prev = last_run(store)
    if prev is not None and prev > now:
        prev = now  # the clock went backwards: decay nothing rather than un-decay
    report = MaintenanceReport(at=now, dry_run=dry_run, last_run=prev)
    for m in iter_all(store):
        report.scanned += 1
        sal = decayed_salience(m, now, prev, policy)
        use = regressed_usefulness(m, now, prev, policy)
        change = ScoreChange(m.id, m.salience, sal, m.usefulness, use)
        if abs(sal - m.salience) > _EPS:
            report.decayed.append(change)
        if abs(use - m.usefulness) > _EPS:
            report.regressed.append(change)
        reason = prune_reason(m, sal, now, policy)
        if reason is not None:
            report.pruned[m.id] = reason
            continue
        reason = compaction_reason(m, now, policy)
        if reason is not None:
            report.compacted[m.id] = reason
    report.merges = plan_frame_merges(store, policy, skip=set(report.deleted))
    return report


def plan_frame_merges(store: Store, policy: Policy, *, skip: set[str]) -> list[FrameMerge]:
    """Sessions whose current I-frame carries `pframes_when` or more P-frames."""
    from ..models.frames import reconstruct

    merges: list[FrameMerge] = []
    for session in store.list_sessions(limit=1_000_000):
        iframes = store.session_frames(session.id, frame_type=FrameType.I)
        state = reconstruct(iframes)
        if state is None or state.iframe.id in skip:
            continue
        unfinished = _unfinished_merge(store, session.id, state.iframe, policy, skip)
        if unfinished is not None:
            merges.append(unfinished)
            continue
        patches = store.session_frames(
            session.id, frame_type=FrameType.P, base_frame_id=state.iframe.id
        )
        patches = [p for p in patches if p.id not in skip]
        drop = pframes_to_drop(patches, policy)
        if drop is None:
            continue
        kept = {p.id for p in patches if is_exempt(p, policy)}
        merges.append(
            FrameMerge(
                session_id=session.id,
                iframe_id=state.iframe.id,
                patches=len(patches),
                dropped=[i for i in drop if i not in kept],
            )
        )
    return merges


def _unfinished_merge(
    store: Store, session_id: str, current: Memory, policy: Policy, skip: set[str]
) -> FrameMerge | None:
    """A merge whose new I-frame was written but whose P-frames were not yet deleted (a crash
    between the two): the current I-frame says which I-frame it was compacted from, and that
    one still carries enough P-frames to merge. Finishing it deletes exactly what the merge
    would have deleted, so a rerun ends where an uninterrupted run ends."""
    origin = current.metadata.get("compacted_from")
    if not isinstance(origin, str) or origin in skip:
        return None
    patches = store.session_frames(session_id, frame_type=FrameType.P, base_frame_id=origin)
    patches = [p for p in patches if p.id not in skip]
    drop = pframes_to_drop(patches, policy)
    kept = {p.id for p in patches if is_exempt(p, policy)}
    dropped = [i for i in drop or [] if i not in kept]
    if not dropped:
        return None
    return FrameMerge(
        session_id=session_id, iframe_id=origin, patches=len(patches), dropped=dropped,
        new_iframe_id=current.id,
    )


def merged_iframe(store: Store, merge: FrameMerge, now: datetime) -> Memory:
    """The new I-frame of a merge: the reconstructed content of the current I-frame and all
    its P-frames, one record (never chunked, so the session keeps one current I-frame)."""
    from ..models.frames import reconstruct

    base = store.get(merge.iframe_id)
    assert base is not None
    patches = store.session_frames(
        merge.session_id, frame_type=FrameType.P, base_frame_id=merge.iframe_id
    )
    state = reconstruct([base, *patches])
    assert state is not None
    return validate_memory(
        Memory(
            content=state.current_content,
            summary=base.summary,
            memory_type=base.memory_type,
            importance=base.importance,
            source=base.source,
            salience=max([base.salience, *(p.salience for p in patches)]),
            tags=list(base.tags),
            entities=list(dict.fromkeys([*base.entities, *(e for p in patches for e in p.entities)])),
            session_id=merge.session_id,
            frame_type=FrameType.I,
            metadata={"compacted_from": merge.iframe_id, "merged_patches": len(patches)},
            created_at=now,
            updated_at=now,
        ),
        max_bytes=10**9,
    )


def apply_plan(store: Store, report: MaintenanceReport, embed: EmbedFn | None) -> None:
    """Write a planned report: scores, P-frame merges, deletions, log rows, the run time."""
    now = report.at
    updates = {c.id: c for c in [*report.decayed, *report.regressed]}
    # Scores of memories about to be pruned or compacted are written too: if the process dies
    # before the deletions, the rerun (same interval already recorded) must find them decayed,
    # and decides again whether to delete them.
    store.set_scores(
        [ScoreUpdate(c.id, c.salience_after, c.usefulness_after) for c in updates.values()],
        meta={LAST_RUN_KEY: format_ts(now) or ""},  # same transaction: decay applies once
    )
    if report.decayed or report.regressed:
        store.log_maintenance(
            MaintenanceLogEntry(
                kind="decay",
                count=len(report.decayed),
                created_at=now,
                details={
                    "regressed": len(report.regressed),
                    "mean_salience_change": report.mean_salience_change,
                },
            )
        )
    for kind, chosen in (("prune", report.pruned), ("compact", report.compacted)):
        if chosen:
            n = store.delete(list(chosen))
            reasons: dict[str, int] = {}
            for r in chosen.values():
                reasons[r] = reasons.get(r, 0) + 1
            store.log_maintenance(
                MaintenanceLogEntry(
                    kind=kind, count=n, ids=list(chosen), created_at=now,
                    details={"reasons": reasons},
                )
            )
    for merge in report.merges:
        if merge.new_iframe_id is None:  # else: finishing a merge a crash interrupted
            rec = merged_iframe(store, merge, now)
            vecs = embed([rec.content]) if embed is not None else None
            store.insert([rec], vecs)  # then the deletes: a rerun finishes them (above)
            merge.new_iframe_id = rec.id
        n = store.delete(merge.dropped)
        store.log_maintenance(
            MaintenanceLogEntry(
                kind="merge", count=n, ids=list(merge.dropped), created_at=now,
                details={"session": merge.session_id, "iframe": merge.iframe_id,
                         "new_iframe": merge.new_iframe_id, "patches": merge.patches},
            )
        )
    report.claims = refresh_claims(store)
    store.set_meta(LAST_RUN_KEY, format_ts(now) or "")


#: stored-claims rows one maintenance run derives at most (≈ 1–5 ms each; the rest next run)
CLAIMS_PER_RUN = 2000


def refresh_claims(store: Store, limit: int = CLAIMS_PER_RUN) -> int:
    """The memories whose stored claims are missing or stale (an older engine version, an
    older text) get them derived (issue 21; `search.stored_claims`). 0 for a store without
    stored claims."""
    if not hasattr(store, "claims_missing"):
        return 0
    from ..search.stored_claims import refresh_claims as refresh

    return refresh(store, limit=limit)


def maintain(
    store: Store,
    now: datetime,
    policy: Policy,
    *,
    dry_run: bool = False,
    embed: EmbedFn | None = None,
) -> MaintenanceReport:
    """Plan and (unless `dry_run`) apply one maintenance run at `now`."""
    report = plan_maintenance(store, now, policy, dry_run=dry_run)
    if not dry_run:
        apply_plan(store, report, embed)
    return report
