"""Temporal phrases in queries, resolved against `now` into a time range (pure functions).

Recognised (case-insensitive, English): today, yesterday, tonight, this/last week, this/last
month, this/last year, last <weekday>, N days/weeks/months/years ago, "a week ago", month names
with an optional day and year ("in May", "May 2023", "on 8 May, 2023", "May 8th"), and bare
years ("in 2022"). Relative references to events ("before the trip") need the events
themselves and are not parsed. A month without a year means its most recent occurrence not
after `now`.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from ..models.text import text_cache

MONTHS = {
    name.lower(): i
    for i in range(1, 13)
    for name in (calendar.month_name[i], calendar.month_abbr[i])
}
MONTHS["sept"] = 9
WEEKDAYS = {calendar.day_name[i].lower(): i for i in range(7)}
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "few": 3,
    "couple": 2,
    "several": 3,
}
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
_TOLD_SKIP = frozenset({"m"})
TOLD_CACHE = 4096  # memory texts whose told time is kept (as rank.STEM_CACHE)

_MONTH_RE = "|".join(sorted(MONTHS, key=len, reverse=True))
_RE_DAY_MONTH = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\.?(?:,?\s+(\d{{4}}))?\b", re.I
)
_RE_MONTH_DAY = re.compile(
    rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}}))?", re.I
)
_RE_MONTH_YEAR = re.compile(rf"\b({_MONTH_RE})\.?,?\s+(?:of\s+)?(\d{{4}})\b", re.I)
_RE_MONTH = re.compile(rf"\b(?:in|during|since|of|last|this)\s+({_MONTH_RE})\b", re.I)
_RE_YEAR = re.compile(r"\b(?:in|during|of|since)\s+((?:19|20)\d{2})\b", re.I)
_RE_AGO = re.compile(
    r"\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|couple|several)"
    r"(?:\s+of)?\s+(day|week|month|year)s?\s+ago\b",
    re.I,
)
_RE_LAST_WEEKDAY = re.compile(r"\blast\s+(" + "|".join(WEEKDAYS) + r")\b", re.I)
_RE_REL = re.compile(
    r"\b(today|tonight|yesterday|(?:this|last|past)\s+(?:week|month|year))\b", re.I
)


@dataclass(frozen=True, slots=True)
class TimeRange:
    """[start, end) in UTC, with the phrase it came from."""

    start: datetime
    end: datetime
    phrase: str

    def contains(self, when: datetime | None) -> bool:
        return when is not None and self.start <= when < self.end


def _day(d: datetime) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


def _month_range(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return start, end


def _relative(word: str, now: datetime) -> tuple[datetime, datetime]:
    today = _day(now)
    w = " ".join(word.lower().split()).replace("past ", "last ")
    if w in ("today", "tonight"):
        return today, today + timedelta(days=1)
    if w == "yesterday":
        return today - timedelta(days=1), today
    if w.endswith("week"):
        monday = today - timedelta(days=today.weekday())
        return (
            (monday, monday + timedelta(days=7))
            if w.startswith("this")
            else (monday - timedelta(days=7), monday)
        )
    if w.endswith("month"):
        if w.startswith("this"):
            return _month_range(now.year, now.month)
        prev = today.replace(day=1) - timedelta(days=1)
        return _month_range(prev.year, prev.month)
    year = now.year if w.startswith("this") else now.year - 1
    return datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)


def _safe_day(year: int, month: int, day: int) -> datetime | None:
    try:
        return datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None


def _latest_year(month: int, day: int, now: datetime) -> int:
    """The year of the most recent (month, day) not after `now`."""
    return now.year if (month, day) <= (now.month, now.day) else now.year - 1


def parse_time_range(
    query: str, now: datetime, *, skip: frozenset[str] = frozenset()
) -> TimeRange | None:
    """The first temporal phrase of `query` resolved against `now` (UTC), or None. `skip`
    leaves out kinds of phrase ("m": a month without a year)."""
    for rx, kind in (
        (_RE_DAY_MONTH, "dm"),
        (_RE_MONTH_DAY, "md"),
        (_RE_MONTH_YEAR, "my"),
        (_RE_AGO, "ago"),
        (_RE_LAST_WEEKDAY, "weekday"),
        (_RE_REL, "rel"),
        (_RE_MONTH, "m"),
        (_RE_YEAR, "y"),
    ):
        match = None if kind in skip else rx.search(query)
        if not match:
            continue
        phrase = match.group(0)
        if kind in ("dm", "md"):
            day_s, mon_s = (match[1], match[2]) if kind == "dm" else (match[2], match[1])
            month, day = MONTHS[mon_s.lower()], int(day_s)
            year = int(match[3]) if match[3] else _latest_year(month, day, now)
            start = _safe_day(year, month, day)
            if start is None:
                continue
            return TimeRange(start, start + timedelta(days=1), phrase)
        if kind == "my":
            return TimeRange(*_month_range(int(match[2]), MONTHS[match[1].lower()]), phrase)
        if kind == "m":
            month = MONTHS[match[1].lower()]
            year = now.year if month <= now.month else now.year - 1
            return TimeRange(*_month_range(year, month), phrase)
        if kind == "y":
            year = int(match[1])
            return TimeRange(
                datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC), phrase
            )
        if kind == "ago":
            n_s, unit = match[1].lower(), match[2].lower()
            n = int(n_s) if n_s.isdigit() else _NUMBERS[n_s]
            span = _UNIT_DAYS[unit]
            centre = _day(now) - timedelta(days=n * span)
            half = timedelta(days=max(1, span // 2))
            return TimeRange(centre - half, centre + half + timedelta(days=1), phrase)
        if kind == "weekday":
            target = WEEKDAYS[match[1].lower()]
            back = (now.weekday() - target) % 7 or 7
            start = _day(now) - timedelta(days=back)
            return TimeRange(start, start + timedelta(days=1), phrase)
        return TimeRange(*_relative(match[1], now), phrase)
    return None


@text_cache(TOLD_CACHE)
def told_time(text: str, when: datetime) -> TimeRange | None:
    """When what `text` tells happened, by its own phrase resolved against the time it was
    said (`when`): "yesterday I went bowling" said on 17 March is about 16 March, "two weeks
    ago", "last Friday", "on 8 May, 2023" alike. A month without a year is left out (which
    year it means is a guess). Pure; cached per text and time."""
    return parse_time_range(text, when, skip=_TOLD_SKIP)


def about_time(span: TimeRange, when: datetime | None, text: str) -> bool:
    """True if a memory said at `when` with `text` is about the time `span`: said within it,
    or telling of a time within it (`told_time`) no longer than the span itself — a memory's
    "last year" does not match a question about one day of that year."""
    if span.contains(when):
        return True
    if when is None:
        return False
    told = told_time(text, when)
    if told is None and _a_bare_month(span):
        # a question about a month ("… in August?") is answered by a memory naming that month
        # as well as by one naming a day of it: "getting married in August" / "August 18"
        told = parse_time_range(text, when)
    return (
        told is not None
        and told.end - told.start <= span.end - span.start
        and told.start < span.end
        and span.start < told.end
    )


def _a_bare_month(span: TimeRange) -> bool:
    """Whether `span` is one calendar month named without a day or a year ("in August")."""
    days = (span.end - span.start).days
    return 28 <= days <= 31 and span.start.day == 1 and not any(
        ch.isdigit() for ch in span.phrase)


# Questions about the present state ("where does she live these days?") want the newest
# statement: older ones about the same thing are the likeliest to be stale.
_RE_RECENCY = re.compile(
    r"\b(these days|nowadays|lately|currently|current|at the moment|right now|now|"
    r"latest|most recent(?:ly)?|these days|any more|anymore|still)\b",
    re.I,
)


def wants_recent(query: str) -> bool:
    """True if `query` asks about the current state of something (recency intent)."""
    return _RE_RECENCY.search(query) is not None


# Questions anchored in the past ("where did she live before?", "what was my old number?")
# ask for an earlier statement: newer ones about the same thing must not displace it.
_RE_PAST = re.compile(
    r"\b(?:did|didn't|was|wasn't|were|weren't|had|used to|ago|before|previously|formerly|"
    r"originally|initially|at first|at the time|back then|back in|back when|earlier|"
    r"(?:my|our|the|his|her|their|your) (?:old|previous|former|last|first|original)|"
    r"in (?:19|20)\d\d)\b",
    re.I,
)


def about_past(query: str) -> bool:
    """True if `query` asks about an earlier state (past tense or a past anchor) and does not
    also ask about the present ("is she still …", "these days")."""
    return _RE_PAST.search(query) is not None and not wants_recent(query)
