"""One column spec for the memory row, and the column lists of the other shared tables.

`MEMORY` names each field of `models.Memory` the way both backends store it, with its
PostgreSQL type and how its value is encoded. Every list of memory columns is derived from it:
the select lists (`MEMORY_FIELDS`, the order `rows.memory_from_row` decodes), the insert and
update column lists of both backends, PostgreSQL's binary COPY types and the parameters of a
write (`memory_params`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...models import Memory
    from .dialect import Dialect


@dataclass(frozen=True, slots=True)
class Column:
    """A stored field of a memory: its name (= the `Memory` attribute), PostgreSQL type and
    codec (`text`, `real`, `int`, `opt_int`, `enum`, `ts`, `list`, `obj`, `flag`)."""

    name: str
    pg_type: str
    codec: str


MEMORY: tuple[Column, ...] = (
    Column("id", "text", "text"),
    Column("content", "text", "text"),
    Column("summary", "text", "text"),
    Column("memory_type", "text", "enum"),
    Column("importance", "text", "enum"),
    Column("source", "text", "enum"),
    Column("salience", "float8", "real"),
    Column("confidence", "float8", "real"),
    Column("usefulness", "float8", "real"),
    Column("retrieval_count", "int8", "int"),
    Column("last_retrieved_at", "timestamptz", "ts"),
    Column("tags", "text[]", "list"),
    Column("entities", "text[]", "list"),
    Column("superseded_by", "text", "text"),
    Column("related_ids", "text[]", "list"),
    Column("parent_id", "text", "text"),
    Column("chunk_index", "int8", "int"),
    Column("session_id", "text", "text"),
    Column("t", "int8", "opt_int"),
    Column("frame_type", "text", "enum"),
    Column("base_frame_id", "text", "text"),
    Column("pinned", "bool", "flag"),
    Column("occurred_at", "timestamptz", "ts"),
    Column("metadata", "json", "obj"),
    Column("content_hash", "text", "text"),
    Column("created_at", "timestamptz", "ts"),
    Column("updated_at", "timestamptz", "ts"),
)
MEMORY_FIELDS: tuple[str, ...] = tuple(c.name for c in MEMORY)


def _encoder(c: Column, d: Dialect, obj: Callable[[Any], Any]) -> Callable[[Memory], Any]:
    get = c.name
    if c.codec == "enum":
        return lambda m: getattr(m, get).value
    if c.codec == "real":
        return lambda m: float(getattr(m, get))
    if c.codec == "int":
        return lambda m: int(getattr(m, get))
    if c.codec == "ts":
        return lambda m: d.ts(getattr(m, get))
    if c.codec == "list":
        return lambda m: d.array(list(getattr(m, get)))
    if c.codec == "flag":
        return lambda m: d.flag(bool(getattr(m, get)))
    if c.codec == "obj":
        return lambda m: obj(getattr(m, get))
    return lambda m: getattr(m, get)  # text, opt_int: as they are


def memory_encoder(d: Dialect, *, obj: Callable[[Any], Any]) -> Callable[[Memory], tuple]:
    """`m -> the values of MEMORY_FIELDS` as dialect `d` stores them (`obj` encodes the
    metadata object)."""
    encoders = tuple(_encoder(c, d, obj) for c in MEMORY)

    def encode(m: Memory) -> tuple[Any, ...]:
        return tuple(e(m) for e in encoders)

    return encode


# -- the other shared tables (the order the `models` row decoders read) ------------------------
IDENTITY_COLUMNS = (
    "name, role, department, personality, capabilities, system_prompt, traits, "
    "created_at, updated_at"
)
AWARENESS_COLUMNS = "id, category, content, priority, metadata, created_at, updated_at, expires_at"
SESSION_COLUMNS = "id, project_id, status, summary, opened_at, closed_at, updated_at"
INTERACTION_COLUMNS = (
    "created_at",
    "call_site",
    "provider",
    "model",
    "prompt_chars",
    "output_chars",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "latency_ms",
    "outcome",
    "error",
    "thinking",
    "attempts",
)
