"""docs/tutorial.md works as written (issue 19): every python block runs, in order, in one
namespace, against a fresh data directory with the hash embedder."""

from __future__ import annotations

import re
from pathlib import Path

TUTORIAL = Path(__file__).resolve().parents[1] / "docs" / "tutorial.md"


def test_tutorial_runs_as_written(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("SALIENCE_HOME", str(tmp_path))
    monkeypatch.setenv("SALIENCE_EMBEDDER", "hash")
    blocks = re.findall(r"```python\n(.*?)```", TUTORIAL.read_text(), re.S)
    assert len(blocks) >= 5
    namespace: dict = {"print": lambda *a, **k: None}
    for i, code in enumerate(blocks, start=1):
        exec(compile(code, f"docs/tutorial.md block {i}", "exec"), namespace)
    assert (tmp_path / "minds" / "assistant.db").exists()
