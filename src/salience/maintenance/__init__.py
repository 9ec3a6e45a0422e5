"""Thinking while idle: decay, usefulness regression, pruning and compaction (`job`, with the
pure decisions in `policy`), the cognitive engine (`cognitive`: consolidation, episodes,
reflection, with pure triggers and clustering in `triggers`) and the heartbeat (`heartbeat`).

Use them through the facade: `mind.maintain(dry_run=...)`, `mind.cognitive_run()`,
`mind.heartbeat()`.
"""

from __future__ import annotations

from .cognitive import CognitiveEngine, CognitiveReport
from .heartbeat import HeartbeatLoop, StepResult, TickReport, tick
from .job import MaintenanceReport, ScoreChange, maintain
from .policy import Policy

__all__ = [
    "CognitiveEngine",
    "CognitiveReport",
    "HeartbeatLoop",
    "MaintenanceReport",
    "Policy",
    "ScoreChange",
    "StepResult",
    "TickReport",
    "maintain",
    "tick",
]
