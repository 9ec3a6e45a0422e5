"""Record types of design B's agent records (§3, §11), shared by every backend: procedures,
improvement signals, execution traces, evolution runs and the install audit trail.

These are not memories: they are what an agent learns about its own work — which prompt
template works, which correction keeps coming back, how its runs went, which evolution of a
prompt or schema was accepted and why, and which capabilities it installed on whose trust.
Validation of caller input lives here too (`check_*`), so every interface raises the same
`InvalidInput` for the same mistake.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from ..errors import InvalidInput
from . import check_text, new_id

MAX_NAME_CHARS = 200  # procedure names, pattern keys, capabilities, targets
MAX_NOTE_BYTES = 20_000  # signal notes, descriptions, reasons
MAX_TEMPLATE_BYTES = 200_000  # a prompt template
MAX_JSON_BYTES = 1_000_000  # a trace, a metrics or details object


class SignalCategory(StrEnum):
    """Design B §11: what recurs."""

    CORRECTION = "correction"  # the user corrected the agent
    CAPABILITY_GAP = "capability_gap"  # the agent could not do something it was asked
    WORKFLOW_PATTERN = "workflow_pattern"  # the user repeats the same steps


class TraceOutcome(StrEnum):
    SUCCESS = "success"
    PARTIAL = "partial"
    FAILURE = "failure"
    ABORTED = "aborted"


class EvolutionKind(StrEnum):
    PROMPT = "prompt"
    SCHEMA = "schema"


class EvolutionStatus(StrEnum):
    PROPOSED = "proposed"
    ACCEPTED = "accepted"
    REJECTED = "rejected"


class InstallKind(StrEnum):
    """Design B §11: what kind of capability was installed."""

    NATIVE = "native"
    SKILL = "skill"
    PLUGIN = "plugin"
    MCP = "mcp"


class InstallAction(StrEnum):
    INSTALL = "install"
    UPDATE = "update"
    UNINSTALL = "uninstall"
    DENY = "deny"  # an install that was refused (by policy or by the user)


class InstallRisk(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


@dataclass(slots=True)
class Procedure:
    """One version of a named prompt template (design B's GEPA-optimised procedures).

    `runs`, `successes`, `success_rate` and `avg_cost` are kept incrementally by
    `record_outcome` (`salience.models.agent.apply_outcome`); `active` marks the version an
    evolution run promoted (at most one per name).
    """

    name: str
    template: str
    version: int = 1
    description: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    parent_id: str | None = None
    active: bool = False
    runs: int = 0
    successes: int = 0
    success_rate: float = 0.0
    avg_cost: float = 0.0
    id: str = field(default_factory=new_id)
    created_at: datetime | None = None
    updated_at: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)


@dataclass(slots=True)
class ImprovementSignal:
    """A recurring pattern, unique on (category, pattern_key), counted; `surfaced` once it was
    shown to the agent (so it is not shown again)."""

    category: SignalCategory
    pattern_key: str
    note: str = ""
    count: int = 1
    surfaced: bool = False
    surfaced_at: datetime | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    id: str = field(default_factory=new_id)
    first_seen_at: datetime | None = None
    last_seen_at: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)


@dataclass(slots=True)
class ExecutionTrace:
    """One agent run: what it did (`trace`, any JSON), how it ended, what it cost."""

    task: str
    outcome: TraceOutcome
    trace: Any = field(default_factory=dict)
    procedure_id: str | None = None
    session_id: str | None = None
    cost: float | None = None
    duration_ms: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    id: str = field(default_factory=new_id)
    created_at: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)


@dataclass(slots=True)
class EvolutionRun:
    """A proposed evolution of a prompt or schema (`target`, e.g. "procedure:summarise"),
    evaluated baseline vs candidate and decided by a gate (`status` accepted / rejected, with
    `reason`). `baseline_id` / `candidate_id` name what is compared (procedure ids for a
    procedure target)."""

    target: str
    kind: EvolutionKind = EvolutionKind.PROMPT
    status: EvolutionStatus = EvolutionStatus.PROPOSED
    description: str = ""
    baseline_id: str | None = None
    candidate_id: str | None = None
    proposal: dict[str, Any] = field(default_factory=dict)
    baseline_metrics: dict[str, Any] = field(default_factory=dict)
    candidate_metrics: dict[str, Any] = field(default_factory=dict)
    reason: str = ""
    id: str = field(default_factory=new_id)
    created_at: datetime | None = None
    decided_at: datetime | None = None

    @property
    def winner(self) -> str | None:
        """"candidate" when accepted, "baseline" when rejected, None while proposed."""
        return {EvolutionStatus.ACCEPTED: "candidate", EvolutionStatus.REJECTED: "baseline"}.get(
            self.status
        )

    def to_dict(self) -> dict[str, Any]:
        return {**_to_dict(self), "winner": self.winner}


@dataclass(slots=True)
class InstallAuditEntry:
    """One capability install decision. Append-only: the store has no update or delete for
    it, the tables refuse both, and retention never prunes it."""

    capability: str
    kind: InstallKind
    action: InstallAction = InstallAction.INSTALL
    risk: InstallRisk = InstallRisk.LOW
    trust_source: str = "user"  # where trust came from: builtin, marketplace, user, url, ...
    approval_class: str = "user_approved"  # auto, user_approved, admin, policy_denied, ...
    details: dict[str, Any] = field(default_factory=dict)
    id: str = field(default_factory=new_id)
    created_at: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        return _to_dict(self)


def _to_dict(record: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in record.__slots__:
        v = getattr(record, name)
        out[name] = v.isoformat() if isinstance(v, datetime) else v
    return out


# -- validation at the edge ----------------------------------------------------------------
def check_name(value: Any, what: str, *, max_chars: int = MAX_NAME_CHARS) -> str:
    """A short non-empty single-line label (names, keys, targets): trimmed."""
    text = check_text(value, max_bytes=4 * max_chars, what=what).strip()
    if len(text) > max_chars:
        raise InvalidInput(f"{what} is longer than {max_chars} characters")
    if any(c in text for c in "\r\n"):
        raise InvalidInput(f"{what} must be one line")
    return text


def check_body(value: Any, what: str, *, max_bytes: int = MAX_NOTE_BYTES) -> str:
    """Free text (may be empty): valid Unicode, no NUL, within `max_bytes`."""
    return check_text(value, max_bytes=max_bytes, what=what, allow_empty=True)


def check_json(value: Any, what: str, *, max_bytes: int = MAX_JSON_BYTES, obj: bool = True) -> Any:
    """A JSON value (an object when `obj`): serialisable, no NaN/inf, within `max_bytes`."""
    if obj and not isinstance(value, dict):
        raise InvalidInput(f"{what} must be a JSON object (dict), got {type(value).__name__}")
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise InvalidInput(f"{what} must be JSON-serialisable (no NaN/inf): {e}") from None
    check_text(text, max_bytes=max_bytes, what=what)  # surrogates, size
    return json.loads(text)


def check_object(value: Any, what: str) -> dict[str, Any]:
    """An optional JSON object (None is {}): a mapping with text keys, see `check_json`."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInput(f"{what} must be a JSON object (dict), got {type(value).__name__}")
    return check_json(dict(value), what)


def check_number(value: Any, what: str, *, lo: float = 0.0, hi: float = math.inf) -> float:
    """A finite real number in [lo, hi] (bools are not numbers here)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"{what} must be a number, got {type(value).__name__}")
    v = float(value)
    if not math.isfinite(v) or not lo <= v <= hi:
        raise InvalidInput(f"{what} must be a finite number in [{lo:g}, {hi:g}], got {value!r}")
    return v


def check_count(value: Any, what: str, *, lo: int = 0, hi: int = 10_000_000) -> int:
    """An integer in [lo, hi] (bools are not integers here)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"{what} must be an integer, got {type(value).__name__}")
    if not lo <= value <= hi:
        raise InvalidInput(f"{what} must be in [{lo}, {hi}], got {value}")
    return int(value)


# -- one run's outcome (the store applies it inside its transaction) --------------------------
def running_mean(mean: float, n: int, x: float) -> float:
    """The mean of n values `mean` after adding `x` (n + 1 values), without the history."""
    return mean + (x - mean) / (n + 1)


def apply_outcome(p: Procedure, *, success: bool, cost: float, now: datetime) -> Procedure:
    """`p` after one more run: runs + 1, successes (+1 on success), success rate and average
    cost updated incrementally."""
    runs = p.runs + 1
    successes = p.successes + (1 if success else 0)
    return replace(
        p,
        runs=runs,
        successes=successes,
        success_rate=successes / runs,
        avg_cost=running_mean(p.avg_cost, p.runs, float(cost)),
        updated_at=now,
    )
