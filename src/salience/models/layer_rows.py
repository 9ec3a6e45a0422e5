"""Row decoding for the layer tables, shared by every backend.

Each backend selects columns in the order documented beside its SQL (`IDENTITY_COLUMNS`,
`AWARENESS_COLUMNS`, `SESSION_COLUMNS`, `ENTITY_COLUMNS`, `RELATION_COLUMNS`). SQLite returns
timestamps as ISO text and JSON as text; PostgreSQL returns datetimes and decoded JSON. These
helpers accept both.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ..clock import parse_ts
from .graph import Entity, Relation
from .layers import AwarenessCategory, AwarenessItem, Identity, Session, SessionStatus


def js(value: Any) -> Any:
    """Decoded JSON from a text column, or the value when the driver already decoded it."""
    if value is None:
        return None
    if isinstance(value, str | bytes | bytearray):
        return json.loads(value)
    return value


def ts(value: Any) -> datetime | None:
    return parse_ts(value)


def identity(row: Sequence[Any]) -> Identity:
    name, role, dept, pers, caps, prompt, traits, created, updated = row
    return Identity(
        name=name,
        role=role,
        department=dept,
        personality=pers,
        capabilities=caps,
        system_prompt=prompt,
        traits=js(traits) or {},
        created_at=ts(created),
        updated_at=ts(updated),
    )


def awareness(row: Sequence[Any]) -> AwarenessItem:
    id_, category, content, priority, metadata, created, updated, expires = row
    return AwarenessItem(
        id=id_,
        category=AwarenessCategory(category),
        content=content,
        priority=int(priority),
        metadata=js(metadata) or {},
        created_at=ts(created),
        updated_at=ts(updated),
        expires_at=ts(expires),
    )


def session(row: Sequence[Any]) -> Session:
    id_, project_id, status, summary, opened, closed, updated = row
    return Session(
        id=id_,
        project_id=project_id,
        status=SessionStatus(status),
        summary=summary,
        opened_at=ts(opened),
        closed_at=ts(closed),
        updated_at=ts(updated),
    )


def entity(row: Sequence[Any]) -> Entity:
    id_, etype, name, props, confidence, vfrom, vto, recorded, aliases = row[:9]
    return Entity(
        id=id_,
        entity_type=etype,
        name=name,
        properties=js(props) or {},
        confidence=float(confidence),
        valid_from=ts(vfrom),
        valid_to=ts(vto),
        recorded_at=ts(recorded),
        aliases=[a for a in (js(aliases) or []) if a is not None],
    )


def relation(row: Sequence[Any]) -> Relation:
    id_, src, dst, rtype, confidence, props, vfrom, vto, recorded, memory_id = row[:10]
    return Relation(
        id=id_,
        source_id=src,
        target_id=dst,
        relation_type=rtype,
        confidence=float(confidence),
        properties=js(props) or {},
        valid_from=ts(vfrom),
        valid_to=ts(vto),
        recorded_at=ts(recorded),
        memory_id=memory_id,
    )
