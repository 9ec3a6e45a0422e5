"""Record types shared by every backend and every interface.

A `Memory` is design A's `memories` row and design B's `memory_frames` row merged into one
record (see docs/architecture.md for the field-by-field mapping).
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from enum import StrEnum
from typing import Any, TypeVar

from ..checks import (
    LABELS_MAX,
    RELATED_MAX,
    SUMMARY_MAX_BYTES,
    check_bool,
    check_datetime,
    check_int,
    check_json_object,
    check_label,
    check_text,
)
from ..errors import InvalidInput

E = TypeVar("E", bound=StrEnum)


class MemoryType(StrEnum):
    """What a memory is (design A's memory_type)."""

    GENERAL = "general"
    FACT = "fact"
    PREFERENCE = "preference"
    EVENT = "event"
    EMAIL = "email"
    CALENDAR = "calendar"
    EPISODE = "episode"
    REFLECTION = "reflection"
    IDENTITY = "identity"


class Importance(StrEnum):
    """Design B's importance class; drives compaction and the RRF importance weight."""

    CRITICAL = "critical"
    IMPORTANT = "important"
    NORMAL = "normal"
    TEMPORARY = "temporary"
    DEPRECATED = "deprecated"


class Source(StrEnum):
    """Where a memory came from (design B); drives design A's grounded/parametric thresholds."""

    USER_STATED = "user_stated"
    TOOL_VERIFIED = "tool_verified"
    AGENT_INFERRED = "agent_inferred"
    IMPORT = "import"
    SYSTEM = "system"


class FrameType(StrEnum):
    """Design B's frame types: I (index/snapshot), P (patch on an I-frame), B (branch)."""

    I = "I"  # noqa: E741
    P = "P"
    B = "B"


IMPORTANCE_WEIGHTS: dict[Importance, float] = {
    Importance.CRITICAL: 2.0,
    Importance.IMPORTANT: 1.5,
    Importance.NORMAL: 1.0,
    Importance.TEMPORARY: 0.7,
    Importance.DEPRECATED: 0.3,
}

SALIENCE_MIN = 1.0
SALIENCE_MAX = 10.0


def parse_enum(enum: type[E], value: E | str, what: str) -> E:
    """Coerce `value` into `enum`, raising `InvalidInput` that lists the allowed values."""
    if isinstance(value, enum):
        return value
    try:
        return enum(str(value).strip().lower() if enum is not FrameType else str(value).strip())
    except ValueError:
        allowed = ", ".join(m.value for m in enum)
        raise InvalidInput(f"unknown {what} {value!r}; expected one of: {allowed}") from None


def content_hash(content: str) -> str:
    """SHA-256 of the trimmed content (design B §6.5): whitespace at the ends never duplicates."""
    return hashlib.sha256(content.strip().encode("utf-8")).hexdigest()


_id_lock = threading.Lock()
_id_last = [0, 0]  # (ms, sequence) of the last id made by this process


def pick_id(prefix: str, matches: Sequence[str], *, what: str = "record") -> str:
    """The one id of `matches` (the ids starting with `prefix`), or an error: `NotFound` for
    none, `AmbiguousId` listing them (at most 10) for several."""
    from ..errors import AmbiguousId, NotFound

    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise NotFound(f"no {what} has an id starting with {prefix!r} (not found)")
    shown = ", ".join(matches[:10]) + (" …" if len(matches) > 10 else "")
    raise AmbiguousId(f"id prefix {prefix!r} is ambiguous: {shown}; give more characters")


def new_id() -> str:
    """A 32-hex-character id: 48-bit ms timestamp, 16-bit sequence, 64 random bits.

    Ids made by one process are strictly increasing, even within a millisecond or if the wall
    clock steps back, so sorting by id keeps creation order wherever ids break ties.
    """
    import time

    ms = time.time_ns() // 1_000_000
    with _id_lock:
        last_ms, last_seq = _id_last
        if ms <= last_ms:
            ms, seq = last_ms, last_seq + 1
            if seq > 0xFFFF:
                ms, seq = ms + 1, 0
        else:
            seq = 0
        _id_last[0], _id_last[1] = ms, seq
    return f"{ms:012x}{seq:04x}{os.urandom(8).hex()}"


_ID_RE = re.compile(r"^[0-9a-f]{32}$")


def check_id(value: str) -> str:
    if not isinstance(value, str) or not _ID_RE.match(value):
        raise InvalidInput(f"invalid memory id {value!r}: expected 32 lowercase hex characters")
    return value


#: the tag of a distilled fact a long message said in passing, kept beside the message (its
#: one `related_ids` entry): search shows the better-ranked of the two (ingest's
#: `_passing_records`, search's `_dedup`)
PASSING_TAG = "in-passing"
#: the tag of the user-profile memory's revisions (`salience.layers.profile`): a summary
#: derived from what the user said, which a newer statement of theirs can outdate
PROFILE_TAG = "user-profile"


@dataclass(slots=True)
class Memory:
    """One memory: the unit Salience stores, ranks, decays and synthesises.

    Design A fields: summary, salience, memory_type, tags, entities, confidence, usefulness,
    retrieval_count, last_retrieved_at, source, superseded_by, related_ids.
    Design B fields: importance, session_id (GOP) with seq `t`, frame_type, base_frame_id,
    access counts (= retrieval_count), content_hash.
    """

    content: str
    id: str = field(default_factory=new_id)
    summary: str = ""
    memory_type: MemoryType = MemoryType.GENERAL
    importance: Importance = Importance.NORMAL
    source: Source = Source.USER_STATED
    salience: float = 5.0
    confidence: float = 0.5
    usefulness: float = 0.5
    retrieval_count: int = 0
    last_retrieved_at: datetime | None = None
    tags: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    superseded_by: str | None = None
    related_ids: list[str] = field(default_factory=list)
    parent_id: str | None = None  # first chunk of a chunked input
    chunk_index: int = 0
    session_id: str | None = None
    t: int | None = None  # sequence within the session (design B's GOP `t`)
    frame_type: FrameType = FrameType.I
    base_frame_id: str | None = None
    pinned: bool = False
    occurred_at: datetime | None = None  # when the described event happened (time-aware recall)
    metadata: dict[str, Any] = field(default_factory=dict)
    content_hash: str = ""
    created_at: datetime | None = None
    updated_at: datetime | None = None

    def __post_init__(self) -> None:
        if not self.content_hash and isinstance(self.content, str):
            self.content_hash = content_hash(self.content)

    @property
    def text(self) -> str:
        """The text a person would read: the summary when there is one, else the content."""
        return self.summary or self.content

    @property
    def said_in_passing(self) -> bool:
        """A fact a long message said in passing (`PASSING_TAG`), kept beside the message: a
        distilled fact, so tagged, related to its message."""
        return (self.memory_type is MemoryType.FACT and PASSING_TAG in self.tags
                and bool(self.related_ids))

    @property
    def is_profile(self) -> bool:
        """A revision of the user profile (`PROFILE_TAG`): identity-typed, derived."""
        return self.memory_type is MemoryType.IDENTITY and PROFILE_TAG in self.tags

    @property
    def is_superseded(self) -> bool:
        return self.superseded_by is not None

    def copy(self, **changes: Any) -> Memory:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (timestamps as ISO strings, enums as values)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, datetime):
                v = v.isoformat()
            elif isinstance(v, StrEnum):
                v = v.value
            elif isinstance(v, list):
                v = list(v)
            elif isinstance(v, dict):
                v = dict(v)
            out[f.name] = v
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Memory:
        """Inverse of `to_dict`; unknown keys are rejected."""
        names = {f.name for f in fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise InvalidInput(f"unknown memory fields: {', '.join(sorted(unknown))}")
        if "content" not in data:
            raise InvalidInput("a memory needs 'content'")
        return validate_memory(cls(**data))  # timestamps may be ISO strings: checks parses them


@dataclass(slots=True, frozen=True)
class EmbeddingInfo:
    """The embedding model identity a mind is pinned to."""

    model: str
    dim: int


@dataclass(slots=True)
class MemoryFilter:
    """Structured filter shared by list, count and every candidate search.

    All conditions are ANDed. `include_superseded=False` (the default) hides memories that a
    newer one replaced.
    """

    memory_types: list[MemoryType] | None = None
    sources: list[Source] | None = None
    importance: list[Importance] | None = None
    tags: list[str] | None = None  # any of
    entities: list[str] | None = None  # any of (normalised)
    session_id: str | None = None
    since: datetime | None = None  # created_at >= since
    until: datetime | None = None  # created_at < until
    min_salience: float | None = None
    include_superseded: bool = False
    ids: list[str] | None = None
    id_prefix: str | None = None  # ids starting with this (lower-case hex; `Mind.resolve_id`)

    def is_empty(self) -> bool:
        return (
            not any(
                getattr(self, n) is not None
                for n in (
                    "memory_types", "sources", "importance", "tags", "entities",
                    "session_id", "since", "until", "min_salience", "ids", "id_prefix",
                )
            )
            and self.include_superseded
        )


@dataclass(slots=True)
class Candidate:
    """One candidate from one retrieval source, before ranking."""

    id: str
    rank: int  # 1-based rank within its source
    score: float  # raw source score: cosine similarity, normalised BM25, entity overlap


@dataclass(slots=True)
class SearchHit:
    """A ranked search result with the explanation of its score."""

    memory: Memory
    score: float
    explanation: dict[str, float] = field(default_factory=dict)
    mind: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "memory": self.memory.to_dict(),
            "score": self.score,
            "explanation": dict(self.explanation),
            "mind": self.mind,
        }


