"""Claims: what a text asserts, as (subject, attribute, value, negated).

A claim is about something: the speaker ("user", or a named speaker of a transcript, or an
email's sender), a named person ("anna"), a relative ("sister"), or a thing — a project, an
event, an object ("quarterly budget draft", "yoga class"). Who "I", "you", "it" and a bare
"the deadline" are is decided by `salience.llm.heuristic.discourse` (speaker lines, email
headers, antecedents); a claim whose subject cannot be resolved is not made.

Attributes (slots) and the phrasings that fill them, well beyond canonical sentences:

- one value at a time: residence ("I live in", "moved to", "Home is Berlin now", "relocated
  to"), employer ("work at", "joined", "accepted a job offer at", "started a new job at",
  "first day at"), job ("work as", "I'm a nurse", "promoted to"), manager and partner ("my
  boss is", "I report to", "X manages me", "I'm dating X"), relationship status, diet, name,
  age, phone, email, favourites, counts of children and pets (numbers in words, "our third
  child"), rates ("three coffees a day"), and things' times, places, prices and budgets
  ("the grant report is due on 12 May", "yoga moved to Thursdays", "it is 400 EUR");
- polar (true or false per value): likes ("I love sushi", "I can't stand jazz"), habits
  ("I no longer eat meat"), owning ("we don't have a dog anymore"), tools and decisions;
  "switched from X to Y", "instead of X", "I cancelled X" deny X whatever its slot (`*`).

`marked` says the statement announces a change ("now", "moved to", "rescheduled", "new",
"instead", "anymore"): an instance noun ("the meeting", "the invoice") may name a different
meeting next time, so claims about it conflict only when one of them is marked.

Questions, hypotheticals ("if I lived in Paris"), wishes and past habits ("I used to") make no
claims; episodic sentences ("today", "last night") make no generic or numeric claims.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ...models.text import text_cache
from . import claim_values as V
from . import slot_words
from .discourse import (
    HYPOTHETICAL_RE,
    PAST_PERIOD_RE,
    Segment,
    _asserted,
    announces_update,
    clauses,
    name_key,
    noun_phrases,
    np_key,
    np_words,
    segments,
    sentences,
    strip_label,
)
from .lexicon import (
    CITIES,
    COMMON_CAPS,
    COUNTRIES,
    EPISODIC_TIME,
    FIRST_NAMES,
    INTENSIFIERS,
    MONTHS,
    PROFESSIONS,
    RELATIONS,
    STOPWORDS,
    WEEKDAYS,
)
from .rules import TIME_RE
from .text import expand, stem, words

# -- vocabulary -----------------------------------------------------------------------------------
PETS = frozenset({"dog", "dogs", "cat", "cats", "pet", "pets", "puppy", "puppies", "kitten",
                  "kittens", "hamster", "hamsters", "rabbit", "rabbits", "bunny", "parrot",
                  "parrots", "goldfish", "fish", "horse", "horses", "guinea pig", "guinea pigs",
                  "tortoise", "turtle", "snake", "lizard", "budgie", "ferret"})
_DOG_WORDS = frozenset({"retriever", "labrador", "lab", "poodle", "beagle", "terrier", "spaniel",
                        "collie", "husky", "dachshund", "shepherd", "bulldog", "pug", "corgi",
                        "greyhound", "whippet", "schnauzer", "chihuahua", "rottweiler", "puppy",
                        "doodle", "labradoodle", "dalmatian", "setter", "pointer", "mutt"})
_CAT_WORDS = frozenset({"kitten", "tabby", "siamese", "persian", "ragdoll", "sphynx"})
_ROLES_EXTRA = ("team lead", "team leader", "line manager", "supervisor", "gp", "doctor",
                "dentist", "therapist", "landlord", "mentor", "coach", "trainer", "tutor",
                "advisor", "adviser", "vet", "fiancé", "fiancée")
#: the words that make a claim's subject a relation of the speaker's (`Claim.kind` "relation")
RELATION_WORDS = frozenset({*RELATIONS, *PETS, *_ROLES_EXTRA})
_REL_WORDS = sorted(RELATION_WORDS, key=len, reverse=True)
_REL = "|".join(re.escape(w) for w in _REL_WORDS)
_MOD = (r"(?:(?:new|old|older|younger|little|big|baby|best|ex|step|twin|eldest|oldest|youngest|"
        r"middle|current|direct|former|lovely|wonderful|favourite)\s+)?")
_PROF_EXTRA = ("associate", "partner", "line cook", "waiter", "waitress", "bartender", "barista", "chef", "sous chef", "cook",
               "principal", "director", "photographer", "consultant", "data scientist",
               "data analyst", "project manager", "product manager", "software engineer",
               "nurse", "lawyer", "student", "teacher", "engineer", "developer", "designer",
               "accountant", "paralegal", "cashier", "driver", "electrician", "architect",
               "carpenter", "tutor", "coach", "trainer", "officer", "clerk", "receptionist",
               "midwife", "paramedic", "firefighter", "police officer", "social worker",
               "scientist", "ceo", "cto", "cfo", "coo", "vp", "founder", "co-founder", "owner",
               "specialist", "coordinator", "administrator", "assistant", "freelancer",
               "contractor", "intern", "apprentice", "postdoc", "phd student", "professor",
               "lecturer", "researcher", "doctor", "pilot", "dentist", "vet", "pharmacist")
_PROF = "|".join(re.escape(p) for p in sorted({*PROFESSIONS, *_PROF_EXTRA}, key=len,
                                              reverse=True))
_PROF_MOD = (r"(?:(?:senior|junior|lead|head|principal|staff|chief|freelance|full-time|"
             r"part-time|trainee|software|data|product|project|sous|school|systems|assistant|"
             r"deputy|executive|registered|qualified|certified|professional|self-employed|"
             r"full-stack|frontend|backend|front-end|back-end|ux|ui|graphic|civil|mechanical|"
             r"primary|secondary|high school|music|art|maths|math|english|science|head|"
             r"marketing|sales|finance|hr|it|research|clinical|staff|dental|veterinary|"
             r"nursing|legal|fashion|wedding|freelance)\s+)*")
_PARENT_WORDS = frozenset({"dad", "mum", "mom", "mother", "father", "parent", "mama", "papa",
                           "grandma", "grandpa", "grandmother", "grandfather", "grandparent",
                           "aunt", "uncle", "godmother", "godfather", "stepmother",
                           "stepfather", "stepmom", "stepdad"})
_TITLE_WORDS = frozenset({"director", "head", "vp", "chief", "lead", "manager", "principal",
                          "partner", "officer", "president", "senior", "junior", "associate",
                          "ceo", "cto", "cfo", "coo", "founder", "owner"})
_DIETS = ("vegan", "vegetarian", "veggie", "pescatarian", "pescetarian", "pescy", "keto",
          "paleo", "flexitarian",
          "omnivore", "carnivore", "plant-based", "gluten-free", "dairy-free", "lactose-free",
          "raw vegan", "halal", "kosher")
_DIET = "|".join(re.escape(d) for d in sorted(_DIETS, key=len, reverse=True))
_DIET_DENIES: dict[str, tuple[str, ...]] = {
    "vegan": ("meat", "fish", "dairy", "egg", "chees", "milk"),
    "plant-based": ("meat", "fish", "dairy", "egg", "chees", "milk"),
    "raw vegan": ("meat", "fish", "dairy", "egg", "chees", "milk"),
    "vegetarian": ("meat", "fish"),
    "pescatarian": ("meat",),
    "pescetarian": ("meat",),
    "gluten-free": ("gluten",),
    "dairy-free": ("dairy", "milk", "chees"),
    "lactose-free": ("dairy", "milk"),
    "keto": ("carb",),
}
#: one name per diet ("veggie" is vegetarian)
_DIET_NAMES = {"pescetarian": "pescatarian", "pescy": "pescatarian", "veggie": "vegetarian"}
_MEATS = frozenset({"chicken", "beef", "pork", "lamb", "bacon", "steak", "turkey", "ham",
                    "sausag", "burger", "mutton", "veal"})
_STATUS = {
    "single": "single", "divorced": "single", "separated": "single", "widowed": "single",
    "married": "married", "remarried": "married", "engaged": "engaged", "taken": "partnered",
    "in a relationship": "partnered", "seeing someone": "partnered", "dating": "partnered",
    "in a long-distance relationship": "partnered",
}
#: nouns for one occurrence of something ("the meeting", "the invoice"): next time it may be
#: another one, so they conflict only with a marked statement
_INSTANCE_WORDS = frozenset({
    "meet", "meeting", "call", "appoint", "appointment", "session", "event", "invoic",
    "invoice", "bill", "order", "payment", "receipt", "quot", "quote", "deadlin", "deadline",
    "date", "time", "price", "cost", "total", "amount", "fee", "item", "packag", "package",
    "deliveri", "parcel", "shipment", "flight", "book", "booking", "reserv", "reservation",
    "ticket", "class", "lesson", "report", "document", "doc", "file", "note", "email",
    "messag", "task", "issu", "bug", "request", "review", "updat", "plan", "interview",
    "visit", "parti", "party", "dinner", "lunch", "breakfast", "workshop", "train", "webinar",
    "confer", "conference", "present", "presentation", "demo", "offer", "contract", "propos",
    "proposal", "applic", "form", "room", "venue", "locat", "place", "link", "code", "version",
    "releas", "build", "sprint", "week", "month", "day", "one", "thing", "it", "this", "that",
    "standup", "stand-up", "sync", "practic", "practice", "shift", "slot", "schedul", "rota",
    "game", "match", "show", "concert", "tour", "trip", "delivery", "draft", "deck", "slide",
    "agenda", "minut", "checkup", "check-up", "exam", "test", "rent",
})
INSTANCE_NOUNS = frozenset(_INSTANCE_WORDS | {stem(w) for w in _INSTANCE_WORDS} | {
    "application", "submission", "form", "visa", "renewal", "registration"})
_TIME_HEADS = frozenset({"day", "days", "time", "times", "slot", "schedule", "date"})
_RELATIONAL = ("deadline", "due date", "cutoff", "cut-off", "price", "cost", "budget", "rent",
               "fee", "limit", "rate", "date", "time", "total", "salary", "location", "venue",
               "address", "start date", "end date", "launch date", "release date")
_RELATIONAL_RE = "|".join(re.escape(r) for r in sorted(_RELATIONAL, key=len, reverse=True))
_CHANGE_RE = re.compile(
    r"\b(?:now|no longer|anymore|any more|moved|moving|rescheduled?|postponed?|pushed|changed?|"
    r"changing|switch(?:ed|ing)?|new|instead|actually|updated?|revised?|extended|delayed|bumped|"
    r"raised|lowered|cut|increased|reduced|went up|went down|dropped|these days|nowadays|"
    r"from now on|again|became|become|turned|promoted|slipped|shifted|brought forward|"
    r"no more|not .* anymore|corrected|correction|replaced|upgraded|downgraded|got|started|"
    r"finally|just|since)\b",
    re.I,
)
#: what announces that a thing changed ("was moved to", "is now due", "a new date", "instead"):
#: claims about things (times, prices, budgets, places of events and objects) conflict only
#: when one of them says so — the same kind of sentence about a thing recurs in every inbox
_THING_CHANGE_RE = re.compile(
    r"\b(?:moved|moving|rescheduled?|postponed?|pushed|extended|delayed|brought forward|"
    r"changed?|switch(?:ed)?|slipped|slid|shifted|bumped|raised|cut|increased|reduced|"
    r"lowered|updated?|revised?|corrected|correction|replaced|instead|no longer|anymore|slashed|"
    r"trimmed|hiked|doubled|halved|boosted|"
    r"any more|refixed|went up|went down|rose|fell|dropped|upped|(?:is|are|was|will be)\s+now|"
    r"now\s+(?:due|on|at|in|costs?|covers|is|are|takes|happens|starts|runs|meets|only|\d)|"
    r"new\s+(?:date|deadline|time|price|budget|venue|location|slot|day|start|rate)|"
    r"changed (?:our|my) minds?)\b|\bnow\s*$",
    re.I,
)
_SKIP_RE = HYPOTHETICAL_RE  # a hypothetical, a wish, a plan: no claim
#: a leading condition about the world, not about the speaker ("If anything comes up, my number
#: is …", "In case of emergency, call …"): the main clause after it is a plain statement
_LEAD_CONDITION = re.compile(
    r"^\s*(?:if|in case|whenever|should)\b(?P<cond>[^,]{1,80}),\s*(?P<main>\S.*)$", re.I
)
_SPEAKER_WORD = re.compile(r"\b(?:i|i'm|i've|i'd|we|we're|my|our)\b", re.I)


def _main_clause(clause: str) -> str:
    """`clause` without a leading condition about the world (see `_LEAD_CONDITION`)."""
    m = _LEAD_CONDITION.match(clause)
    if m is None or _SPEAKER_WORD.search(m.group("cond")):
        return clause
    return m.group("main")


_PAST_EVENT = re.compile(
    r"\b(?:i|we|he|she|they)\s+(?:\w+ly\s+)?(?:ran|bought|went|had|took|ate|drank|saw|met|"
    r"made|paid|spent|sent|wrote|read|did|cooked|visited|watched|played|walked|cycled|swam|"
    r"lived|worked|stayed|booked|ordered|lost|won|scored|finished|sold)\b",
    re.I,
)
#: a clause whose first verb is in the past tense tells an event ("Signed up for a 21 km race"),
#: not a standing number: no numeric template
_PAST_VERB = re.compile(
    r"^\s*(?:(?:i|we|he|she|they|it|you|my\s+\w+|our\s+\w+|(?-i:[A-Z]\w+))\s+)?"
    r"(?:(?:just|also|recently|finally|then|already|never|once)\s+)*"
    r"(?!need|feed|speed|seed|weed|bleed|breed|exceed|succeed|proceed)[a-z]{2,}ed\b",
    re.I,
)
_EPISODIC = re.compile(
    "|".join(rf"\b{re.escape(p)}\b" for p in sorted(EPISODIC_TIME, key=len, reverse=True))
    + r"|\b(?:tomorrow|last (?:week|month|year|weekend|night|monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday)|next (?:week|month|year|weekend))\b",
    re.I,
)
_WORK_CUES = re.compile(r"\b(?:job|jobs|company|companies|work|working|team|role|position|"
                        r"employer|hired|office|colleagues?|boss|manager|career|offer)\b", re.I)
_VALUE_STOP = frozenset({
    "with", "since", "for", "and", "but", "because", "now", "anymore", "any", "next", "last",
    "this", "until", "from", "when", "where", "who", "which", "as", "after", "before", "in",
    "on", "at", "by", "so", "though", "although", "while", "these", "days", "nowadays",
    "again", "instead", "too", "already", "yet", "soon", "today", "yesterday", "tomorrow",
    "tonight", "lately", "recently", "either", "permanently", "every",
    "each", "or", "if", "that", "than", "about", "around", "near", "close", "to", "into",
    "during", "via", "through", "thanks", "was", "is", "are", "were", "will", "has", "have",
    "had", "be", "been", "being", "not", "it", "they", "he", "she", "we", "i", "you",
    "same", "better", "over", "under", "without", "all", "just", "only", "still", "also",
    "really", "actually", "honestly", "definitely", "finally", "officially", "for good",
    "there", "here", "then", "first",
})
_PROPER_GLUE = frozenset({"of", "de", "la", "le", "del", "della", "van", "von", "der", "den",
                          "du", "da", "y", "&", "on", "upon", "am", "im"})
_GENERIC_HEADS = frozenset({"food", "foods", "weather", "music", "movie", "movies", "film",
                            "films", "book", "books", "novel", "novels", "show", "shows",
                            "stuff", "things", "dishes", "dish", "cuisine", "games", "songs"})
_ACTIVITY_VERBS = frozenset({"reading", "watching", "listening", "playing", "eating", "drinking",
                             "doing", "having", "cooking", "making", "going"})


@dataclass(frozen=True, slots=True)
class Claim:
    """One assertion extracted from a sentence.

    `subject`: "user" (the speaker), a relation ("sister"), a name ("anna"), a thing's key
    ("budget draft"), or "the" (the legacy unowned subject of "the X is Y" claims).
    `attribute`: the slot ("residence", "employer", "manager", "when", "price", "children",
    "like", "habit", "*", "is:<attribute words>", "num", ...). `value`: lower-case words as
    written for names, places and roles; normal forms for numbers, money, times, phones.
    """

    subject: str
    attribute: str
    value: str
    negated: bool = False
    category: str = ""  # value category of generic claims: name/date/number/role/word/colour
    numbers: tuple[str, ...] = ()
    marked: bool = False  # the statement announces a change ("now", "moved to", "new", …)
    kind: str = field(default="", compare=False)  # subject kind: self/person/relation/thing


#: attributes with many true values at once: they conflict by polarity, not by value
POLAR = frozenset({"like", "habit", "own", "use", "choose", "trait", "go", "side job", "*",
                   "*have", "polar"})
#: what "sold X" / "gave X away" denies: having and using X, not liking it
HAVING = frozenset({"own", "use", "car", "bank", "choose"})


# -- subjects ----------------------------------------------------------------------------------
@dataclass(slots=True)
class _Ctx:
    seg: Segment
    topic: str | None = None
    person: str | None = None
    work: bool = False
    marked: bool = False
    thing_marked: bool = False  # the clause announces a change to a thing (`_THING_CHANGE_RE`)
    episodic: bool = False
    subject: str | None = None  # the subject phrase the clause inherits
    line: str = ""
    setting: str = ""  # where a habit or tool holds ("work", "home"): its own slot


#: a setting that makes a tool or a habit hold only there ("I use VS Code at work" and "at home I
#: use Neovim" are both true)
_SETTING_RE = re.compile(
    r"\b(?:at|for|in)\s+(?:the\s+)?(work|home|the office|office|school|uni|university|"
    r"weekends?|hobby|hobbies|fun|side projects?|personal (?:stuff|projects?))\b", re.I
)
_SETTING_SLOTS = frozenset({"use", "tool", "habit", "like", "choice"})


_NAME = (r"(?-i:(?!I\b)[A-Z][\w'’.&-]*(?:\s+(?:of\s+|de\s+|van\s+|von\s+|&\s+)?(?!I\b)"
         r"[A-Z][\w'’.&-]*){0,3})")
_SUBJ = (
    rf"(?P<subj>\b(?:i|we|you|he|she|(?:the|my|our|your)\s+team|(?:my|our|your|his|her|their|the)"
    rf"\s+{_MOD}(?:{_REL})\b|{_NAME}))"
)
_AUX = (
    r"(?P<aux>(?:(?:do|does|did|am|is|are|was|were|have|has|had|will|shall|'ve|'s|been|be|"
    r"being|just|also|still|now|currently|actually|really|recently|finally|officially|already|properly|"
    r"back|then|even|only|soon|eventually|happily|fully|permanently|mostly|gonna|going\s+to|"
    r"about\s+to|not|no\s+longer|never|honestly|basically|all|both|usually|always|normally|"
    r"generally|typically|mainly|literally|officially|today|this\s+week|last\s+week|"
    r"last\s+month|this\s+year)\s+)*)"
)
_VAL = r"(?P<val>(?:[^,;:!?()\"]|,(?=\d{3})|:(?=\d{2}))+)"
_V = r"(?:[^,;]|,(?=\d{3}))"
_NOT_NAMES = (COMMON_CAPS | STOPWORDS | MONTHS | WEEKDAYS
              | frozenset({"home", "big", "news", "update", "quick", "after", "before",
                           "moved", "relocated", "started", "new", "these", "our", "my",
                           "yesterday", "today", "tomorrow", "last", "next", "this", "that",
                           "since", "currently", "finally", "also", "now", "still", "every",
                           "once", "then", "recently"}))


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _resolve(raw: str | None, ctx: _Ctx) -> str | None:
    """The subject key a subject phrase names in this context, or None."""
    if raw is None:
        raw = ctx.subject
        if raw is None:
            return ctx.seg.first
    low = " ".join(raw.lower().replace("’", "'").split())
    if low in {"i", "we", "me", "us", "my", "our", "myself", "ourselves"} or low.endswith(
        " and i"
    ) or low in {"the team", "my team", "our team"}:
        return ctx.seg.first
    if low in {"you", "your", "your team"}:
        return ctx.seg.you
    if low in {"he", "she", "him", "her", "his"}:
        return ctx.person
    if low in {"it", "this", "that", "its", "they", "them"}:
        return ctx.topic if low in {"it", "this", "that", "its"} else None
    m = re.match(r"^(my|our|your|his|her|their|the)\s+(.+)$", low)
    if m:
        owner_word, rest = m.groups()
        rel = rest.split()[-1]
        if rest.endswith(("team lead", "team leader", "line manager")):
            rel = " ".join(rest.split()[-2:])
        if rest.startswith("best friend"):
            rel = "best friend"
        if owner_word == "the":
            return rel if rel in RELATIONS or rel in PETS else None
        owner = {"my": ctx.seg.first, "our": ctx.seg.first, "your": ctx.seg.you}.get(
            owner_word, ctx.person
        )
        if owner is None:
            return None
        return rel if owner == "user" else f"{owner}'s {rel}"
    if not raw[:1].isupper():
        return None
    key = name_key(raw)
    first = key.split()[0] if key else ""
    if not key or first in _NOT_NAMES or key in RELATIONS:
        return None
    return key


def _kind(subject: str) -> str:
    if subject == "user":
        return "self"
    base = subject.split("'s ")[-1]
    if base in RELATIONS or base in PETS or base in _ROLES_EXTRA:
        return "relation"
    return "person"


def _negated(*parts: str | None) -> bool:
    text = " ".join(p for p in parts if p)
    n = len(re.findall(r"\b(?:not|never|no longer)\b", text, re.I))
    return n % 2 == 1


# -- values ------------------------------------------------------------------------------------
def _clean(raw: str | None, *, proper: bool = False, keep_owner: bool = False) -> str | None:
    """A claim value from the words after a pattern: cut at the first stop word; `proper`
    values must start with a capital (a place, an organisation, a name)."""
    if not raw:
        return None
    raw = raw.replace("’", "'").strip()
    called = re.search(r"\b(?:called|named)\s+(.+)$", raw)
    if called and proper:
        raw = called.group(1)
    toks = raw.split()
    if proper:
        place = _known_place(toks)
        if place is not None:
            return place
    out: list[str] = []
    for w in toks:
        lw = w.lower().strip("'\".")
        if not out and lw in {"the", "a", "an"} | ({"my", "our"} if not keep_owner else set()):
            continue
        if not out and lw in {"only", "just", "about", "around", "roughly", "approximately",
                              "now", "still", "currently", "almost", "nearly", "officially",
                              "actually", "really"}:
            continue
        if lw in _VALUE_STOP and (out or lw not in {"the", "a", "an"}):
            break
        if proper:
            if not out:
                if not (w[:1].isupper() or w[:1].isdigit()):
                    return None
            elif not (w[:1].isupper() or w[:1].isdigit() or lw in _PROPER_GLUE):
                break
        out.append(w.strip("'\""))
        if len(out) >= 5:
            break
    while out and out[-1].lower() in _PROPER_GLUE | INTENSIFIERS:
        out.pop()
    if not out:
        return None
    value = " ".join(w.lower().rstrip(".") for w in out)
    if proper and (value.split()[0] in MONTHS or value.split()[0] in WEEKDAYS
                   or value in COMMON_CAPS):
        return None
    return value


def _known_place(toks: list[str]) -> str | None:
    """A city or a country the words begin with, however they are written ("hamburg",
    "new york"): people who type in lower case name places too, and a known place is no idiom
    ("live in fear", "moved to a bigger flat" name none)."""
    low = [w.lower().strip("'\".,!;:)(") for w in toks[:3]]
    if not low or not (toks[0][:1].islower()):
        return None  # a capitalised value takes the usual way (and may be unknown here)
    for n in (3, 2, 1):
        phrase = " ".join(low[:n])
        if len(low) >= n and (phrase in CITIES or phrase in COUNTRIES):
            return phrase
    return None


def _object(raw: str | None, ctx: _Ctx) -> str | None:
    """The key of a liked/used/eaten thing: determiners, activity verbs ("reading"),
    intensifiers and generic heads ("spicy food" → "spicy") removed, words stemmed; a
    restricting phrase is kept after "@" ("coffee@after 6pm")."""
    if not raw:
        return None
    raw = raw.strip()
    low = raw.lower()
    if re.match(r"^(?:it|them|that|this)\b", low):
        rest = re.sub(r"^(?:it|them|that|this)\b", "", low).strip()
        if ctx.topic is None:
            return None
        return ctx.topic + _qualifier(rest)
    toks = words(raw)
    head: list[str] = []
    i = 0
    while i < len(toks):
        w = toks[i].lower()
        nxt = toks[i + 1].lower() if i + 1 < len(toks) else ""
        if (w in {"the", "a", "an", "my", "our", "some", "any", "more", "much", "lots", "lot",
                  "of", "so", "all", "kinds", "kind", "sort"} or V.count_value(w) is not None
                or w.isdigit()) and not head:
            i += 1
            continue
        if w in {"a", "an", "the"} and head and nxt not in {"day", "week", "month", "night",
                                                            "year", "morning", "lot", "bit"}:
            i += 1
            continue
        if w in _VALUE_STOP or w in {"every", "each", "daily", "weekly", "anymore", "now",
                                     "again", "lately", "a", "so", "too", "very", "much",
                                     "these", "any", "more", "either", "except", "unless",
                                     "outside", "without", "after", "before", "during",
                                     "whenever", "like", "please", "here", "there"}:
            break
        if w in INTENSIFIERS:
            i += 1
            continue
        head.append(w)
        i += 1
        if len(head) >= 4:
            break
    if head and head[0] in _ACTIVITY_VERBS and len(head) > 1:
        head = head[1:]
        if head and head[0] == "to":
            head = head[1:]
    if len(head) > 1 and head[-1] in _GENERIC_HEADS:
        head = head[:-1]
    key = " ".join(stem(w) for w in head if w not in STOPWORDS or w in {"up"})
    if not key:
        return None
    rest = " ".join(toks[i:]).lower()
    return key + _qualifier(rest)


def _qualifier(rest: str) -> str:
    m = re.match(r"^(?:(?:only|just|even)\s+)?(after|before|at|on|in|during|when|except|unless|"
                 r"outside|without|with|on weekends|at night|at work|at home)\b(.*)$", rest)
    if not m:
        return ""
    words_ = [stem(w) for w in re.findall(r"[\w']+", m.group(2)) if w not in STOPWORDS][:3]
    return "@" + " ".join([m.group(1), *words_]).strip()


def _category(value: str, raw: str) -> str:
    low = value.lower()
    toks = low.split()
    if TIME_RE.search(low) or any(t in MONTHS or t in WEEKDAYS for t in toks) or re.search(
        r"\d{4}-\d{2}", low
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


_RATE_VERBS = frozenset({"drink", "eat", "run", "sleep", "work", "smok", "walk", "cycl", "swim",
                         "read", "train", "studi", "practis", "practic", "play", "meditat",
                         "writ", "volunt", "teach", "spend", "earn", "drive", "commut"})
_COLOURS = frozenset({"red", "orange", "yellow", "green", "blue", "purple", "violet", "pink",
                      "brown", "black", "white", "grey", "gray", "silver", "gold", "beige",
                      "navy", "teal", "turquoise"})


def _thing(phrase: str, ctx: _Ctx) -> tuple[str | None, str | None]:
    """(subject key, relational head) of a thing's noun phrase: "the Q3 budget draft" →
    ("q3 budget draft", None); "the offsite budget" → ("offsite", "budget"); "the deadline"
    → (the topic, "deadline"); "it" → (the topic, None)."""
    low = " ".join(phrase.lower().replace("’", "'").split())
    if low in {"it", "this", "that"}:
        return ctx.topic, None
    m = re.match(rf"^(?:(?:the|my|our|your|this|their|his|her)\s+)?(?P<mods>.*?)\s*\b"
                 rf"(?P<head>{_RELATIONAL_RE})(?:\s+(?:for|of|on)\s+(?P<comp>.+))?$", low)
    if m and m.group("head"):
        head = "when" if m.group("head") in {"deadline", "due date", "cutoff", "cut-off",
                                             "date", "time", "start date", "end date",
                                             "launch date", "release date"} else \
            m.group("head")
        mods = np_words(m.group("mods") or "")
        comp = np_words(m.group("comp") or "")
        key = " ".join([*comp, *mods]) if (mods or comp) else None
        if key is None and " " in m.group("head") and m.group("head") not in {"due date"}:
            key = stem(m.group("head").split()[0])  # "the launch date" is the launch's date
        if key is None:
            owner = re.match(r"^(my|our|your)\b", low)
            if owner:
                key = ctx.seg.first if owner.group(1) != "your" else ctx.seg.you
                return key, head
            by_subject = ctx.seg.topic if ctx.seg.kind != "text" else None
            key = by_subject or ctx.topic or m.group("head").split()[-1]
        return key, head
    key = np_key(low)
    return (key or None), None


def _subject_match(a: str, b: str) -> bool:
    """Whether two thing keys name the same thing: equal, or the same head word with one's
    modifiers a subset of the other's ("budget draft" / "quarterly budget draft"), or one is
    the modifier of the other's event noun ("yoga" / "yoga class")."""
    if a == b:
        return True
    wa, wb = a.split(), b.split()
    if not wa or not wb:
        return False
    sa, sb = set(wa), set(wb)
    if wa[-1] == wb[-1] and (sa <= sb or sb <= sa):
        return True
    short, long_ = (wa, wb) if len(wa) < len(wb) else (wb, wa)
    return long_[-1] in INSTANCE_NOUNS | _TIME_HEADS and set(short) <= set(long_[:-1])


