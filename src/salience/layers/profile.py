"""The user profile: what consolidation learned about the user, kept apart from the persona.

Design A's consolidation writes "the identity profile" — a profile of the *user*. Salience's
identity row is the *agent's persona* (design B §4), written only by the developer. When
consolidation wrote into that row, a persona created as "personal assistant, friendly,
concise" became role "data analyst", personality "Lives in: Södermalm. …" — so the two are
separate (docs/architecture.md, "Identity: one source of truth"):

- **one live memory** holds the profile: memory_type `identity` (design A's type for the
  consolidated profile; exempt from pruning and from the cognitive engine's input), tag
  `user-profile`, source `agent_inferred`, salience 10, pinned; its id is in meta
  `user_profile_memory_id`. The content is the readable profile, so recall can find it; the
  structured profile (attributes, traits, per-attribute sources, revision) is in
  `metadata["user_profile"]`;
- **history is kept by supersession**: a change writes a new revision that supersedes the
  previous one (never deleted), so `mind.history(profile_id)` lists every revision and
  `search_as_of` sees the profile of any date. An unchanged profile writes nothing;
- `context()` renders it as `# About the User` within its own budget (`ProfileLayer.to_context`).

The profile is rebuilt from live memories only (see `maintenance.cognitive`), so a value
whose memory was superseded never reaches it. Only the user's own words are read
(`user_statements`): the assistant's replies, emails and calendar entries are not the user
speaking about themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..clock import format_ts, parse_ts
from ..models import (
    PROFILE_TAG,
    Importance,
    Memory,
    MemoryFilter,
    MemoryType,
    Source,
    validate_memory,
)
from ..models.tokens import fit_lines
from ..store.ingest import IngestBatch, MindEvent

if TYPE_CHECKING:
    import numpy as np

    from ..config import Config
    from ..llm.brain import IdentityProfile
    from ..store.base import Store

PROFILE_MEMORY_KEY = "user_profile_memory_id"
#: meta key: when the profile was last consolidated (memories created since are "new")
PROFILE_CONSOLIDATED_KEY = "user_profile_consolidated_at"
PROFILE_HEADING = "# About the User"
PROFILE_BUDGET_TOKENS = 400
#: event written when a paradigm shift re-consolidated the profile from scratch
PROFILE_EVENT = "profile_reconsolidated"
_META = "user_profile"
_MAX_RELATED = 500
_NOT_THE_USER = frozenset({Source.IMPORT, Source.SYSTEM})  # emails, calendars, system text


@dataclass(frozen=True, slots=True)
class UserProfile:
    """One revision of the user profile, read from its memory."""

    memory_id: str
    revision: int
    text: str  # readable profile, one "Label: value." line per attribute
    attributes: dict[str, str] = field(default_factory=dict)
    traits: list[str] = field(default_factory=list)
    sources: dict[str, list[str]] = field(default_factory=dict)  # attribute -> memory ids
    source_ids: list[str] = field(default_factory=list)  # every memory it was built from
    reason: str = "consolidation"  # or "paradigm_shift"
    created_at: datetime | None = None
    superseded_by: str | None = None

    @classmethod
    def from_memory(cls, m: Memory) -> UserProfile | None:
        """The profile a memory holds (None when it is not a profile memory)."""
        data = m.metadata.get(_META)
        if PROFILE_TAG not in m.tags or not isinstance(data, dict):
            return None
        return cls(
            memory_id=m.id,
            revision=int(data.get("revision") or 1),
            text=str(data.get("text") or ""),
            attributes={str(k): str(v) for k, v in (data.get("attributes") or {}).items()},
            traits=[str(t) for t in data.get("traits") or []],
            sources={str(k): [str(i) for i in v] for k, v in (data.get("sources") or {}).items()},
            source_ids=list(m.related_ids),
            reason=str(data.get("reason") or "consolidation"),
            created_at=m.created_at,
            superseded_by=m.superseded_by,
        )

    def as_brain_profile(self) -> IdentityProfile:
        """This revision as the `previous` profile of a consolidation."""
        from ..llm.brain import IdentityProfile

        return IdentityProfile(
            profile=self.text,
            attributes=dict(self.attributes),
            traits=list(self.traits),
            sources={k: list(v) for k, v in self.sources.items()},
        )


def stale_attributes(profile: UserProfile, live: set[str]) -> set[str]:
    """Attributes of a revision that no live memory backs any more (pure). A revision is
    written by a cognitive run; when one of its sources is superseded or deleted before the
    next run, what came only from that source must not be shown meanwhile: an attribute whose
    sources are all gone is stale, and so is one of unknown provenance (an LLM answer citing
    nothing) in a revision that lost a source."""
    if set(profile.source_ids) <= live:
        return set()
    return {
        key for key in profile.attributes
        if not set(profile.sources.get(key) or ()) & live
    }


def live_text(profile: UserProfile, stale: set[str]) -> str:
    """The revision's text, re-rendered without `stale` attributes when there are any."""
    if not stale:
        return profile.text
    from ..llm.heuristic.identity import render_attributes

    kept = {k: v for k, v in profile.attributes.items() if k not in stale}
    return render_attributes(kept, profile.traits) if kept or profile.traits else ""


