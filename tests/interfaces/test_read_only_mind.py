"""What a read-scope key holds (`interfaces.http_pool.ReadOnlyMind`): its reads change nothing
that decides what the next caller sees (found by the auth-matrix review: POST /context with a
read key marked improvement signals surfaced)."""

from __future__ import annotations

from pathlib import Path

from salience import Config, Mind
from salience.interfaces.http_pool import read_only


def test_a_read_key_context_does_not_mark_signals_surfaced(tmp_path: Path) -> None:
    with Mind.open(tmp_path / "m.db", config=Config(home=tmp_path), embedder="hash") as mind:
        for _ in range(5):
            mind.signals.record("correction", "date format")
        assert [s.pattern_key for s in mind.signals.actionable()] == ["date format"]
        assert not read_only(mind).context("hello").signals  # a read key consumes none
        assert [s.pattern_key for s in mind.signals.actionable()] == ["date format"]
        shown = mind.context("hello")  # a writer's prompt surfaces it, once
        assert [s.pattern_key for s in shown.signals] == ["date format"]
        assert not mind.signals.actionable()
