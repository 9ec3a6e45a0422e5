"""Calendar events from an ICS file (`icalendar`), as items of the calendar path.

Each VEVENT becomes one item: summary, start/end, location, organizer, attendees, recurrence and
description. Events without dates are kept (the text says "date unknown"; `occurred_at` is
None). The item key is UID + SEQUENCE (+ RECURRENCE-ID), so an updated event (higher SEQUENCE)
is imported again and an unchanged one is not; events without a UID are keyed by content hash.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

from ..clock import ensure_utc
from ..errors import InvalidInput, MissingExtra
from .items import IngestItem
from .source import SourceRecord

_MAX_DESCRIPTION = 8_000


def _calendar_module() -> Any:
    try:
        import icalendar
    except ImportError as e:
        raise MissingExtra("icalendar", "import") from e
    return icalendar


def _when(prop: Any) -> datetime | date | None:
    if prop is None:
        return None
    value = getattr(prop, "dt", prop)
    return value if isinstance(value, datetime | date) else None


def as_utc(value: datetime | date | None) -> datetime | None:
    """An event time as aware UTC (all-day dates at 00:00 UTC; floating times taken as UTC)."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return ensure_utc(value)
    return ensure_utc(datetime.combine(value, time()))


def _fmt(value: datetime | date | None) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return ensure_utc(value).strftime("%Y-%m-%d %H:%M UTC")
    return value.isoformat() + " (all day)"


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return " ".join(str(value).replace("\x00", "").split())


def _people(value: Any) -> list[str]:
    if value is None:
        return []
    values = value if isinstance(value, list) else [value]
    out = []
    for v in values:
        name = getattr(v, "params", {}).get("CN") if hasattr(v, "params") else None
        addr = str(v).removeprefix("mailto:").removeprefix("MAILTO:")
        out.append(f"{name} <{addr}>" if name else addr)
    return [p for p in out if p.strip()]


def event_record(ev: Any) -> SourceRecord:
    """One VEVENT as a harvest record."""
    summary = _text(ev.get("SUMMARY")) or "(untitled event)"
    start, end = _when(ev.get("DTSTART")), _when(ev.get("DTEND"))
    location = _text(ev.get("LOCATION"))
    description = _text(ev.get("DESCRIPTION"))[:_MAX_DESCRIPTION]
    organizer = _people(ev.get("ORGANIZER"))
    attendees = _people(ev.get("ATTENDEE"))
    rrule = ev.get("RRULE")
    lines = [f"Event: {summary}"]
    if start is None:
        lines.append("When: date unknown")
    else:
        lines.append(f"When: {_fmt(start)}" + (f" to {_fmt(end)}" if end is not None else ""))
    if rrule is not None:
        lines.append("Repeats: " + _text(rrule.to_ical() if hasattr(rrule, "to_ical") else rrule))
    if location:
        lines.append(f"Where: {location}")
    if organizer:
        lines.append("Organizer: " + ", ".join(organizer))
    if attendees:
        lines.append("Attendees: " + ", ".join(attendees))
    if description:
        lines.append("")
        lines.append(description)
    text = "\n".join(lines)
    uid = _text(ev.get("UID"))
    seq = _text(ev.get("SEQUENCE")) or "0"
    rid = _when(ev.get("RECURRENCE-ID"))
    if uid:
        key = f"{uid}#{seq}" + (f"@{as_utc(rid).isoformat()}" if rid is not None else "")
    else:
        key = "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    notes = [] if start is not None else [f"event {summary!r} has no start date"]
    item = IngestItem(
        path="calendar", text=text, occurred_at=as_utc(start), tags=["calendar"], imported=True,
        metadata={k: v for k, v in (("uid", uid), ("sequence", seq), ("summary", summary),
                                     ("location", location),
                                     ("end", as_utc(end).isoformat() if end else "")) if v},
    )
    return SourceRecord(key=key, item=item, notes=notes)


def read_ics(path: Path, *, source: str) -> Iterator[SourceRecord]:
    """Records of every VEVENT in the calendar file at `path`.

    Raises `InvalidInput` when the file is not a readable calendar, `MissingExtra` when
    `icalendar` is not installed (extra `import`).
    """
    icalendar = _calendar_module()
    if not path.is_file():
        raise InvalidInput(f"{path} is not a file")
    data = path.read_bytes()
    try:
        cals = icalendar.Calendar.from_ical(data, multiple=True)
    except Exception as e:
        raise InvalidInput(f"{path} is not a valid iCalendar file: {e}") from None
    if not cals:
        raise InvalidInput(f"{path} contains no calendar")
    n = 0
    for cal in cals:
        for ev in cal.walk("VEVENT"):
            try:
                yield event_record(ev)
            except Exception as e:  # one broken event never stops the import
                yield SourceRecord(key=f"broken:{n}", item=None,
                                   notes=[f"event {n}: {type(e).__name__}: {e}"])
            n += 1


def count_ics(path: Path) -> int | None:
    """Number of VEVENTs (for a progress bar), counted from BEGIN:VEVENT lines."""
    if not path.is_file():
        return None
    marker, n, tail = b"BEGIN:VEVENT", 0, b""
    try:
        with path.open("rb") as f:
            while chunk := f.read(1 << 20):  # fixed-size reads: a file without newlines is fine
                block = (tail + chunk).upper()
                n += block.count(marker)
                tail = block[-(len(marker) - 1) :]  # too short to hold a whole marker again
    except OSError:
        return None
    return n