_FIRST_PERSON = frozenset({"i", "i'm", "im", "i've", "ive", "i'd", "we", "we're", "we've",
                           "my", "our", "me", "us"})


def outdated_attributes(profile: IdentityProfile, statements: Sequence[Memory]) -> set[str]:
    """Attributes of `profile` whose value the user names again, after every memory the value
    came from, in a statement announcing a change (pure): "keiko got promoted to VP so now i
    report to some guy called Ravi" outdates manager Keiko, "i'm not vegetarian anymore" the
    diet — whether or not the new value was read; a time word alone ("I love Lisbon now")
    outdates nothing. A profile without the value is
    better than one that states the old one in every system prompt.

    `statements` are the user's own words (`user_statements`); an attribute without sources,
    or whose sources are not among them, is kept."""
    from ..llm.heuristic.discourse import announces_update
    from ..llm.heuristic.lexicon import STOPWORDS
    from ..llm.heuristic.text import words

    by_id = {m.id: m for m in statements}
    said = [
        (m, m.occurred_at or m.created_at, {w.lower() for w in words(m.content)})
        for m in statements if announces_update(m.content, strong=True)
    ]
    said = [(m, t, ws) for m, t, ws in said if t is not None and ws & _FIRST_PERSON]
    out: set[str] = set()
    for key, value in profile.attributes.items():
        srcs = [by_id[i] for i in profile.sources.get(key) or () if i in by_id]
        times = [m.occurred_at or m.created_at for m in srcs]
        if not srcs or any(t is None for t in times):
            continue
        last = max(times)  # type: ignore[type-var]
        named = {w.lower() for w in words(value) if len(w) >= 3} - STOPWORDS
        if named and any(t > last and m.id not in {s.id for s in srcs} and named & ws
                         for m, t, ws in said):
            out.add(key)
    return out


def without_attributes(profile: IdentityProfile, keys: set[str]) -> IdentityProfile:
    """`profile` without the attributes `keys` (its text re-rendered from what is left)."""
    from dataclasses import replace as _replace

    from ..llm.heuristic.identity import render_attributes

    kept = {k: v for k, v in profile.attributes.items() if k not in keys}
    return _replace(
        profile, attributes=kept,
        sources={k: v for k, v in profile.sources.items() if k not in keys},
        profile=render_attributes(kept, profile.traits) if kept or profile.traits else "",
    )


def render_profile(text: str, budget_tokens: int = PROFILE_BUDGET_TOKENS) -> str:
    """The `# About the User` section of a profile text ("" when it is empty)."""
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    return fit_lines([PROFILE_HEADING, *lines], budget_tokens)


def _turn_lines(content: str) -> list[tuple[str | None, str]]:
    """(speaker, text) per line; an unlabelled line continues the previous speaker."""
    from ..llm.heuristic.text import split_speaker

    out: list[tuple[str | None, str]] = []
    current: str | None = None
    for line in content.splitlines():
        who, said = split_speaker(line)
        if who is not None:
            current = who.lower()
        out.append((current, said if who is not None else line))
    return out