def normalize_tag(tag: str) -> str:
    return " ".join(str(tag).strip().lower().split())


def normalize_entity(entity: str) -> str:
    """Canonical key of an entity name for exact matching: case- and whitespace-insensitive."""
    return " ".join(str(entity).strip().lower().split())


def _clean_list(values: Any, what: str, norm: Any) -> list[str]:
    if values is None:
        return []
    if isinstance(values, str):
        raise InvalidInput(f"{what} must be a list of strings, not a single string")
    if not isinstance(values, list | tuple | set | frozenset):
        raise InvalidInput(f"{what} must be a list of strings")
    if len(values) > LABELS_MAX:
        raise InvalidInput(f"{what}: at most {LABELS_MAX} per memory, got {len(values)}")
    out: list[str] = []
    seen: set[str] = set()
    for v in values:
        n = norm(check_label(v, what))
        if n and n not in seen:
            seen.add(n)
            out.append(n)
    return out


def _check_unit(value: float, what: str, lo: float, hi: float) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidInput(f"{what} must be a number, got {value!r}") from None
    if not math.isfinite(v) or not lo <= v <= hi:
        raise InvalidInput(f"{what} must be a finite number in [{lo:g}, {hi:g}], got {value!r}")
    return v


def validate_memory(m: Memory, *, max_bytes: int = 10_000_000) -> Memory:
    """Check and normalise every field of `m` in place; return it. Raises `InvalidInput`.

    The one rule set of every write path (add, add_many, update, restore, importers, HTTP,
    MCP); the atoms are in `checks`.
    """
    m.content = check_text(m.content, max_bytes=max_bytes)
    m.summary = check_text(
        m.summary, max_bytes=SUMMARY_MAX_BYTES, what="summary", allow_empty=True
    )
    m.memory_type = parse_enum(MemoryType, m.memory_type, "memory_type")
    m.importance = parse_enum(Importance, m.importance, "importance")
    m.source = parse_enum(Source, m.source, "source")
    m.frame_type = parse_enum(FrameType, m.frame_type, "frame_type")
    m.salience = _check_unit(m.salience, "salience", SALIENCE_MIN, SALIENCE_MAX)
    m.confidence = _check_unit(m.confidence, "confidence", 0.0, 1.0)
    m.usefulness = _check_unit(m.usefulness, "usefulness", 0.0, 1.0)
    m.retrieval_count = check_int(m.retrieval_count, "retrieval_count")
    m.chunk_index = check_int(m.chunk_index, "chunk_index")
    if m.t is not None:
        m.t = check_int(m.t, "t")
    m.pinned = check_bool(m.pinned, "pinned")
    if m.session_id is not None:
        m.session_id = check_label(m.session_id, "session_id")
    m.tags = _clean_list(m.tags, "tags", normalize_tag)
    m.entities = _clean_list(m.entities, "entities", lambda s: " ".join(s.strip().split()))
    if not isinstance(m.related_ids, list | tuple) or len(m.related_ids) > RELATED_MAX:
        raise InvalidInput(f"related_ids must be a list of at most {RELATED_MAX} ids")
    m.related_ids = [check_id(r) for r in m.related_ids]
    check_id(m.id)
    for name in ("superseded_by", "parent_id", "base_frame_id"):
        v = getattr(m, name)
        if v is not None:
            check_id(v)
    if m.superseded_by == m.id:
        raise InvalidInput("a memory cannot be superseded by itself")
    m.metadata = check_json_object(m.metadata, "metadata")
    for name in ("last_retrieved_at", "occurred_at", "created_at", "updated_at"):
        v = getattr(m, name)
        if v is not None:
            setattr(m, name, check_datetime(v, name))
    m.content_hash = content_hash(m.content)
    return m


# Fields of a memory that `Mind.add` accepts (besides content) and `Mind.update` may change.
UPDATABLE_FIELDS = frozenset(
    {
        "content",
        "summary",
        "memory_type",
        "importance",
        "source",
        "salience",
        "confidence",
        "usefulness",
        "tags",
        "entities",
        "superseded_by",
        "related_ids",
        "session_id",
        "t",
        "frame_type",
        "base_frame_id",
        "pinned",
        "occurred_at",
        "metadata",
    }
)
