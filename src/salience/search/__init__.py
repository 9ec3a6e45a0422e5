"""Recall: candidate gathering, ranking (both designs, as presets), the retrieval paths and the
feedback loops. Start with `Mind.search` / `Mind.prefetch`; this package holds the logic."""

from .catchup import is_catch_up
from .config import (
    DEFAULT_PRESET,
    PRESETS,
    PROFILES,
    Profile,
    SearchConfig,
    get_preset,
    preset_names,
)
from .pipeline import Recall
from .temporal import TimeRange, parse_time_range

__all__ = [
    "DEFAULT_PRESET",
    "PRESETS",
    "PROFILES",
    "Profile",
    "Recall",
    "SearchConfig",
    "TimeRange",
    "get_preset",
    "is_catch_up",
    "parse_time_range",
    "preset_names",
]