def is_instance(subject: str) -> bool:
    """Whether a thing key is only instance nouns ("meeting", "invoice") — a subject that may
    name a different occurrence each time."""
    ws = subject.split()
    return bool(ws) and all(w in INSTANCE_NOUNS for w in ws)


# -- claim builders ----------------------------------------------------------------------------
Builder = Callable[[re.Match[str], _Ctx], list[Claim]]


def _mk(subject: str | None, attribute: str, value: str | None, ctx: _Ctx, *,
        negated: bool = False, category: str = "", numbers: tuple[str, ...] = (),
        kind: str = "") -> list[Claim]:
    if not subject or not value:
        return []
    if ctx.setting and attribute.split(":", 1)[0].split(" ", 1)[0] in _SETTING_SLOTS:
        attribute = f"{attribute}@{ctx.setting}"
    base = ctx.thing_marked if kind == "thing" else ctx.marked
    return [Claim(subject, attribute, value, negated, category, numbers, base,
                  kind or _kind(subject))]


def _subj(m: re.Match[str], ctx: _Ctx) -> str | None:
    groups = m.groupdict()
    return _resolve(groups.get("subj"), ctx)


def _tool_or_time(raw: str) -> bool:
    head = re.sub(r"^(?:a|an|the|my|our)\s+", "", raw.strip().lower())
    return V.tool_kind(" ".join(head.split()[:2])) is not None or V.is_time(raw)


