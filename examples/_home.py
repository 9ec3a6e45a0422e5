"""Where the examples keep their minds: $SALIENCE_HOME, else a fresh temporary directory."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from salience import Config


def example_config() -> Config:
    home = os.environ.get("SALIENCE_HOME") or tempfile.mkdtemp(prefix="salience-example-")
    return Config(home=Path(home))  # other settings (SALIENCE_EMBEDDER, ...) from the environment