def user_statements(memories: Sequence[Memory]) -> list[Memory]:
    """Copies of `memories` holding only what the user said (content = the user's words,
    no summary), leaving out memories where the user said nothing:

    - in a conversation turn ("User: … / Assistant: …") the user's lines; when no memory has
      a "User:" line and exactly one named person speaks ("Alice: …"), that person's lines —
      with several named speakers (a chat between people) nobody's is taken for the user's;
    - other text is the user's own unless it was imported (emails, calendars) or written by
      the system; the profile memory itself is never read.
    """
    parsed = [(m, _turn_lines(m.content)) for m in memories if PROFILE_TAG not in m.tags]
    speakers = {who for _, lines in parsed for who, _ in lines if who is not None}
    speakers.discard("assistant")
    user = "user" if "user" in speakers or len(speakers) != 1 else next(iter(speakers))
    out: list[Memory] = []
    for m, lines in parsed:
        said = [
            text
            for who, text in lines
            if who == user or (who is None and m.source not in _NOT_THE_USER)
        ]
        text = "\n".join(said).strip()
        if text:
            out.append(m.copy(content=text, summary=""))
    return out


def profile_record(
    profile: IdentityProfile,
    *,
    revision: int,
    source_ids: Sequence[str],
    previous_id: str | None,
    reason: str,
    now: datetime,
    max_bytes: int,
    chunk_bytes: int,
) -> Memory:
    """The memory of one profile revision (pure): readable content that fits one chunk,
    the structured profile in metadata, its sources as `related_ids`."""
    text = profile.profile.strip() if profile.attributes or profile.traits else ""
    head = f"About the user (profile revision {revision}, {now.date().isoformat()}):"
    body = text or "Nothing recorded about the user."
    # fit one chunk: ≈ 4 characters per token, ≤ 2 UTF-8 bytes per character assumed
    content = fit_lines([head, *body.splitlines()], max(16, chunk_bytes // 8))
    meta: dict[str, Any] = {
        _META: {
            "revision": revision,
            "text": text,
            "attributes": dict(profile.attributes),
            "traits": list(profile.traits),
            "sources": {k: list(v) for k, v in profile.sources.items()},
            "reason": reason,
            "previous_id": previous_id,
        }
    }
    return validate_memory(
        Memory(
            content=content,
            memory_type=MemoryType.IDENTITY,
            importance=Importance.IMPORTANT,
            source=Source.AGENT_INFERRED,
            salience=10.0,
            pinned=True,
            tags=[PROFILE_TAG],
            related_ids=list(dict.fromkeys(source_ids))[-_MAX_RELATED:],
            metadata=meta,
            created_at=now,
            updated_at=now,
        ),
        max_bytes=max_bytes,
    )


def same_profile(a: UserProfile, b: IdentityProfile) -> bool:
    """Whether a stored revision already says what a consolidated profile says."""
    text = b.profile.strip() if b.attributes or b.traits else ""
    return a.text == text and a.attributes == dict(b.attributes) and a.traits == list(b.traits)


class ProfileLayer:
    """get / history / to_context / write over the one live user-profile memory."""

    def __init__(
        self,
        store: Store,
        *,
        config: Config,
        embed: Callable[[Sequence[str]], np.ndarray],
        history: Callable[[str], list[Memory]],
    ) -> None:
        """`embed` embeds passages (pinning the mind's embedder); `history` is the supersession
        chain through a memory id (`IngestService.history`)."""
        self._store = store
        self._config = config
        self._embed = embed
        self._history = history

    def memory(self) -> Memory | None:
        """The live profile memory: the one meta points at, else the newest live memory
        tagged `user-profile` (meta is not part of an export).

        Only the next revision supersedes a revision. If something else did (the ingest
        pipeline's contradiction check took the profile's text for a claim), the revision
        stays current, and the next write re-links it to its successor."""
        mid = self._store.get_meta(PROFILE_MEMORY_KEY)
        m = self._store.get(mid) if mid else None
        if m is not None and PROFILE_TAG in m.tags and not self._replaced(m):
            return m
        found = self._store.list(
            MemoryFilter(memory_types=[MemoryType.IDENTITY], tags=[PROFILE_TAG]),
            limit=1,
            order="created_desc",
        )
        return found[0] if found else None

    def _replaced(self, m: Memory) -> bool:
        """Whether a newer profile revision superseded `m`."""
        if m.superseded_by is None:
            return False
        nxt = self._store.get(m.superseded_by)
        return nxt is not None and PROFILE_TAG in nxt.tags

    def get(self) -> UserProfile | None:
        """The current profile (None before the first consolidation)."""
        m = self.memory()
        return UserProfile.from_memory(m) if m is not None else None

    def history(self) -> list[UserProfile]:
        """Every revision, oldest first (the supersession chain of the live profile)."""
        m = self.memory()
        if m is None:
            return []
        chain = self._history(m.id)
        return [p for p in (UserProfile.from_memory(x) for x in chain) if p is not None]

    def stale(self, profile: UserProfile | None = None) -> set[str]:
        """Attributes of the current revision whose memories were superseded or deleted since
        it was written (hidden until the next consolidation rebuilds the profile)."""
        p = profile or self.get()
        if p is None or not p.source_ids:
            return set()
        live = {m.id for m in self._store.get_many(p.source_ids) if m.superseded_by is None}
        return stale_attributes(p, live)

    def consolidated_at(self) -> datetime | None:
        """When the profile was last consolidated (changed or not)."""
        return parse_ts(self._store.get_meta(PROFILE_CONSOLIDATED_KEY))

    def to_context(self, budget_tokens: int = PROFILE_BUDGET_TOKENS) -> str:
        """The `# About the User` prompt section ("" when nothing is known), without the
        attributes whose memories were superseded since the revision was written."""
        p = self.get()
        return render_profile(live_text(p, self.stale(p)), budget_tokens) if p else ""

    def write(
        self,
        profile: IdentityProfile,
        *,
        source_ids: Sequence[str],
        now: datetime,
        reason: str = "consolidation",
        event: Mapping[str, Any] | None = None,
        meta: Mapping[str, str] | None = None,
    ) -> str:
        """Store a consolidated profile: a new revision superseding the current one when it
        says something else ("created" / "updated"), nothing when it says the same
        ("unchanged"). `event` (a payload) is written as a `profile_reconsolidated` event and
        `meta` as meta keys, in the same transaction."""
        cur_mem = self.memory()
        cur = UserProfile.from_memory(cur_mem) if cur_mem is not None else None
        batch = IngestBatch(
            now=now, meta={PROFILE_CONSOLIDATED_KEY: format_ts(now) or "", **(meta or {})}
        )
        status = "unchanged"
        target = cur.memory_id if cur is not None else None
        if cur is None or not same_profile(cur, profile):
            cfg = self._config
            revision = (cur.revision if cur is not None else self._last_revision()) + 1
            previous_id = (
                cur.memory_id if cur is not None else self._store.get_meta(PROFILE_MEMORY_KEY)
            )
            while True:  # a revision never deduplicates into an older one with the same text
                rec = profile_record(
                    profile,
                    revision=revision,
                    source_ids=source_ids,
                    previous_id=previous_id,
                    reason=reason,
                    now=now,
                    max_bytes=cfg.max_content_bytes,
                    chunk_bytes=cfg.chunk_bytes,
                )
                if self._store.find_by_hash(rec.content_hash) is None:
                    break
                revision += 1
            batch.memories.append(rec)
            batch.vectors = self._embed([rec.content])
            if cur_mem is not None and cur_mem.superseded_by is not None:
                # superseded by something that is not a revision: the revision chain wins
                self._store.update([cur_mem.copy(superseded_by=None, updated_at=now)])
            if cur is not None:
                batch.supersede.append((cur.memory_id, rec.id))
            batch.meta[PROFILE_MEMORY_KEY] = rec.id
            status, target = ("updated" if cur is not None else "created"), rec.id
        elif cur_mem is not None and (
            set(source_ids) != set(cur.source_ids) or dict(profile.sources) != cur.sources
        ):
            # the same profile, now backed by other memories: keep its sources current
            data = {
                **cur_mem.metadata[_META],
                "sources": {k: list(v) for k, v in profile.sources.items()},
            }
            self._store.update(
                [
                    cur_mem.copy(
                        related_ids=list(dict.fromkeys(source_ids))[-_MAX_RELATED:],
                        metadata={**cur_mem.metadata, _META: data},
                        updated_at=now,
                    )
                ]
            )
        if event is not None:
            batch.events.append(
                MindEvent(
                    kind=PROFILE_EVENT,
                    created_at=now,
                    memory_id=target,
                    related_id=cur.memory_id
                    if cur is not None and target != cur.memory_id
                    else None,
                    payload={**event, "status": status},
                )
            )
        self._store.commit_ingest(batch)
        return status

    def _last_revision(self) -> int:
        """The highest revision ever stored (0 when none): a new chain continues the count."""
        older = self._store.list(
            MemoryFilter(
                memory_types=[MemoryType.IDENTITY], tags=[PROFILE_TAG], include_superseded=True
            ),
            limit=1,
            order="created_desc",
        )
        p = UserProfile.from_memory(older[0]) if older else None
        return p.revision if p is not None else 0
