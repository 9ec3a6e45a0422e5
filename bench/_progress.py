"""Progress bars for the benchmarks (issue 19): the CLI's `JobProgress` (rich: count, total, %,
rate, ETA, elapsed) on stderr when stderr is a terminal; silent otherwise, so a run redirected
to a file or a CI log holds its tables and nothing else."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from rich.console import Console

from salience.interfaces.cli_progress import JobProgress

T = TypeVar("T")


def bar(label: str, total: int | None, *, unit: str = "items") -> JobProgress:
    """A progress context (`with bar(...) as p: ... p.advance(n)`), drawn only on a terminal."""
    console = Console(stderr=True)
    return JobProgress(label, total, console=console, unit=unit, quiet=not console.is_terminal)


def track(items: Sequence[T], label: str, *, unit: str = "items") -> Iterator[T]:
    """`items`, one by one, advancing a `bar` after each."""
    with bar(label, len(items), unit=unit) as p:
        for item in items:
            yield item
            p.advance()
