"""Request and response bodies of the HTTP API (pydantic models → the OpenAPI schema).

They only describe the wire format; every value is validated again by the facade, which is
the one place the rules live (this layer rejects wrong JSON types and obvious size abuse).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..models import Importance, MemoryFilter, MemoryType, Source

MAX_PAGE = 100  # largest page of memories or hits one response carries
MAX_BATCH = 500  # memories in one batch add
MAX_LIST_ITEMS = 100  # tags, entities, related ids, filter values
MAX_OTHER_MINDS = 10
MAX_MESSAGES = 50

Order = Literal["created_desc", "created_asc", "salience_desc", "occurred_desc", "occurred_asc"]
Tag = Annotated[str, Field(max_length=200)]
MemoryId = Annotated[
    str,
    Field(
        pattern=r"^[0-9a-f]{32}$",
        description="A memory id: 32 lowercase hex characters.",
        examples=["0192f7c1a3b4c5d6e7f8091a2b3c4d5e"],
    ),
]
Text = Annotated[str, Field(min_length=1)]

_MEMORY_EXAMPLE = {
    "content": "Maya is allergic to penicillin.",
    "memory_type": "fact",
    "salience": 8,
    "tags": ["health"],
    "entities": ["Maya"],
}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class MemoryIn(_Model):
    """A memory to store. Only `content` is required."""

    model_config = ConfigDict(
        extra="forbid", allow_inf_nan=False, json_schema_extra={"examples": [_MEMORY_EXAMPLE]}
    )

    content: Text = Field(description="The text to remember (chunked when long).")
    memory_type: MemoryType = MemoryType.GENERAL
    salience: float = Field(5.0, ge=1, le=10, description="How much it matters, 1–10.")
    tags: list[Tag] = Field(default_factory=list, max_length=MAX_LIST_ITEMS)
    entities: list[Tag] = Field(default_factory=list, max_length=MAX_LIST_ITEMS)
    source: Source = Source.USER_STATED
    importance: Importance = Importance.NORMAL
    summary: str = ""
    confidence: float = Field(0.5, ge=0, le=1)
    metadata: dict[str, Any] = Field(default_factory=dict, description="Any JSON object.")
    session_id: str | None = Field(None, max_length=200)
    occurred_at: datetime | None = Field(None, description="When the described event happened.")
    pinned: bool = False
    related_ids: list[MemoryId] = Field(default_factory=list, max_length=MAX_LIST_ITEMS)


class MemoryPatch(_Model):
    """Fields to change; omitted fields stay as they are. Changing `content` re-embeds."""

    model_config = ConfigDict(
        extra="forbid",
        allow_inf_nan=False,
        json_schema_extra={"examples": [{"salience": 9, "tags": ["health", "urgent"]}]},
    )

    content: Text = Field(None)  # type: ignore[assignment]
    summary: str = Field(None)  # type: ignore[assignment]
    memory_type: MemoryType = Field(None)  # type: ignore[assignment]
    importance: Importance = Field(None)  # type: ignore[assignment]
    source: Source = Field(None)  # type: ignore[assignment]
    salience: float = Field(None, ge=1, le=10)  # type: ignore[assignment]
    confidence: float = Field(None, ge=0, le=1)  # type: ignore[assignment]
    usefulness: float = Field(None, ge=0, le=1)  # type: ignore[assignment]
    tags: list[Tag] = Field(None, max_length=MAX_LIST_ITEMS)  # type: ignore[assignment]
    entities: list[Tag] = Field(None, max_length=MAX_LIST_ITEMS)  # type: ignore[assignment]
    superseded_by: MemoryId | None = None
    related_ids: list[MemoryId] = Field(None, max_length=MAX_LIST_ITEMS)  # type: ignore[assignment]
    session_id: str | None = Field(None, max_length=200)
    pinned: bool = Field(None)  # type: ignore[assignment]
    occurred_at: datetime | None = None
    metadata: dict[str, Any] = Field(None)  # type: ignore[assignment]

    def changes(self) -> dict[str, Any]:
        """The fields the client sent."""
        return {k: getattr(self, k) for k in self.model_fields_set}


class MemoryOut(BaseModel):
    """A stored memory."""

    content: str
    id: str
    summary: str
    memory_type: MemoryType
    importance: Importance
    source: Source
    salience: float
    confidence: float
    usefulness: float
    retrieval_count: int
    last_retrieved_at: datetime | None
    tags: list[str]
    entities: list[str]
    superseded_by: str | None
    related_ids: list[str]
    parent_id: str | None
    chunk_index: int
    session_id: str | None
    t: int | None
    frame_type: str
    base_frame_id: str | None
    pinned: bool
    occurred_at: datetime | None
    metadata: dict[str, Any]
    content_hash: str
    created_at: datetime | None
    updated_at: datetime | None


class AddOut(BaseModel):
    id: str = Field(description="Id of the stored (or already stored, identical) memory.")


class BatchIn(_Model):
    items: list[MemoryIn] = Field(min_length=1, max_length=MAX_BATCH)


class BatchOut(BaseModel):
    ids: list[str] = Field(description="One id per item, in order.")


class MemoryPage(BaseModel):
    """One page of memories. `next_offset` is null on the last page."""

    items: list[MemoryOut]
    limit: int
    offset: int
    next_offset: int | None


class FilterIn(_Model):
    """Conditions ANDed together; list-valued ones match any of their values."""

    memory_types: list[MemoryType] | None = Field(None, max_length=len(MemoryType))
    sources: list[Source] | None = Field(None, max_length=len(Source))
    importance: list[Importance] | None = Field(None, max_length=len(Importance))
    tags: list[Tag] | None = Field(None, max_length=MAX_LIST_ITEMS)
    entities: list[Tag] | None = Field(None, max_length=MAX_LIST_ITEMS)
    session_id: str | None = Field(None, max_length=200)
    since: datetime | None = Field(None, description="created_at >= since")
    until: datetime | None = Field(None, description="created_at < until")
    min_salience: float | None = Field(None, ge=1, le=10)
    include_superseded: bool = False
    ids: list[MemoryId] | None = Field(None, max_length=MAX_PAGE)

    def to_filter(self) -> MemoryFilter:
        return MemoryFilter(**self.model_dump())


class SearchIn(_Model):
    model_config = ConfigDict(
        extra="forbid",
        allow_inf_nan=False,
        json_schema_extra={
            "examples": [{"query": "what antibiotics should Maya avoid?", "limit": 5}]
        },
    )

    query: Text = Field(
        description="What to look for (matched literally, not as a query language)."
    )
    limit: int = Field(10, ge=1, le=MAX_PAGE)
    preset: str | None = Field(
        None, max_length=64, description="Search preset name (server default when omitted)."
    )
    filter: FilterIn | None = None
    feedback: bool = Field(True, description="Record the hits as retrieved (drives decay).")


class HitOut(BaseModel):
    memory: MemoryOut
    score: float
    explanation: dict[str, Any] = Field(description="How the score was made, per signal.")
    mind: str | None = Field(description="The mind the hit came from.")


class HitsOut(BaseModel):
    hits: list[HitOut]


class PrefetchIn(_Model):
    model_config = ConfigDict(
        extra="forbid",
        allow_inf_nan=False,
        json_schema_extra={
            "examples": [{"messages": ["Planning Maya's trip"], "current": "Any health issues?"}]
        },
    )

    messages: list[str] = Field(
        default_factory=list,
        max_length=MAX_MESSAGES,
        description="Recent conversation, oldest first.",
    )
    current: Text = Field(description="The incoming message to find memories for.")
    limit: int = Field(3, ge=1, le=20)


class RecallIn(_Model):
    query: Text
    limit: int = Field(10, ge=1, le=MAX_PAGE)
    minds: list[Annotated[str, Field(max_length=64)]] = Field(
        default_factory=list,
        max_length=MAX_OTHER_MINDS,
        description="Other minds (e.g. workspace minds) searched together with this one.",
    )


class FeedbackIn(_Model):
    ids: list[MemoryId] = Field(min_length=1, max_length=MAX_PAGE)
    useful: bool = Field(description="True if the memories helped, false if they did not.")


class MemoriesOut(BaseModel):
    items: list[MemoryOut]


class MindIn(_Model):
    name: str = Field(
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$",
        examples=["assistant"],
    )


class MindOut(BaseModel):
    name: str
    tenant: str | None


class MindsOut(BaseModel):
    minds: list[MindOut]


class HealthOut(BaseModel):
    status: Literal["ok"]
    version: str


class ErrorBody(BaseModel):
    code: str = Field(description="Stable machine-readable code, e.g. not_found.")
    message: str
    details: Any = None


class ErrorOut(BaseModel):
    error: ErrorBody
