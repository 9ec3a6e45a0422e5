"""Claims: what a sentence asserts, as (subject, attribute, value, negated).

- exclusive attributes: residence, employer, job, name, age, relationship status, diet,
  "my favourite X", "my/the/Anna's X is Y";
- polar statements: "I (don't) like X", "I no longer eat meat", "Anna isn't vegan" (like,
  love and enjoy are one verb; hate and dislike its negation);
- numeric templates: "I have 2 kids" (the same words with other numbers is another value).

Questions, hypotheticals ("if I lived in Paris") and habits in the past ("I used to") make no
claims; episodic sentences ("today", "last night") make no generic or numeric claims.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .lexicon import (
    COMMON_CAPS,
    EPISODIC_TIME,
    INTENSIFIERS,
    MONTHS,
    PROFESSIONS,
    RELATIONS,
    STOPWORDS,
    WEEKDAYS,
)
from .rules import TIME_RE
from .text import expand, split_sentences, stem, words

_CLAUSE_SPLIT = re.compile(
    r"\s*(?:;|,\s*(?:but|and|although|though|whereas|while|so)\s+|\s+(?:but|although|though|"
    r"whereas)\s+|\s+and\s+(?=(?:i|we|my|he|she|they)\b))\s*",
    re.I,
)
_SKIP_RE = re.compile(
    r"^\s*(?:if|what if|suppose|imagine|when|whether|unless)\b|\bused to\b|\bwould\b", re.I
)
_REL = "|".join(sorted(RELATIONS, key=len, reverse=True))
_SUBJ = rf"(?P<subj>i|we|(?:my|our) (?:{_REL}|dog|cat|pet|partner|best friend)|(?-i:[A-Z][a-z]+(?: [A-Z][a-z]+)?))"
_NEG = r"(?P<neg>(?:do|does|did|am|is|are) not\s+|no longer\s+|never\s+|not\s+)?"
_ADV = r"(?:(?:still|now|currently|also|actually|really|just|recently|finally)\s+)*"
_VAL = r"(?P<val>[^,.;!?()]+)"
_VALUE_STOP = frozenset(
    [
        "with",
        "since",
        "for",
        "and",
        "but",
        "because",
        "now",
        "anymore",
        "any",
        "more",
        "next",
        "last",
        "this",
        "until",
        "from",
        "when",
        "where",
        "who",
        "which",
        "as",
        "after",
        "before",
        "in",
        "on",
        "at",
        "by",
        "so",
        "though",
        "although",
        "while",
        "these",
        "days",
        "nowadays",
    ]
)
_PROF = "|".join(sorted(PROFESSIONS, key=len, reverse=True))
_PETS = frozenset({"dog", "cat", "pet", "puppy", "kitten"})
_SUBJECT_STOP = STOPWORDS | COMMON_CAPS | {"he", "she", "it", "they", "this", "that", "there"}


def _p(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# (attribute, pattern, value is negated when the verb says "leave")
_VALUE_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "residence",
        _p(
            rf"\b{_SUBJ}\s+{_ADV}{_NEG}{_ADV}(?:live|lives|living|am living|is living|are "
            rf"living|reside|resides|am based|is based|are based|am staying|settled)\s+in\s+{_VAL}"
        ),
    ),
    (
        "residence",
        _p(
            rf"\b{_SUBJ}\s+{_ADV}(?:have |has )?{_ADV}(?:moved|relocated|am moving|is moving|"
            rf"are moving)\s+(?:back\s+)?(?:from\s+[^,.;!?]+?\s+)?(?:to|into)\s+{_VAL}"
        ),
    ),
    (
        "employer",
        _p(
            rf"\b{_SUBJ}\s+{_ADV}{_NEG}{_ADV}(?:work|works|working|am working|is working|are "
            rf"working|am employed|is employed)\s+(?:at|for)\s+{_VAL}"
        ),
    ),
    (
        "employer",
        _p(
            rf"\b{_SUBJ}\s+{_ADV}(?:have |has )?{_ADV}(?:joined|started at|started working "
            rf"(?:at|for)|got a job (?:at|with)|accepted an offer from|am joining|is joining)\s+{_VAL}"
        ),
    ),
    (
        "job",
        _p(rf"\b{_SUBJ}\s+{_ADV}{_NEG}(?:work|works|working|am working|is working)\s+as\s+{_VAL}"),
    ),
    (
        "job",
        _p(
            rf"\b{_SUBJ}\s+{_ADV}{_NEG}(?:work|works|working|am working|is working)\s+(?:at|for)\s+"
            rf"[^,.;!?]+?\s+as\s+{_VAL}"
        ),
    ),
    (
        "job",
        _p(
            rf"\b{_SUBJ}\s+(?:am|is|are)\s+{_ADV}{_NEG}(?:an?\s+)(?P<val>(?:(?:senior|junior|lead|head|"
            rf"freelance|trainee|software|staff)\s+)?(?:{_PROF}))\b"
        ),
    ),
    ("name", _p(r"\b(?P<subj>my)\s+name\s+is\s+(?P<val>[^,.;!?()]+)")),
    (
        "name",
        _p(
            r"\b(?P<subj>i)\s+am\s+called\s+(?P<val>[^,.;!?()]+)|\bcall\s+(?P<subj2>me)\s+(?P<val2>[^,.;!?()]+)"
        ),
    ),
    (
        "name",
        _p(
            rf"\b(?:my|our)\s+(?P<subj>{_REL}|dog|cat|pet|puppy|kitten)(?:'s\s+name\s+is|\s+is\s+"
            rf"called|\s+is\s+named|\s+named)\s+{_VAL}"
        ),
    ),
    (
        "age",
        _p(
            r"\b(?P<subj>i)\s+am\s+(?P<val>\d{1,3})(?=\s*(?:years?\s+old|yo\b|[.,!;]|$|\s+and\b|\s+now\b))"
        ),
    ),
    ("age", _p(r"\b(?P<subj>i)\s+(?:just\s+)?turned\s+(?P<val>\d{1,3})\b")),
    ("age", _p(rf"\b{_SUBJ}\s+(?:is|are)\s+(?P<val>\d{{1,3}})\s+years?\s+old\b")),
    (
        "status",
        _p(
            rf"\b{_SUBJ}\s+(?:am|is|are)\s+{_ADV}{_NEG}{_ADV}(?:a\s+)?(?P<val>single|married|divorced|"
            rf"widowed|engaged|in a relationship)\b"
        ),
    ),
    (
        "status",
        _p(rf"\b{_SUBJ}\s+{_ADV}(?:got|have got|has got)\s+(?P<val>married|divorced|engaged)\b"),
    ),
    (
        "diet",
        _p(
            rf"\b{_SUBJ}\s+(?:am|is|are)\s+{_ADV}{_NEG}{_ADV}(?:an?\s+)?(?:strict\s+)?(?P<val>vegetarian|"
            rf"vegan|pescatarian|omnivore|carnivore)\b"
        ),
    ),
    (
        "favourite",
        _p(
            r"\b(?P<subj>my|(?-i:[A-Z][a-z]+)'s)\s+(?:favou?rite|fave)\s+(?P<attr>[a-z]+(?:\s+[a-z]+)?)\s+"
            r"(?:is|are|has always been|is now|is still)\s+(?P<val>[^,.;!?()]+)"
        ),
    ),
)
_LEAVE = _p(
    rf"\b{_SUBJ}\s+{_ADV}(?:have |has )?{_ADV}(?:quit|left|resigned from|moved out of|moved away "
    rf"from|was fired from|got fired from|was laid off from)\s+(?:my (?:job|position|role) "
    rf"(?:at|with)\s+)?{_VAL}"
)
_MOVED_FROM = _p(
    rf"\b{_SUBJ}\s+{_ADV}(?:have |has )?(?:moved|relocated)\s+(?:away\s+)?from\s+(?P<val>[^,.;!?()]+?)\s+to\b"
)
_GENERIC = _p(
    r"\b(?P<subj>my|our|the|(?-i:[A-Z][a-z]+)'s)\s+(?P<attr>[a-z]+(?:\s+[a-z]+){0,2}?)\s+(?:is|are|was|"
    r"has been|is now|are now|was changed to|has changed to|changed to|got)\s+(?:(?:moved|"
    r"rescheduled|changed|pushed|postponed|set)\s+)?(?:back\s+)?(?:to\s+|until\s+)?"
    r"(?P<neg>not\s+)?(?:(?:at|on|in)\s+)?(?P<val>[^;!?()]+)"
)
_POLAR = _p(
    rf"^(?:(?:honestly|actually|now|also|so|well|oh|and|but)\s*,?\s+)*{_SUBJ}\s+(?P<rest>.+)$"
)
_NEGATORS = frozenset({"not", "no", "never", "stopped", "stop", "quit"})
_IGNORED = frozenset(
    [
        "up",
        "started",
        "start",
        "begun",
        "began",
        "anymore",
        "nowadays",
        "again",
        "every",
        "each",
        "daily",
        "weekly",
        "always",
        "usually",
        "often",
        "sometimes",
        "regularly",
        "morning",
        "mornings",
        "evening",
        "evenings",
        "night",
        "nights",
        "day",
        "days",
        "week",
    ]
)
_FLIP_VERBS = frozenset(
    {"hate", "hated", "hates", "dislike", "disliked", "dislikes", "detest", "loathe"}
)
_LIKE_VERBS = frozenset(
    {
        "like",
        "love",
        "enjoy",
        "adore",
        "prefer",
        "fan",
        "liked",
        "loved",
        "enjoyed",
        "prefers",
        "likes",
        "loves",
        "enjoys",
        "adores",
        "stand",
    }
)
_COLOURS = frozenset(
    [
        "red",
        "orange",
        "yellow",
        "green",
        "blue",
        "purple",
        "violet",
        "pink",
        "brown",
        "black",
        "white",
        "grey",
        "gray",
        "silver",
        "gold",
        "beige",
        "navy",
        "teal",
        "turquoise",
    ]
)
_NUM_RE = re.compile(r"\d+(?:[.,:]\d+)?")


@dataclass(frozen=True, slots=True)
class Claim:
    """One assertion extracted from a sentence."""

    subject: str  # "user", a relation ("sister"), a name ("anna"), or "the"
    attribute: str  # "residence", "employer", ..., "is:phone number", "polar", "num"
    value: str  # normalised value; for polar/num claims the statement key or template
    negated: bool = False
    category: str = ""  # value category for generic claims: name/date/number/role/word
    numbers: tuple[str, ...] = ()


def _subject(raw: str | None) -> str | None:
    if raw is None:
        return None
    low = raw.lower().strip()
    if low in {"i", "we", "my", "me", "our"}:
        return "user"
    if low.startswith(("my ", "our ")):
        return low.split(" ", 1)[1]
    if low in RELATIONS or low in _PETS:
        return low
    if low.endswith("'s"):
        low = low[:-2]
        raw = raw[:-2]
    if low == "the":
        return "the"
    if not raw[:1].isupper() or low in _SUBJECT_STOP or low in RELATIONS:
        return None
    return low


def attribute_key(raw: str) -> str:
    """Readable, comparable attribute words: lower case, British spelling, singular."""
    out = []
    for w in raw.lower().split():
        w = {"color": "colour", "flavor": "flavour", "favorite": "favourite"}.get(w, w)
        if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
        out.append(w)
    return " ".join(out)


def _clean_value(raw: str) -> str:
    out: list[str] = []
    for w in raw.strip().split():
        lw = w.lower().strip("'\"")
        if lw in _VALUE_STOP or (out and lw in {"and", "or"}):
            break
        out.append(w)
        if len(out) >= 5:
            break
    words_ = [w.lower().strip("'\"") for w in out]
    while words_ and words_[0] in {"the", "a", "an", "my", "our"}:
        words_ = words_[1:]
    while words_ and words_[-1] in INTENSIFIERS:
        words_ = words_[:-1]
    return " ".join(words_)


def _category(value: str, raw: str) -> str:
    low = value.lower()
    toks = low.split()
    if (
        TIME_RE.search(low)
        or any(t in MONTHS or t in WEEKDAYS for t in toks)
        or re.search(r"\d{4}-\d{2}", low)
    ):
        return "date"
    if any(ch.isdigit() for ch in low):
        return "number"
    raw = raw.strip()
    if re.match(r"(?i)(?:an?|the)\s", raw):
        return "role"
    if raw[:1].isupper():
        return "name"
    if len(toks) == 1 and toks[0] in _COLOURS:
        return "colour"
    return "word"


def _value_claims(clause: str) -> list[Claim]:
    out: list[Claim] = []
    for attribute, pattern in _VALUE_PATTERNS:
        for m in pattern.finditer(clause):
            groups = m.groupdict()
            subj = _subject(groups.get("subj") or groups.get("subj2"))
            raw = groups.get("val") or groups.get("val2") or ""
            value = _clean_value(raw)
            if subj is None or not value:
                continue
            attr = attribute
            if attribute == "favourite":
                attr = "favourite " + attribute_key(m.group("attr"))
            elif attribute == "status" and value in {"vegetarian", "vegan"}:
                attr = "diet"
            out.append(Claim(subj, attr, value, bool(groups.get("neg"))))
            if attribute == "diet" and not groups.get("neg") and value in {"vegetarian", "vegan"}:
                out.append(Claim(subj, "polar", "eat meat", True))
    for m in _LEAVE.finditer(clause):
        subj, value = _subject(m.group("subj")), _clean_value(m.group("val"))
        if subj and value:
            out += [Claim(subj, "employer", value, True), Claim(subj, "residence", value, True)]
    for m in _MOVED_FROM.finditer(clause):
        subj, value = _subject(m.group("subj")), _clean_value(m.group("val"))
        if subj and value:
            out.append(Claim(subj, "residence", value, True))
    return out


def _generic_claims(clause: str) -> list[Claim]:
    out: list[Claim] = []
    for m in _GENERIC.finditer(clause):
        attr_words = m.group("attr").lower().split()
        if attr_words and attr_words[0] in {"favourite", "favorite", "fave", "name"}:
            continue
        subj = _subject(m.group("subj"))
        raw = m.group("val")
        raw = re.split(r",(?!\s*\d)", raw)[0]
        value = _clean_value(raw)
        if subj is None or not value or value.split()[0] in {"called", "named"}:
            continue
        attr = "is:" + " ".join(stem(w) for w in attr_words)
        out.append(Claim(subj, attr, value, bool(m.group("neg")), _category(value, raw)))
    return out


def _polar_claim(clause: str, inherited: str | None) -> tuple[Claim | None, str | None]:
    m = _POLAR.match(clause.strip())
    subj = _subject(m.group("subj")) if m else None
    rest = m.group("rest") if (m and subj) else None
    if rest is None:
        if inherited and re.match(
            r"(?i)^(?:also\s+|really\s+|do not\s+|can not\s+|never\s+)*(?:like|love|"
            r"hate|enjoy|prefer|dislike|adore|stand|eat|drink|play|have)\b",
            clause,
        ):
            subj, rest = inherited, clause
        else:
            return None, subj
    tokens = [w.lower() for w in words(rest)]
    negated = False
    key: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        i += 1
        if (tok, nxt) in {("gave", "up"), ("no", "longer")}:
            negated = not negated
            i += 1
        elif tok in _NEGATORS:
            negated = not negated
        elif tok in _FLIP_VERBS:
            negated = not negated
            key.append("like")
        elif tok in _LIKE_VERBS:
            key.append("like")
        elif tok not in STOPWORDS and tok not in INTENSIFIERS and tok not in _IGNORED:
            key.append(stem(tok))
    if not key or (len(key) == 1 and key[0] == "like"):
        return None, subj
    return Claim(subj, "polar", " ".join(sorted(set(key))), negated), subj


def _numeric_claim(clause: str, subj: str | None) -> Claim | None:
    numbers = tuple(_NUM_RE.findall(clause))
    if not numbers:
        return None
    template = " ".join(
        stem(w) for w in words(_NUM_RE.sub(" NUM ", clause.lower())) if w not in INTENSIFIERS
    )
    return Claim(subj or "the", "num", template, numbers=numbers)


def claims(text: str) -> list[Claim]:
    """All claims of `text` (see the module docstring)."""
    out: list[Claim] = []
    for sentence in split_sentences(text):
        if sentence.rstrip().endswith("?"):
            continue
        expanded = expand(sentence.rstrip(".!"))
        episodic = any(re.search(rf"\b{re.escape(p)}\b", expanded, re.I) for p in EPISODIC_TIME)
        subject: str | None = None
        for clause in _CLAUSE_SPLIT.split(expanded):
            if not clause or _SKIP_RE.search(clause):
                continue
            found = _value_claims(clause)
            if not episodic:
                found += _generic_claims(clause)
            polar, subject = _polar_claim(clause, subject)
            if polar is not None:
                found.append(polar)
            if not episodic:
                numeric = _numeric_claim(clause, subject)
                if numeric is not None:
                    found.append(numeric)
            out.extend(found)
    return out
