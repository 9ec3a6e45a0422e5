"""The cognitive engine (design A, "Higher-Order Synthesis Layers"): consolidation into the
user profile, episodic synthesis and reflection, fired by `cognitive_trigger`.

State lives in meta: `cognitive_last_run_at`, `reflection_last_at`, `last_user_activity_at`,
the profile's `user_profile_memory_id` / `user_profile_consolidated_at`, and the ingest
pipeline's paradigm-shift flag `identity_reconsolidation_pending`. Synthesised memories are
written as single records (never chunked) with their own embedding.

**Consolidation never touches the identity row** (the agent's persona, written only by the
developer). What it learns about the user goes into the one user-profile memory
(`layers.profile`). Each run rebuilds the profile from *live* memories only: the still-live
sources of the current revision, the top memories (salience >= 8; >= 5 at startup, design A)
and the memories created since the last consolidation (>= 5). A source that was superseded or
deleted is simply not read again, so its value leaves the profile. When the pipeline flagged a
paradigm shift (a high-salience identity/preference memory superseded), the next run rebuilds
the profile from scratch (design A's "paradigm shift transition"), writes a
`profile_reconsolidated` event and clears the flag in the same transaction.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..clock import format_ts, parse_ts
from ..embed.calibration import mind_threshold, text_forms
from ..ingest.items import RECONSOLIDATE_KEY
from ..layers.profile import (
    PROFILE_TAG,
    ProfileLayer,
    UserProfile,
    outdated_attributes,
    user_statements,
    without_attributes,
)
from ..models import Memory, MemoryFilter, MemoryType, Source, validate_memory
from ..store.maintenance import MaintenanceLogEntry
from .triggers import Trigger, cluster_vectors, cognitive_trigger, reflection_groups

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy as np

    from ..clock import Clock
    from ..config import Config
    from ..llm.brain import Brain
    from ..store.base import Store

    Embed = Callable[[Sequence[str]], np.ndarray]

log = logging.getLogger(__name__)

LAST_RUN_KEY = "cognitive_last_run_at"
REFLECTION_KEY = "reflection_last_at"
ACTIVITY_KEY = "last_user_activity_at"
#: Memories the engine thinks about (synthesised types are its output, not its input).
BASE_TYPES = [
    t for t in MemoryType if t not in (MemoryType.EPISODE, MemoryType.REFLECTION, MemoryType.IDENTITY)
]
_MAX_ENTITIES = 20
_MAX_RELATED = 500
_WINDOW_LIMIT = 5000
_MAX_POOL = 200  # memories one consolidation reads


@dataclass(slots=True)
class CognitiveReport:
    """What one cognitive run did."""

    at: datetime
    reason: str
    profile: str = "unchanged"  # the user profile: "created", "updated", "unchanged", "skipped"
    paradigm_shift: bool = False  # the profile was re-consolidated from scratch
    episodes: list[str] = field(default_factory=list)
    superseded_episodes: list[str] = field(default_factory=list)
    reflection: str | None = None
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["at"] = self.at.isoformat()
        return d


def _dedupe(names: list[str], limit: int = _MAX_ENTITIES) -> list[str]:
    seen: dict[str, str] = {}
    for n in names:
        key = " ".join(n.lower().split())
        if key and key not in seen:
            seen[key] = n
    return list(seen.values())[:limit]


class CognitiveEngine:
    """Consolidation, episodic synthesis and reflection over one mind.

    Built by the mind's wiring (`salience.wiring.MindServices`) from narrow dependencies: the
    store, the config, the clock, the mind's one brain (whose every call is recorded in
    `ai_interactions`), the passage embedder and the user-profile layer.
    """

    def __init__(
        self,
        store: Store,
        *,
        config: Config,
        clock: Clock,
        brain: Brain,
        embed: Embed,
        profile: ProfileLayer,
    ) -> None:
        self.store = store
        self.cfg = config
        self.clock = clock
        self.brain = brain
        self._embed = embed
        self.profile = profile

    # -- trigger ---------------------------------------------------------------------------
    def note_activity(self, when: datetime | None = None) -> None:
        """Record user activity (ends a lull)."""
        self.store.set_meta(ACTIVITY_KEY, format_ts(when or self.clock.now()) or "")

    def last_activity(self) -> datetime | None:
        """The latest of the recorded activity and the newest non-synthesised memory."""
        newest = self.store.list(
            MemoryFilter(memory_types=BASE_TYPES, include_superseded=True),
            limit=1,
            order="created_desc",
        )
        times = [t for t in (parse_ts(self.store.get_meta(ACTIVITY_KEY)),) if t is not None]
        times += [m.created_at for m in newest if m.created_at is not None]
        return max(times) if times else None

    def unreflected(self) -> int:
        """Non-synthesised memories created since the last cognitive run."""
        since = parse_ts(self.store.get_meta(LAST_RUN_KEY))
        return self.store.count(
            MemoryFilter(memory_types=BASE_TYPES, since=since, include_superseded=True)
        )

    def trigger(self, now: datetime) -> Trigger:
        last = parse_ts(self.store.get_meta(LAST_RUN_KEY))
        if last is None:
            oldest = self.store.list(
                MemoryFilter(memory_types=BASE_TYPES, include_superseded=True),
                limit=1,
                order="created_asc",
            )
            last = oldest[0].created_at if oldest else None
        activity = self.last_activity()
        idle_s = (now - activity).total_seconds() if activity else None
        trig = cognitive_trigger(
            unreflected=self.unreflected(),
            idle_s=idle_s,
            since_last_run_s=(now - last).total_seconds() if last else None,
            buffer_threshold=self.cfg.cognitive_buffer_threshold,
            lull_s=self.cfg.cognitive_lull_s,
            ceiling_s=self.cfg.cognitive_ceiling_s,
        )
        return idle_trigger(
            trig, self._pending_work(), idle_s=idle_s, lull_s=self.cfg.cognitive_lull_s
        )

    def _pending_work(self) -> str | None:
        """Why the profile should be rebuilt soon: a paradigm shift, or attributes of the
        current revision whose memories were superseded (None when neither)."""
        shift = self.pending_shift()
        if shift is not None:
            return f"paradigm shift: {len(shift.get('memory_ids') or [])} core memories superseded"
        stale = self.profile.stale()
        return f"user profile: {len(stale)} attributes lost their memories" if stale else None

    def pending_shift(self) -> dict[str, Any] | None:
        """The paradigm-shift flag the ingest pipeline set ({"since", "memory_ids"}), or None."""
        return parse_shift(self.store.get_meta(RECONSOLIDATE_KEY))

    # -- the run ---------------------------------------------------------------------------
    def run(self, now: datetime, *, reason: str = "explicit") -> CognitiveReport:
        """One cognitive run at `now`: consolidation, episodes, reflection. A failing layer is
        logged and recorded in `errors`; the others still run."""
        report = CognitiveReport(at=now, reason=reason)
        for name, step in (
            ("consolidation", self._consolidate_step),
            ("episodes", self._episodes_step),
            ("reflection", self._reflection_step),
        ):
            try:
                step(now, report)
            except Exception as e:
                log.exception("cognitive %s failed for mind %s", name, self.store.mind)
                report.errors.append(f"{name}: {type(e).__name__}: {e}")
        self.store.set_meta(LAST_RUN_KEY, format_ts(now) or "")
        self.store.log_maintenance(
            MaintenanceLogEntry(
                kind="cognitive",
                count=len(report.episodes) + (report.reflection is not None),
                ids=[*report.episodes, *([report.reflection] if report.reflection else [])],
                created_at=now,
                details={
                    "reason": reason, "profile": report.profile,
                    "paradigm_shift": report.paradigm_shift, "errors": report.errors,
                },
            )
        )
        return report

    # -- consolidation ---------------------------------------------------------------------
    def _consolidate_step(self, now: datetime, report: CognitiveReport) -> None:
        report.profile, report.paradigm_shift = self._consolidate(now)

    def consolidate(self, *, now: datetime | None = None) -> str:
        """Rebuild the user profile from live memories (see the module docstring); returns
        "created", "updated", "unchanged" or "skipped" (nothing the user said to build one
        from). Never changes the identity row."""
        return self._consolidate(now or self.clock.now())[0]

    def _consolidate(self, now: datetime) -> tuple[str, bool]:
        layer = self.profile
        cur = layer.get()
        flag_raw = self.store.get_meta(RECONSOLIDATE_KEY)
        shift = parse_shift(flag_raw)
        kept, complete = self._live_sources(cur) if shift is None else ([], False)
        successors = self._successors(shift) if shift is not None else []
        pool = self._pool(cur, layer.consolidated_at(), shift is not None, [*kept, *successors])
        if not pool and cur is None:
            if shift is not None:  # nothing to rebuild: the flag has been dealt with
                self._clear_shift(flag_raw)
            return "skipped", False
        watermark = layer.consolidated_at()
        if (
            shift is None
            and cur is not None
            and complete
            and watermark is not None
            and all(m.created_at is not None and m.created_at <= watermark for m in pool)
        ):
            return "unchanged", False  # nothing new, every source still live: no model call
        statements = user_statements(pool)
        clean = cur is not None and complete and shift is None
        previous = cur.as_brain_profile() if cur is not None and clean else None
        if statements:
            profile = self.brain.consolidate(
                statements, previous=previous, paradigm_shift=shift is not None
            )
            outdated = outdated_attributes(profile, statements)
            if outdated:  # the user announced a change the engine could not read
                profile = without_attributes(profile, outdated)
        else:
            from ..llm.brain import IdentityProfile

            profile = IdentityProfile(profile="")
        if cur is None and not profile.attributes and not profile.traits:
            if shift is not None:
                self._clear_shift(flag_raw)
            return "skipped", False  # nothing about the user yet: no empty profile memory
        cited = [i for ids in profile.sources.values() for i in ids]
        source_ids = cited or [m.id for m in statements]
        event = meta = None
        if shift is not None:
            event = {
                "reason": "paradigm_shift", "since": shift.get("since"),
                "superseded": list(shift.get("memory_ids") or []),
                "successors": [m.id for m in successors],
                "previous_profile": cur.memory_id if cur is not None else None,
                "changed": _changed(cur, profile.attributes),
            }
            # clear the flag unless the pipeline flagged another shift meanwhile
            if self.store.get_meta(RECONSOLIDATE_KEY) == flag_raw:
                meta = {RECONSOLIDATE_KEY: ""}
        status = layer.write(
            profile, source_ids=source_ids, now=now,
            reason="paradigm_shift" if shift is not None else "consolidation",
            event=event, meta=meta,
        )
        return status, shift is not None

    def _live_sources(self, cur: UserProfile | None) -> tuple[list[Memory], bool]:
        """The current revision's sources that are still live, and whether all of them are."""
        if cur is None or not cur.source_ids:
            return [], cur is not None
        found = self.store.get_many(cur.source_ids)
        live = [m for m in found if m.superseded_by is None]
        return live, len(live) == len(set(cur.source_ids))

    def _successors(self, shift: dict[str, Any]) -> list[Memory]:
        """The live memories that superseded the flagged ones (the new facts)."""
        ids = [str(i) for i in shift.get("memory_ids") or []]
        nxt = [m.superseded_by for m in self.store.get_many(ids) if m.superseded_by]
        found = self.store.get_many(list(dict.fromkeys(nxt)))
        return [m for m in found if m.superseded_by is None and PROFILE_TAG not in m.tags]

    def _pool(
        self, cur: UserProfile | None, watermark: datetime | None, scratch: bool,
        extra: Sequence[Memory],
    ) -> list[Memory]:
        """The live memories one consolidation reads: `extra` (kept sources, new facts of a
        paradigm shift), the top memories (salience >= 8; >= 5 at startup or from scratch)
        and those created since the last consolidation (>= 5); most salient first."""
        startup = cur is None or scratch
        low = self.cfg.consolidation_startup_min_salience
        threshold = low if startup else self.cfg.consolidation_min_salience
        limit = self.cfg.consolidation_limit
        found = list(extra) + self.store.list(
            MemoryFilter(memory_types=BASE_TYPES, min_salience=threshold),
            limit=limit,
            order="salience_desc",
        )
        if not startup and watermark is not None:
            found += self.store.list(
                MemoryFilter(memory_types=BASE_TYPES, min_salience=low, since=watermark),
                limit=limit,
                order="salience_desc",
            )
        pool: dict[str, Memory] = {}
        for m in found:
            if m.superseded_by is None and PROFILE_TAG not in m.tags:
                pool.setdefault(m.id, m)
        ranked = sorted(
            pool.values(),
            key=lambda m: (-m.salience, -(m.created_at.timestamp() if m.created_at else 0.0)),
        )
        return ranked[:_MAX_POOL]

    def _clear_shift(self, flag_raw: str | None) -> None:
        if self.store.get_meta(RECONSOLIDATE_KEY) == flag_raw:
            self.store.set_meta(RECONSOLIDATE_KEY, "")

    # -- episodes --------------------------------------------------------------------------
    def _episodes_step(self, now: datetime, report: CognitiveReport) -> None:
        new, superseded = self.synthesize_episodes(now)
        report.episodes += new
        report.superseded_episodes += superseded

    def synthesize_episodes(self, now: datetime) -> tuple[list[str], list[str]]:
        """Cluster the last `episode_window_h` hours of memories by their stored vectors and
        write one episode per cluster of `episode_min_cluster`+ members; returns (new episode
        ids, ids of episodes they superseded)."""
        since = now - timedelta(hours=self.cfg.episode_window_h)
        window = self.store.list(
            MemoryFilter(memory_types=BASE_TYPES, since=since),
            limit=_WINDOW_LIMIT,
            order="created_asc",
        )
        vecs = self.store.get_vectors([m.id for m in window])
        window = [m for m in window if m.id in vecs]
        if len(window) < self.cfg.episode_min_cluster:
            return [], []
        import numpy as np

        clusters = cluster_vectors(
            np.stack([vecs[m.id] for m in window]),
            mind_threshold(  # calibrated to the mind's embedder (issue 14)
                self.store, self.cfg, "episode_cluster_similarity", self._embed,
                forms=text_forms(m.content for m in window),
            ),
        )
        recent = self.store.list(
            MemoryFilter(memory_types=[MemoryType.EPISODE], since=since - timedelta(days=1)),
            limit=_WINDOW_LIMIT,
        )
        known = [set(e.related_ids) for e in recent]
        new_ids: list[str] = []
        superseded: list[str] = []
        for cluster in clusters:
            members = [window[i] for i in cluster]
            ids = [m.id for m in members]
            if len(members) < self.cfg.episode_min_cluster or set(ids) in known:
                continue
            made = self._write_episode(members, now)
            if made is not None:
                new_ids.append(made[0])
                superseded += made[1]
                known.append(set(ids))
        return new_ids, superseded

    def _write_episode(self, members: list[Memory], now: datetime) -> tuple[str, list[str]] | None:
        brain = self.brain
        ep = brain.synthesize_episode(members)
        text = ep.render()
        entities = _dedupe([*ep.entities, *brain.extract_entities(text)])
        times = [t for t in (m.occurred_at or m.created_at for m in members) if t is not None]
        rec = self._record(
            text,
            summary=ep.title,
            memory_type=MemoryType.EPISODE,
            salience=self.cfg.episode_salience,
            related_ids=[m.id for m in members],
            entities=entities,
            tags=["episode"],
            occurred_at=max(times) if times else None,
            metadata={"members": len(members), "window_h": self.cfg.episode_window_h},
            now=now,
        )
        same = self.store.find_by_hash(rec.content_hash)
        if same is not None:  # the same summary: the existing episode now covers every member
            old = self.store.get(same)
            if old is not None and old.memory_type is MemoryType.EPISODE:
                merged = list(dict.fromkeys([*old.related_ids, *rec.related_ids]))
                self.store.update([old.copy(related_ids=merged, updated_at=now)])
            return None
        vec = self._embed([rec.content])
        near = self.store.search_vector(
            vec[0], limit=3, flt=MemoryFilter(memory_types=[MemoryType.EPISODE])
        )
        self.store.insert([rec], vec)
        dedup = mind_threshold(  # calibrated to the mind's embedder (issue 14)
            self.store, self.cfg, "episode_dedup_distance", self._embed,
            forms=text_forms([rec.content]),
        )
        olds = [c.id for c in near if 1.0 - c.score <= dedup and c.id != rec.id]
        replaced = []
        for old in self.store.get_many(olds):
            self.store.update([old.copy(superseded_by=rec.id, updated_at=now)])
            replaced.append(old.id)
        return rec.id, replaced

    # -- reflection --------------------------------------------------------------------------
    def _reflection_step(self, now: datetime, report: CognitiveReport) -> None:
        report.reflection = self.reflect(now)

    def reflect(self, now: datetime, *, force: bool = False) -> str | None:
        """Write a reflection when `reflection_every` new memories arrived since the last one
        (or `force`), over the source/type groups of at least `reflection_min_group`; returns
        its id (None when not due or no group qualifies)."""
        since = parse_ts(self.store.get_meta(REFLECTION_KEY))
        flt = MemoryFilter(memory_types=BASE_TYPES, since=since)
        if not force and self.store.count(flt) < self.cfg.reflection_every:
            return None
        new = self.store.list(flt, limit=_WINDOW_LIMIT, order="created_asc")
        groups = reflection_groups(new, self.cfg.reflection_min_group)
        if not groups:
            return None
        chosen = [m for m in new if f"{m.source.value}/{m.memory_type.value}" in groups]
        brain = self.brain
        refl = brain.reflect(chosen)
        text = refl.render()
        sizes = ", ".join(f"{k} ({len(v)})" for k, v in groups.items())
        rec = self._record(
            text,
            summary=f"Reflection over {len(chosen)} memories: {sizes}",
            memory_type=MemoryType.REFLECTION,
            salience=self.cfg.reflection_salience,
            related_ids=[m.id for m in chosen][-_MAX_RELATED:],
            entities=_dedupe([*refl.entities, *brain.extract_entities(text)]),
            tags=["reflection"],
            metadata={"groups": {k: len(v) for k, v in groups.items()}},
            now=now,
        )
        if self.store.find_by_hash(rec.content_hash) is None:
            self.store.insert([rec], self._embed([rec.content]))
        self.store.set_meta(REFLECTION_KEY, format_ts(now) or "")
        return rec.id

    def _record(self, content: str, *, now: datetime, **fields: Any) -> Memory:
        return validate_memory(
            Memory(
                content=content,
                source=Source.AGENT_INFERRED,
                created_at=now,
                updated_at=now,
                **fields,
            ),
            max_bytes=self.cfg.max_content_bytes,
        )


def parse_shift(value: str | None) -> dict[str, Any] | None:
    """The paradigm-shift flag's payload, or None when no shift is pending ("" = cleared)."""
    if not value:
        return None
    try:
        data = json.loads(value)
    except ValueError:
        return {"since": None, "memory_ids": []}  # unreadable, but set: re-consolidate anyway
    return data if isinstance(data, dict) else {"since": None, "memory_ids": []}


def idle_trigger(
    trigger: Trigger, pending: str | None, *, idle_s: float | None, lull_s: float
) -> Trigger:
    """Work that should not wait for the buffer or the ceiling — a paradigm shift, a profile
    whose memories were superseded — fires a run once the user is idle (design A's lull): the
    profile should not keep a flipped core fact for hours."""
    if trigger.fire or pending is None:
        return trigger
    if idle_s is None or idle_s >= lull_s:
        return Trigger(True, f"{pending}, idle")
    return trigger


def _changed(cur: UserProfile | None, attributes: dict[str, str]) -> list[str]:
    """Attribute names whose value differs between a revision and new attributes."""
    before = cur.attributes if cur is not None else {}
    return sorted(k for k in set(before) | set(attributes) if before.get(k) != attributes.get(k))
