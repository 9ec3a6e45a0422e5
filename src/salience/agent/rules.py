"""Every decision about agent records, as pure functions (values in, values out): running
averages of a procedure's outcomes, the best version of a procedure, when an improvement
signal is actionable, the gate verdict of an evolution run, retention cut-offs."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ..errors import InvalidInput
from ..models.agent import ImprovementSignal, Procedure

ACTIONABLE_COUNT = 3  # a signal seen this often, and not surfaced yet, is shown to the agent
BEST_MIN_RUNS = 3  # a version needs this many recorded runs before its rate is trusted
_SPACE = re.compile(r"\s+")


# -- procedures -------------------------------------------------------------------------------
def best_procedure(
    versions: Sequence[Procedure], *, min_runs: int = BEST_MIN_RUNS
) -> Procedure | None:
    """The version to use: the active (promoted) one if any; otherwise, among versions with
    at least `min_runs` runs, the highest success rate, then the lowest average cost, then the
    newest; when none has enough runs, the newest version. None for no versions."""
    if not versions:
        return None
    active = [p for p in versions if p.active]
    if active:
        return max(active, key=lambda p: p.version)
    tried = [p for p in versions if p.runs >= min_runs]
    if not tried:
        return max(versions, key=lambda p: p.version)
    return max(tried, key=lambda p: (p.success_rate, -p.avg_cost, p.version))


def procedure_metrics(p: Procedure) -> dict[str, float]:
    """The metrics an evolution gate compares for a procedure version."""
    return {"success_rate": p.success_rate, "avg_cost": p.avg_cost, "samples": float(p.runs)}


# -- improvement signals ----------------------------------------------------------------------
def normalize_pattern_key(key: str) -> str:
    """The key two recordings of one pattern share: trimmed, lowercased, inner whitespace
    collapsed ("Date  Format" and "date format" are one signal)."""
    return _SPACE.sub(" ", key.strip()).lower()


def is_actionable(s: ImprovementSignal, *, threshold: int = ACTIONABLE_COUNT) -> bool:
    """A signal is worth showing the agent when it recurred `threshold` times and was not
    shown yet (design B: the surfaced flag prevents re-nagging)."""
    return s.count >= threshold and not s.surfaced


def actionable(
    signals: Sequence[ImprovementSignal], *, threshold: int = ACTIONABLE_COUNT
) -> list[ImprovementSignal]:
    """The actionable signals, most frequent first, then most recently seen, then id."""
    out = [s for s in signals if is_actionable(s, threshold=threshold)]
    out.sort(key=lambda s: (-s.count, -_stamp(s.last_seen_at), s.id))
    return out


def _stamp(t: datetime | None) -> float:
    return t.timestamp() if t is not None else 0.0


# -- evolution gate ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Gate:
    """How an evolution run is decided. The candidate is accepted when it has at least
    `min_samples` samples, beats the baseline's `metric` by more than `min_gain` (in the
    metric's direction), and — when `cost_metric` is in both — costs at most `max_cost_ratio`
    times the baseline."""

    metric: str = "success_rate"
    higher_is_better: bool = True
    min_gain: float = 0.0
    min_samples: int = 1
    samples_metric: str = "samples"
    cost_metric: str | None = "avg_cost"
    max_cost_ratio: float | None = 1.5


@dataclass(frozen=True, slots=True)
class Verdict:
    accepted: bool
    reason: str


def check_metrics(metrics: Mapping[str, Any], what: str) -> dict[str, float]:
    """Metrics are a mapping of names to finite numbers."""
    if not isinstance(metrics, Mapping):
        raise InvalidInput(f"{what} must be a mapping of metric names to numbers")
    out: dict[str, float] = {}
    for k, v in metrics.items():
        if not isinstance(k, str) or not k.strip() or len(k) > 100:
            raise InvalidInput(f"{what}: metric names must be 1-100 characters of text")
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise InvalidInput(f"{what}[{k!r}] must be a finite number, got {v!r}")
        out[k] = float(v)
    return out


def gate_verdict(
    baseline: Mapping[str, float], candidate: Mapping[str, float], gate: Gate = Gate()
) -> Verdict:
    """Accept or reject a candidate against its baseline, with the reason (see `Gate`)."""
    m = gate.metric
    if m not in candidate:
        return Verdict(False, f"candidate has no {m!r} metric")
    if m not in baseline:
        return Verdict(False, f"baseline has no {m!r} metric")
    samples = candidate.get(gate.samples_metric)
    if (samples is None and gate.min_samples > 1) or (
        samples is not None and samples < gate.min_samples
    ):
        have = "none" if samples is None else f"{samples:g}"
        return Verdict(False, f"too few candidate samples ({have} < {gate.min_samples})")
    b, c = baseline[m], candidate[m]
    gain = (c - b) if gate.higher_is_better else (b - c)
    if gain <= gate.min_gain:
        return Verdict(
            False, f"{m} {c:.4g} does not beat baseline {b:.4g} by more than {gate.min_gain:g}"
        )
    cm = gate.cost_metric
    if cm is not None and gate.max_cost_ratio is not None and cm in baseline and cm in candidate:
        bc, cc = baseline[cm], candidate[cm]
        if bc > 0 and cc > bc * gate.max_cost_ratio:
            return Verdict(
                False, f"{cm} {cc:.4g} exceeds {gate.max_cost_ratio:g}x baseline {bc:.4g}"
            )
    return Verdict(True, f"{m} {b:.4g} -> {c:.4g} (gain {gain:.4g} > {gate.min_gain:g})")


# -- retention --------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Retention:
    """What maintenance keeps: rows newer than `max_age_days` and at most `max_rows` (the
    newest); None disables a bound."""

    max_age_days: int | None = None
    max_rows: int | None = None


def retention_cutoff(now: datetime, r: Retention) -> datetime | None:
    """Rows created before this instant are deleted (None: no age bound)."""
    return None if r.max_age_days is None else now - timedelta(days=r.max_age_days)
