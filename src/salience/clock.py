"""Time source. Nothing in Salience calls `datetime.now()` except `SystemClock`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol, runtime_checkable


@runtime_checkable
class Clock(Protocol):
    def now(self) -> datetime:
        """Current time, timezone-aware UTC."""
        ...


class SystemClock:
    """The real wall clock (UTC)."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class FrozenClock:
    """A clock that only moves when told to; for tests and simulations."""

    def __init__(self, start: datetime | None = None) -> None:
        start = start or datetime(2026, 1, 1, tzinfo=UTC)
        self._now = ensure_utc(start)

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta | None = None, **kwargs: float) -> datetime:
        """Move forward by `delta` or by `timedelta(**kwargs)`; returns the new time."""
        self._now += delta if delta is not None else timedelta(**kwargs)
        return self._now

    def set(self, when: datetime) -> None:
        self._now = ensure_utc(when)


def ensure_utc(value: datetime) -> datetime:
    """Return `value` as an aware UTC datetime; naive values are taken to be UTC.

    Raises `InvalidInput` when the UTC instant falls outside years 1-9999 (Python cannot
    represent it), so a hostile `since`, `until` or `as_of` is a 4xx, never an OverflowError.
    """
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:
        from .errors import InvalidInput

        raise InvalidInput(f"timestamp {value.isoformat()} falls outside years 1-9999 in UTC") from None


def parse_ts(value: str | datetime | None) -> datetime | None:
    """Parse an ISO-8601 timestamp (as stored) into an aware UTC datetime."""
    if value is None or isinstance(value, datetime):
        return ensure_utc(value) if value is not None else None
    return ensure_utc(datetime.fromisoformat(value))


def format_ts(value: datetime | None) -> str | None:
    """Format an aware datetime for storage: ISO-8601 UTC with microseconds, sortable as text."""
    if value is None:
        return None
    v = ensure_utc(value)
    # strftime's %Y does not zero-pad years below 1000, which would break text ordering
    return f"{v.year:04d}-" + v.strftime("%m-%dT%H:%M:%S.%f+00:00")
