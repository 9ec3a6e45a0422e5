"""The cognitive engine (design A, "Higher-Order Synthesis Layers"): consolidation into the
identity row, episodic synthesis and reflection, fired by `cognitive_trigger`.

State lives in meta: `cognitive_last_run_at`, `reflection_last_at`, `last_user_activity_at`.
Synthesised memories are written as single records (never chunked) with their own embedding;
the identity profile goes through the identity layer (`mind.identity`), which mirrors it into
the one identity-typed memory.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..clock import format_ts, parse_ts
from ..embed.calibration import mind_threshold, text_forms
from ..models import Memory, MemoryFilter, MemoryType, Source, validate_memory
from ..store.maintenance import MaintenanceLogEntry
from .triggers import Trigger, cluster_vectors, cognitive_trigger, reflection_groups

if TYPE_CHECKING:
    from ..llm.brain import Brain, IdentityProfile
    from ..mind import Mind

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


@dataclass(slots=True)
class CognitiveReport:
    """What one cognitive run did."""

    at: datetime
    reason: str
    identity: str = "unchanged"  # "created", "updated", "unchanged", "skipped"
    episodes: list[str] = field(default_factory=list)
    superseded_episodes: list[str] = field(default_factory=list)
    reflection: str | None = None
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["at"] = self.at.isoformat()
        return d


def _brain(mind: Mind) -> Brain:
    brain = mind.__dict__.get("brain")
    if brain is None:
        from ..llm import make_brain

        brain = mind.__dict__["brain"] = make_brain(mind.config)
    return brain


def _dedupe(names: list[str], limit: int = _MAX_ENTITIES) -> list[str]:
    seen: dict[str, str] = {}
    for n in names:
        key = " ".join(n.lower().split())
        if key and key not in seen:
            seen[key] = n
    return list(seen.values())[:limit]


class CognitiveEngine:
    """Consolidation, episodic synthesis and reflection over one mind."""

    def __init__(self, mind: Mind) -> None:
        self.mind = mind
        self.store = mind.store
        self.cfg = mind.config

    # -- trigger ---------------------------------------------------------------------------
    def note_activity(self, when: datetime | None = None) -> None:
        """Record user activity (ends a lull)."""
        self.store.set_meta(ACTIVITY_KEY, format_ts(when or self.mind.clock.now()) or "")

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
        return cognitive_trigger(
            unreflected=self.unreflected(),
            idle_s=(now - activity).total_seconds() if activity else None,
            since_last_run_s=(now - last).total_seconds() if last else None,
            buffer_threshold=self.cfg.cognitive_buffer_threshold,
            lull_s=self.cfg.cognitive_lull_s,
            ceiling_s=self.cfg.cognitive_ceiling_s,
        )

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
                details={"reason": reason, "identity": report.identity, "errors": report.errors},
            )
        )
        return report

    # -- consolidation ---------------------------------------------------------------------
    def _consolidate_step(self, now: datetime, report: CognitiveReport) -> None:
        report.identity = self.consolidate(startup=self.mind.identity.get() is None)

    def consolidate(self, *, startup: bool = False) -> str:
        """Update the identity row from the top memories (salience >= 8, or >= 5 at startup);
        returns "created", "updated", "unchanged" or "skipped" (no qualifying memories)."""
        threshold = (
            self.cfg.consolidation_startup_min_salience
            if startup
            else self.cfg.consolidation_min_salience
        )
        top = self.store.list(
            MemoryFilter(memory_types=BASE_TYPES, min_salience=threshold),
            limit=self.cfg.consolidation_limit,
            order="salience_desc",
        )
        if not top:
            return "skipped"
        from ..llm.brain import IdentityProfile

        layer = self.mind.identity
        ident = layer.get()
        previous = None
        if ident is not None:
            traits = ident.traits or {}
            previous = IdentityProfile(
                profile=ident.personality,
                attributes=dict(traits.get("attributes") or {}),
                traits=list(traits.get("traits") or []),
            )
        profile = _brain(self.mind).consolidate(top, previous=previous)
        fields = _identity_fields(profile, ident.traits if ident else {})
        if ident is None:
            name = profile.attributes.get("name") or self.store.mind
            layer.create(name, **fields)
            return "created"
        changes = {k: v for k, v in fields.items() if getattr(ident, k) != v}
        if not changes:
            return "unchanged"
        layer.update(**changes)
        return "updated"

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
                self.store, self.cfg, "episode_cluster_similarity", self.mind._embed_passages,
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
        brain = _brain(self.mind)
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
        vec = self.mind._embed_passages([rec.content])
        near = self.store.search_vector(
            vec[0], limit=3, flt=MemoryFilter(memory_types=[MemoryType.EPISODE])
        )
        self.store.insert([rec], vec)
        dedup = mind_threshold(  # calibrated to the mind's embedder (issue 14)
            self.store, self.cfg, "episode_dedup_distance", self.mind._embed_passages,
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
        brain = _brain(self.mind)
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
            self.store.insert([rec], self.mind._embed_passages([rec.content]))
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


def _identity_fields(profile: IdentityProfile, old_traits: dict[str, Any]) -> dict[str, Any]:
    """Identity-row fields from a consolidated profile: the readable profile is the
    personality, the occupation the role, traits and attributes go into `traits`."""
    fields: dict[str, Any] = {
        "personality": profile.profile,
        "traits": {**old_traits, "traits": list(profile.traits),
                   "attributes": dict(profile.attributes)},
    }
    role = profile.attributes.get("occupation")
    if role:
        fields["role"] = role
    return fields
