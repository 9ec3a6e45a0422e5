"""Temporal phrases in queries, resolved against `now` into a time range (pure functions).

Recognised (case-insensitive, English): today, tonight, this morning, tomorrow, yesterday,
last night, this/last/next week, month and year, last/this/next <weekday> (also "fri",
"tues"), last/this/next weekend, N weekends ago, the other day, last/this/next <season> and "the summer of
2022", N days/weeks/months/years ago, "a week ago", "a few days ago", month names with an
optional day and year ("in May", "May 2023", "on 8 May, 2023", "May 8th"), and bare years
("in 2022"). One grammar for questions (`parse_time_range`: the most specific phrase) and
memories (`told_times`: every phrase, resolved against when the memory was said). Relative references to events ("before the trip") need the events
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
WEEKDAYS.update({"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3,
                 "fri": 4, "sat": 5, "sun": 6})
# meteorological seasons of the northern hemisphere: (first month, months); winter Y is
# December Y to February Y+1
SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
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
_VAGUE_NUMBERS = frozenset({"few", "couple", "several"})
_UNIT_DAYS = {"day": 1, "week": 7, "weekend": 7, "month": 30, "year": 365}
_TOLD_SKIP = frozenset({"m"})
TOLD_CACHE = 4096  # memory texts whose told times are kept (as rank.STEM_CACHE)
EXACT_SLACK = timedelta(days=1)  # "three days ago", "last weekend": a day either side
VAGUE_SLACK = timedelta(days=3)  # "a few days ago", "two weeks ago": about half a week

_MONTH_RE = "|".join(sorted(MONTHS, key=len, reverse=True))
_WEEKDAY_RE = "|".join(sorted(WEEKDAYS, key=len, reverse=True))
_SEASON_RE = "|".join(SEASONS)
_NUMBER_RE = r"\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|couple|several"
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
    rf"\b({_NUMBER_RE})(?:\s+of)?\s+(day|weekend|week|month|year)s?\s+ago\b", re.I
)
_RE_WEEKDAY = re.compile(rf"\b(last|past|this|next)\s+({_WEEKDAY_RE})(?![a-z])", re.I)
_RE_WEEKEND = re.compile(r"\b(last|past|this|next)\s+weekend\b", re.I)
_RE_SEASON = re.compile(
    rf"\b(?:(last|past|this|next)\s+({_SEASON_RE})|(?:the\s+)?({_SEASON_RE})\s+(?:of\s+)?"
    r"((?:19|20)\d{2}))\b",
    re.I,
)
_RE_OTHER_DAY = re.compile(r"\bthe\s+other\s+day\b", re.I)
_RE_REL = re.compile(
    r"\b(today|tonight|tomorrow|yesterday|last\s+night|this\s+(?:morning|afternoon|evening)|"
    r"(?:this|last|past|next)\s+(?:week|month|year))\b",
    re.I,
)
# the tense of the clause around "this weekend": said on a Monday, "this weekend we went
# hiking" is the weekend just gone, "this weekend we're going hiking" the coming one
_RE_FUTURE = re.compile(
    r"\b(?:will|shall|gonna|going\s+to|plan(?:ning)?|hope|hoping|want|can't\s+wait)\b|"
    r"'ll\b|\b(?:am|is|are|'m|'re)\s+\w+ing\b",
    re.I,
)
_RE_PAST_VERB = re.compile(
    r"\b(?:was|were|went|had|did|got|took|made|saw|came|spent|ran|felt|met|found|been|"
    r"\w{2,}[^e\W]ed)\b",
    re.I,
)
_RE_CLAUSE = re.compile(r"[^.!?;\n]+")


@dataclass(frozen=True, slots=True)
class TimeRange:
    """[start, end) in UTC, with the phrase it came from. `slack`: how far a vague phrase's
    time may be off either way ("a few days ago") — an overlap test widens the range by it,
    a breadth test does not."""

    start: datetime
    end: datetime
    phrase: str
    slack: timedelta = timedelta(0)

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
    if w in ("today", "tonight") or w in ("this morning", "this afternoon", "this evening"):
        return today, today + timedelta(days=1)
    if w == "tomorrow":
        return today + timedelta(days=1), today + timedelta(days=2)
    if w in ("yesterday", "last night"):
        return today - timedelta(days=1), today
    if w.endswith("week"):
        monday = today - timedelta(days=today.weekday())
        shift = {"this": 0, "last": -7, "next": 7}[w.split()[0]]
        return monday + timedelta(days=shift), monday + timedelta(days=shift + 7)
    if w.endswith("month"):
        if w.startswith("this"):
            return _month_range(now.year, now.month)
        if w.startswith("next"):
            return _month_range(now.year + (now.month == 12), now.month % 12 + 1)
        prev = today.replace(day=1) - timedelta(days=1)
        return _month_range(prev.year, prev.month)
    year = now.year + {"this": 0, "last": -1, "next": 1}[w.split()[0]]
    return datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)


def _season_range(name: str, year: int) -> tuple[datetime, datetime]:
    first = SEASONS[name.lower()]
    start = datetime(year, first, 1, tzinfo=UTC)
    end_month = first + 3
    end = datetime(year + (end_month > 12), (end_month - 1) % 12 + 1, 1, tzinfo=UTC)
    return start, end


def _season(which: str, name: str, now: datetime) -> tuple[datetime, datetime]:
    """"last summer": the latest summer over before `now`; "this winter": the one `now` is in,
    else the coming one; "next spring": the first one starting after `now`."""
    which = which.lower().replace("past", "last")
    today = _day(now)
    years = [now.year - 2, now.year - 1, now.year, now.year + 1]
    spans = [_season_range(name, y) for y in years]
    if which == "last":
        return [s for s in spans if s[1] <= today][-1]
    if which == "next":
        return next(s for s in spans if s[0] > today)
    return next(s for s in spans if s[1] > today)


def _weekend(which: str, n: int, now: datetime, clause: str) -> tuple[datetime, datetime]:
    """The Saturday and Sunday meant: "last weekend" the latest one over before today (said on a
    Saturday or Sunday, the one before), "this weekend" the one today is in or the coming one
    — or, in a past-tense clause said Monday to Thursday, the one just gone; "next weekend"
    the one after the coming one; "N weekends ago" N back from the latest."""
    today = _day(now)
    saturday = today + timedelta(days=(5 - today.weekday()) % 7)  # this or coming Saturday
    if today.weekday() == 6:
        saturday = today - timedelta(days=1)
    which = which.lower().replace("past", "last")
    if which == "this":
        past = _RE_PAST_VERB.search(clause) and not _RE_FUTURE.search(clause)
        if past and today.weekday() < 4:
            saturday -= timedelta(days=7)
    elif which == "next":
        saturday += timedelta(days=7)
    else:  # last, or n weekends ago
        saturday -= timedelta(days=7 * n)
    return saturday, saturday + timedelta(days=2)


def _weekday(which: str, target: int, now: datetime) -> datetime:
    today = _day(now)
    which = which.lower().replace("past", "last")
    if which == "last":
        return today - timedelta(days=(today.weekday() - target) % 7 or 7)
    if which == "next":
        return today + timedelta(days=(target - today.weekday()) % 7 or 7)
    return today + timedelta(days=target - today.weekday())  # in this Monday-to-Sunday week


def _safe_day(year: int, month: int, day: int) -> datetime | None:
    try:
        return datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None


def _latest_year(month: int, day: int, now: datetime) -> int:
    """The year of the most recent (month, day) not after `now`."""
    return now.year if (month, day) <= (now.month, now.day) else now.year - 1


# the grammar, most specific kind first: where two phrases overlap the earlier kind wins
_GRAMMAR = (
    (_RE_DAY_MONTH, "dm"),
    (_RE_MONTH_DAY, "md"),
    (_RE_MONTH_YEAR, "my"),
    (_RE_AGO, "ago"),
    (_RE_WEEKDAY, "weekday"),
    (_RE_WEEKEND, "weekend"),
    (_RE_SEASON, "season"),
    (_RE_OTHER_DAY, "other"),
    (_RE_REL, "rel"),
    (_RE_MONTH, "m"),
    (_RE_YEAR, "y"),
)


def _clause(text: str, pos: int) -> str:
    for c in _RE_CLAUSE.finditer(text):
        if c.start() <= pos < c.end():
            return c.group(0)
    return text


def _resolve(match: re.Match[str], kind: str, text: str, now: datetime) -> TimeRange | None:
    phrase = match.group(0)
    if kind in ("dm", "md"):
        day_s, mon_s = (match[1], match[2]) if kind == "dm" else (match[2], match[1])
        month, day = MONTHS[mon_s.lower()], int(day_s)
        year = int(match[3]) if match[3] else _latest_year(month, day, now)
        start = _safe_day(year, month, day)
        return None if start is None else TimeRange(start, start + timedelta(days=1), phrase)
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
        vague = n_s in _VAGUE_NUMBERS
        if unit == "weekend":
            return TimeRange(*_weekend("last", n, now, ""), phrase, EXACT_SLACK)
        centre = _day(now) - timedelta(days=n * _UNIT_DAYS[unit])
        if unit == "day":  # one day, a day either way (three, if "a few")
            slack = VAGUE_SLACK if vague else EXACT_SLACK
            return TimeRange(centre, centre + timedelta(days=1), phrase, slack)
        if unit == "week":  # about that day, half a week either way
            return TimeRange(centre, centre + timedelta(days=1), phrase, VAGUE_SLACK)
        half = timedelta(days=_UNIT_DAYS[unit] // 2)
        return TimeRange(centre - half, centre + half + timedelta(days=1), phrase)
    if kind == "weekday":
        start = _weekday(match[1], WEEKDAYS[match[2].lower()], now)
        return TimeRange(start, start + timedelta(days=1), phrase)
    if kind == "weekend":
        span = _weekend(match[1], 1, now, _clause(text, match.start()))
        return TimeRange(*span, phrase, EXACT_SLACK)
    if kind == "other":  # "the other day": two to five days back
        centre = _day(now) - timedelta(days=3)
        return TimeRange(centre, centre + timedelta(days=1), phrase, timedelta(days=2))
    if kind == "season":
        if match[2]:
            return TimeRange(*_season(match[1], match[2], now), phrase)
        return TimeRange(*_season_range(match[3], int(match[4])), phrase)
    return TimeRange(*_relative(match[1], now), phrase)


def _phrases(
    text: str, now: datetime, skip: frozenset[str]
) -> list[tuple[int, int, TimeRange]]:
    """(kind rank, position, range) of every time phrase of `text`, none overlapping another."""
    taken: list[tuple[int, int]] = []
    out: list[tuple[int, int, TimeRange]] = []
    for rank, (rx, kind) in enumerate(_GRAMMAR):
        if kind in skip:
            continue
        for match in rx.finditer(text):
            a, b = match.span()
            if any(a < y and x < b for x, y in taken):
                continue
            span = _resolve(match, kind, text, now)
            if span is None:
                continue
            taken.append((a, b))
            out.append((rank, a, span))
    return out


def time_phrases(
    text: str, now: datetime, *, skip: frozenset[str] = frozenset()
) -> tuple[TimeRange, ...]:
    """Every time phrase of `text` resolved against `now` (UTC), in the order of the text.
    `skip` leaves out kinds of phrase ("m": a month without a year). The one grammar of
    questions and memories."""
    return tuple(r for _, _, r in sorted(_phrases(text, now, skip), key=lambda p: p[1]))


def parse_time_range(
    query: str, now: datetime, *, skip: frozenset[str] = frozenset()
) -> TimeRange | None:
    """The most specific temporal phrase of `query` (a date before a month, a month before a
    year; the first of equals) resolved against `now` (UTC), or None — `time_phrases`'
    grammar."""
    found = _phrases(query, now, skip)
    return min(found, key=lambda p: (p[0], p[1]))[2] if found else None


@text_cache(TOLD_CACHE)
def told_times(text: str, when: datetime) -> tuple[TimeRange, ...]:
    """When what `text` tells happened, by every phrase of its own resolved against the time it
    was said (`when`): "yesterday I went bowling" said on 17 March is about 16 March, "two weeks
    ago", "last Friday", "this weekend", "last summer", "on 8 May, 2023" alike. A month without
    a year is left out (which year it means is a guess). Pure; cached per text and time."""
    return time_phrases(text, when, skip=_TOLD_SKIP)


def about_time(span: TimeRange, when: datetime | None, text: str) -> bool:
    """True if a memory said at `when` with `text` is about the time `span`: said within it,
    or one of its phrases (`told_times`) telling of a time that overlaps it (within the
    phrase's slack) and is no broader than the span itself — a memory's "last year" does not
    match a question about one day of that year."""
    if span.contains(when):
        return True
    if when is None:
        return False
    # a question about a month ("… in August?") is answered by a memory naming that month as
    # well as by one naming a day of it: "getting married in August" / "August 18"
    told = time_phrases(text, when) if _a_bare_month(span) else told_times(text, when)
    width = span.end - span.start
    return any(
        t.end - t.start <= width
        and t.start - t.slack < span.end
        and span.start < t.end + t.slack
        for t in told
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


#: an earlier state asked about outright, not any past tense ("What did Caroline research?"):
#: "before", "used to", "my old / previous …", childhood
_RE_EARLIER = re.compile(
    r"\b(?:before|used to|previously|formerly|originally|at first|back then|back when|"
    r"childhood|as a (?:kid|child|teenager)|growing up|when i was (?:a )?(?:kid|child|little|"
    r"young|younger|teenager)|(?:my|our|the|his|her|their|your) (?:old|previous|former|"
    r"original|first))\b",
    re.I,
)


def asks_earlier_state(query: str) -> bool:
    """True if `query` asks outright about an earlier state ("what phone did I have before?",
    "what was my childhood dog called?", "where was my previous flat?") and not also about the
    present: what a newer statement replaced is the answer, so the update stages must not put
    the newer one first. Plain past tense is not enough: "What did Caroline research?" asks
    what she said."""
    return _RE_EARLIER.search(query) is not None and not wants_recent(query)


def about_past(query: str) -> bool:
    """True if `query` asks about an earlier state (past tense or a past anchor) and does not
    also ask about the present ("is she still …", "these days")."""
    return _RE_PAST.search(query) is not None and not wants_recent(query)
