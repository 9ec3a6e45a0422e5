"""The self-awareness lines design B §9.1 builds each turn (`buildSelfAwareness(caps)`): the
tools and skills the caller declares, mode and version, and the actionable improvement
signals. Pure: values in, lines out; `layers.context` reads the store and marks what it showed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInput
from ..models.agent import ImprovementSignal, check_name

MAX_DECLARED = 100  # tools or skills a caller may declare
SIGNALS_HEADING = "## Improvement Signals"
_CATEGORY_LABEL = {
    "correction": "correction",
    "capability_gap": "capability gap",
    "workflow_pattern": "workflow pattern",
}


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What the caller tells `context()` about the agent this turn (design B's `caps`)."""

    tools: tuple[str, ...] = ()
    skills: tuple[str, ...] = ()
    mode: str | None = None
    version: str | None = None


def check_capabilities(
    tools: Sequence[str] | None,
    skills: Sequence[str] | None,
    mode: str | None,
    version: str | None,
) -> Capabilities:
    """Validate what a caller declares; raises `InvalidInput` naming the bad value."""

    def names(values: Any, what: str) -> tuple[str, ...]:
        if values is None:
            return ()
        if isinstance(values, str) or not isinstance(values, Sequence):
            raise InvalidInput(f"{what} must be a list of names")
        if len(values) > MAX_DECLARED:
            raise InvalidInput(f"at most {MAX_DECLARED} {what} may be declared")
        return tuple(dict.fromkeys(check_name(v, f"{what} name") for v in values))

    return Capabilities(
        tools=names(tools, "tools"),
        skills=names(skills, "skills"),
        mode=None if mode is None else check_name(mode, "mode", max_chars=100),
        version=None if version is None else check_name(version, "version", max_chars=100),
    )


def capability_lines(caps: Capabilities) -> list[str]:
    """"Tools: …", "Skills: …" (left out when none are declared)."""
    lines = []
    if caps.tools:
        lines.append("Tools: " + ", ".join(caps.tools))
    if caps.skills:
        lines.append("Skills: " + ", ".join(caps.skills))
    return lines


def mode_line(caps: Capabilities, salience_version: str) -> str:
    """"Mode: … · Version: <agent version> (Salience x.y.z)"; the Salience version always."""
    version = (
        f"{caps.version} (Salience {salience_version})"
        if caps.version
        else f"Salience {salience_version}"
    )
    return (f"Mode: {caps.mode} · " if caps.mode else "") + f"Version: {version}"


def signal_line(s: ImprovementSignal) -> str:
    """One actionable signal: "- [correction ×3] date format: use ISO dates"."""
    label = _CATEGORY_LABEL.get(s.category.value, s.category.value)
    note = " ".join(s.note.split())
    return f"- [{label} ×{s.count}] {s.pattern_key}" + (f": {note}" if note else "")


def signals_that_fit(signals: Sequence[ImprovementSignal], room_tokens: int) -> list[int]:
    """Indexes of the leading signals whose lines (with the heading) fit `room_tokens` whole —
    a signal cut short is not shown, so it is not marked surfaced either."""
    from ..models.tokens import approx_tokens

    used = approx_tokens(SIGNALS_HEADING) + 1
    out: list[int] = []
    for i, s in enumerate(signals):
        cost = approx_tokens(signal_line(s)) + 1
        if used + cost > room_tokens:
            break
        used += cost
        out.append(i)
    return out


def render_signals(signals: Sequence[ImprovementSignal]) -> list[str]:
    """The heading and one line per signal; [] for none."""
    return [SIGNALS_HEADING, *(signal_line(s) for s in signals)] if signals else []
