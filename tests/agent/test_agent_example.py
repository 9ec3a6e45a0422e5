"""examples/agent_records_loop.py runs and shows the loop issue 20 asks for: traces recorded,
a signal accumulated from repeated corrections and seen once, a better procedure version
promoted through an evolution run."""

from __future__ import annotations

import runpy
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "agent_records_loop.py"


def test_agent_loop_example(capsys):
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    out = capsys.readouterr().out
    assert out.count("self-awareness shows a signal") == 1  # surfaced once
    assert "- [correction ×3] date format: the user wants ISO dates" in out
    assert "turn 3: v1 answered '[May 4th] book the design review #3' -> corrected (3x)" in out
    assert "evolution accepted (success_rate 0 -> 1" in out
    assert "active version: v2" in out
    assert "signal shown again: False" in out
    assert "runs: {'failure': 3, 'success': 6}" in out
