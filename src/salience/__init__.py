"""Salience: long-term memory for AI agents.

>>> from salience import Mind
>>> with Mind.open("assistant") as mind:
...     mind.add("Maya is allergic to penicillin.", memory_type="fact", salience=8)
...     hits = mind.search("what antibiotics should Maya avoid?")

Importing this package is cheap: models, numpy, ONNX runtimes and servers load on first use.
"""

from .clock import Clock, FrozenClock, SystemClock
from .config import Config
from .errors import (
    ContentTooLarge,
    EmbedderMismatch,
    EmbeddingError,
    InvalidInput,
    InvalidMindName,
    MissingExtra,
    NotFound,
    SalienceError,
    StoreError,
)
from .mind import Mind
from .models import (
    FrameType,
    Importance,
    Memory,
    MemoryFilter,
    MemoryType,
    SearchHit,
    Source,
)

__version__ = "0.1.0"

__all__ = [
    "Clock",
    "Config",
    "ContentTooLarge",
    "EmbedderMismatch",
    "EmbeddingError",
    "FrameType",
    "FrozenClock",
    "Importance",
    "InvalidInput",
    "InvalidMindName",
    "Memory",
    "MemoryFilter",
    "MemoryType",
    "Mind",
    "MissingExtra",
    "NotFound",
    "SalienceError",
    "SearchHit",
    "Source",
    "StoreError",
    "SystemClock",
    "__version__",
]