def _leave(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    subj = _subj(m, ctx)
    value = _clean(m.group("val"), proper=True) or _clean_definite(m.group("val"))
    out = _mk(subj, "employer", value, ctx, negated=True)
    out += _mk(subj, "residence", value, ctx, negated=True)
    out += _mk(subj, "*", value, ctx, negated=True)
    return out


def _clean_definite(raw: str | None) -> str | None:
    """A lower-case organisation written with "the" ("the library", "the city council")."""
    if not raw:
        return None
    m = re.match(r"^\s*the\s+([a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2})", raw)
    if not m:
        return None
    value = _clean(m.group(1))
    if not value or value.split()[-1] in {"weekend", "moment", "desk", "front", "time", "end",
                                          "office", "same", "beginning", "door", "house"}:
        return None
    return value


def _employer(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    raw = m.group("val")
    if V.is_time(raw):
        return []
    value = _clean(raw, proper=True)
    if value is None and m.groupdict().get("definite") is not None:
        value = _clean_definite(raw)
    if value is None and re.match(r"^\s*myself\b", raw, re.I):
        value = "self-employed"
    neg = _negated(m.groupdict().get("aux"))
    aux = (m.groupdict().get("aux") or "").lower()
    if (re.search(r"\b(?:worked|was employed|were employed)\b", m.group(0), re.I)
            and not re.search(r"\b(?:have|has|had)\b|['’]ve\b", aux)
            and PAST_PERIOD_RE.search(ctx.line)):
        return []  # "back when I was at uni I worked at a Pret": an employer then, not now
    return _mk(_subj(m, ctx), "employer", value, ctx, negated=neg)


def _at_employer(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    """"I'm at Microsoft on the Azure team", "I'm at Amazon now" (with work in the sentence)."""
    tail = m.group("tail") or ""
    value = (m.group("val") or "").split()
    with_now = " with " in f" {m.group(0).lower()} " and re.match(r"\s*now\b", tail, re.I)
    if value and value[0].lower() in FIRST_NAMES:
        return []
    if not (ctx.work or with_now or re.match(r"\s*(?:on|in)\s+the\s+\w+(?:\s+\w+)?\s+team|\s*for\s+\w+\s+"
                                 r"years?|\s*since|\s*as\s+", tail, re.I)):
        return []
    return _employer(m, ctx)


def _residence(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    raw = m.group("val")
    subj = _subj(m, ctx)
    aux = m.groupdict().get("aux") or ""
    if V.is_time(raw) or (re.search(r"\blived\b", m.group(0), re.I)
                          and not re.search(r"\b(?:have|has|'ve)\b", aux, re.I)):
        return []
    head = re.sub(r"^(?:a|an|the)\s+", "", raw.strip())
    if V.tool_kind(" ".join(head.lower().split()[:2])) is not None:
        return []
    value = _clean(raw, proper=True)
    if value is None and re.match(r"^\s*there\b", raw, re.I):
        value = _place_before(ctx.line, m.group(0))
    out = _mk(subj, "residence", value, ctx, negated=_negated(m.groupdict().get("aux")))
    src = m.groupdict().get("src")
    if src:
        out += _mk(subj, "residence", _clean(src, proper=True), ctx, negated=True)
    return out


def _moved(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    """"moved to X": a place (residence), a time (the subject's schedule), a tool."""
    raw = m.group("val")
    subj_raw = m.groupdict().get("subj")
    src = m.groupdict().get("src")
    if V.is_time(raw):
        thing = subj_raw or ctx.subject
        if not thing:
            return []
        key, _ = _thing(thing, ctx)
        if key is None or _resolve(thing, ctx) in ("user",) or key in {"i", "we"}:
            return []
        out = _mk(key, "when", V.time_value(raw), ctx, kind="thing")
        if src and V.is_time(src):
            out += _mk(key, "when", V.time_value(src), ctx, negated=True, kind="thing")
        return [replace(c, marked=True) for c in out]
    out = _tools(raw, _subj(m, ctx), ctx, marked=True)
    if out:
        if src:
            out += _mk(_subj(m, ctx), "*", _clean(src) and _object(src, ctx), ctx, negated=True)
        return out
    return _residence(m, ctx)


def _home(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    value = _clean(m.group("val"), proper=True)
    return _mk(ctx.seg.first, "residence", value, ctx)


def _job(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    raw = m.group("val")
    value = _clean(raw)
    if value is None:
        return []
    value = re.sub(r"^(?:a|an)\s+", "", value)
    toks = value.split()
    if toks and toks[-1] in _PARENT_WORDS:
        return _mk(_subj(m, ctx), "children", "0", ctx, negated=True)
    if m.groupdict().get("strict") is not None and not (
        any(t in PROFESSIONS or t in _TITLE_WORDS for t in toks)
        or re.search(rf"\b(?:{_PROF})\b", value)
    ):
        return []
    aux = (m.groupdict().get("aux") or "").lower()
    if re.search(r"\b(?:was|were)\b", m.group(0), re.I) and PAST_PERIOD_RE.search(ctx.line):
        return []  # "I was a waiter in my twenties": a job held then, not now
    # a volunteer, part-time or additional role is held beside one's job, not instead of it
    side = "also" in aux.split() or toks[0] in _SIDE_ROLES
    return _mk(_subj(m, ctx), "side job" if side else "job", value, ctx,
               negated=_negated(m.groupdict().get("aux")))


_SIDE_ROLES = frozenset({"volunteer", "part-time", "amateur", "hobby", "hobbyist", "occasional",
                         "weekend", "side", "unpaid", "honorary", "voluntary"})


def _profession_at(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    subj = _subj(m, ctx)
    out = _mk(subj, "job", _clean(m.group("prof")), ctx)
    out += _mk(subj, "employer", _clean(m.group("val"), proper=True), ctx)
    return out


def _role_name(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    """"my boss is Greg", "Priya is my manager", "I report to Chen", "Oliver manages me"."""
    role = " ".join((m.groupdict().get("role") or "manager").lower().split())
    slot = V.slot_name(role)
    if slot not in V.EXCLUSIVE_ROLES:
        return []
    owner_word = (m.groupdict().get("own") or "my").lower()
    owner = ctx.seg.you if owner_word == "your" else (
        _resolve(m.groupdict().get("subj"), ctx) if m.groupdict().get("subj") else ctx.seg.first
    )
    raw = m.group("name")
    if raw is None or not re.match(r"^(?:Dr\.?\s+|Mr\.?\s+|Mrs\.?\s+|Ms\.?\s+)?[A-Z]", raw):
        return []
    value = name_key(_clean(raw, proper=True) or "")
    if not value or value.split()[0] in _NOT_NAMES:
        return []
    neg = _negated(m.groupdict().get("aux"))
    out = _mk(owner, slot, value, ctx, negated=neg)
    if role.startswith("fianc") and not neg:
        out += _mk(owner, "status", "engaged", ctx)
    return out


def _status(value: str) -> str:
    return _STATUS.get(value.lower(), value.lower())


def _status_claim(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    subj = _subj(m, ctx)
    val = _status(" ".join(m.group("val").lower().split()))
    neg = _negated(m.groupdict().get("aux"))
    out = _mk(subj, "status", val, ctx, negated=neg)
    other = m.groupdict().get("partner")
    if other and val in ("married", "engaged", "partnered"):
        out += _mk(subj, "partner", name_key(other), ctx, negated=neg)
    return out


def _breakup(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    subj = ctx.seg.first
    other = m.groupdict().get("name") or m.groupdict().get("name2")
    verb = m.group("verb").lower()
    if re.search(r"married|engaged|tied the knot", verb):
        val = "engaged" if "engaged" in verb else "married"
        out = _mk(subj, "status", val, ctx)
        if other:
            out += _mk(subj, "partner", name_key(other), ctx)
        return out
    out = _mk(subj, "status", "single", ctx)
    if other:
        out += _mk(subj, "partner", name_key(other), ctx, negated=True)
    return out


def _dating(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    subj = _subj(m, ctx)
    neg = _negated(m.groupdict().get("aux"))
    out = _mk(subj, "status", "partnered", ctx, negated=neg)
    name = m.groupdict().get("name")
    if name:
        value = name_key(_clean(name, proper=True) or "")
        out += _mk(subj, "partner", value, ctx, negated=neg)
    return out


def _diet(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    subj = _subj(m, ctx)
    val = _DIET_NAMES.get(m.group("val").lower(), m.group("val").lower())
    neg = _negated(m.groupdict().get("aux")) or bool(m.groupdict().get("quit"))
    out = _mk(subj, "diet", val, ctx, negated=neg)
    if not neg:
        for food in _DIET_DENIES.get(val, ()):
            out += _mk(subj, "habit", stem(food), ctx, negated=True)
    return out


def _omnivore(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    subj = _subj(m, ctx)
    return _mk(subj, "diet", "omnivore", ctx) + _mk(subj, "habit", "meat", ctx)


def _habit(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    subj = _subj(m, ctx)
    verb = m.group("verb").lower()
    neg = _negated(m.groupdict().get("aux"), m.groupdict().get("neg"))
    if (m.groupdict().get("stop") or "").lower() in {"stopped", "quit", "gave up", "give up",
                                                    "cut out", "have cut out"}:
        neg = not neg
    obj_raw = m.groupdict().get("obj") or ""
    obj = stem(verb) if verb.startswith(("smok", "vap")) else _object(obj_raw, ctx)
    if obj is None:
        return []
    out = _mk(subj, "habit", obj, ctx, negated=neg)
    if not neg and obj in {stem(w) for w in _MEATS}:
        out += _mk(subj, "habit", "meat", ctx)
    if not neg and obj in {stem(w) for w in ("cheese", "milk", "yogurt", "butter", "cream")}:
        out += _mk(subj, "habit", stem("dairy"), ctx)
    return out


def _quit_thing(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    """"I quit sugar", "I gave up smoking", "I cancelled Spotify": the thing is denied."""
    subj = _subj(m, ctx)
    raw = m.group("val")
    gerund = re.match(r"^\s*(eating|drinking|smoking|vaping|using|playing|doing|taking)\b\s*(.*)$",
                      raw, re.I)
    if gerund:
        verb, rest = gerund.group(1).lower(), gerund.group(2)
        obj = stem(verb) if not rest.strip() or verb in {"smoking", "vaping"} else _object(
            rest, ctx
        )
        attr = "habit" if verb in {"eating", "drinking", "smoking", "vaping"} else "*"
        out = _mk(subj, attr, obj, ctx, negated=True)
        return out + _mk(subj, "*", obj, ctx, negated=True)
    obj = _object(raw, ctx)
    proper = _clean(raw, proper=True)
    verb = m.group(0).lower()
    attr = "*have" if re.search(r"\b(?:sold|gave away|got rid of|gave\s+\w+\s+(?:to|away)|"
                                r"traded|returned)\b", verb) else "*"
    out = _mk(subj, attr, obj, ctx, negated=True)
    if proper and proper != obj:
        out += _mk(subj, attr, proper, ctx, negated=True)
    return out


def _like(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    subj = _subj(m, ctx)
    verb = " ".join(m.group("verb").lower().split())
    neg = _negated(m.groupdict().get("aux"), m.groupdict().get("neg"))
    if _DISLIKE_RE.fullmatch(verb):
        neg = not neg
    raw = m.group("obj")
    objs = [raw]
    if not re.match(r"^\s*(?:it|them)\b", raw, re.I):
        objs = [p for p in re.split(r"\s*,\s*|\s+and\s+|\s+or\s+", raw) if p.strip()][:3]
    out: list[Claim] = []
    for o in objs:
        key = _object(o, ctx)
        if key is None or key in {"to", "go", "that", "it", "thi"}:
            continue
        out += _mk(subj, "like", key, ctx, negated=neg)
        if verb.startswith(("prefer", "love")) and not neg:
            out += [c for c in _tools(o, subj, ctx) if c.attribute.startswith("tool:")]
        if verb.startswith("prefer") and not neg:
            head = key.split("@")[0].split()
            if head:
                out += _mk(subj, f"prefer:{head[-1] if len(head) > 1 else head[0]}", key, ctx)
    return out


def _favourite(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    owner_raw = m.groupdict().get("own") or "my"
    owner = _resolve(owner_raw if owner_raw.lower() in {"my", "our", "your"} else
                     owner_raw[:-2] if owner_raw.endswith(("'s", "’s")) else owner_raw, ctx)
    attr_words = (m.group("attr") or "").lower().split()
    raw = m.group("val")
    if re.match(r"^\s*(?:it|that|this)\s*$", raw or "", re.I):
        value = ctx.topic
        raw_v = value or ""
    else:
        value = _clean(raw)
        raw_v = raw or ""
    if not value or not attr_words:
        return []
    attr = "favourite " + _attr_key(attr_words[-1])
    out = _mk(owner, attr, value, ctx, category=_category(value, raw_v))
    key = _object(raw_v, ctx) if raw_v and not raw_v.lower().strip().startswith(("it", "that")) \
        else value
    if key:
        out += _mk(owner, "like", key, ctx)
    return out


def _attr_key(raw: str) -> str:
    """Readable, comparable attribute words: lower case, British spelling, singular."""
    out = []
    for w in raw.lower().split():
        w = {"color": "colour", "flavor": "flavour", "favorite": "favourite"}.get(w, w)
        if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
        out.append(w)
    return " ".join(out)


attribute_key = _attr_key


def _trait(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    return _mk(_subj(m, ctx), "trait", " ".join(m.group("val").lower().split()), ctx,
               negated=_negated(m.groupdict().get("aux")))


def _count(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    """"we have two kids", "I own three cats", "I don't have any pets", "mother of two"."""
    subj = _subj(m, ctx) if m.groupdict().get("subj") else ctx.seg.first
    noun = m.group("noun").lower()
    n_raw = (m.groupdict().get("n") or "").lower()
    neg = _negated(m.groupdict().get("aux"))
    n = 0 if neg and n_raw in {"any", "a", "an", "one", "no"} else V.count_value(n_raw)
    if n_raw in {"any"} and not neg:
        return []
    if n is None or (neg and n):
        return []
    return _count_claims(subj, noun, n, ctx, implicit=n == 1 and n_raw in {"a", "an"})


def _noun_slot(noun: str) -> tuple[str, str | None]:
    """(count slot, pet kind or None) of a counted noun."""
    n = noun.lower().strip()
    if n in {"kid", "kids", "child", "children", "baby", "babies"}:
        return "children", None
    if n in {"son", "sons", "boy", "boys"}:
        return "sons", None
    if n in {"daughter", "daughters", "girl", "girls"}:
        return "daughters", None
    if n in {"grandchildren", "grandkids", "grandchild", "grandkid"}:
        return "grandchildren", None
    last = n.split()[-1]
    base = "pet" if last in {"pet", "pets"} else last.rstrip("s") if last not in {
        "fish", "goldfish", "puppies"} else {"puppies": "puppy"}.get(last, last)
    if base in _DOG_WORDS:
        base = "dog" if base != "puppy" else "puppy"
    if base in _CAT_WORDS:
        base = "cat" if base != "kitten" else "kitten"
    return f"pets:{base}", base


#: the category of a count said with an article ("we have a cat called Miso"): one, but a
#: statement about that one rather than a count (`contradiction.contradicts`)
IMPLICIT_COUNT = "article"


def _count_claims(subj: str | None, noun: str, n: int, ctx: _Ctx, *,
                  implicit: bool = False) -> list[Claim]:
    slot, pet = _noun_slot(noun)
    out = _mk(subj, slot, str(n), ctx, numbers=(str(n),),
              category=IMPLICIT_COUNT if implicit else "")
    if pet is not None:
        out += _mk(subj, "own", pet, ctx, negated=n == 0)
        if pet in {"puppy"}:
            out += _mk(subj, "own", "dog", ctx, negated=n == 0)
        if pet in {"kitten"}:
            out += _mk(subj, "own", "cat", ctx, negated=n == 0)
        if pet != "pet" and n > 0:
            out += _mk(subj, "own", "pet", ctx)
    return out


def _ordinal(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    """"our third child was born", "we adopted a second cat", "we have a third boy now"."""
    if re.search(r"\b(?:expect\w*|pregnan\w*|due|on the way|coming|planning|want)\b", ctx.line,
                 re.I):
        return []
    n = V.ordinal_value(m.group("ord"))
    if n is None or n < 2:
        return []
    return _count_claims(ctx.seg.first, m.group("noun"), n, ctx)


def _ordinal_child(ctx: _Ctx, n: int | None) -> list[Claim]:
    """"our fourth was born", "baby number three arrived": the speaker has `n` children."""
    if n is None or n < 2 or re.search(r"\b(?:expect\w*|pregnan\w*|due|on the way|coming|"
                                       r"planning|want)\b", ctx.line, re.I):
        return []
    return _count_claims(ctx.seg.first, "children", n, ctx)


def _household(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    """"we're a family of five now": how many people the speaker's household has (compared
    with a count of children in `contradiction`: two parents or one and the children)."""
    n = V.count_value(m.group("n"))
    if not n or n < 2:
        return []
    return _mk(ctx.seg.first, "household", str(n), ctx, numbers=(str(n),))


def _pet_gone(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    _, pet = _noun_slot(m.group("noun"))
    if pet is None:
        return []
    subj = ctx.seg.first
    return _mk(subj, "own", pet, ctx, negated=True) + (
        _mk(subj, "own", "dog", ctx, negated=True) if pet == "puppy" else [])


def _pet_named(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    """"a cat called Miso", "our dog Pepper": the speaker has the pet of that name, so
    "Miso died" or "we rehomed Clover" later says they no longer do."""
    name = m.group("val")
    if name.lower() in _NOT_NAMES or name.lower() in PETS:
        return []
    return _mk(ctx.seg.first, "own", name_key(name), ctx)


#: "my friend's dog Max", "their cat Miso": a pet named after another owner is not the speaker's
_OTHERS_PET = re.compile(r"(?:\b\w+['’]s|\b(?:his|her|their|your|whose))\s+(?:[\w-]+\s+)?"
                         r"(?:dog|cat|puppy|kitten|hamster|rabbit|parrot|goldfish|pet|horse|"
                         r"tortoise|budgie)\s*,?\s*$", re.I)


def _name_gone(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    """"Miso died", "Pepper passed away": the pet of that name is no longer the speaker's
    (it conflicts only with a pet the speaker named: `_pet_named`)."""
    name = m.group("name")
    if name.lower() in _NOT_NAMES or _OTHERS_PET.search(m.string[:m.start()]):
        return []
    return _mk(ctx.seg.first, "own", name_key(name), ctx, negated=True)


def _rehomed(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    """"we had to rehome Clover", "we gave our dog away": the pet, or the pet of that name,
    is no longer the speaker's."""
    subj = _subj(m, ctx)
    out: list[Claim] = []
    if m.group("noun"):
        out += _pet_gone(m, ctx)
    name = m.group("name")
    if name and name.lower() not in _NOT_NAMES:
        out += _mk(subj, "own", name_key(name), ctx, negated=True)
    return out


def _got_pet(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    _, pet = _noun_slot(m.group("noun"))
    if pet is None:
        return []
    subj = _subj(m, ctx)
    out = _mk(subj, "own", pet, ctx) + _mk(subj, "own", "pet", ctx)
    if pet == "puppy":
        out += _mk(subj, "own", "dog", ctx)
    if pet == "kitten":
        out += _mk(subj, "own", "cat", ctx)
    return out


def _no_pets(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    return _mk(ctx.seg.first, "own", "pet", ctx, negated=True)


def _rate(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    """"three coffees a day", "20 km a week", "eight hours of sleep a night"."""
    subj = ctx.seg.first if _resolve(ctx.subject, ctx) == ctx.seg.first else None
    if subj is None:
        return []
    n = V.count_value(m.group("n")) if not m.group("n")[:1].isdigit() else None
    num = str(n) if n is not None else m.group("n").replace(",", ".")
    unit = m.group("unit").lower()
    if unit in V._CURRENCY or unit in {"time", "times"}:
        return []
    of = (m.groupdict().get("of") or "").lower()
    per = m.group("per").lower()
    verb = (m.groupdict().get("verb") or "").lower()
    cat = stem(of) if of else (stem(verb) if stem(verb) in _RATE_VERBS else "")
    return _mk(subj, f"rate:{stem(unit)}/{per}", num, ctx, category=cat, numbers=(num,))


def _age(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    return _mk(_subj(m, ctx), "age", m.group("val"), ctx)


def _name(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    role = (m.groupdict().get("role") or "").lower()
    if role:
        if role not in PETS and V.slot_name(role) not in V.EXCLUSIVE_ROLES and role not in {
            "baby", "son", "daughter", "band", "company", "project", "startup", "boat", "car"
        }:
            return []
        owner = _resolve(m.groupdict().get("own") or "my", ctx)
        if owner is None:
            return []
        subj = role if owner == "user" else f"{owner}'s {role}"
        if V.slot_name(role) in V.EXCLUSIVE_ROLES:
            return _mk(owner, V.slot_name(role), name_key(_clean(m.group("val"), proper=True)
                                                          or ""), ctx)
        return _mk(subj, "name", _clean(m.group("val"), proper=True), ctx)
    subj = _resolve(m.groupdict().get("subj") or "i", ctx)
    return _mk(subj, "name", _clean(m.group("val"), proper=True), ctx)


def _phone(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    owner = _owner(m, ctx)
    v = V.phone_value(m.group("val"))
    return _mk(owner, "phone", v, ctx)


def _email(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    return _mk(_owner(m, ctx), "email", V.email_value(m.group("val")), ctx)


def _owner(m: re.Match[str], ctx: _Ctx) -> str | None:
    own = (m.groupdict().get("own") or "my").lower()
    if own in {"my", "our", "me", "i"}:
        return ctx.seg.first
    if own == "your":
        return ctx.seg.you
    return _resolve(m.groupdict().get("own"), ctx)


def _tools(raw: str | None, subj: str | None, ctx: _Ctx, *, marked: bool = False,
           negated: bool = False) -> list[Claim]:
    """Claims about a known tool named at the start of `raw` ("VS Code", "a Pixel")."""
    if not raw or subj is None:
        return []
    text = re.sub(r"^\s*(?:a|an|the|my|our|to)\s+", "", raw.strip().lower())
    toks = re.findall(r"[\w.+-]+", text)
    for n in (3, 2, 1):
        cand = " ".join(toks[:n])
        kind = V.tool_kind(cand) if cand else None
        if kind is None or (n == 1 and V.alias(cand) not in V.TOOL_KINDS):
            continue
        value = V.alias(cand if V.alias(cand) in V.TOOL_KINDS else toks[0])
        c = _mk(subj, "use", value, ctx, negated=negated)
        c += [replace(x, marked=marked or x.marked) for x in
              _mk(subj, f"tool:{kind}", value, ctx, negated=negated)]
        return c
    return []


def _use(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    subj = _subj(m, ctx)
    raw = m.group("val")
    verb = m.group("verb").lower()
    marked = bool(re.match(r"switch|mov|migrat|chang", verb))
    neg = _negated(m.groupdict().get("aux"))
    out = _tools(raw, subj, ctx, marked=marked, negated=neg)
    purpose = _purpose(m.groupdict().get("purpose"))
    value = _object(raw, ctx) if not out else out[0].value
    if purpose and value and not neg:
        out += _mk(subj, f"choice for {purpose}", value.split("@")[0], ctx)
    if not out and value and verb.startswith("us"):
        out += _mk(subj, "use", value.split("@")[0], ctx, negated=neg)
    return out


def _switch(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    """"switched from X to Y", "replaced X with Y", "moved the project from X to Y"."""
    subj = _subj(m, ctx)
    old, new = re.sub(r"^\s*in\s+", "", m.group("old")), m.group("new")
    if V.is_time(new) or V.is_time(old):
        return []
    out: list[Claim] = []
    if re.match(r"^\s*(?-i:[A-Z])", old) and not V.tool_kind(old.strip().lower()):
        place_old, place_new = _clean(old, proper=True), _clean(new, proper=True)
        verb = m.group("verb").lower()
        if verb.startswith(("mov", "reloc")) and place_old and place_new and not V.tool_kind(
            place_new
        ):
            out += _mk(subj, "residence", place_old, ctx, negated=True)
            out += _mk(subj, "residence", place_new, ctx)
    old_key = _object(old, ctx)
    out += _mk(subj, "*", old_key and old_key.split("@")[0], ctx, negated=True)
    proper_old = _clean(old, proper=True)
    if proper_old and proper_old != old_key:
        out += _mk(subj, "*", proper_old, ctx, negated=True)
    out += _tools(new, subj, ctx, marked=True)
    new_key = _object(new, ctx)
    if new_key:
        out += _mk(subj, "use", new_key.split("@")[0], ctx)
    return [replace(c, marked=True) for c in out]


def _instead_of(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    subj = _resolve(ctx.subject, ctx) or ctx.seg.first
    raw = m.group("val")
    out = _mk(subj, "*", (_object(raw, ctx) or "").split("@")[0] or None, ctx, negated=True)
    proper = _clean(raw, proper=True)
    if proper:
        out += _mk(subj, "*", proper, ctx, negated=True)
    return out


def _decide(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    subj = _subj(m, ctx)
    raw = m.group("val")
    neg = _negated(m.groupdict().get("aux"), m.groupdict().get("neg"))
    value = _object(raw, ctx)
    if value is None:
        return []
    value = value.split("@")[0]
    out = _mk(subj, "choose", value, ctx, negated=neg)
    out += _tools(raw, subj, ctx, negated=neg)
    purpose = _purpose(m.groupdict().get("purpose"))
    if purpose and not neg:
        out += _mk(subj, f"choice for {purpose}", value, ctx)
    return out


def _purpose(raw: str | None) -> str | None:
    """The key of what a choice is for ("the new service instead" → "servic")."""
    if not raw:
        return None
    return np_key(_clean(raw, keep_owner=False) or "") or None


def _option(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    """"option C", "plan B" in a decision: one choice per (purpose, kind of alternative)."""
    if not re.search(r"\b(?:decid\w*|chose|choose|chosen|pick\w*|go(?:ing)? with|went with|"
                     r"agreed|settled|ships|ship|shipping|launch\w*|select\w*|opt\w*|vote\w*|"
                     r"changed our minds?|changed my mind|final|approved|winner)\b", ctx.line,
                     re.I):
        return []
    subj = ctx.seg.first
    head = m.group("head").lower()
    mods = [w for w in np_words(m.group("mods") or "")
            if not w.endswith("ed") and w not in {"go", "pick", "chos", "choos", "select", "mind",
                                                  "with", "went", "ship", "agre"}]
    purpose = np_words(m.group("purpose") or "")[-1:]  # its head: "the wedding venue" → venue
    key = " ".join(purpose or mods) or subj
    neg = _negated(m.groupdict().get("neg"))
    return _mk(key, f"choice:{head}", m.group("label").lower(), ctx, negated=neg, kind="thing")


def _member(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    """"I have a membership at PureGym", "I'm a member of the Ramblers": the speaker uses the
    place, which "I cancelled my PureGym membership" denies."""
    return _mk(_subj(m, ctx), "use", _clean(m.group("val"), proper=True), ctx,
               negated=_negated(m.groupdict().get("aux")))


def _study(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    return _mk(_subj(m, ctx), "studies", _clean(m.group("val")), ctx,
               negated=_negated(m.groupdict().get("aux")))


def _school(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    return _mk(_subj(m, ctx), "school", _clean(m.group("val"), proper=True), ctx)


def _drive(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    value = _clean(m.group("val"))
    return _mk(_subj(m, ctx), "car", value, ctx, negated=_negated(m.groupdict().get("aux")))


def _bank(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    return _mk(_subj(m, ctx) if m.groupdict().get("subj") else ctx.seg.first, "bank",
               _clean(m.group("val"), proper=True), ctx)


def _how(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    """"I take my coffee black" / "with oat milk": how one has something."""
    thing = stem(m.group("thing").lower())
    value = " ".join(stem(w) for w in re.findall(r"[\w']+", m.group("val").lower())
                     if w not in STOPWORDS and w not in INTENSIFIERS)
    return _mk(_subj(m, ctx), f"how:{thing}", value or None, ctx)


# -- things: times, places, prices, budgets ----------------------------------------------------
def _thing_value(key: str | None, head: str | None, raw: str, ctx: _Ctx, *, marked: bool,
                 negated: bool = False, prefer: str = "") -> list[Claim]:
    """The claim a value makes about a thing: a time ("when"), money or an amount (the
    relational head: price, budget, rent …), or a place ("where")."""
    if key is None:
        return []
    raw = raw.strip()
    money = V.money_value(raw)
    if head in {"when"} or (head is None and V.is_time(raw)):
        tv = V.time_value(raw)
        return [replace(c, marked=marked or c.marked)
                for c in _mk(key, "when", tv, ctx, negated=negated, kind="thing")]
    if money is not None or (head is not None and V.leading_amount(raw)):
        amount = money or V.leading_amount(raw)
        attr = head or "price"
        if attr in {"date", "location", "venue", "address"}:
            return []
        return [replace(c, marked=marked or c.marked)
                for c in _mk(key, attr, amount, ctx, negated=negated, kind="thing")]
    pct = V.PERCENT_RE.search(raw)
    if pct and head in {"rate", "limit"}:
        return _mk(key, head, pct.group("n") + "%", ctx, negated=negated, kind="thing")
    if (prefer == "where" and head is None) or head in {"location", "venue", "address"}:
        value = _clean(raw, proper=True, keep_owner=True) or _clean(raw, keep_owner=True)
        return [replace(c, marked=marked or c.marked)
                for c in _mk(key, "where", value, ctx, negated=negated, kind="thing")]
    return []


def _is_person_phrase(phrase: str, ctx: _Ctx) -> bool:
    low = re.split(r"\s+(?:with|of|for|from|to|about|at)\s+", phrase.lower().strip(),
                   maxsplit=1)[0]
    if low in {"i", "we", "you", "he", "she", "they", "me", "us"}:
        return True
    last = low.split()[-1] if low else ""
    if last in RELATIONS or last in PETS:
        return True
    return bool(phrase[:1].isupper() and low.split()[0] in FIRST_NAMES and len(low.split()) <= 2)


def _thing_is(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    """"The grant report is due on 12 May", "Yoga class is on Tuesdays", "It is 400 EUR",
    "The offsite budget is now 3,500", "The offsite will be in Seville"."""
    np_raw = m.group("np")
    if _is_person_phrase(np_raw, ctx) or re.match(r"^\s*(?:i|we|you|he|she|they)\b", np_raw,
                                                   re.I):
        return []
    key, head = _thing(np_raw, ctx)
    if key is None or (key in {"user"} and head is None):
        return []
    verb = (m.groupdict().get("verb") or "").lower()
    if "due" in verb or re.search(r"\b(?:close|closes|ends|end|expires?|renews?|renewed)\b", verb):
        head = "when"
    marked = ctx.thing_marked or bool(re.search(r"\b(?:now|moved|changed|pushed|rescheduled|"
                                          r"postponed|extended|slipped|shifted|new)\b", verb))
    prep = (m.groupdict().get("prep") or "").lower()
    prefer = "where" if prep in {"in", "at"} else ""
    val = m.group("val")
    if prep == "at" and re.match(r"^\s*\d{1,2}\s*(?:$|o'clock\b)", val):
        val = f"at {val}"  # "the standup is at 9": an hour
    return _thing_value(key, head, val, ctx, marked=marked, prefer=prefer)


def _thing_moved(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    """"<someone> moved/rescheduled/raised <the thing> to <value>"."""
    np_raw = re.sub(r"['’]s(?:\s+been)?\s*$", "", m.group("np").strip())
    if re.match(r"^(?:my|our|your)\s+(?:account|bank account)$", np_raw.strip(), re.I):
        return _mk(ctx.seg.first, "bank", _clean(m.group("val"), proper=True), ctx)
    key, head = _thing(np_raw, ctx)
    words_ = np_raw.lower().split()
    slot_words = " ".join(w for w in words_ if w not in {"my", "our", "the", "your"})
    slot = V.slot_name(slot_words)
    if re.match(r"^(?:my|our)\b", np_raw.strip(), re.I) and head is None and (
        slot in V.SLOT_SYNONYMS.values() or slot in {"email", "phone", "internet provider",
                                                     "wifi password", "bank"}
    ):
        return _generic_set(ctx.seg.first, slot, m.group("val"), ctx)
    if re.match(r"^(?:the)\s", np_raw.strip(), re.I) and slot in {"wifi password"}:
        return _generic_set(ctx.seg.first, slot, m.group("val"), ctx)
    if slot in V.EXCLUSIVE_ROLES:
        value = name_key(_clean(m.group("val"), proper=True) or "")
        return [replace(c, marked=True) for c in _mk(ctx.seg.first, slot, value, ctx)]
    if key is None:
        return []
    if head is None and key.split()[-1] in _TIME_HEADS and len(key.split()) > 1:
        key = " ".join(key.split()[:-1])
    val = m.group("val")
    if head is None and re.match(r"^\s*(?:[1-9]|1\d|2[0-3])\s*(?:$|o'clock\b)", val):
        val = f"at {val}"  # "standup moved to 10": an hour
    out = _thing_value(key, head, val, ctx, marked=True)
    src = m.groupdict().get("src")
    if src and out:
        out += _thing_value(key, head, src, ctx, marked=True, negated=True)
    return out


def _generic_set(owner: str | None, slot: str, raw: str, ctx: _Ctx) -> list[Claim]:
    if slot == "phone":
        return [replace(c, marked=True) for c in _mk(owner, "phone", V.phone_value(raw), ctx)]
    if slot == "email":
        return [replace(c, marked=True) for c in _mk(owner, "email", V.email_value(raw), ctx)]
    value = _clean(raw, proper=slot in {"internet provider", "bank", "doctor"}) or _clean(raw)
    if value is None:
        return []
    return [replace(c, marked=True) for c in _mk(owner, slot, value, ctx)]


def _due(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    key, _ = _thing(m.group("np"), ctx)
    return _thing_value(key, "when", m.group("val"), ctx, marked=ctx.thing_marked)


def _budget_for(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    key, _ = _thing(m.group("np"), ctx)
    return _thing_value(key, "budget", m.group("val"), ctx, marked=ctx.thing_marked)


def _costs(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    np_raw = m.group("np")
    if _is_person_phrase(np_raw, ctx):
        return []
    key, head = _thing(np_raw, ctx)
    return _thing_value(key, head or "price", m.group("val"), ctx, marked=ctx.thing_marked)


def _bought_for(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    key, _ = _thing(m.group("np"), ctx)
    return _thing_value(key, "price", m.group("val"), ctx, marked=False)


def _scheduled(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    """"I have piano lessons on Tuesdays", "We do family dinner every Sunday", "I go to the
    gym on Mondays", "I start work at 8am"."""
    phrase = m.group("np")
    verb = m.group("verb").lower()
    if verb in {"start", "starts", "finish", "finishes", "leave", "leaves", "pick up",
                "picks up", "drop off"}:
        phrase = f"{verb.split()[0]} {phrase}"
    key = np_key(phrase)
    if not key:
        return []
    return _thing_value(key, "when", m.group("val"), ctx, marked=ctx.thing_marked)


def _held_in(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    key = np_key(m.group("np"))
    return _thing_value(key or None, None, m.group("val"), ctx, marked=ctx.thing_marked,
                        prefer="where")


def _launch(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    return _mk(ctx.seg.first, "launch first", _clean(m.group("val"), proper=True), ctx)


def _naming(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    role = m.group("role").lower()
    owner = ctx.seg.first
    subj = role if owner == "user" else f"{owner}'s {role}"
    return _mk(subj, "name", _clean(m.group("val"), proper=True), ctx)


# -- generic "my X is Y" -------------------------------------------------------------------------
_GENERIC = _rx(
    r"\b(?P<subj>my|our|your|the|(?-i:[A-Z][a-z]+)'s)\s+(?P<attr>[a-z][\w-]*(?:\s+[a-z][\w-]*)"
    r"{0,2}?)\s+(?:is|are|was|has been|is now|are now|was changed to|has changed to|changed to|"
    r"got|went up to|went down to|rose to|fell to|dropped to)\s+(?:(?:moved|rescheduled|changed|"
    r"pushed|postponed|set|increased|raised|reduced|lowered|cut|bumped|updated)\s+)?(?:back\s+)?"
    r"(?:to\s+|until\s+)?(?P<neg>not\s+)?(?:(?:at|on|in)\s+)?(?P<val>[^;!?()]+)"
)


def _generic(clause: str, ctx: _Ctx) -> list[Claim]:
    out: list[Claim] = []
    for m in _GENERIC.finditer(clause):
        attr_words = m.group("attr").lower().split()
        if attr_words and attr_words[0] in {"favourite", "favorite", "fave", "name", "new"}:
            attr_words = attr_words[1:] if attr_words[0] == "new" else []
        if not attr_words:
            continue
        own = m.group("subj")
        low = own.lower()
        if low in {"my", "our"}:
            subj = ctx.seg.first
        elif low == "your":
            subj = ctx.seg.you
        elif low == "the":
            continue  # "the X is Y": about a thing (`_thing_is`), never an unowned legacy claim
        else:
            subj = _resolve(own[:-2], ctx)
        raw = re.split(r",(?!\s*\d)", m.group("val"))[0]
        value = _clean(raw)
        if subj is None or not value or value.split()[0] in {"called", "named"}:
            continue
        attr = "is:" + " ".join(stem(w) for w in attr_words)
        slot = V.slot_name(" ".join(attr_words))
        cat = _category(value, raw)
        # an email reports ("your balance is …"); a person declares ("my rent is …")
        report = "thing" if ctx.seg.kind != "text" else ""
        out += _mk(subj, attr, value, ctx, negated=bool(m.group("neg")), category=cat,
                   kind=report)
        if subj == "the":
            continue
        if slot == "phone" and V.phone_value(raw):
            out += _mk(subj, "phone", V.phone_value(raw), ctx)
        elif slot == "email" and V.email_value(raw):
            out += _mk(subj, "email", V.email_value(raw), ctx)
        elif slot in V.EXCLUSIVE_ROLES and cat == "name":
            out += _mk(subj, slot, name_key(value), ctx, negated=bool(m.group("neg")))
        elif slot in {"internet provider", "bank", "employer"} and cat == "name":
            out += _mk(subj, slot, value, ctx)
        elif slot in {"wifi password", "address", "salary", "mortgage rate"}:
            out += _mk(subj, slot, V.money_value(raw) or V.bare_amount(value) or value, ctx)
        elif slot == "job" and re.search(rf"\b(?:{_PROF})\b", value):
            out += _mk(subj, "job", re.sub(r"^(?:a|an)\s+", "", value), ctx)
        elif cat in {"number", "date"} and slot not in {"phone", "email"}:
            money = V.money_value(raw) or V.bare_amount(raw.split(" a ")[0])
            if money and cat == "number":
                out += _mk(subj, f"amount:{' '.join(stem(w) for w in attr_words)}", money, ctx,
                           kind=report)
    return out


_NUM_WORD_RE = re.compile(r"\b(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                          r"twenty|thirty|forty|fifty)\b", re.I)


def _numeric_claim(clause: str, subj: str | None) -> Claim | None:
    """"I run 20 km a week": the clause with its numbers replaced is the slot."""
    clause = _NUM_WORD_RE.sub(lambda w: str(V.NUMBER_WORDS[w.group(1).lower()]), clause)
    numbers = tuple(re.findall(r"\d+(?:[.,:]\d+)?", clause))
    if not numbers or subj is None:
        return None
    template = " ".join(
        stem(w) for w in words(re.sub(r"\d+(?:[.,:]\d+)?", " NUM ", clause.lower()))
        if w not in INTENSIFIERS and (w not in STOPWORDS or w == "num") and w not in {
            "about", "around", "roughly", "approximately", "almost", "nearly", "over", "only"}
    )
    if len([w for w in template.split() if w != "num"]) < 2:
        return None
    return Claim(subj, "num", template, numbers=numbers)


def _place_before(line: str, clause: str) -> str | None:
    """The last place named ("in Cork") before `clause` in `line` — what "there" refers to."""
    end = line.find(clause)
    head = line[: end if end > 0 else len(line)]
    places = re.findall(r"\b(?:in|from|to)\s+((?-i:[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?))", head)
    return _clean(places[-1], proper=True) if places else None


# -- the pattern table -----------------------------------------------------------------------------
_LIKE_VERBS = (r"like|likes|liked|love|loves|loved|loving|enjoy|enjoys|enjoying|adore|adores|"
               r"prefer|prefers|fancy|am into|is into|are into|am really into|am keen on|"
               r"am a (?:big |huge |massive )?fan of|is a (?:big |huge )?fan of|"
               r"am obsessed with|am crazy about|am passionate about|got into|getting into|"
               r"grown to love|grew to love|come to love|fell in love with|"
               r"come around (?:on|to)|came around (?:on|to)|warmed (?:up )?to|dig")
_DISLIKE = (r"hate|hates|hated|dislike|dislikes|detest|detests|loathe|loathes|can not stand|"
            r"cannot stand|can not bear|am sick of|am tired of|am fed up with|gone off|went off|"
            r"lost interest in|lost my taste for|grew tired of|grown tired of|grown to hate|"
            r"grew to hate|got bored of|am bored of|am over|avoid|avoids|stay away from|"
            r"steer clear of")
_DISLIKE_RE = _rx(rf"(?:{_DISLIKE})")
_HABIT_VERBS = (r"eat|eats|eating|drink|drinks|drinking|smoke|smokes|smoking|vape|vapes|vaping|"
                r"(?<=not )(?:smoked|eaten|drunk|touched)|(?<=never )(?:smoked|eaten|drunk|touched)")
#: the tools `claim_values.TOOL_KINDS` knows, however they are written ("in vim", "on notion")
_TOOL_NAMES = "|".join(re.escape(t) for t in sorted(V.TOOL_KINDS, key=len, reverse=True))
_TOOLS_VERB = (r"use|uses|using|switched to|switch to|moved to|migrated to|changed to|"
               r"went with|am on|got|bought|have|has|own|owns|run|rely on")

PATTERNS: tuple[tuple[str, re.Pattern[str], Builder], ...] = (
    # residence
    ("residence", _rx(
        rf"{_SUBJ}\s+{_AUX}(?:live|lives|living|lived|reside|resides|residing|based|settled|"
        rf"situated)\s+(?:down\s+)?(?:with\s+[\w\s']{{1,25}}?\s+)?(?:in|at)\s+{_VAL}"), _residence),
    ("residence", _rx(rf"{_SUBJ}\s+{_AUX}(?:live|lives|living|reside|resides|based|settled)\s+"
                      rf"(?P<val>there)\b"), _residence),
    ("moved", _rx(
        rf"{_SUBJ}\s+{_AUX}(?:moved|move|moving|relocated|relocate|relocating|emigrated|"
        rf"emigrating|got moved|has moved|was moved|were moved)\s+(?:back\s+|over\s+|all\s+)?"
        rf"(?:home\s+)?(?:from\s+(?P<src>[^,;]+?)\s+)?(?:to|into)\s+{_VAL}"), _moved),
    ("moved", _rx(
        rf"^(?:moved|relocated|relocating|moving)\s+(?:back\s+)?(?:from\s+(?P<src>[^,;]+?)\s+)?"
        rf"(?:to)\s+{_VAL}"), _moved),
    ("home", _rx(rf"^(?:(?:my|our)\s+)?(?:new\s+)?home\s+(?:is|'s)\s+(?:now\s+)?(?:in\s+)?{_VAL}"),
     _home),
    ("home", _rx(rf"\b(?:my|our)\s+(?:new\s+)?home\s+(?:is|'s)\s+(?:now\s+)?(?:in\s+)?{_VAL}"),
     _home),
    ("home", _rx(r"(?P<val>(?-i:[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?))\s+is\s+(?:now\s+)?"
                 r"(?:my|our)\s+(?:new\s+)?home\b"), _home),
    ("home", _rx(r"\b(?:i|we)\s+(?:now\s+)?call\s+(?P<val>(?-i:[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?))"
                 r"\s+home\b"), _home),
    ("home", _rx(r"\b(?:(?:my|our)\s+(?:new\s+)?(?:flat|apartment|house|place)\s+is\s+in|"
                 r"(?:renting|rented|rent|bought|found|got|signed for|moved into)\s+(?:a|an|our|my)\s+"
                 r"(?:(?:own|new|first|little|small|lovely)\s+)*(?:place|flat|house|apartment|"
                 r"home|condo)\s+in)\s+(?P<val>(?:[^,;]|,(?=\d{3}))+)"), _home),
    ("residence", _rx(rf"{_SUBJ}\s+(?:am|are|is)\s+(?:now\s+)?(?:back\s+)?in\s+"
                      rf"(?P<val>(?-i:[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?))\s+(?:now|for good|"
                      rf"these days|permanently)\b"), _residence),
    ("leave", _rx(
        rf"{_SUBJ}\s+{_AUX}(?:quit|left|leave|leaving|resigned from|resign from|was fired from|"
        rf"got fired from|was laid off from|got laid off from|retired from|moved out of|"
        rf"moved away from|hand(?:ed|ing) in (?:my|her|his) notice at)\s+"
        rf"(?:my\s+(?:job|position|role|post)\s+(?:at|with)\s+)?{_VAL}"), _leave),
    ("leave", _rx(r"(?P<val>(?-i:[A-Z][\w'’&-]+(?:\s+[A-Z][\w'’&-]+)?))\s+(?:laid|let)\s+"
                  r"(?P<subj>me|us)\s+(?:off|go)\b|(?P<val2>(?-i:[A-Z]\w+))\s+fired\s+me\b"),
     lambda m, c: _leave_named(m, c)),
    # employer
    ("employer", _rx(
        rf"{_SUBJ}\s+{_AUX}(?:work|works|working|worked|am employed|is employed|employed)\s+"
        rf"(?:full-time\s+|part-time\s+|remotely\s+)?(?:at|for|with|by)\s+(?P<definite>)?{_VAL}"),
     _employer),
    ("employer", _rx(  # "I work as a backend engineer at Calder Health"
        rf"{_SUBJ}\s+{_AUX}(?:work|works|working|worked)\s+(?:full-time\s+|part-time\s+)?as\s+"
        rf"(?:a|an)\s+[a-z][a-z\s-]{{0,40}}?\s+(?:at|for|with)\s+(?P<definite>)?{_VAL}"),
     _employer),
    ("employer", _rx(
        rf"{_SUBJ}\s+{_AUX}(?:joined|joining|join|started at|start at|starting at|began at|"
        rf"signed with|signing with|teach at|teaches at|teaching at|lecture at|"
        rf"got hired (?:at|by)|was hired (?:at|by)|been hired by|hired by|got taken on at|"
        rf"am interning at|intern at|transferred to)\s+{_VAL}"), _employer),
    ("employer", _rx(
        rf"{_SUBJ}\s+{_AUX}(?:started|start|starting|began|begin|got|get|landed|took|take|"
        rf"accepted|accept|received|signed|have|had|found|scored)\s+(?:a|an|the|my|her|his)\s+"
        rf"(?:(?:new|full-time|part-time|permanent|dream|first|great|junior|senior)\s+)*"
        rf"(?:job|position|role|offer|job offer|contract|gig|internship|post)\s+"
        rf"(?:offer\s+)?(?:as\s+[\w\s]+?\s+)?(?:at|with|from|for)\s+(?P<definite>)?{_VAL}"),
     _employer),
    ("employer", _rx(rf"\b(?:first|last)\s+(?:day|week)\s+at\s+{_VAL}"),
     lambda m, c: _mk(c.seg.first, "employer", _clean(m.group("val"), proper=True), c)),
    ("employer", _rx(r"(?P<val>(?-i:[A-Z][\w'’&-]+(?:\s+[A-Z][\w'’&-]+)?))\s+(?:hired|"
                     r"recruited|employs|offered)\s+(?P<subj>me|us)\b"),
     lambda m, c: _mk(c.seg.first, "employer", _clean(m.group("val"), proper=True), c)),
    ("employer", _rx(rf"\b(?:my|our)\s+(?:new\s+)?(?:office|workplace)\s+is\s+(?:now\s+)?(?:at|with)"
                     rf"\s+{_VAL}"),
     lambda m, c: _mk(c.seg.first, "employer", _clean(m.group("val"), proper=True), c)),
    ("employer", _rx(rf"{_SUBJ}\s+{_AUX}(?:on|in)\s+the\s+[\w-]+(?:\s+[\w-]+)?\s+(?:team|"
                     rf"department|group)\s+(?:at|of)\s+{_VAL}"),
     lambda m, c: _mk(_subj(m, c), "employer", _clean(m.group("val"), proper=True), c)),
    ("employer", _rx(rf"\b(?:my|our)\s+(?:new\s+)?(?:employer|company)\s+is\s+(?:now\s+)?{_VAL}"),
     lambda m, c: _mk(c.seg.first, "employer", _clean(m.group("val"), proper=True), c)),
    ("employer", _rx(rf"{_SUBJ}\s+(?:have been|has been|am|is|are|'ve been)\s+(?:now\s+)?"
                     rf"(?:at|with)\s+(?P<val>(?-i:[A-Z][\w'’&-]*(?:\s+[A-Z][\w'’&-]*){{0,2}}))"
                     rf"(?P<tail>.*)$"), _at_employer),
    ("employer", _rx(rf"{_SUBJ}\s+{_AUX}(?:freelance|freelancing|am freelance|am a freelancer|"
                     rf"am self-employed|is self-employed|work for myself|went freelance|"
                     rf"run my own business)\b"),
     lambda m, c: _mk(_subj(m, c), "employer", "self-employed", c)),
    # job
    ("job", _rx(rf"{_SUBJ}\s+{_AUX}(?:work|works|working|worked)\s+(?:full-time\s+|part-time\s+)?"
                rf"as\s+(?:a|an)?\s*{_VAL}"), _job),
    ("job", _rx(rf"{_SUBJ}\s+{_AUX}(?:made|make|making)\s+(?P<val>partner|director|principal|"
                rf"senior|vp|head of [a-z]+|associate|tenure)\b"), _job),
    ("job", _rx(rf"{_SUBJ}\s+{_AUX}(?:moved into|stepped into|took on|taken on|landed|accepted|"
                rf"started|got)\s+(?:a|an|the|my)\s+(?:new\s+)?(?P<strict>)(?P<val>[\w\s-]+?)\s+"
                rf"(?:role|position|job|post)\b"), _job),
    ("job", _rx(rf"{_SUBJ}\s+(?:am|is|are|was)\s+{_AUX}(?:a|an)\s+(?P<val>{_PROF_MOD}"
                rf"(?:(?!lot\b|bit\b|fan\b|big\b|huge\b)[a-z-]+\s+)?(?:{_PROF}))"
                rf"\b(?!\s+(?:at|for|in)\s+(?-i:[A-Z]))"), _job),
    ("job", _rx(rf"{_SUBJ}\s+{_AUX}(?:became|become|becoming|retrained as|trained as|"
                rf"re-trained as|promoted to|got promoted to|was promoted to|been promoted to|"
                rf"took a job as|got a job as|start as|started as|starting as|qualified as|"
                rf"hired as|now working as)\s+(?P<strict>)(?:a|an)?\s*{_VAL}"), _job),
    ("job", _rx(rf"\bto become\s+(?P<strict>)(?:a|an)\s+{_VAL}"), _job),
    ("job", _rx(rf"{_SUBJ}\s+{_AUX}(?:took|got|landed|accepted|started|found|have|had)\s+(?:a|an|the)"
                rf"\s+(?:[\w-]+\s+){{0,2}}?(?:job|position|role|post)\s+as\s+(?P<strict>)(?:a|an)?\s*"
                rf"{_VAL}"), _job),
    ("job", _rx(rf"\b(?:my|our)\s+(?:new\s+)?(?:job title|title|job|role|position)\s+"
                rf"(?:is|changed to|is now|has changed to|will be)\s+(?:now\s+)?(?:a|an)?\s*{_VAL}"),
     lambda m, c: _job_owned(m, c)),
    ("job", _rx(rf"{_SUBJ}\s+(?:am|is|are)\s+(?:a|an)\s+(?P<prof>{_PROF_MOD}(?:{_PROF}))\s+"
                rf"(?:at|for|in)\s+{_VAL}"), _profession_at),
    # manager / partner / doctor …: roles one has one of
    ("role", _rx(rf"\b(?P<own>my|our|your)\s+(?:new\s+|current\s+|direct\s+|actual\s+)?"
                 rf"(?P<role>team lead|team leader|line manager|manager|boss|supervisor|lead|"
                 rf"partner|wife|husband|girlfriend|boyfriend|spouse|fiancée?|fiance|gp|doctor|"
                 rf"dentist|therapist|landlord|mentor|coach|trainer|tutor|advisor|adviser|"
                 rf"accountant|lawyer|vet)\s*,?\s+(?:is|was|'s)\s+{_AUX}(?:called\s+|named\s+)?"
                 rf"(?P<name>(?-i:(?:Dr\.?\s+|Mr\.?\s+|Mrs\.?\s+|Ms\.?\s+)?[A-Z][\w'’-]+"
                 rf"(?:\s+[A-Z][\w'’-]+)?))"), _role_name),
    ("role", _rx(r"\b(?P<own>my|our|your)\s+(?:new\s+|current\s+)?"
                 r"(?P<role>team lead|line manager|manager|boss|supervisor|partner|wife|"
                 r"husband|girlfriend|boyfriend|fiancée?|fiance|gp|doctor|therapist|landlord)"
                 r"\s*,?\s+(?P<name>(?-i:(?:Dr\.?\s+)?[A-Z][a-z][\w'’-]*(?:\s+[A-Z][a-z][\w'’-]+)?))"
                 r"(?=\s*,|\s+(?-i:[a-z])|\s*$)"), _role_name),
    ("role", _rx(r"(?P<name>(?-i:(?:Dr\.?\s+)?[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?))\s+"
                 r"(?P<aux>(?:is|was|has been|'s)\s+(?:(?:now|not|no longer|still|officially)\s+)*)"
                 r"(?P<own>my|our|your)\s+(?:new\s+|current\s+)?(?P<role>team lead|line manager|"
                 r"manager|boss|supervisor|partner|wife|husband|girlfriend|boyfriend|fiancée?|"
                 r"fiance|gp|doctor|therapist|landlord|mentor)\b"), _role_name),
    ("role", _rx(r"(?P<name>(?-i:[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?))\s+(?:became|becomes|is "
                 r"becoming|took over as|is taking over as|stepped in as|stepped up as|"
                 r"replaced \w+ as)\s+(?P<own>my|our)\s+(?:new\s+)?(?P<role>team lead|"
                 r"line manager|manager|boss|supervisor)\b"), _role_name),
    ("role", _rx(rf"{_SUBJ}\s+{_AUX}(?:report|reports|reporting)\s+(?:directly\s+)?to\s+"
                 rf"(?P<name>(?-i:[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?))"), _role_name),
    ("role", _rx(rf"{_SUBJ}\s+{_AUX}(?:work|works|working)\s+(?:directly\s+)?under\s+"
                 rf"(?P<name>(?-i:[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?))"), _role_name),
    ("role", _rx(r"(?P<name>(?-i:[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?))\s+(?:now\s+)?(?:manages|"
                 r"supervises|is managing)\s+(?P<own>me|us)\b"), _role_name),
    ("role", _rx(r"\b(?:with|to|have|got|found|see|seeing)\s+a\s+new\s+(?P<role>gp|doctor|dentist|"
                 r"therapist|vet|accountant|lawyer|manager|boss|landlord)\s*,\s*(?P<name>(?-i:(?:Dr\.?\s+"
                 r"|Mr\.?\s+|Mrs\.?\s+|Ms\.?\s+)?[A-Z][\w'’-]+))"), _role_name),
    ("role", _rx(r"\b(?:have|got|has)\s+a\s+new\s+(?P<role>manager|boss|team lead|supervisor|"
                 r"line manager|gp|doctor|therapist|landlord|mentor)\b[,;]?\s*(?:(?:his|her|"
                 r"their)\s+name\s+is|(?:called|named))\s+(?P<name>(?-i:[A-Z][\w'’-]+))"),
     _role_name),
    ("partner", _rx(r"\b(?:seeing|dating|met)\s+someone\b.*?\b(?:his|her|their)\s+name\s+is\s+"
                    r"(?P<name>(?-i:[A-Z][\w'’-]+))"),
     lambda m, c: _mk(c.seg.first, "partner", name_key(m.group("name")), c)),
    ("partner", _rx(r"(?P<name>(?-i:[A-Z][\w'’-]+))\s+and\s+(?:i|me)\s+(?:have|'ve)\s+been\s+"
                    r"(?:together|dating|a couple|seeing each other)\b"),
     lambda m, c: _mk(c.seg.first, "partner", name_key(m.group("name")), c)
     + _mk(c.seg.first, "status", "partnered", c)),
    ("status", _rx(rf"{_SUBJ}\s+{_AUX}(?:have|has|got|have got|'ve got)\s+a\s+(?:new\s+)?"
                   rf"(?:boyfriend|girlfriend|partner|fiancée?|fiance)\b"),
     lambda m, c: _mk(_subj(m, c), "status", "partnered", c,
                      negated=_negated(m.groupdict().get("aux")))),
    ("status", _rx(r"\b(?:i|we)\s+(?:have\s+|just\s+|finally\s+)*met\s+someone(?:\s+special|"
                   r"\s+new|\s+amazing)?\s*$|\bwe\s+(?:have|'ve)\s+been\s+together\b|"
                   r"\b(?:i|we)\s+(?:am|are)\s+(?:now\s+)?(?:officially\s+)?(?:a couple|together)\b"),
     lambda m, c: _mk(c.seg.first, "status", "partnered", c)),
    # relationships
    ("status", _rx(rf"{_SUBJ}\s+(?:am|is|are|'m|'re)\s+{_AUX}(?:a\s+)?(?P<val>single|married|"
                   rf"divorced|widowed|engaged|separated|in a relationship|seeing someone|"
                   rf"in a long-distance relationship|taken)\b(?:\s+(?:to|with)\s+"
                   rf"(?P<partner>(?-i:[A-Z][\w'’-]+)))?"), _status_claim),
    ("status", _rx(rf"{_SUBJ}\s+{_AUX}(?:got\s+|have\s+got\s+|just\s+got\s+)(?P<val>married|"
                   rf"divorced|engaged|separated)\b(?:\s+(?:to|with)\s+"
                   rf"(?P<partner>(?-i:[A-Z][\w'’-]+)))?"), _status_claim),
    ("status", _rx(rf"{_SUBJ}\s+(?P<aux>(?:have|has)\s+never\s+)been\s+(?P<val>married|engaged)"),
     _status_claim),
    ("status", _rx(rf"{_SUBJ}\s+{_AUX}(?P<val>remarried)\b"), _status_claim),
    ("breakup", _rx(r"(?:(?P<name>(?-i:[A-Z][\w'’-]+))\s+and\s+(?:i|me)|(?:my|our)\s+(?:husband|"
                    r"wife|partner|boyfriend|girlfriend|spouse|fianc[ée]e?)\s+and\s+(?:i|me)|"
                    r"(?:i|we)(?:\s+and\s+(?P<name2>(?-i:[A-Z][\w'’-]+)))?)\s+(?:have\s+|are\s+|"
                    r"just\s+|finally\s+|officially\s+|recently\s+|getting\s+)*(?P<verb>broke up|"
                    r"split up|separated|split|splitting up|separating|divorced|"
                    r"got divorced|divorced|called it off|got married|got engaged|tied the knot|"
                    r"are divorced|are separated|are engaged|are married)\b"), _breakup),
    ("breakup", _rx(rf"\b(?:i|we)\s+{_AUX}(?P<verb>broke up|split up|split|separated)\s+with\s+"
                    rf"(?P<name>(?-i:[A-Z][\w'’-]+))"), _breakup),
    ("dating", _rx(rf"{_SUBJ}\s+{_AUX}(?:dating|seeing|going out with|in a relationship "
                   rf"with|together with|engaged to|married to)\s+(?P<name>(?-i:[A-Z][\w'’-]+"
                   rf"(?:\s+[A-Z][\w'’-]+)?))"), _dating),
    ("dating", _rx(rf"{_SUBJ}\s+{_AUX}seeing\s+someone\b"), _dating),
    # diet and habits
    ("diet", _rx(rf"{_SUBJ}\s+{_AUX}(?:(?:became|become|went|gone|going|turned|switched to|"
                 rf"been|follow|following|on|eating|eat|trying|try|doing|do)\s+)?(?:a\s+|an\s+|"
                 rf"the\s+)?(?:(?:strict|fully|full|mostly|completely|totally|100%|now|"
                 rf"strictly)\s+)*(?P<val>{_DIET})\b"), _diet),
    ("diet", _rx(rf"{_SUBJ}\s+{_AUX}(?P<quit>quit|stopped being|stopped|gave up on being|gave up being|"
                 rf"given up on being|given up being|given up|gave up on|no longer|"
                 rf"dropped|ditched|abandoned|am done with|came off|went off)\s+(?:being\s+|"
                 rf"the\s+)?(?:a\s+)?(?P<val>{_DIET})\b"), _diet),
    ("diet", _rx(rf"{_SUBJ}\s+{_AUX}(?:eat|eating)\s+(?:pretty much\s+|basically\s+|just about\s+|"
                 rf"literally\s+)?(?:everything|anything|meat and fish|all kinds of food|meat again|"
                 rf"meat now)\b"), _omnivore),
    ("diet", _rx(rf"{_SUBJ}\s+(?:am|is|are)\s+(?:a\s+)?(?:big\s+)?meat[- ]eaters?\b"), _omnivore),
    ("habit", _rx(rf"{_SUBJ}\s+{_AUX}(?P<stop>stopped|quit|gave up|give up|cut out|have cut out|"
                  rf"started|start|began)?\s*(?P<verb>{_HABIT_VERBS})\b\s*(?P<obj>[^,;]*)"),
     _habit),
    ("quit", _rx(rf"{_SUBJ}\s+{_AUX}(?:quit|gave up|give up|given up|cut out|stopped|cancelled|canceled|"
                 rf"dropped|ditched|sold|got rid of|uninstalled|deleted|unsubscribed from|"
                 rf"decided against|scrapped|abandoned|shelved|reversed|reverted|rolled back|"
                 rf"gave away|gave up on|walked away from|backed out of|pulled out of|"
                 rf"decided not to (?:go with|use|buy|get)|moved off|moved off of|came off|"
                 rf"got off|switched off|stopped going to|dumped|binned|"
                 rf"changed (?:our|my|their) minds? (?:on|about)|went off the idea of|"
                 rf"(?:are|am|is)\s+(?:not|no longer)\s+(?:going with|doing|using))\s+{_VAL}"),
     _quit_thing),
    ("gave", _rx(rf"{_SUBJ}\s+{_AUX}gave\s+(?P<val>(?-i:[A-Z][\w'’-]+))\s+(?:to|away)\b"),
     _quit_thing),
    # likes
    ("like", _rx(rf"{_SUBJ}\s+{_AUX}(?P<neg>(?:do|does|did)\s+not\s+|not\s+|no longer\s+|"
                 rf"never\s+)?(?:(?:really|absolutely|totally|kind of|kinda|actually|still|"
                 rf"also|just|truly|honestly|now)\s+)*(?P<verb>{_LIKE_VERBS}|{_DISLIKE})\s+"
                 rf"(?P<obj>[^,;]+)"), _like),
    ("like", _rx(rf"{_SUBJ}\s+{_AUX}(?P<neg>not\s+)?(?:a\s+|really\s+|very\s+)?(?P<verb>fan of|"
                 rf"into|keen on)\s+(?P<obj>[^,;]+)"), _like),
    ("favourite", _rx(r"\b(?P<own>my|our|your|(?-i:[A-Z][a-z]+)['’]s)\s+(?:new\s+|all-time\s+|"
                      r"current\s+|absolute\s+)?(?:favou?rite|fave)\s+(?P<attr>[a-z]+(?:\s+[a-z]+)?)"
                      r"\s+(?:is|are|has always been|is now|is still|has become|would be|"
                      r"these days is)\s+(?:now\s+|still\s+|definitely\s+)?(?P<val>[^,;!?]+)"),
     _favourite),
    ("favourite", _rx(r"(?P<val>\b[\w'’ -]+?)\s+(?:is|are)\s+(?:now\s+|still\s+|definitely\s+)?"
                      r"(?P<own>my|our)\s+(?:new\s+|all-time\s+)?(?:favou?rite|fave)"
                      r"(?:\s+(?P<attr>[a-z]+))?\b"), _favourite),
    ("trait", _rx(rf"{_SUBJ}\s+{_AUX}(?:become\s+|becoming\s+|turned into\s+)?(?:a|an)\s+"
                  rf"(?P<val>morning person|night owl|early bird|introvert|extrovert|"
                  rf"people person|dog person|cat person|[\w-]+ person)\b"), _trait),
    # counts
    ("count", _rx(rf"{_SUBJ}\s+{_AUX}(?:have|has|have got|has got|'ve got|got|own|owns|down to|"
                  rf"up to)\s+"
                  rf"(?P<n>{V.COUNT}|any)\s+(?:(?!lot\b|few\b|bunch\b|couple\b|pair\b|dozen\b|"
                  rf"lot\b)[a-z-]+\s+){{0,2}}?(?P<noun>kids|children|child|kid|"
                  rf"sons|daughters|son|daughter|boys|girls|grandchildren|grandkids|babies|"
                  rf"dogs|dog|cats|cat|pets|pet|puppy|puppies|kittens|kitten|hamsters|hamster|"
                  rf"rabbits|rabbit|parrots|parrot|goldfish|horses|horse|guinea pigs|"
                  rf"retrievers?|labradors?|terriers?|spaniels?|collies?|poodles?)\b"), _count),
    ("count", _rx(rf"{_SUBJ}\s+{_AUX}(?:have|has|have got|'ve got|own|owns)\s+(?P<n>two|three|"
                  rf"four|five|six|seven|eight|[2-9])\s*$"),
     lambda m, c: _count_claims(_subj(m, c), c.topic, V.count_value(m.group("n")) or 0, c)
     if c.topic in {"rabbit", "dog", "cat", "kid", "child", "hamster", "parrot", "horse",
                    "puppi", "kitten"} else []),
    ("count", _rx(rf"{_SUBJ}\s+(?P<aux>(?:(?:do|does|did)\s+)?(?:not|never)\s+(?:\w+\s+)?)"
                  rf"(?:have|has|own|owns|got)\s+(?:any\s+)?(?P<n>)(?P<noun>pets|kids|children|"
                  rf"dogs|cats)\b"),
     lambda m, c: _count_claims(_subj(m, c), m.group("noun"), 0, c)),
    ("children", _rx(r"\b(?:i|we)\s+(?:am|are)\s+(?:now\s+)?(?:new\s+)?(?:parents|a dad|a mum|a mom|a "
                     r"father|a mother)\b|\b(?:our|my)\s+(?:first\s+|baby\s+|little\s+)?(?:son|"
                     r"daughter|baby|child)\s+(?:was|is)\s+(?:finally\s+)?born\b"),
     lambda m, c: _mk(c.seg.first, "children", "0", c, negated=True)),
    ("count", _rx(rf"\b(?:mother|father|mum|mom|dad|parent|mama|papa)\s+of\s+(?P<n>{V.COUNT})"
                  rf"(?P<noun>)\b"),
     lambda m, c: _count_claims(c.seg.first, "children",
                                V.count_value(m.group("n")) or 0, c)
     if V.count_value(m.group("n")) and (c.subject or "i").lower() in _SPEAKER_SUBJECTS
     else []),
    ("count", _rx(r"\b(?:our|my)\s+(?P<n>two|three|four|five|six|2|3|4|5|6)\s+"
                  r"(?P<noun>kids|children|sons|daughters|boys|girls|dogs|cats|rabbits)\b"),
     _count),
    ("ordinal", _rx(rf"\b(?:our|my|a|the)\s+(?P<ord>{V.ORDINAL})\s+(?:little\s+|baby\s+)?"
                    rf"(?P<noun>child|baby|kid|son|daughter|boy|girl|dog|cat|puppy|kitten|"
                    rf"rabbit|hamster)\b"), _ordinal),
    ("count", _rx(rf"{_SUBJ}\s+{_AUX}(?:have|has|have got|'ve got|own)\s+(?:a|an|one)\s+(?:[a-z-]+\s+)?"
                  rf"(?:dog|cat|rabbit|hamster|parrot|horse|puppy|kitten)\s+and\s+(?P<n>a|an|one|two|"
                  rf"three)\s+(?:[a-z-]+\s+)?(?P<noun>dogs?|cats?|rabbits?|hamsters?|parrots?|horses?|"
                  rf"puppy|puppies|kittens?)\b"), _count),
    ("ordinal", _rx(rf"\b(?:our|my)\s+(?P<ord>{V.ORDINAL})\s+(?:(?:one|little one|baby|child|kid)\s+)?"
                    rf"(?:(?:was|is|has been)\s+(?:finally\s+)?born|(?:just\s+|finally\s+)?"
                    rf"(?:arrived|came along)|is here)\b"),
     lambda m, c: _ordinal_child(c, V.ordinal_value(m.group("ord")))),
    ("ordinal", _rx(rf"\bbaby\s+(?:number|no\.?|#)\s*(?P<n>{V.COUNT})\s+(?:is|was|has|arrived|"
                    rf"came|born)\b"),
     lambda m, c: _ordinal_child(c, V.count_value(m.group("n")))),
    ("family", _rx(rf"(?:\bwe\s+{_AUX}(?:are|became|become)\s+|\bour\s+|\bmy\s+|,\s*so\s+|^so\s+|"
                   rf"^now\s+|^officially\s+)(?:now\s+|officially\s+)?(?:a\s+)?family\s+of\s+"
                   rf"(?P<n>{V.COUNT})\b"), _household),
    ("pet gone", _rx(r"\b(?:our|my)\s+(?:old\s+|beloved\s+|sweet\s+)?(?P<noun>dog|cat|puppy|"
                     r"kitten|hamster|rabbit|parrot|goldfish|pet|horse)\s+(?:(?-i:[A-Z]\w+)\s+)?"
                     r"(?:died|passed away|passed|was put down|had to be put down|ran away|"
                     r"is gone)\b"), _pet_gone),
    ("pet gone", _rx(r"(?P<name>(?-i:[A-Z][a-z][\w'’-]*))\s+(?:has\s+|had\s+|sadly\s+)*"
                     r"(?:died|passed away|was put down|had to be put down|crossed the rainbow "
                     r"bridge|(?:passed|ran away)(?=\s*(?:$|[.,;!]|(?:last|yesterday|this|on|"
                     r"overnight|earlier|today|in the night)\b)))\b"), _name_gone),
    ("pet gone", _rx(rf"{_SUBJ}\s+{_AUX}(?:had to\s+|have to\s+|decided to\s+)?(?:rehome|rehomed|"
                     rf"re-home|re-homed|rehoming|found a new home for|give away|gave away|"
                     rf"given away)\s+(?:(?:our|my|the)\s+(?:[\w-]+\s+)?(?P<noun>dog|cat|puppy|"
                     rf"kitten|hamster|rabbit|parrot|goldfish|pet|horse)\b\s*,?\s*)?"
                     rf"(?P<name>(?-i:[A-Z][a-z][\w'’-]*))?"), _rehomed),
    ("got pet", _rx(rf"{_SUBJ}\s+{_AUX}(?:adopted|got|rescued|bought|brought home|took in)\s+"
                    rf"(?:a|an|our|another|a new)\s+(?:(?:new|little|rescue|sweet)\s+)?"
                    rf"(?P<noun>dog|cat|puppy|kitten|hamster|rabbit|parrot|goldfish|pet|horse|"
                    rf"retriever|labrador|terrier|spaniel|collie|poodle|beagle|greyhound|whippet|"
                    rf"husky|dachshund|corgi|pug|bulldog|schnauzer|chihuahua)\b"), _got_pet),
    ("own", _rx(rf"{_SUBJ}\s+{_AUX}(?P<verb>own|owns|have|has|bought|got|purchased|leased)\s+"
                rf"(?:a|an|my first|a new|a used|a second-hand)\s+(?:[a-z-]+\s+)?(?P<obj>car|bike|"
                rf"motorbike|scooter|house|flat|apartment|tv|boat|van|piano|caravan)\b"),
     lambda m, c: _mk(_subj(m, c), "own", m.group("obj").lower(), c,
                      negated=_negated(m.groupdict().get("aux")))),
    ("no pets", _rx(r"(?:^|,\s*|\bso\s+)(?:no|zero)\s+(?:more\s+)?pets\b"), _no_pets),
    ("rate", _rx(rf"(?:(?P<verb>[a-z]+)\s+)?(?:about\s+|around\s+|roughly\s+|only\s+|just\s+)?"
                 rf"(?P<n>\d+(?:[.,]\d+)?|{V.COUNT})\s+(?P<unit>[a-z]+)(?:\s+of\s+(?P<of>[a-z]+))?"
                 rf"\s+(?:a|per|each|every)\s+(?P<per>day|week|month|night|year|morning|evening)\b"),
     _rate),
    ("salary", _rx(rf"{_SUBJ}\s+{_AUX}(?:earn|earns|earning|make|makes|am paid|get paid|"
                   rf"take home|am on)\s+(?:about\s+|around\s+)?(?P<val>[$€£]?\s?\d[\d,.]*\s?"
                   rf"(?:k|grand|thousand)?(?:\s?(?:eur|euros?|usd|dollars?|gbp|pounds?))?)\s+"
                   rf"(?:a|per|each)\s+(?P<per>year|month|week|hour)\b"),
     lambda m, c: _mk(_subj(m, c), "salary", V.money_value(m.group("val"))
                      or V.bare_amount(m.group("val").strip("$€£ ")), c)),
    ("salary", _rx(rf"{_SUBJ}\s+{_AUX}(?:earn|earns|make|makes|am on|'m on|am paid|get paid|"
                   rf"take home)\s+(?:about\s+|around\s+)?(?P<val>[$€£]?\s?\d[\d,.]*\s?(?:k|grand)|"
                   rf"[$€£]\s?\d[\d,.]*|\d[\d,.]*\s?(?:eur|euros?|usd|dollars?|gbp|pounds?))"
                   rf"(?!\s+(?:a|per|each)\s)"),
     lambda m, c: _mk(_subj(m, c), "salary", V.money_value(m.group("val"))
                      or V.bare_amount(m.group("val").strip("$€£ ")), c)),
    ("weight", _rx(rf"{_SUBJ}\s+{_AUX}(?:weigh|weighs|weighing|down to|up to|got down to|"
                   rf"am at)\s+(?:about\s+|around\s+|just\s+|only\s+)?(?P<val>\d+(?:[.,]\d+)?)"
                   rf"\s?(?P<unit>kilos|kilo|kg|kilograms|pounds|lbs|lb|stone)\b"),
     lambda m, c: _mk(_subj(m, c), "weight", f"{m.group('val')} "
                      f"{'kg' if m.group('unit').lower().startswith('k') else m.group('unit')}", c)),
    ("mortgage", _rx(r"\b(?:fixed|refixed|re-fixed|locked in|locked|renewed|remortgaged)\s+"
                     r"(?:the|our|my)\s+(?P<np>mortgage|loan)\s+(?:rate\s+)?at\s+"
                     r"(?P<val>\d+(?:[.,]\d+)?\s?%)"),
     lambda m, c: _thing_value(stem(m.group("np").lower()), "rate", m.group("val"), c,
                               marked=True)),
    ("play", _rx(rf"{_SUBJ}\s+{_AUX}(?:plays|play|playing)\s+(?:the\s+)?(?P<obj>[a-z][\w-]*)"
                 rf"\b"),
     lambda m, c: _mk(_subj(m, c), "habit", stem(m.group("obj").lower()), c,
                      negated=_negated(m.groupdict().get("aux")))),
    ("switch role", _rx(r"\b(?:switched|changed|moved)\s+(?:my\s+|our\s+)?(?P<role>gp|doctor|"
                        r"dentist|therapist|vet|accountant|lawyer|bank|banks|provider|"
                        r"internet provider|energy provider|broadband)\s+(?:over\s+)?to\s+"
                        r"(?P<name>(?-i:(?:Dr\.?\s+)?[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?))"),
     lambda m, c: [replace(x, marked=True) for x in (
         _role_name(m, c) if V.slot_name(m.group("role")) in V.EXCLUSIVE_ROLES else
         _mk(c.seg.first, V.slot_name(m.group("role").rstrip("s").replace("broadband",
                                                                          "internet provider")
                                      .replace("provider", "internet provider")
                                      .replace("internet internet", "internet")),
             _clean(m.group("name"), proper=True), c))]),
    # age, name, phone, email
    ("age", _rx(r"\b(?P<subj>i)\s+am\s+(?P<val>\d{1,3})(?=\s*(?:years?\s+old|yo\b|[.,!;]|$|\s+and\b|"
                r"\s+now\b))"), _age),
    ("age", _rx(rf"{_SUBJ}\s+(?:just\s+)?turned\s+(?P<val>\d{{1,3}})\b"), _age),
    ("age", _rx(r"\b(?P<subj>my)\s+(?P<val>\d{1,3})(?:st|nd|rd|th)\s+birthday\b"), _age),
    ("age", _rx(rf"{_SUBJ}\s+(?:is|are)\s+(?:now\s+)?(?P<val>\d{{1,3}})(?:\s+years?\s+old)?"
                rf"(?=\s*(?:[.,!;]|$|\s+and\b|\s+now\b|\s+years?\b))"), _age),
    ("name", _rx(r"\b(?P<subj>my)\s+name\s+is\s+(?P<val>[^,.;!?()]+)"), _name),
    ("name", _rx(r"\b(?P<subj>i)\s+am\s+called\s+(?P<val>[^,.;!?()]+)"), _name),
    ("name", _rx(rf"\b(?P<own>my|our)\s+(?P<role>{_REL})(?:['’]s\s+name\s+is|\s+is\s+called|"
                 rf"\s+is\s+named|\s+named|\s+called)\s+{_VAL}"), _name),
    ("name", _rx(r"\b(?:have|has|own|got|adopted)\s+(?:a|an)\s+(?:[\w-]+\s+)?(?P<role>dog|cat|"
                 r"puppy|kitten|hamster|rabbit|parrot|goldfish|horse)\s+(?:called|named)\s+"
                 r"(?P<val>(?-i:[A-Z][\w'’-]+))"),
     lambda m, c: _mk(m.group("role").lower(), "name", _clean(m.group("val"), proper=True), c)
     + _pet_named(m, c)),
    ("pet name", _rx(r"\b(?:my|our)\s+(?:[\w-]+\s+)?(?P<role>dog|cat|puppy|kitten|hamster|rabbit|"
                 r"parrot|goldfish|horse|tortoise|budgie)\s*,?\s+(?P<val>(?-i:[A-Z][a-z][\w'’-]*))"
                 r"(?=\s*,|\s+(?-i:[a-z])|\s*$)"), _pet_named),
    ("naming", _rx(r"\b(?:naming|name|call|calling|named|called|going to name|going to call)\s+"
                   r"(?:the|our|my)\s+(?P<role>baby|son|daughter|dog|cat|puppy|kitten|boat|band|"
                   r"company|startup|project)\s+(?P<val>(?-i:[A-Z][\w'’-]+))"), _naming),
    ("naming", _rx(r"\b(?:the|our|my)\s+(?P<role>baby|son|daughter|dog|cat|puppy|kitten|boat|"
                   r"band|company|startup|project)['’]s\s+name\s+(?:is|will be|is going to be|"
                   r"is now|'ll be)\s+(?P<val>(?-i:[A-Z][\w'’-]+))"), _naming),
    ("phone", _rx(r"\b(?P<own>my|our|your)\s+(?:new\s+|current\s+|private\s+|personal\s+)*"
                  r"(?:phone number|phone|mobile number|mobile|cell number|cell|number|"
                  r"telephone number|whatsapp)\s*(?:is|'s|has changed to|changed to|is now|:)\s*"
                  r"(?:now\s+)?(?P<val>\+?[\d][\d ()./-]{5,}\d)"), _phone),
    ("phone", _rx(r"\b(?P<own>i|we)\s+(?:have\s+|'ve\s+)?(?:got|have)\s+a\s+new\s+(?:phone\s+|"
                  r"mobile\s+)?number\s*(?::|,|-|is|which is)?\s*(?P<val>\+?[\d][\d ()./-]{5,}\d)"),
     _phone),
    ("phone", _rx(r"\b(?:reach|call|text)\s+(?P<own>me|us)\s+(?:now\s+)?(?:at|on)\s+"
                  r"(?P<val>\+?[\d][\d ()./-]{5,}\d)"), _phone),
    ("email", _rx(r"\b(?P<own>my|our|your)\s+(?:new\s+|current\s+|personal\s+)?(?:e-?mail|"
                  r"e-?mail address)\s+(?:is|'s|has changed to|changed to|is now)\s+(?:now\s+)?"
                  r"(?P<val>[\w.+-]+@[\w.-]+)"), _email),
    ("email", _rx(r"\b(?:reach|email|e-mail|write to)\s+(?P<own>me|us)\s+(?:now\s+)?(?:at|on)\s+"
                  r"(?P<val>[\w.+-]+@[\w.-]+)"), _email),
    # tools, cars, banks, studies, schools
    ("switch", _rx(rf"{_SUBJ}\s+{_AUX}(?P<verb>switched|switch|switching|changed|change|moved|"
                   rf"migrated|went|converted|upgraded|downgraded|relocated)\s+(?:(?:all\s+)?"
                   rf"(?:my|our|the|his|her)\s+[\w\s]+?\s+)?(?:over\s+)?from\s+(?P<old>[^,;]+?)\s+"
                   rf"(?:to|over to|onto)\s+(?P<new>[^,;]+)"), _switch),
    ("switch", _rx(rf"{_SUBJ}\s+{_AUX}(?P<verb>replaced|swapped|traded|exchanged)\s+(?P<old>"
                   rf"[^,;]+?)\s+(?:with|for)\s+(?P<new>[^,;]+)"), _switch),
    ("switch", _rx(r"^(?P<verb>switched|moved|went|changed|migrated)\s+from\s+(?P<old>[^,;]+?)"
                   r"\s+to\s+(?P<new>[^,;]+)"), _switch),
    ("instead", _rx(r"\binstead\s+of\s+(?P<val>(?:[^,;]|,(?=\d{3}))+)"), _instead_of),
    ("use", _rx(rf"{_SUBJ}\s+{_AUX}(?P<verb>{_TOOLS_VERB})\s+(?P<val>(?:[^,;]|,(?=\d{3}))+?)(?:\s+(?:for|as)\s+"
                rf"(?P<purpose>[^,;]+))?\s*(?:$|[,;]\s*(?=(?:i|we|my|our|the|it|this|that|and|but|so)\b|"
                rf"(?-i:[A-Z])))"), _use),
    ("use", _rx(rf"{_SUBJ}\s+{_AUX}(?P<verb>migrated|moved|switched|transferred)\s+(?:all\s+)?"
                rf"(?:my|our|the)\s+[\w\s]+?\s+(?:over\s+)?(?:to|into|onto)\s+(?P<val>(?:[^,;]|,(?=\d{3}))+)"),
     _use),
    ("use", _rx(rf"{_SUBJ}\s+{_AUX}(?P<verb>do|keep|write|take|track|manage|listen to|"
                rf"chat|chats|talk|stream|store|plan|organi[sz]e)\b[\w\s]*?\s+(?:in|on|with|using|"
                rf"via|through)\s+(?P<val>(?-i:[A-Z])[^,;]*|(?:{_TOOL_NAMES})\b[^,;]*)"), _use),
    ("member", _rx(rf"{_SUBJ}\s+{_AUX}(?:have|has|got|'ve got|pay for|am paying for)\s+(?:a|an|my|the)\s+"
                   rf"(?:[\w-]+\s+){{0,2}}?(?:membership|subscription|season ticket)\s+(?:at|with|to|"
                   rf"for)\s+(?P<val>(?-i:[A-Z])[^,;]*)"), _member),
    ("member", _rx(rf"{_SUBJ}\s+(?:am|is|are)\s+{_AUX}(?:a\s+)?(?:paying\s+)?member\s+(?:at|of)\s+"
                   rf"(?P<val>(?-i:[A-Z])[^,;]*)"), _member),
    ("drive", _rx(rf"{_SUBJ}\s+{_AUX}(?:drive|drives|driving)\s+(?:a|an|the|my)\s+{_VAL}"),
     _drive),
    ("bank", _rx(rf"{_SUBJ}\s+{_AUX}bank(?:s|ing)?\s+with\s+{_VAL}"), _bank),
    ("study", _rx(rf"{_SUBJ}\s+{_AUX}(?:study|studying|studies|major in|majoring in|"
                  rf"am doing a degree in|doing a degree in|read|reading)\s+(?P<val>(?:law|"
                  rf"medicine|[a-z]+ science|physics|maths|math|mathematics|history|economics|"
                  rf"biology|chemistry|philosophy|english|engineering|architecture|nursing|"
                  rf"psychology|art|design|music|business|[a-z]+ engineering)\b[^,;]*)"), _study),
    ("school", _rx(rf"{_SUBJ}\s+{_AUX}(?:goes to|go to|attends|attend|started at|starts at|"
                   rf"is starting at|moved to|changed schools to|switched to|is at|"
                   rf"(?:is|are)\s+in\s+(?:year|grade|class)\s+\w+\s+at)\s+"
                   rf"(?P<val>(?-i:[A-Z])[^,;]*?(?:School|Primary|Academy|Elementary|High|"
                   rf"College|Nursery|Kindergarten|Prep)\b)"), _school),
    ("how", _rx(rf"{_SUBJ}\s+{_AUX}(?:like|take|have|drink|prefer)\s+(?:my|our)\s+"
                rf"(?P<thing>coffee|tea|steak|eggs)\s+(?P<val>black|white|strong|sweet|with\s+[\w\s-]+?"
                rf"|without\s+[\w\s-]+?|rare|medium|well done|scrambled|fried)(?=\s+now\b|\s*$)"),
     _how),
    ("decide", _rx(rf"{_SUBJ}\s+{_AUX}(?P<neg>not\s+)?(?:(?:decided|decide|agreed|chose|"
                   rf"opted|voted|resolved|committed)\s+(?P<neg2>not\s+)?to(?:\s+go\s+with|\s+use)?"
                   rf"|(?:decided|agreed|settled)\s+on|(?:opted|voted|decided)\s+for|"
                   rf"(?:are\s+going|will\s+go|went|going|go|'ll\s+go)\s+with|will\s+use)\s+"
                   rf"(?P<val>(?:[^,;]|,(?=\d{{3}}))+?)(?:\s+for\s+(?P<purpose>[^,;]+))?\s*$"),
     _decide),
    ("decide", _rx(rf"{_SUBJ}\s+{_AUX}(?:picked|chose|selected)\s+(?P<val>(?:[^,;]|,(?=\d{3}))+?)"
                   rf"(?:\s+for\s+(?P<purpose>[^,;]+))?\s*$"), _decide),
    ("option", _rx(r"(?P<mods>(?:[a-z][\w-]*\s+)?)(?P<head>option|plan|variant|version|design|"
                   r"proposal|approach|route|candidate)\s+(?P<label>(?-i:[A-Z0-9])\b|\d+|one|two|"
                   r"three)(?:\s+(?:for|on)\s+(?P<purpose>(?:the\s+|our\s+|my\s+)?[a-z][\w-]*"
                   r"(?:\s+[a-z][\w-]*)?))?"), _option),
    ("go", _rx(rf"{_SUBJ}\s+{_AUX}(?:going|travel(?:l)?ing|flying|heading|off|driving)\s+to\s+"
               rf"(?P<val>(?-i:[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?))"),
     lambda m, c: _mk(_subj(m, c), "go", _clean(m.group("val"), proper=True), c,
                      negated=_negated(m.groupdict().get("aux")))),
    ("launch", _rx(r"\b(?:launch|launching|launches|open|opening|expand|expanding|start|starting|"
                   r"go live|going live)\s+in\s+(?P<val>(?-i:[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?))"
                   r"\s+first\b"), _launch),
    # things: times, deadlines, prices, budgets, places
    ("due", _rx(r"(?P<np>\b(?:the|my|our|your|this|their)\s+[\w'’ -]+?|^[\w'’ -]+?)\s+"
                r"(?:is|are|was|were|'s|will be)\s+(?:now\s+|still\s+|officially\s+)?due\s+"
                r"(?:on|by|in|at|before|for)?\s*(?P<val>(?:[^,;]|,(?=\d{3}))+)"), _due),
    ("due", _rx(r"(?P<np>\b(?:the|my|our|your|this)\s+[\w'’ -]+?|^[\w'’ -]+?)\s+(?:has|have|needs|"
                r"need|must)\s+(?:to\s+)?be\s+(?:filed|submitted|sent|done|finished|paid|"
                r"delivered|handed in|in|ready|signed)\s+(?:by|before|on)\s+(?P<val>(?:[^,;]|,(?=\d{3}))+)"), _due),
    ("due", _rx(r"\b(?:want|wants|need|needs|expect|expects)\s+(?P<np>(?:the|my|our)\s+[\w'’ -]+?)"
                r"\s+(?:by|before)\s+(?P<val>(?:[^,;]|,(?=\d{3}))+)"), _due),
    ("thing", _rx(r"(?P<np>\b(?:the|my|our|your|this|their|(?-i:[A-Z][a-z]+)['’]s)\s+[\w'’ -]+?|"
                  r"^(?!(?:i|we|you|he|she|they|it|there|this|that)\b)[\w'’ -]+?|\bit)\s+"
                  r"(?P<verb>(?:is|are|was|'s|will be|has been|have been)\s+(?:now\s+|still\s+|"
                  r"usually\s+|always\s+|only\s+|just\s+|officially\s+)?(?:(?:booked|scheduled|"
                  r"planned|set|fixed|happening|held)\s+)?|happens|happen|takes place|"
                  r"take place|meets|meet|runs|run|starts|start|closes|close|ends|end|opens|"
                  r"open|expires|renews|renew|is renewed|launches|costs?|comes to|came to|came in at)\b\s*(?:(?P<prep>on|at|"
                  r"every|each|from|for|in)\s+)?(?P<val>(?:[^,;]|,(?=\d{3}))+)"), _thing_is),
    ("thing moved", _rx(r"(?P<np>\b(?:the|my|our|your|this|their)\s+[\w'’ -]+?|^(?!(?:i|we|you|"
                        r"he|she|they|it|there)\b)[\w'’ -]+?)\s+(?:was|were|has been|have been|"
                        r"got|is|are|'s been|is being|just got|has)?\s*(?P<verb>moved|rescheduled|"
                        r"changed|pushed|postponed|shifted|brought forward|pushed back|delayed|"
                        r"bumped|switched|slipped|slid|extended|raised|increased|cut|reduced|slashed|"
                        r"trimmed|hiked|doubled|halved|boosted|"
                        r"lowered|dropped|went up|went down|rose|fell|upped)\s+(?:back\s+|"
                        r"forward\s+|up\s+|down\s+)?(?:from\s+(?P<src>[^,;]+?)\s+)?(?:to|until|till)"
                        r"\s+(?P<val>(?:[^,;]|,(?=\d{3}))+)"), _thing_moved),
    ("thing moved", _rx(rf"\b(?P<aux>)(?:moved|rescheduled|changed|pushed|postponed|shifted|"
                        rf"(?<=to )(?:move|reschedule|change|push|postpone|shift|extend|bump)|"
                        rf"switched|extended|brought forward|pushed back|bumped|raised|increased|"
                        rf"cut|reduced|lowered|dropped|upped|set|updated)\s+(?P<np>(?:(?:the|my|our|"
                        rf"their|his|her|your)\s+)?(?!back\b|over\b|it\b|them\b)[\w'’ -]+?)\s+(?:back\s+|forward\s+|up\s+|"
                        rf"down\s+)?(?:from\s+(?P<src>[^,;]+?)\s+)?(?:to|until|till)\s+"
                        rf"(?P<val>(?:[^,;]|,(?=\d{3}))+)"), _thing_moved),
    ("thing moved", _rx(r"\b(?:agreed|set|got|have|picked|chose)\s+(?:on\s+)?(?:a|the)\s+new\s+"
                        r"(?P<np>[\w'’ -]+?)\s*(?::|of|is|,)\s*(?P<val>[^;]+)"), _thing_moved),
    ("budget", _rx(r"\b(?:the|our|my)?\s*budget\s+(?:for|of)\s+(?P<np>[^,;]+?)\s+(?:is|was|has been|"
                   r"is now|will be)\s+(?:now\s+)?(?P<val>(?:[^,;]|,(?=\d{3}))+)"), _budget_for),
    ("budget", _rx(r"\b(?:we|i)\s+(?:have|got|set|agreed)\s+(?:a|an)\s+(?:overall\s+|total\s+)?"
                   r"budget\s+of\s+(?P<val>(?:[^,;]|,(?=\d{3}))+?)\s+for\s+(?P<np>[^,;]+)"),
     lambda m, c: _thing_value(_thing(m.group("np"), c)[0], "budget", m.group("val"), c,
                               marked=c.thing_marked)),
    ("budget", _rx(r"\b(?:we|i)\s+(?:can|could)\s+(?:only\s+|now\s+)?spend\s+(?P<val>(?:[^,;]|,(?=\d{3}))+?)\s+on\s+"
                   r"(?P<np>[^,;]+)"),
     lambda m, c: _thing_value(_thing(m.group("np"), c)[0], "budget", m.group("val"), c,
                               marked=c.thing_marked)),
    ("costs", _rx(r"(?P<np>\b(?:the|my|our|this|that)\s+[\w'’ -]+?|\bit|\bthat|\bthis)\s+"
                  r"(?:costs?|costed|is priced at|sells for|goes for|came to|comes to|was|is)\s+"
                  r"(?:now\s+|only\s+|just\s+|about\s+|around\s+)?(?P<val>(?:[$€£]\s?\d[^,;]*|\d[\d,.]*"
                  r"\s?(?:k\s+)?(?:eur|euros?|usd|dollars?|gbp|pounds?|chf|€|\$|£)[^,;]*))"), _costs),
    ("bought", _rx(rf"{_SUBJ}\s+{_AUX}(?:bought|paid|got|purchased|ordered|picked up)\s+"
                   rf"(?P<np>(?:a|an|the|my|our)\s+[\w'’ -]+?)\s+for\s+(?P<val>(?:[^,;]|,(?=\d{3}))+)"), _bought_for),
    ("scheduled", _rx(rf"{_SUBJ}\s+{_AUX}(?P<verb>have|has|do|does|go to|goes to|attend|attends|"
                      rf"take|takes|teach|teaches|start|starts|finish|finishes|leave|leaves|"
                      rf"pick up|picks up|drop off)\s+(?P<np>(?:the\s+|my\s+|our\s+|a\s+)?[\w'’ -]+?)"
                      rf"\s+(?:on|every|each|at|around)\s+(?P<val>(?:[^,;]|,(?=\d{3}))+)"), _scheduled),
    ("held", _rx(r"\b(?:hold|holding|host|hosting|have|having|do|doing|celebrate|celebrating)\s+"
                 r"(?P<np>(?:the|our|my)\s+[\w'’ -]+?|(?-i:[A-Z][a-z]+))\s+(?:in|at)\s+"
                 r"(?P<val>(?:[^,;]|,(?=\d{3}))+)"), _held_in),
)


def _leave_named(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    value = _clean(m.group("val") or m.group("val2"), proper=True)
    subj = ctx.seg.first
    return _mk(subj, "employer", value, ctx, negated=True) + _mk(subj, "*", value, ctx,
                                                                  negated=True)


def _job_owned(m: re.Match[str], ctx: _Ctx) -> list[Claim]:
    value = _clean(m.group("val"))
    return _mk(ctx.seg.first, "job", value and re.sub(r"^(?:a|an)\s+", "", value), ctx)


# -- the walk over a text --------------------------------------------------------------------------
_SUBJECT_START = re.compile(
    rf"^\s*(?:(?:so|and|but|also|then|now|plus|well|oh|actually|honestly|anyway|btw|still)\s*,?\s+)*"
    rf"(?P<s>i|we|you|he|she|it|they|(?:my|our|your|his|her|their|the)\s+{_MOD}(?:{_REL})\b|"
    # a relative named bare, as people type ("wife drinks like 4 coffees a day")
    rf"(?:{_REL})(?=\s+(?:is|are|was|were|has|have|had|just|now|still|[a-z]+s)\b)|"
    rf"(?:my|our)\s+team|(?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)(?=\s+(?:is|are|was|has|have|"
    rf"moved|lives|works|left|joined|started|got|became|turned|plays|gave|goes|retired|quit|"
    rf"and\s+i)\b))\b",
    re.I,
)
#: a clause that begins with a thing ("the release has slipped"): a following clause with no
#: subject ("and is now 12 June") says more about it
_THING_START = re.compile(
    r"^\s*(?:(?:so|and|but|then)\s+)?(?P<np>(?:the|our|my|this)\s+[a-z][\w-]*"
    r"(?:\s+[a-z][\w-]*){0,2}?)\s+(?:has|have|had|is|are|was|were|got|just|will)\b",
    re.I,
)
_BE_START = re.compile(r"^\s*(?:is|are|was|were|will be|has been|have been)\b", re.I)
_VERB_START = re.compile(
    r"^\s*(?:(?:also|then|now|just|finally|recently|since|so|still|currently)\s+)*(?:moved|"
    r"relocated|started|living|working|studying|dating|using|eating|drinking|playing|teaching|"
    r"joined|switched|got|became|quit|left|accepted|took|landed|went|changed|sold|bought|"
    r"adopted|decided|love|like|hate|enjoy|prefer|live|work|working|am|is|are|have|has|eat|"
    r"drink|use|plays?|signed|cancelled|canceled|dropped|gave|picked|chose|retired|report|"
    r"teach|migrated|upgraded)\b",
    re.I,
)
_LEAD = re.compile(r"^\s*(?:(?:so|and|but|also|well|oh|ok|okay|yeah|yes|anyway|btw|honestly|"
                   r"guess what|fun fact|update|news|fyi|currently|now|recently|finally|lately|"
                   r"nowadays|these days|today|actually|basically|officially|after all|then|"
                   r"at the moment|right now|as of (?:today|now|this week))\b[\s,!:.-]*)+", re.I)


def _prepare(sentence: str) -> str:
    s = V.digits_for_words(expand(strip_label(sentence).rstrip(".!…")).replace("’", "'"))
    s = re.sub(r"\b(?:i|I)'d\b", "i would", s)
    s = re.sub(r"\b(we|We|they|They)'d\b", r"\1 would", s)
    return s


def _update_topic(ctx: _Ctx, clause: str, found: list[Claim]) -> None:
    for c in reversed(found):
        if c.attribute in ("like", "habit", "use", "choose") and not c.value.startswith("user"):
            ctx.topic = c.value.split("@")[0]
            return
    nps = noun_phrases(clause)
    for np in nps:
        if _is_person_phrase(np, ctx) and np.lower().split()[-1] not in PETS:
            continue
        key = (_object(np, ctx) or "").split("@")[0] or np_key(np)
        if key:
            ctx.topic = key
            return


#: a clause that begins with someone's name, who "he" or "she" after it is: a first name the
#: lexicon knows, or any capitalised word that calls, texts or says ("Dmitri called, he's moved
#: to Lisbon")
_NAMED_START = re.compile(
    r"^\s*(?:(?:so|and|but|also|oh|btw|anyway)\s*,?\s+)*(?P<n>[A-Z][a-z]+)\s+"
    r"(?P<v>\w+)\b"
)
_TELLING = frozenset({"called", "rang", "texted", "messaged", "emailed", "wrote", "said", "says",
                      "told", "mentioned"})


def _update_person(ctx: _Ctx, found: list[Claim], clause: str) -> None:
    for c in found:
        if c.kind in ("person", "relation"):
            ctx.person = c.subject
            return
    m = re.search(r"\b(?:my|our)\s+(?:(?:older|younger|little|big|best)\s+)?(" + _REL + r")\b",
                  clause, re.I)
    if m:
        ctx.person = m.group(1).lower()


def _named_first(ctx: _Ctx, clause: str) -> None:
    """Before a clause's claims: when it begins with someone's name (`_NAMED_START`), "he" or
    "she" later in it is that person."""
    n = _NAMED_START.match(clause)
    if n and (n.group("n").lower() in FIRST_NAMES or n.group("v") in _TELLING) and (
            n.group("n").lower() not in _NOT_NAMES):
        ctx.person = name_key(n.group("n"))


#: per pattern group, words (lower-case substrings) one of which every match contains: a clause
#: without any of them skips the group's patterns. A speed-up only: the gates are checked
#: against ungated extraction in tests/llm/test_heuristic_contradiction.py ("#digit": a digit).
_GATES: dict[str, tuple[str, ...]] = {
    "age": ("#digit"),
    "bank": ("bank"),
    "bought": ("for"),
    "breakup": ("broke up", "splitting", "separating", "split", "separated", "divorc", "called it off", "married",
        "engaged", "tied the knot"),
    "budget": ("budget", "spend"),
    "costs": ("#digit", "$", "€", "£"),
    "children": ("parent", "dad", "mum", "mom", "father", "mother", "born"),
    "count": ("have", "has", "got", "own", "owns", "of", "our", "my", "down to", "up to"),
    "dating": ("dating", "seeing", "going out", "relationship", "together", "engaged to",
        "married to"),
    "decide": ("decid", "agreed", "chose", "choose", "opted", "voted", "resolved", "committed",
        "settled", "go with", "going with", "went with", "will use", "picked", "selected",
        "will go"),
    "diet": ("vegan", "vegetarian", "veggie", "pesc", "keto", "paleo", "flexitarian", "omnivore",
        "carnivore", "plant-based", "gluten", "dairy", "lactose", "halal", "kosher", "eat"),
    "drive": ("driv"),
    "due": ("due", "by", "before", "on"),
    "email": ("@"),
    "employer": ("work", "employ", "join", "start", "began", "begin", "sign", "teach",
        "lectur", "hire", "taken on", "intern", "transferred", "first", "last", "recruit",
        "offered", "company", "employer", "at", "with", "freelanc", "self-employed", "myself",
        "own business"),
    "favourite": ("favourite", "favorite", "fave"),
    "gave": ("gave"),
    "go": ("going", "travel", "flying", "heading", "off", "driving"),
    "got pet": ("adopted", "got", "rescued", "bought", "brought home", "took in"),
    "habit": ("eat", "drink", "drunk", "smok", "vap", "touched"),
    "held": ("hold", "host", "have", "having", "do", "doing", "celebrat"),
    "home": ("home", "flat", "apartment", "house", "place", "condo"),
    "how": ("coffee", "tea", "steak", "eggs"),
    "instead": ("instead of"),
    "job": (" as ", " a ", " an ", "made", "make", "making", "role", "position", "job", "post",
        "title", "becom", "became", "promoted", "trained", "qualified", "hired", "start",
        "working"),
    "launch": ("launch", "open", "expand", "start", "go live", "going live"),
    "leave": ("quit", "left", "leav", "resign", "fired", "laid", "let", "retired", "moved out",
        "moved away", "notice"),
    "like": ("like", "lov", "enjoy", "ador", "prefer", "fancy", "into", "keen", "fan of",
        "obsessed", "crazy", "passionate", "grown", "grew", "come to", "fell in love",
        "come around", "came around", "warmed", "dig", "hate", "dislike", "detest", "loath",
        "stand", "bear", "sick of", "tired of", "fed up", "gone off", "went off",
        "lost interest", "lost my taste", "bored", "over", "avoid", "stay away", "steer clear"),
    "member": ("membership", "subscription", "season ticket", "member"),
    "mortgage": ("mortgage", "loan"),
    "moved": ("mov", "relocat", "emigrat"),
    "name": ("name", "called", "named"),
    "pet name": ("dog", "cat", "pupp", "kitten", "hamster", "rabbit", "parrot", "goldfish",
        "horse", "tortoise", "budgie"),
    "naming": ("nam", "call"),
    "no pets": ("pets"),
    "option": ("option", "plan", "variant", "version", "design", "proposal", "approach",
        "route", "candidate"),
    "ordinal": ("second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
        "tenth", "#digit", "baby number", "baby no", "baby #"),
    "family": ("family of",),
    "own": ("own", "have", "has", "bought", "got", "purchased", "leased"),
    "partner": ("someone", "together", "dating", "a couple", "each other"),
    "pet gone": ("died", "passed", "put down", "ran away", "is gone", "rehom", "re-hom",
        "new home for", "gave away", "give away", "given away", "rainbow bridge"),
    "phone": ("#digit"),
    "play": ("play"),
    "quit": ("quit", "gave up", "give up", "cut out", "stopped", "cancel", "dropped",
        "ditched", "sold", "got rid", "uninstall", "deleted", "unsubscri", "decided against",
        "scrapped", "abandon", "shelved", "revers", "revert", "rolled back", "gave away",
        "walked away", "backed out", "pulled out", "decided not", "given up", "moved off",
        "came off", "got off", "switched off", "dumped", "binned", "changed", "went off",
        "not going", "no longer", "not doing", "not using"),
    "rate": (" day", " week", " month", " night", " year", " morning", " evening"),
    "residence": ("liv", "resid", "based", "settled", "situated", "in"),
    "role": ("manag", "boss", "supervis", "lead", "partner", "wife", "husband", "girlfriend",
        "boyfriend", "spouse", "fianc", "gp", "doctor", "dentist", "therap", "landlord",
        "mentor", "coach", "trainer", "tutor", "advis", "accountant", "lawyer", "vet",
        "report", "under"),
    "salary": ("earn", "make", "on", "paid", "take home"),
    "scheduled": ("on", "every", "each", "at", "around"),
    "school": ("school", "primary", "academy", "elementary", "high", "college", "nursery",
        "kindergarten", "prep"),
    "status": ("boyfriend", "girlfriend", "partner", "fianc", "single", "married", "divorc", "widow", "engaged", "separated", "relationship",
        "seeing someone", "taken", "remarried", "met someone", "together", "a couple"),
    "study": ("stud", "major", "degree", "read"),
    "switch": ("switch", "chang", "mov", "migrat", "went", "convert", "upgrad", "downgrad",
        "relocat", "replac", "swap", "trad", "exchang"),
    "switch role": ("switch", "chang", "mov"),
    "thing": (" is ", " are ", " was ", " be ", " been ", "happen", "take", "meet", "run",
        "start", "close", " end", "open", "expires", "renew", "launches", "cost", "comes", "came", "'s"),
    "thing moved": ("mov", "reschedul", "chang", "push", "postpon", "shift", "brought forward",
        "delay", "bump", "switch", "slip", "slid", "extend", "rais", "increas", "cut", "reduc",
        "lower", "drop", "went up", "went down", "rose", "fell", "upped", "set", "updat",
        "agreed", "got", "have", "picked", "chose"),
    "trait": ("person", "night owl", "early bird", "introvert", "extrovert"),
    "use": ("use", "using", "switch", "mov", "migrat", "chang", "went with", " on ", "got",
        "bought", "have", "has", "own", " run", "rely", "transferred", " do ", "keep", "write",
        "take", "track", "manage", "listen", "chat", "talk", "stream", "store", "plan",
        "organi"),
    "weight": ("weigh", "down to", "up to", "am at"),
}


#: each gate as one expression: any of its words (a digit for "#digit"); the same test as
#: looking for each word in turn, once per clause and group instead of once per word
_GATE_RES: dict[str, re.Pattern[str]] = {
    name: re.compile("|".join(r"\d" if w == "#digit" else re.escape(w) for w in words))
    for name, words in _GATES.items()
}


def _gate_open(name: str, low: str) -> bool:
    """Whether the patterns of group `name` can match the lower-cased clause `low`."""
    gate = _GATE_RES.get(name)
    return gate is None or gate.search(low) is not None


_SPEAKER_SUBJECTS = frozenset({"i", "we", "my", "our", "me", "us"})


def _slot_words(clause: str, ctx: _Ctx, found: list[Claim]) -> list[Claim]:
    """The speaker's residence or employer read from the clause's head words
    (`slot_words`) when no pattern gave that slot: "the view from the new balcony in
    greenwich is unreal", "first week as a product manager at Canva"."""
    if (ctx.subject or "i").lower() not in _SPEAKER_SUBJECTS or _PAST_EVENT.search(clause):
        return []
    have = {c.attribute for c in found}
    out: list[Claim] = []
    if "residence" not in have:
        out += _mk("user", "residence", slot_words.home_place(clause), ctx)
    if "employer" not in have:
        out += _mk("user", "employer", slot_words.job_employer(clause), ctx)
    return out


def _clause_claims(clause: str, ctx: _Ctx) -> list[Claim]:
    ctx.thing_marked = bool(_THING_CHANGE_RE.search(clause))
    out: list[Claim] = []
    open_: dict[str, bool] = {}
    low = clause.lower()
    for name, pattern, build in PATTERNS:
        gate = open_.get(name)
        if gate is None:
            gate = open_[name] = _gate_open(name, low)
        if not gate:
            continue
        for m in pattern.finditer(clause):
            try:
                out.extend(build(m, ctx))
            except (IndexError, ValueError):
                continue
    if not ctx.episodic:
        out.extend(_slot_words(clause, ctx, out))
        out.extend(_generic(clause, ctx))
        if not _PAST_EVENT.search(clause) and not TIME_RE.search(clause) and not _PAST_VERB.match(
            clause
        ):
            subj = _resolve(ctx.subject, ctx) if ctx.subject else None
            thing = re.match(r"^\s*(?:the|my|our|this)\s+([a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)\s+"
                             r"(?:is|are|was|covers|cover|has|have|holds|seats|takes|needs)\b",
                             clause, re.I)
            kind = ""
            if subj is None and thing is not None:
                subj, kind = np_key(thing.group(1)) or None, "thing"
            if (ctx.subject or "").lower() in {"it", "this", "that"} or ctx.seg.kind != "text":
                kind = "thing"  # a thing's numbers, or an email's report of them
            numeric = _numeric_claim(clause, subj)
            if numeric is not None:
                out.append(replace(numeric, marked=ctx.thing_marked if kind else ctx.marked,
                                   kind=kind or _kind(numeric.subject)))
    return out


def _segment_claims(seg: Segment) -> list[Claim]:
    out: list[Claim] = []
    ctx = _Ctx(seg=seg, topic=seg.topic)
    for sentence in sentences(seg.text):
        if sentence.rstrip().endswith("?"):
            continue
        text = _prepare(sentence)
        ctx.line = text
        ctx.episodic = bool(_EPISODIC.search(text))
        ctx.marked = bool(_CHANGE_RE.search(text))
        ctx.work = bool(_WORK_CUES.search(text))
        ctx.subject = None
        sentence_topic = ctx.topic
        thing_np: str | None = None  # a thing that began the previous clause
        for clause in clauses(text):
            clause = _main_clause(_LEAD.sub("", clause).strip())
            if not clause or _SKIP_RE.search(clause):
                continue
            sm = _SUBJECT_START.match(clause)
            tm = None if sm else _THING_START.match(clause)
            if sm:
                ctx.subject = sm.group("s")
                thing_np = None
            elif tm:
                thing_np = tm.group("np")
            elif thing_np and _BE_START.match(clause):
                clause = f"{thing_np} {clause.lstrip()}"  # "the release slipped and is now …"
            elif _VERB_START.match(clause):
                clause = f"{ctx.subject or 'i'} {clause.lstrip()}"
                if ctx.subject is None:
                    ctx.subject = "i"
            setting = _SETTING_RE.search(clause)
            ctx.setting = setting.group(1).lower().split()[-1].rstrip("s") if setting else ""
            _named_first(ctx, clause)
            found = _clause_claims(clause, ctx)
            out.extend(found)
            _update_person(ctx, found, clause)
            _update_topic(ctx, clause, found)
        if ctx.topic is None:
            ctx.topic = sentence_topic
    return out


#: texts whose claims are kept: search reads the claims of its top ~20 candidates per query
#: (newer wins, slot first), ~3 ms per text uncached on an idle core; a mind's recurring hits
#: stay cached (~300 bytes each for LoCoMo turns). The cache is process-wide (a server's minds
#: share it), so it is bounded in bytes too: texts over `CLAIMS_CACHE_MAX_CHARS` are not kept,
#: which caps it near 16,384 × 2.5 KB ≈ 40 MB (issue 17: 32,768 entries of any length before)
CLAIMS_CACHE_SIZE = 16_384
CLAIMS_CACHE_MAX_CHARS = 2_000


@text_cache(CLAIMS_CACHE_SIZE, CLAIMS_CACHE_MAX_CHARS)
def _claims_of(text: str) -> tuple[Claim, ...]:
    out: list[Claim] = []
    for seg in segments(text):
        out.extend(_segment_claims(seg))
    return tuple(dict.fromkeys(out))


def claims(text: str) -> list[Claim]:
    """All claims of `text` (see the module docstring), deduplicated, in text order."""
    return list(_claims_of(text))


#: a message at least this long, of at least `PASSING_MIN_SENTENCES` sentences, may mention
#: a change in passing (`passing_statements`)
PASSING_MIN_CHARS = 400
PASSING_MIN_SENTENCES = 3
#: at most this many statements are drawn from one message
PASSING_MAX = 2
#: at most this many of a message's claim-making sentences are checked against the mind
PASSING_ASKED = 8


#: the slots of a person's life whose claims a long message may state in passing
_LIFE_SLOTS = frozenset({
    "residence", "employer", "job", "manager", "partner", "status", "diet", "children", "sons",
    "daughters", "phone", "email", "age", "salary", "studies", "school", "car", "bank", "pets",
})


def _a_life_slot(c: Claim) -> bool:
    """Whether claim `c` is about a person's life slot (where they live, work, who they are
    with, …), not about a thing or a passing feeling ("it was such a welcoming environment")."""
    base = c.attribute.split("@", 1)[0].split(":", 1)[0].split(" ", 1)[0]
    return c.kind != "thing" and (base in _LIFE_SLOTS or base.startswith("pets"))


def passing_statements(text: str, *, replaces: Callable[[str], bool] | None = None) -> list[str]:
    """The sentences of a long message (a person's own words, `text` without a speaker label)
    that state something likely to change — a claim on a person's life slot (`_LIFE_SLOTS`:
    where they live, work, who they are with, …) or a change announcement (`announces_update`,
    not a time word alone): "(btw I'm writing this from my new apartment in Vienna, the move went
    fine.)" inside a supplier-call summary. The embedding of a long message is that of its
    main subject, so a fact said in passing is found by neither its question nor the statement
    it replaces; ingest keeps each such sentence as a distilled fact of its own beside the
    message (`salience.ingest.pipeline`). Short messages, questions, hypotheticals and denied
    changes give none; at most `PASSING_MAX`, in text order.

    `replaces(sentence)`: whether a claim-making sentence contradicts something the mind already
    holds (ingest asks its store). Such a sentence is chosen first, whatever its slot ("the
    summer party now has 4,500 to play with"), then life-slot claims, then announcements — a
    long message has many sentences with a change word that change nothing ("started a
    history of the Hanseatic League")."""
    if len(text) < PASSING_MIN_CHARS:
        return []
    said = [s.strip() for seg in segments(text) for s in sentences(seg.text) if s.strip()]
    if len(said) < PASSING_MIN_SENTENCES:
        return []
    # sentence -> (-1: replaces a stored statement, 0: a life-slot claim, 1: a change; position)
    found: dict[str, tuple[int, int]] = {}
    asked = 0
    for k, sentence in enumerate(_asserted(text)):
        sentence = sentence.strip().strip("()").strip()
        if len(sentence) < 12 or sentence in found:
            continue
        said_claims = claims(sentence)
        if said_claims and replaces is not None and asked < PASSING_ASKED:
            asked += 1
            if replaces(sentence):
                found[sentence] = (-1, k)
                continue
        if any(_a_life_slot(c) for c in said_claims):
            found[sentence] = (0, k)
        elif announces_update(sentence, strong=True):
            found[sentence] = (1, k)
    chosen = sorted(found, key=lambda s: found[s])[:PASSING_MAX]
    return sorted(chosen, key=lambda s: found[s][1])




# -- stored claims (issue 21) -------------------------------------------------------------------
#: the claims engine's version: bump it whenever a change to this module (or the modules it
#: reads: discourse, claim_values, slot_words, lexicon) may change what `claims(text)` returns.
#: Stored claims of another version are misses (re-parsed, and rewritten by maintenance).
CLAIMS_VERSION = 4  # 2: an employer held in a past period is no claim on now; 3: a count
# said with an article is marked (IMPLICIT_COUNT); 4: a relative named bare is a subject
# ("wife drinks …"), a short stay is no residence, more change words mark a claim

_CLAIM_FIELDS = ("subject", "attribute", "value", "negated", "category", "numbers", "marked",
                 "kind")


def claims_to_json(found: tuple[Claim, ...] | list[Claim]) -> str:
    """`found` as JSON: a list of `[subject, attribute, value, negated, category, numbers,
    marked, kind]` (every field of `Claim`, in order); `claims_from_json` reads it back."""
    import json

    return json.dumps(
        [[c.subject, c.attribute, c.value, c.negated, c.category, list(c.numbers), c.marked,
          c.kind] for c in found],
        ensure_ascii=False, separators=(",", ":"),
    )


def claims_from_json(payload: str) -> tuple[Claim, ...]:
    """The claims `claims_to_json` wrote, equal field by field (`kind` too). `ValueError` for
    anything else (corrupt JSON, a wrong shape or type)."""
    import json

    try:
        rows = json.loads(payload)
    except (TypeError, ValueError) as e:
        raise ValueError(f"stored claims are not JSON: {e}") from None
    if not isinstance(rows, list):
        raise ValueError("stored claims are not a list")
    out: list[Claim] = []
    for r in rows:
        if not (isinstance(r, list) and len(r) == len(_CLAIM_FIELDS)):
            raise ValueError(f"a stored claim has the wrong shape: {r!r}")
        subject, attribute, value, negated, category, numbers, marked, kind = r
        if not (all(isinstance(x, str) for x in (subject, attribute, value, category, kind))
                and isinstance(negated, bool) and isinstance(marked, bool)
                and isinstance(numbers, list) and all(isinstance(n, str) for n in numbers)):
            raise ValueError(f"a stored claim has a field of the wrong type: {r!r}")
        out.append(Claim(subject, attribute, value, negated, category, tuple(numbers), marked,
                         kind))
    return tuple(out)
