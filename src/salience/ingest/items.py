"""What travels through the ingestion paths: the item to ingest (also the durable queue's
payload) and the reports the paths return."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from ..clock import parse_ts
from ..errors import InvalidInput
from ..store.ingest import HarvestMark
from .rules import PATHS

#: meta key set when a paradigm shift asks for the identity profile to be re-consolidated;
#: its value is JSON {"since": iso time, "memory_ids": [...superseded ids]}.
RECONSOLIDATE_KEY = "identity_reconsolidation_pending"
PARADIGM_SHIFT_EVENT = "paradigm_shift"
#: event written for every triaged item that was not saved (payload: path, reason, text)
SKIPPED_EVENT = "triage_skipped"


@dataclass(slots=True)
class IngestItem:
    """One thing to remember on one ingestion path (JSON round-trips as a queue payload).

    `text` is what triage reads and what is stored; `harvest` marks an imported item processed in the same
    transaction that saves (or skips) it.
    """

    path: str
    text: str
    tool_grounded: bool = False
    occurred_at: datetime | None = None
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    session_id: str | None = None
    imported: bool = False
    harvest: HarvestMark | None = None
    fields: dict[str, Any] = field(default_factory=dict)  # save_memory: caller-set fields
    #: conversation: what the person said (the part design A's parametric threshold never
    #: gates); None for items queued before it existed (then read back from `text`)
    user_text: str | None = None

    def __post_init__(self) -> None:
        if self.path not in PATHS:
            raise InvalidInput(f"unknown ingestion path {self.path!r}")

    def to_payload(self) -> dict[str, Any]:
        """A JSON-ready dict (the queue payload)."""
        d = asdict(self)
        d["occurred_at"] = self.occurred_at.isoformat() if self.occurred_at else None
        d["harvest"] = asdict(self.harvest) if self.harvest else None
        return d

    @classmethod
    def from_payload(cls, data: dict[str, Any]) -> IngestItem:
        """Inverse of `to_payload`; raises `InvalidInput` for a malformed payload."""
        try:
            kw = dict(data)
            kw["occurred_at"] = parse_ts(kw.get("occurred_at"))
            h = kw.get("harvest")
            kw["harvest"] = HarvestMark(**h) if h else None
            item = cls(**kw)
        except (TypeError, ValueError, KeyError) as e:
            raise InvalidInput(f"malformed ingest payload: {e}") from None
        if not isinstance(item.text, str) or not item.text.strip():
            raise InvalidInput("malformed ingest payload: empty text")
        return item


@dataclass(slots=True)
class IngestResult:
    """The outcome of one item: saved ids (first = the main record), the reason when nothing
    was saved, the final salience, superseded ids and whether a paradigm shift happened."""

    path: str
    saved: list[str] = field(default_factory=list)
    salience: float | None = None
    #: "noise" (the person said nothing to keep and the reply did not pass its threshold),
    #: "below_threshold", "model_said_no", "duplicate", "gone"
    skipped: str | None = None
    duplicate_of: str | None = None
    superseded: list[str] = field(default_factory=list)
    paradigm_shift: bool = False
    staged: bool = False  # archive: distillation failed and was queued

    @property
    def id(self) -> str | None:
        return self.saved[0] if self.saved else self.duplicate_of

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class DrainReport:
    """What one `drain_pending_triage` run did."""

    processed: int = 0
    saved: int = 0
    skipped: int = 0
    retried: int = 0
    failed: int = 0
    gone: int = 0
    purged_interactions: int = 0
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class ImportReport:
    """What one import run did (items seen in the file, new ones, their fates)."""

    kind: str
    source: str
    items: int = 0
    already_imported: int = 0
    saved: int = 0
    skipped: int = 0
    queued: int = 0
    invalid: int = 0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
