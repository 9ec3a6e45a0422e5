"""A clause's slot read from its head words, without a sentence template (issue 14).

`claims` reads a slot from patterns ("I live in X", "I work at Y"). People often state the
same fact with none of those verbs: "the view from the new balcony in greenwich is unreal",
"finally got the keys to my own studio in Neukölln", "first week as a product manager at
Canva". Here a slot is recognised from a word of its vocabulary (a home noun, a job noun)
beside a value of the slot's kind (a place, an organisation's name), wherever they sit in
the clause. Only the speaker's own present facts are read: a trip, a visit, someone else's
home or a past or planned event gives nothing (the caller skips hypotheticals and episodes).
"""

from __future__ import annotations

import re

from .lexicon import CITIES, COMMON_CAPS, COUNTRIES, MONTHS, STOPWORDS, WEEKDAYS

#: nouns of where one lives: one of them and a place name the clause's residence
HOME_WORDS = (
    "flat", "apartment", "apartments", "house", "studio", "balcony", "lease", "keys",
    "neighbourhood", "neighborhood", "unpacking", "city life", "care home", "new address",
    "new place", "our place", "my place", "new home", "settled", "houseshare", "condo",
    "bungalow", "cottage", "loft", "dorm", "mortgage", "landlord", "rent a room", "renting",
    "farm",
)
#: nouns of a job: one of them and an organisation's name after "at" the clause's employer
JOB_WORDS = (
    "role", "job", "offer", "position", "first day", "first week", "first month",
    "contract", "internship", "onboarding", "new team", "hired", "work in", "working in",
)
#: words that make a place somewhere one goes, not where one lives
_AWAY = re.compile(
    r"\b(?:trip|holiday|holidays|vacation|visit|visiting|visited|honeymoon|weekend away|"
    r"conference|hotel|airbnb|friend's|friends'|parents'|mum's|mom's|dad's|sister's|"
    r"brother's|his|her|their|used to live|grew up|back when|would|might|maybe|someday|"
    r"one day|staying (?:at|with)|for (?:the next|a) (?:few |couple (?:of )?|\w+ )?(?:days?|nights?|weeks?)|"
    r"this week|until (?:the )?\w+day)\b",
    re.I,
)
_HOME_RE = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in HOME_WORDS) + r")\b", re.I)
_JOB_RE = re.compile(r"\b(?:" + "|".join(re.escape(w) for w in JOB_WORDS) + r")\b", re.I)
_AT_NAME = re.compile(r"\b(?:at|from|with)\s+(?P<v>(?-i:[A-Z][\w&'’.-]*)"
                      r"(?:\s+(?-i:[A-Z][\w&'’.-]*)){0,2})")
_IN_PLACE = re.compile(r"\b(?:in|to|outside|near)\s+"
                       r"(?P<v>[^\s,.;!?()]+(?:\s+[^\s,.;!?()]+){0,2})", re.I)
_NOT_NAMES = {w.lower() for w in (*COMMON_CAPS, *MONTHS, *WEEKDAYS)} | set(STOPWORDS)


def _place(phrase: str) -> str | None:
    """The place a phrase begins with: a known city or country however it is written, else a
    capitalised name that is not a common word ("in Neukölln")."""
    toks = phrase.split()
    low = [t.lower().strip("'\"") for t in toks]
    for n in (3, 2, 1):
        if len(low) >= n and (" ".join(low[:n]) in CITIES or " ".join(low[:n]) in COUNTRIES):
            return " ".join(low[:n])
    if toks and toks[0][:1].isupper() and low[0] not in _NOT_NAMES:
        caps = [t for t in toks[:2] if t[:1].isupper() and t.lower() not in _NOT_NAMES]
        return " ".join(caps).lower() if len(caps) == len(toks[:len(caps)]) else low[0]
    return None


def home_place(clause: str) -> str | None:
    """The place the speaker lives in, read from a home noun and a place in `clause`."""
    if not _HOME_RE.search(clause) or _AWAY.search(clause):
        return None
    for m in _IN_PLACE.finditer(clause):
        place = _place(m.group("v"))
        if place is not None:
            return place
    return None


def job_employer(clause: str) -> str | None:
    """The organisation the speaker works for, read from a job noun and "at <Name>"."""
    if not _JOB_RE.search(clause) or _AWAY.search(clause):
        return None
    for m in _AT_NAME.finditer(clause):
        name = m.group("v").rstrip(".'’")
        if name.split()[0].lower() not in _NOT_NAMES and name.lower() not in CITIES \
                and name.lower() not in COUNTRIES:
            return name.lower()
    return None
