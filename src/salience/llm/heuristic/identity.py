"""Heuristic user-profile consolidation: clean attributes from what the user says about
themselves.

Only first-person statements are read ("I live in …", "my dog is called …", "we have two
kids"); lines spoken by the assistant are skipped, and so are questions, hypotheticals ("if I
lived in Paris"), wishes and plans ("I want to move to Berlin"). Every value is checked before
it is kept:

- places, employers and people's names must be proper nouns ("I live in a small flat in
  Södermalm" → Södermalm; "I live in the city centre" → nothing);
- diets, relationship statuses and pet kinds come from closed vocabularies;
- liked and disliked things must be short noun phrases without pronouns or verbs, so "I like
  it here" or "I like it, glad you are settling" never become attributes.

Later statements win (memories are read in chronological order); one-valued attributes
(residence, employer, diet, a manager, a spouse …) are replaced, list-valued ones (likes,
languages, pets, siblings …) accumulate. `IdentityProfile.sources` maps every attribute to the
ids of the memories it came from.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..brain import IdentityProfile
from .lexicon import COMMON_CAPS, LANGUAGES, MONTHS, PROFESSIONS, RELATIONS, WEEKDAYS
from .synthesis import chronological
from .text import expand, split_sentences, split_speaker

if TYPE_CHECKING:
    from ...models import Memory

def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


MAX_TRAITS = 8
MAX_ITEMS = 12  # items kept in a list-valued attribute (likes, dislikes, ...)
EMPTY_PROFILE = "No facts about the user recorded yet."

_ADV = (
    r"(?:(?:still|now|currently|also|actually|really|just|recently|finally|officially|happily)\s+)*"
)
_NEG = r"(?P<neg>do not\s+|does not\s+|no longer\s+|never\s+|not\s+)?"
_WE = r"(?<![\w'])(?:i|we)\s+"
_I = r"(?<![\w'])i\s+"
_REST = r"(?P<val>[^,.;!?()]+)"
DIETS = _words(
    "vegetarian vegan pescatarian pescetarian flexitarian omnivore keto paleo gluten-free "
    "dairy-free plant-based halal kosher"
)
_DIET = "|".join(sorted(DIETS, key=len, reverse=True))
PETS = (
    "dog", "cat", "puppy", "kitten", "rabbit", "bunny", "hamster", "parrot",
    "horse", "guinea pig", "budgie", "tortoise", "turtle", "bird", "lizard", "snake",
    "ferret", "goldfish", "fish",
)
_PET = "|".join(sorted(PETS, key=len, reverse=True))
_BREEDS = frozenset(_words(
    "collie retriever terrier spaniel shepherd poodle labrador lab beagle husky bulldog "
    "dachshund pug tabby siamese persian schnauzer corgi greyhound whippet chihuahua mix mutt "
    "rescue maltese boxer rottweiler doodle"
))
#: relations with one current holder: a new one replaces the old
EXCLUSIVE_RELATIONS = frozenset(_words(
    "wife husband partner spouse girlfriend boyfriend fiance fiancee fiancé fiancée boss "
    "manager mom mum mother dad father"
))
_REL = "|".join(sorted(RELATIONS, key=len, reverse=True))
_PROF = "|".join(sorted(PROFESSIONS, key=len, reverse=True))
_NUMBER_WORDS = dict(
    zip(_words("one two three four five six seven eight nine ten"), range(1, 11), strict=True)
)
_STATUS = r"single|married|divorced|engaged|widowed|separated|in a relationship"


def _p(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_RESIDENCE = (
    _p(
        rf"{_WE}{_ADV}{_NEG}{_ADV}(?:live|am living|are living|reside|am based|are based|"
        rf"have settled|settled|am settling|are settling|am settled|are settled)\s+(?:down\s+)?"
        rf"in\s+{_REST}"
    ),
    _p(
        rf"{_WE}{_ADV}(?:have\s+)?{_ADV}(?:moved|relocated)\s+(?:back\s+)?"
        rf"(?:from\s+[^,.;!?]+?\s+)?(?:to|into)\s+{_REST}"
    ),
    _p(rf"(?:^|(?<=\bmy\s)|(?<=\bour\s))home\s+is\s+(?:now\s+)?(?:in\s+)?{_REST}"),
)
_HOMETOWN = (
    _p(rf"{_I}{_ADV}(?:am|come)\s+(?:originally\s+)?from\s+{_REST}"),
    _p(rf"{_I}{_ADV}(?:grew up|was born and raised|was raised)\s+in\s+{_REST}"),
)
_EMPLOYER = (
    _p(rf"{_I}{_ADV}{_NEG}{_ADV}(?:work|am working)\s+(?:at|for)\s+{_REST}"),
    _p(
        rf"{_I}{_ADV}(?:have\s+)?{_ADV}(?:joined|started at|started working (?:at|for)|"
        rf"started (?:a |my )?(?:new )?job (?:at|with)|got (?:a |the )?(?:new )?job (?:at|with)|"
        rf"accepted (?:a |an |the )?(?:job )?offer (?:at|from)|took (?:a |the )?job (?:at|with)|"
        rf"am employed (?:at|by))\s+{_REST}"
    ),
    _p(rf"\bmy\s+(?:new\s+)?(?:job|employer|company)\s+is\s+(?:now\s+)?(?:at\s+|with\s+)?{_REST}"),
)
_LEAVE = _p(
    rf"{_WE}{_ADV}(?:have\s+)?{_ADV}(?:left|quit|resigned from|moved out of|moved away from)\s+"
    rf"(?:my (?:job|position|role) (?:at|with)\s+)?{_REST}"
)
_OCCUPATION = (
    _p(rf"{_I}{_ADV}(?:work|am working)\s+(?:(?:at|for)\s+[^,.;!?]+?\s+)?as\s+(?:an?\s+)?{_REST}"),
    _p(
        rf"{_I}(?:am|became|have become|got promoted to|was promoted to)\s+{_ADV}(?:an?\s+)?"
        rf"(?P<val>(?:[a-z-]+\s+){{0,2}}?(?:{_PROF}))\b"
    ),
)
_NAME = (
    _p(rf"\bmy\s+name\s+is\s+{_REST}"),
    _p(rf"{_I}(?:am called|go by)\s+{_REST}"),
    _p(rf"(?:^|(?<=\bplease\s)|(?<=\bjust\s))call\s+me\s+{_REST}"),
)
_AGE = (
    _p(rf"{_I}am\s+(?P<val>\d{{1,3}})(?=\s*(?:years?\s+old\b|yo\b|$|[,;]|\s+(?:and|now|today)\b))"),
    _p(rf"{_I}(?:just\s+)?turned\s+(?P<val>\d{{1,3}})\b"),
)
_DIET_RES = (
    _p(
        rf"{_I}{_ADV}(?:am|have been|have become|became|went|have gone|turned)\s+{_ADV}{_NEG}"
        rf"{_ADV}(?:an?\s+)?(?:strict\s+|full\s+|fully\s+|mostly\s+)?(?P<val>{_DIET})\b"
    ),
    _p(
        rf"{_I}{_ADV}(?:eat|follow|keep|am on|started|switched to|went on|have switched to)\s+"
        rf"(?:an?\s+)?(?:strict\s+)?(?P<val>{_DIET})(?:\s+diet)?\b"
    ),
)
_MEAT_AGAIN = _p(rf"{_I}{_ADV}(?:eat meat again|started eating meat|eat meat now|eat meat)\b")
_NO_MEAT = _p(
    rf"{_I}{_ADV}(?:do not eat meat|stopped eating meat|gave up meat|no longer eat meat)\b"
)
_STATUS_RES = (
    _p(rf"{_WE}(?:am|are)\s+{_ADV}{_NEG}{_ADV}(?:a\s+)?(?:happily\s+)?(?P<val>{_STATUS})\b"),
    _p(
        rf"{_WE}{_ADV}(?:just\s+)?(?:got|have got|have been|were)\s+"
        rf"(?P<val>married|engaged|divorced|"
        rf"separated)\b"
    ),
)
_HEALTH = _p(
    rf"{_I}{_ADV}(?:am|have been|have|was diagnosed with|suffer from|got)\s+{_ADV}"
    rf"(?:severely\s+|very\s+|mildly\s+|badly\s+)?(?P<val>allergic to [^,.;!?]+|(?:lactose|gluten)"
    rf" intolerant|type [12] diabetes|diabetes|diabetic|asthma|migraines|c[o]?eliac(?: disease)?|"
    rf"epilepsy|adhd|insomnia|high blood pressure|arthritis)"
)
_LANGS = re.compile(r"(?<![\w'])[Ii]\s+(?:also\s+|can\s+)?speak\s+(?P<val>[^.;!?()]+)")
_PEOPLE = _p(
    rf"\b(?:my|our)\s+(?P<adj>(?:new|old|older|younger|little|big|best|eldest|oldest|youngest)"
    rf"\s+)?(?P<rel>{_REL})(?:'s\s+name\s+is\s+|\s*,\s*|\s+is\s+called\s+|\s+is\s+named\s+|\s+"
    rf"called\s+|\s+named\s+|\s+is\s+|\s+)(?P<val>[^,.;!?()]+)"
)
_CHILDREN = _p(
    rf"{_WE}{_ADV}(?:have|have got)\s+(?P<val>\d+|{'|'.join(_NUMBER_WORDS)})\s+(?:kids|children|"
    rf"sons|daughters|boys|girls)\b"
)
_PET_NAMED = _p(
    rf"\b(?:my|our)\s+(?:new\s+|little\s+|old\s+)?(?P<pet>{_PET})(?:'s\s+name\s+is\s+|\s*,\s*|"
    rf"\s+is\s+called\s+|\s+is\s+named\s+|\s+called\s+|\s+named\s+|\s+)(?P<val>[^,.;!?()]+)"
    rf"(?:,\s*an?\s+(?P<breed>[a-z -]+))?"
)
_PET_HAVE = _p(
    rf"{_WE}{_ADV}(?:have|got|adopted|have got|have adopted|rescued)\s+an?\s+(?:new\s+|little\s+)?"
    rf"(?P<pet>{_PET})(?:\s+(?:called|named)\s+(?P<val>[^,.;!?()]+))?"
)
_PET_GONE = _p(rf"\b(?:my|our)\s+(?P<pet>{_PET})\s+(?P<val>[^,.;!?()]+?)\s+(?:died|passed away)\b")
_LIKE = _p(
    rf"{_I}{_ADV}{_NEG}{_ADV}(?P<verb>love|like|enjoy|adore|hate|dislike|detest|can not stand|"
    rf"prefer)\s+(?P<val>[^,.;!?()]+)"
)
_FAN = _p(
    rf"{_I}am\s+{_ADV}(?P<neg>not\s+)?(?:a\s+)?(?:big\s+|huge\s+)?fan\s+of\s+(?P<val>[^,.;!?()]+)"
)
_FAVOURITE = _p(
    r"\bmy\s+(?:all-time\s+)?(?:favou?rite|fave)\s+(?P<attr>[a-z]+(?:\s+[a-z]+)?)\s+(?:is|are|"
    r"has always been|is now|is still)\s+(?P<val>[^,.;!?()]+)"
)
_PHONE = _p(
    r"\bmy\s+(?:new\s+)?(?:phone|mobile|cell)(?:\s+number)?\s+is\s+(?:now\s+)?"
    r"(?P<val>\+?\d[\d ().-]{4,}\d)"
)
_EMAIL = _p(
    r"\bmy\s+(?:new\s+)?e-?mail(?:\s+address)?\s+is\s+(?:now\s+)?"
    r"(?P<val>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)"
)
_MONTH = "|".join(m for m in MONTHS if len(m) > 3)
_BIRTHDAY = _p(
    rf"\bmy\s+birthday\s+is\s+(?:on\s+)?(?P<val>(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?"
    rf"(?:{_MONTH})|(?:{_MONTH})\s+\d{{1,2}}(?:st|nd|rd|th)?)\b"
)
#: words before a match in its clause that make it a wish, plan, question or hypothesis
_UNREAL = re.compile(
    r"\b(?:if|would|could|might|maybe|perhaps|wish|hope|hoping|want|wants|wanted|plan|planning|"
    r"thinking|considering|dream|imagine|suppose|pretend|unless|whether|should|going to|used to|"
    r"when|once|before|after|says|said|thinks|think that)\b",
    re.I,
)
_SUBJECT_BREAK = re.compile(
    r"\s*(?:,|;)?\s+(?:and|but|so|because|while|although)\s+(?=(?:i|we|my|our)\b)", re.I
)
_CLAUSE_BREAK = re.compile(r"[,;:]|\b(?:but|and|so|because|although|though|while)\b", re.I)
_OBJ_STOP = re.compile(
    r"\s+(?:but|because|since|when|although|though|so|than|over|instead|unless|if|as long as|"
    r"to (?:be|do|go|have)|(?:and|or) (?:i|we|my|it|he|she|they|you)|with (?:my|our|the|friends|"
    r"family|him|her|them|you))\b.*$",
    re.I,
)
_OBJ_TAIL = re.compile(
    r"(?:\s+(?:anymore|any more|a lot|so much|very much|now|too|again|these days|nowadays|"
    r"more|most|best|the most|lately|recently|as well))+$",
    re.I,
)
#: words that make an object or a value junk: pronouns, auxiliaries, fillers
_JUNK = frozenset(_words(
    "it it's its this that these those them him her you me us here there everything something "
    "anything nothing someone anyone everyone one ones what which who whom how when where why "
    "am is are was were be been being have has had do does did will would can could should "
    "may might must glad settling going gonna get getting got things stuff lot idea way fact "
    "kind sort my our your his their i we he she they ok okay yes no not thanks thank thought "
    "photo photos pic pics picture pictures look sound"
))
_CONNECTORS = frozenset(_words(
    "de da do dos das del di du la le van von der den y"
))
_NOT_NAMES = COMMON_CAPS | MONTHS | WEEKDAYS | {"i", "the", "a", "an", "my", "our"}


def _is_cap(token: str) -> bool:
    """A proper-noun-looking token: capitalised ("Södermalm", "IBM") or camel ("eBay")."""
    t = token.strip("'\"")
    if not t or (not t[0].isalpha() and not t[0].isdigit()):
        return False
    return t[0].isupper() or (len(t) > 1 and t[0].islower() and t[1].isupper())


def proper_noun(raw: str, *, max_tokens: int = 4, anywhere_after_in: bool = False) -> str:
    """The proper noun at the start of `raw` ("Acme Corp as an engineer" → "Acme Corp"), or
    with `anywhere_after_in` the first one introduced by "in" ("a flat in Södermalm" →
    "Södermalm") or "called"/"named"; "" when there is none."""
    tokens = raw.split()
    if len(tokens) > 1 and tokens[0].lower() == "the" and _is_cap(tokens[1]):
        tokens = tokens[1:]  # "the Netherlands"
    starts = [0] + [i + 1 for i, t in enumerate(tokens[:8]) if t.lower() in {"called", "named"}]
    if anywhere_after_in:
        starts += [i + 1 for i, t in enumerate(tokens[:8]) if t.lower() == "in"]
    for s in starts:
        run: list[str] = []
        for i, tok in enumerate(tokens[s:], start=s):
            word = tok.strip("'\"")
            if word.endswith("'s"):
                word = word[:-2]
            low = word.lower()
            if (_is_cap(word) and (run or low not in _NOT_NAMES)) or (
                run and low in _CONNECTORS and i + 1 < len(tokens) and _is_cap(tokens[i + 1])
            ):
                run.append(word)
            else:
                break
            if len(run) >= max_tokens or tok.endswith("'s"):
                break
        while run and run[-1].lower() in _CONNECTORS:
            run.pop()
        if run:
            return " ".join(run)
    return ""


def _gerund(verb: str) -> str:
    v = verb.lower()
    if v.endswith("ie"):
        return v[:-2] + "ying"
    if v.endswith("e") and not v.endswith(("ee", "ye", "oe")):
        return v[:-1] + "ing"
    if (
        len(v) <= 4
        and len(v) >= 3
        and v[-1] not in "aeiouwxy"
        and v[-2] in "aeiou"
        and v[-3] not in "aeiou"
    ):
        return v + v[-1] + "ing"
    return v + "ing"


def clean_thing(raw: str, *, max_words: int = 5) -> str:
    """A liked/disliked thing as a short noun phrase, or "" when `raw` is not one:
    "hiking in the mountains" stays, "it here", "that idea", "you" and "my job" are refused;
    "to cook on weekends" becomes "cooking on weekends"."""
    text = _OBJ_STOP.sub("", " " + raw.strip()).strip()
    text = _OBJ_TAIL.sub("", text).strip(" -'\"")
    words_ = text.split()
    if words_ and words_[0].lower() == "to" and len(words_) > 1:
        words_ = [_gerund(words_[1]), *words_[2:]]
    while words_ and words_[0].lower() in {"the", "a", "an", "some"}:
        words_ = words_[1:]
    if not words_ or len(words_) > max_words:
        return ""
    if any(w.lower().strip("'\"") in _JUNK for w in words_):
        return ""
    if words_[-1].lower() in {"of", "and", "or", "with", "in", "on", "at", "to", "for", "the", "a"}:
        return ""
    return " ".join(w if _is_cap(w) else w.lower() for w in words_)


def _clean_phrase(raw: str, *, max_words: int = 4) -> str:
    """A lower-case descriptive phrase (an occupation, a favourite): cut at the first
    preposition or conjunction, refused when it holds a pronoun or an auxiliary."""
    out: list[str] = []
    for w in raw.split():
        low = w.lower().strip("'\"")
        if low in {
            "at",
            "for",
            "in",
            "with",
            "since",
            "and",
            "but",
            "so",
            "because",
            "from",
            "on",
            "now",
            "anymore",
            "these",
            "until",
            "when",
            "who",
            "which",
            "where",
            "by",
        }:
            break
        out.append(low)
    while out and out[0] in {"the", "a", "an"}:
        out = out[1:]
    if not out or len(out) > max_words or any(w in _JUNK for w in out):
        return ""
    return " ".join(out)


@dataclass(slots=True)
class _Profile:
    """Attributes being built: one-valued slots, list-valued items, per-attribute sources."""

    attrs: dict[str, str] = field(default_factory=dict)
    items: dict[str, list[str]] = field(default_factory=dict)  # likes, health, pets, sister …
    sources: dict[str, list[str]] = field(default_factory=dict)

    def set(self, key: str, value: str, mid: str) -> None:
        if value:
            self.attrs[key] = value
            self.sources[key] = [mid]

    def clear(self, key: str, value: str | None = None) -> None:
        if key in self.attrs and (value is None or self.attrs[key].lower() == value.lower()):
            del self.attrs[key]
            self.sources.pop(key, None)

    def add(self, key: str, item: str, mid: str, *, unique_by: str | None = None) -> None:
        """Append `item` (moving it to the end when already there); `unique_by` also drops
        items that start with it and a parenthesis ("dog Rex" replaces "dog Rex (collie)")."""
        if not item:
            return
        items = self.items.setdefault(key, [])
        match = (unique_by or item).lower()
        items[:] = [
            i
            for i in items
            if i.lower() != item.lower()
            and i.lower() != match
            and not i.lower().startswith(match + " (")
        ]
        items.append(item)
        src = self.sources.setdefault(key, [])
        if mid not in src:
            src.append(mid)

    def remove(self, key: str, item: str) -> None:
        items = self.items.get(key)
        if items:
            items[:] = [i for i in items if i.lower() != item.lower()]


def user_text(text: str) -> str:
    """The user's own words of a memory text: lines spoken by the assistant are dropped and
    a leading "User:" label is removed; other text is kept as it is."""
    out: list[str] = []
    speaker: str | None = None
    for line in text.splitlines():
        who, said = split_speaker(line)
        if who is not None:
            speaker = who.lower()
        if speaker == "assistant":
            continue
        out.append(said if who is not None else line)
    return "\n".join(out)


def _unreal(sentence: str, start: int) -> bool:
    """Whether the clause leading to position `start` makes the statement unreal."""
    head = sentence[:start]
    breaks = list(_CLAUSE_BREAK.finditer(head))
    clause = head[breaks[-1].end() :] if breaks else head
    return bool(_UNREAL.search(clause)) or bool(
        re.match(r"\s*(?:if|when|whether|unless|suppose|imagine)\b", sentence, re.I)
    )


def _clauses(sentence: str) -> list[tuple[int, int]]:
    """Spans of the clauses of `sentence` that start with their own subject ("I love ramen
    and I love sushi" → two)."""
    spans, start = [], 0
    for m in _SUBJECT_BREAK.finditer(sentence):
        spans.append((start, m.start()))
        start = m.end()
    return [*spans, (start, len(sentence))]


def _matches(pattern: re.Pattern[str], sentence: str) -> list[re.Match[str]]:
    """Real (not wished, planned or supposed) matches of `pattern`, clause by clause."""
    return [
        m
        for a, b in _clauses(sentence)
        for m in pattern.finditer(sentence, a, b)
        if not _unreal(sentence, m.start())
    ]


def _place(raw: str) -> str:
    return proper_noun(raw, anywhere_after_in=True)


def _diet(raw: str) -> str:
    return raw.lower().replace("pescetarian", "pescatarian")


#: one-valued attributes: (key, patterns, value cleaner); a negated match clears the value
_SLOTS: tuple[tuple[str, tuple[re.Pattern[str], ...], Callable[[str], str]], ...] = (
    ("name", _NAME, lambda raw: proper_noun(raw, max_tokens=3)),
    ("age", _AGE, str.strip),
    ("residence", _RESIDENCE, _place),
    ("hometown", _HOMETOWN, _place),
    ("employer", _EMPLOYER, proper_noun),
    ("occupation", _OCCUPATION, _clean_phrase),
    ("diet", _DIET_RES, _diet),
    ("relationship status", _STATUS_RES, str.lower),
)


def _read_sentence(p: _Profile, s: str, mid: str) -> None:
    for m in _matches(_LEAVE, s):
        gone = proper_noun(m.group("val"))
        if gone:
            p.clear("employer", gone)
            p.clear("residence", gone)
    for key, patterns, clean in _SLOTS:
        for pat in patterns:
            for m in _matches(pat, s):
                value = clean(m.group("val"))
                if m.groupdict().get("neg"):
                    p.clear(key, value or None)
                else:
                    p.set(key, value, mid)
    if _matches(_NO_MEAT, s):
        if p.attrs.get("diet") in (None, "eats meat"):
            p.set("diet", "no meat", mid)
    elif _matches(_MEAT_AGAIN, s):
        p.set("diet", "eats meat", mid)
    for pat in _STATUS_RES:
        for m in _matches(pat, s):
            if m.groupdict().get("neg"):
                p.clear("relationship status", m.group("val"))
            else:
                p.set("relationship status", m.group("val").lower(), mid)
    for m in _matches(_HEALTH, s):
        p.add("health", clean_thing(m.group("val"), max_words=6) or m.group("val").lower(), mid)
    for m in _matches(_LANGS, s):
        for name in re.split(r",\s*|\s+and\s+|\s+", m.group("val")):
            if name.lower() in LANGUAGES:
                p.add("languages", name.capitalize(), mid)
    _read_people(p, s, mid)
    _read_pets(p, s, mid)
    _read_likes(p, s, mid)
    for m in _matches(_FAVOURITE, s):
        attr = " ".join(m.group("attr").lower().split()).replace("color", "colour")
        value = clean_thing(m.group("val"))
        p.set(f"favourite {attr}", value, mid)
    for key, pat in (("phone", _PHONE), ("email", _EMAIL), ("birthday", _BIRTHDAY)):
        for m in _matches(pat, s):
            p.set(key, " ".join(m.group("val").split()), mid)


def _read_people(p: _Profile, s: str, mid: str) -> None:
    for m in _matches(_PEOPLE, s):
        rel = m.group("rel").lower()
        adj = (m.group("adj") or "").strip().lower()
        name = proper_noun(m.group("val"), max_tokens=3)
        if not name or name.lower() in RELATIONS:
            continue
        key = "best friend" if adj == "best" and rel == "friend" else rel
        if key in EXCLUSIVE_RELATIONS:
            p.items[key] = []
            p.sources[key] = []
        p.add(key, name, mid)
    for m in _matches(_CHILDREN, s):
        n = m.group("val").lower()
        p.set("number of children", str(_NUMBER_WORDS.get(n, n)), mid)


def _pet_label(pet: str, name: str, breed: str) -> str:
    label = f"{pet} {name}".strip()
    return f"{label} ({breed})" if breed else label


def _read_pets(p: _Profile, s: str, mid: str) -> None:
    for m in _matches(_PET_GONE, s):
        name = proper_noun(m.group("val"), max_tokens=2)
        if name:
            p.remove("pets", _pet_label(m.group("pet").lower(), name, ""))
            for item in list(p.items.get("pets", [])):
                if item.lower().startswith(f"{m.group('pet').lower()} {name.lower()}"):
                    p.remove("pets", item)
    for m in _matches(_PET_NAMED, s):
        pet = m.group("pet").lower()
        name = proper_noun(m.group("val"), max_tokens=2)
        if not name:
            continue
        breed_raw = (m.group("breed") or "").strip().lower()
        breed = breed_raw if breed_raw.split() and breed_raw.split()[-1] in _BREEDS else ""
        p.add("pets", _pet_label(pet, name, breed), mid, unique_by=f"{pet} {name}")
        p.remove("pets", pet)
    for m in _matches(_PET_HAVE, s):
        pet = m.group("pet").lower()
        name = proper_noun(m.group("val") or "", max_tokens=2)
        if name:
            p.add("pets", _pet_label(pet, name, ""), mid, unique_by=f"{pet} {name}")
            p.remove("pets", pet)
        elif not any(
            i.lower().startswith(pet + " ") or i.lower() == pet for i in p.items.get("pets", [])
        ):
            p.add("pets", pet, mid)


def _read_likes(p: _Profile, s: str, mid: str) -> None:
    for m in [*_matches(_LIKE, s), *_matches(_FAN, s)]:
        groups = m.groupdict()
        verb = (groups.get("verb") or "like").lower()
        dislike = verb in {"hate", "dislike", "detest", "can not stand"}
        if groups.get("neg"):
            dislike = not dislike
        raw = m.group("val")
        if verb == "prefer":
            raw = re.split(r"\s+(?:to|over|than)\s+", raw)[0]
        thing = clean_thing(raw)
        if not thing:
            continue
        into, out_of = ("dislikes", "likes") if dislike else ("likes", "dislikes")
        p.remove(out_of, thing)
        p.add(into, thing, mid, unique_by=thing)


def _seed(previous: IdentityProfile | None) -> _Profile:
    p = _Profile()
    if previous is None:
        return p
    for key, value in previous.attributes.items():
        src = list(previous.sources.get(key, []))
        if key in _LIST_KEYS or key in RELATIONS or key == "best friend":
            sep = ", " if key in _COMMA_KEYS else "; "
            p.items[key] = [v.strip() for v in value.split(sep.strip()) if v.strip()]
        else:
            p.attrs[key] = value
        if src:
            p.sources[key] = src
    return p


_LIST_KEYS = frozenset({"likes", "dislikes", "health", "languages", "pets"})
_COMMA_KEYS = frozenset({"languages"} | set(RELATIONS) | {"best friend"})


def consolidate(
    memories: Sequence[Memory], previous: IdentityProfile | None = None
) -> IdentityProfile:
    """The user profile from `memories` (read in chronological order, later statements
    winning), on top of `previous`' attributes; traits from topic frequencies."""
    p = _seed(previous)
    ordered = chronological(memories)
    tag_counts: Counter[str] = Counter()
    for m in ordered:
        tag_counts.update(set(m.tags))
        for sentence in split_sentences(user_text(m.content)):
            if sentence.rstrip().endswith("?"):
                continue
            _read_sentence(p, expand(sentence.rstrip(".!")), m.id)
    attrs = dict(p.attrs)
    for key, items in p.items.items():
        if items:
            sep = ", " if key in _COMMA_KEYS else "; "
            attrs[key] = sep.join(items[-MAX_ITEMS:])
        else:
            attrs.pop(key, None)
    sources = {k: v for k, v in p.sources.items() if k in attrs}
    traits = _traits(tag_counts, len(ordered), attrs, previous)
    return IdentityProfile(
        profile=render_attributes(attrs, traits), attributes=attrs, traits=traits, sources=sources
    )


_TAG_TRAITS = (
    ("travel", "enjoys travel"),
    ("food", "food lover"),
    ("family", "family-oriented"),
    ("work", "career-focused"),
    ("sport", "active and sporty"),
    ("education", "keeps learning"),
    ("music", "music lover"),
    ("pets", "animal lover"),
    ("tech", "technically minded"),
    ("health", "health-conscious"),
    ("finance", "financially attentive"),
)
#: traits this module derives; a previous profile's copies are recomputed, never carried over
_DERIVED = frozenset({t for _, t in _TAG_TRAITS} | {"multilingual"} | set(DIETS))


def _traits(
    tags: Counter[str], n: int, attrs: dict[str, str], previous: IdentityProfile | None
) -> list[str]:
    out: list[str] = []
    threshold = max(2, round(0.15 * n))
    for tag, trait in sorted(_TAG_TRAITS, key=lambda p: -tags[p[0]]):
        if tags[tag] >= threshold:
            out.append(trait)
    if len(attrs.get("languages", "").split(",")) >= 2:
        out.append("multilingual")
    for t in previous.traits if previous else []:
        if t not in out and t.lower() not in _DERIVED:
            out.append(t)
    return out[:MAX_TRAITS]


_ORDER = (
    ("name", "Name"),
    ("age", "Age"),
    ("residence", "Lives in"),
    ("hometown", "From"),
    ("employer", "Works at"),
    ("occupation", "Occupation"),
    ("relationship status", "Relationship status"),
    ("number of children", "Children"),
    ("diet", "Diet"),
    ("health", "Health"),
    ("languages", "Speaks"),
    ("birthday", "Birthday"),
    ("phone", "Phone"),
    ("email", "Email"),
    ("pets", "Pets"),
)
_TAIL = (("likes", "Likes"), ("dislikes", "Dislikes"))


def render_attributes(attrs: dict[str, str], traits: list[str]) -> str:
    """One "Label: value." line per attribute in a fixed order, then people, favourites,
    other attributes, likes, dislikes and traits."""
    lines = [f"{label}: {attrs[key]}." for key, label in _ORDER if key in attrs]
    people = [
        f"{k} {n.strip()}"
        for k, v in attrs.items()
        if k in RELATIONS or k == "best friend"
        for n in v.split(",")
    ]
    if people:
        lines.append("Family and people: " + ", ".join(people) + ".")
    favourites = [
        f"{k[len('favourite ') :]}: {v}" for k, v in attrs.items() if k.startswith("favourite ")
    ]
    if favourites:
        lines.append("Favourites: " + ", ".join(favourites) + ".")
    known = {k for k, _ in _ORDER} | {k for k, _ in _TAIL}
    for key, value in attrs.items():
        if key in known or key in RELATIONS or key == "best friend" or key.startswith("favourite "):
            continue
        lines.append(f"{key[:1].upper()}{key[1:]}: {value}.")
    lines += [f"{label}: {attrs[key]}." for key, label in _TAIL if key in attrs]
    if traits:
        lines.append("Traits: " + ", ".join(traits) + ".")
    return "\n".join(lines) if lines else EMPTY_PROFILE
