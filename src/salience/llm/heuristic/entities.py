"""Rule-based entity extraction: emails, URLs, money, dates, handles, and capitalised names.

Capitalised runs count as names unless they only stand at the start of a sentence; a word
at a sentence start is kept when it is a known first name or place, or when the same word
also appears capitalised mid-sentence elsewhere in the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...models.text import text_cache
from .lexicon import (
    ACRONYM_STOP,
    CITIES,
    COMMON_CAPS,
    COUNTRIES,
    FIRST_NAMES,
    MONTHS,
    ORG_SUFFIXES,
    STOPWORDS,
    WEEKDAYS,
)

_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
)
_WEEKDAY = r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?"
_ORD = r"(?:st|nd|rd|th)?"

EMAIL_RE = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}\b")
URL_RE = re.compile(r"\b(?:https?://|www\.)[^\s<>\"']+", re.IGNORECASE)
MONEY_RE = re.compile(
    r"[$€£¥]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:[kKmM]|bn|million|billion|thousand)\b)?"
    r"|\b\d[\d,]*(?:\.\d+)?\s?(?:USD|EUR|GBP|JPY|CHF|dollars|euros|pounds|bucks)\b"
)
DATE_RE = re.compile(
    rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b"
    rf"|\b\d{{1,2}}[/.]\d{{1,2}}[/.]\d{{2,4}}\b"
    rf"|\b{_MONTH}\s+\d{{1,2}}{_ORD}\b(?:,?\s+\d{{4}}\b)?"
    rf"|\b\d{{1,2}}{_ORD}\s+(?:of\s+)?{_MONTH}(?:,?\s+\d{{4}}\b)?"
    rf"|\b{_MONTH}\s+\d{{4}}\b"
    rf"|\b(?:(?:[Nn]ext|[Ll]ast|[Tt]his)\s+)?{_WEEKDAY}\b"
)
YEAR_RE = re.compile(r"\b(?:in|since|from|until|till|by|of|around)\s+((?:19|20)\d{2})\b", re.I)
HANDLE_RE = re.compile(r"(?<![\w@.])@[A-Za-z_][\w]{1,30}\b")
_TOKEN_RE = re.compile(r"(?<!\w)[^\W\d_][\w]*(?:['’][A-Za-z]+)?")
_CONNECTORS = frozenset({"of", "de", "da", "del", "van", "von", "der", "la", "le", "du", "di"})
_TITLES = frozenset({"dr", "mr", "mrs", "ms", "prof", "sir", "dame"})
_PLACE_CUES = frozenset({"in", "from", "near", "to", "visit", "visited", "visiting", "around"})
_PRONOUN_I = frozenset({"i", "i'm", "i've", "i'd", "i'll"})
_AMBIGUOUS_LOWER = frozenset(
    {
        "nice",
        "us",
        "turkey",
        "china",
        "jordan",
        "georgia",
        "chad",
        "mobile",
        "reading",
        "bath",
        "split",
        "victoria",
        "phoenix",
        "perth",
        "cork",
        "oxford",
        "cambridge",
        "austin",
        "uk",
        "usa",
        "uae",
        "washington",
        "santiago",
        "lima",
        "sofia",
        "florence",
    }
)


@dataclass(frozen=True, slots=True)
class Entity:
    """One entity mention: its text, a coarse kind and where it starts in the source text."""

    text: str
    kind: str  # person | place | org | date | email | url | money | handle | name
    start: int


def _sentence_start(text: str, pos: int) -> bool:
    before = text[max(0, pos - 80) : pos]  # a window: whole-prefix slices are quadratic
    stripped = before.rstrip(" \t")
    if not stripped and pos > 80:
        return False
    if not stripped or stripped.endswith("\n") or "\n" in before[len(stripped) :]:
        return True
    return stripped[-1] in ".!?:;\"'“(-•*>"


def _norm(token: str) -> str:
    t = token.replace("’", "'")
    if t.lower().endswith("'s"):
        t = t[:-2]
    return t.rstrip(".")


def _is_cap(token: str) -> bool:
    t = _norm(token)
    return bool(t) and t[0].isupper() and t.lower() not in _PRONOUN_I


def _classify(name: str, prev_word: str, titled: bool) -> str:
    parts = name.split()
    low = name.lower()
    last = parts[-1].lower().rstrip(",")
    if last in ORG_SUFFIXES or parts[0].lower() in {"university", "bank"}:
        return "org"
    if low in CITIES or low in COUNTRIES:
        return "place"
    if titled or parts[0].lower() in FIRST_NAMES:
        return "person"
    if prev_word in _PLACE_CUES:
        return "place"
    return "name"


def _cap_runs(text: str, covered: _Covered) -> list[Entity]:
    tokens = [m for m in _TOKEN_RE.finditer(text) if not _inside(m.start(), covered)]
    mid_caps = {
        _norm(m.group()).lower()
        for m in tokens
        if _is_cap(m.group()) and not _sentence_start(text, m.start())
    }
    out: list[Entity] = []
    i = 0
    while i < len(tokens):
        if not _is_cap(tokens[i].group()):
            i += 1
            continue
        run = [tokens[i]]
        j = i + 1
        while j < len(tokens):
            gap = text[run[-1].end() : tokens[j].start()]
            tok = tokens[j].group()
            prev_is_title = _norm(run[-1].group()).lower() in _TITLES
            if gap not in (" ", "-", " & ") and not (prev_is_title and gap == ". "):
                break
            if "'" in run[-1].group().replace("’", "'"):  # possessive ends a name
                break
            connector = (
                tok in _CONNECTORS and j + 1 < len(tokens) and _is_cap(tokens[j + 1].group())
            )
            if _is_cap(tok) or connector:
                run.append(tokens[j])
                j += 1
            else:
                break
        i = j
        entity = _make_entity(text, run, mid_caps)
        if entity is not None:
            out.append(entity)
    return out


def _make_entity(text: str, run: list[re.Match[str]], mid_caps: set[str]) -> Entity | None:
    at_start = _sentence_start(text, run[0].start())
    # all-caps shouting is not a run of acronyms
    if len(run) > 3 and all(_norm(m.group()).isupper() for m in run):
        return None
    # drop leading function words, greetings, months/weekdays
    while run:
        low = _norm(run[0].group()).lower()
        if low in COMMON_CAPS or low in STOPWORDS or low in MONTHS or low in WEEKDAYS:
            run = run[1:]
            at_start = False
            continue
        break
    while run and _norm(run[-1].group()).lower() in (_CONNECTORS | MONTHS | WEEKDAYS):
        run = run[:-1]
    if not run:
        return None
    first = _norm(run[0].group())
    first_low = first.lower()
    titled = first_low in _TITLES
    name = _norm(text[run[0].start() : run[-1].end()])
    low = name.lower()
    known = (
        first_low in FIRST_NAMES
        or low in CITIES
        or low in COUNTRIES
        or low.split()[-1] in ORG_SUFFIXES
        or titled
    )
    hyphenated = len(run) > 1 and text[run[0].end() : run[1].start()] == "-"
    if at_start and not known and first_low not in mid_caps and not (hyphenated and len(run) > 2):
        if len(run) == 1 or hyphenated:
            if not (first.isupper() and len(first) >= 2 and first_low not in ACRONYM_STOP):
                return None
        else:  # "Call John" -> "John": the first word is probably an ordinary verb or noun
            return _make_entity_from(text, run[1:], mid_caps)
    if len(run) == 1 and first.isupper() and first_low in ACRONYM_STOP:
        return None
    if titled and len(run) == 1:
        return None
    prev_words = text[max(0, run[0].start() - 60) : run[0].start()].split()
    prev = prev_words[-1].lower().strip(".,;:") if prev_words else ""
    return Entity(name, _classify(name, prev, titled), run[0].start())


def _make_entity_from(text: str, run: list[re.Match[str]], mid_caps: set[str]) -> Entity | None:
    if not run:
        return None
    name = _norm(text[run[0].start() : run[-1].end()])
    prev_words = text[max(0, run[0].start() - 60) : run[0].start()].split()
    prev = prev_words[-1].lower().strip(".,;:") if prev_words else ""
    return Entity(name, _classify(name, prev, False), run[0].start())


class _Covered:
    """Character positions already claimed by a pattern entity (O(1) membership)."""

    def __init__(self, size: int) -> None:
        self._mask = bytearray(size)

    def add(self, a: int, b: int) -> None:
        self._mask[a:b] = b"\x01" * (b - a)

    def __contains__(self, pos: int) -> bool:
        return 0 <= pos < len(self._mask) and self._mask[pos] == 1


def _inside(pos: int, spans: _Covered) -> bool:
    return pos in spans


def _lowercase_places(text: str, covered: _Covered) -> list[Entity]:
    """Gazetteer places written in lower case ("i moved to lisbon"), unambiguous ones only."""
    out: list[Entity] = []
    toks = [(m.group().lower(), m.start(), m.end()) for m in re.finditer(r"[a-z]+", text)]
    i = 0
    while i < len(toks):
        for n in (3, 2, 1):
            if i + n > len(toks):
                continue
            phrase = " ".join(t[0] for t in toks[i : i + n])
            if (phrase in CITIES or phrase in COUNTRIES) and phrase not in _AMBIGUOUS_LOWER:
                start = toks[i][1]
                if not _inside(start, covered) and text[start].islower():
                    out.append(Entity(phrase.title(), "place", start))
                i += n
                break
        else:
            i += 1
    return out


#: texts whose mentions are kept: one ingested item is read by triage, quality (twice) and the
#: graph extraction, and each used to find its entities again (~2.5 ms a text)
ENTITIES_CACHE_SIZE = 1024


def find_entities(text: str) -> list[Entity]:
    """All entity mentions in `text`, deduplicated case-insensitively, in order of appearance."""
    return list(_find_entities(text))


@text_cache(ENTITIES_CACHE_SIZE)
def _find_entities(text: str) -> tuple[Entity, ...]:
    found: list[Entity] = []
    covered = _Covered(len(text))

    def add(kind: str, pattern: re.Pattern[str], group: int = 0) -> None:
        for m in pattern.finditer(text):
            a, b = m.span(group)
            if _inside(a, covered):
                continue
            value = m.group(group).rstrip(".,;:!?)")
            covered.add(a, b)
            found.append(Entity(value, kind, a))

    add("email", EMAIL_RE)
    add("url", URL_RE)
    add("money", MONEY_RE)
    add("date", DATE_RE)
    add("date", YEAR_RE, 1)
    add("handle", HANDLE_RE)
    runs = _cap_runs(text, covered)
    found.extend(runs)
    for e in runs:
        covered.add(e.start, e.start + len(e.text))
    found.extend(_lowercase_places(text, covered))
    found.sort(key=lambda e: e.start)
    seen: set[str] = set()
    out: list[Entity] = []
    for e in found:
        key = " ".join(e.text.lower().split())
        if len(key) < 2 or key in seen:
            continue
        seen.add(key)
        out.append(e)
    return tuple(out)


def extract_entities(text: str, *, limit: int = 25) -> list[str]:
    """Entity texts of `text` (see `find_entities`), at most `limit`."""
    return [e.text for e in find_entities(text)[:limit]]
