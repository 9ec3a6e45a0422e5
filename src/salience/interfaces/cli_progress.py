"""Progress of long CLI jobs (import, export, restore, reembed): a rich bar with the count, total,
rate, ETA and elapsed time on a terminal; without one (a pipe, a log file, CI) a plain line
every `progress_interval_s` seconds (`SALIENCE_PROGRESS_INTERVAL_S`, default 5) and one when the
job ends.

The counting, rate and ETA are rich's (`rich.progress.Task`); only the plain line is ours.
"""

from __future__ import annotations

import time
from datetime import timedelta
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

DEFAULT_INTERVAL_S = 5.0


class RateColumn(ProgressColumn):
    """Items per second, e.g. `12.5 emails/s`."""

    def __init__(self, unit: str) -> None:
        super().__init__()
        self.unit = unit

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{rate_text(speed)} {self.unit}/s", style="progress.data.speed")


def rate_text(speed: float | None) -> str:
    """`speed` (items/s) with sensible precision; '?' before rich has measured it."""
    if speed is None:
        return "?"
    return f"{speed:,.0f}" if speed >= 100 else f"{speed:,.1f}" if speed >= 1 else f"{speed:.2f}"


def clock_text(seconds: float | None) -> str:
    """H:MM:SS, or '?' when unknown."""
    if seconds is None:
        return "?"
    return str(timedelta(seconds=int(max(seconds, 0))))


def plain_line(label: str, unit: str, task: Task) -> str:
    """One line for logs: `import mbox: 120/3,000 (4%) 2.1 emails/s, ETA 0:22:51, elapsed 0:00:57`."""
    done = int(task.completed)
    if task.total:
        head = f"{label}: {done:,}/{int(task.total):,} ({100 * done / task.total:.0f}%)"
    else:
        head = f"{label}: {done:,} {unit}"
    rate = f"{rate_text(task.finished_speed or task.speed)} {unit}/s"
    eta = "" if task.finished or not task.total else f", ETA {clock_text(task.time_remaining)}"
    return f"{head} {rate}{eta}, elapsed {clock_text(task.finished_time or task.elapsed)}"


class JobProgress:
    """Progress of one job; use as a context manager and call `advance(n)` (the callback the
    SDK's `progress=` parameters take).

    Args:
        label: what the job is, e.g. "import mbox".
        total: how many items it will process (None: unknown; no ETA).
        console: where to draw (stderr, so `--json` output on stdout stays clean).
        unit: the items' name in the rate, e.g. "emails".
        interval: without a TTY, seconds between plain lines (`Config.progress_interval_s`).
        quiet: draw nothing.
    """

    def __init__(
        self,
        label: str,
        total: int | None,
        *,
        console: Console,
        unit: str = "items",
        interval: float = DEFAULT_INTERVAL_S,
        quiet: bool = False,
    ) -> None:
        self.label, self.unit, self.console = label, unit, console
        self.quiet = quiet
        self.live = console.is_terminal and not quiet
        self.interval = interval
        self._last = time.monotonic()
        self._progress = Progress(
            TextColumn(label),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            RateColumn(unit),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("elapsed"),
            TimeElapsedColumn(),
            console=console,
            disable=not self.live,
        )
        self._task = self._progress.add_task(label, total=total)

    @property
    def task(self) -> Task:
        return self._progress.tasks[0]

    def __enter__(self) -> JobProgress:
        self._progress.start()
        return self

    def advance(self, n: int = 1) -> None:
        """`n` more items done."""
        self._progress.advance(self._task, n)
        if not self.live and not self.quiet:
            now = time.monotonic()
            if now - self._last >= self.interval:
                self._last = now
                self._print()

    def _print(self) -> None:
        self.console.print(
            plain_line(self.label, self.unit, self.task), markup=False, highlight=False,
            soft_wrap=True,
        )

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            task = self.task
            if task.total is None or task.completed > task.total:
                self._progress.update(self._task, total=task.completed)  # the count was the total
            self._progress.update(self._task, completed=self.task.completed)
            self._progress.stop_task(self._task)
        self._progress.stop()
        if not self.live and not self.quiet and exc_type is None:
            self._print()



def job_progress(label: str, total: int | None, *, unit: str = "items", quiet: bool = False) -> JobProgress:
    """A `JobProgress` on stderr with the configured plain-line interval."""
    from .cli_common import config_for, err_console

    interval = config_for().progress_interval_s
    return JobProgress(
        label, total, console=err_console, unit=unit, interval=interval, quiet=quiet
    )
