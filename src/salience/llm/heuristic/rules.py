"""Triage rules: the rubric of design A written as patterns.

Bands: 1–3 routine noise, 4–6 temporal/project relevance, 7–8 high value/identity,
9–10 critical/permanent. Critical rules score by whose life it is: the user's own
(`I`, `we`, `our`), a close relation's (`my mother`), or someone else's (news, gossip).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...models import MemoryType
from .lexicon import CITIES, COUNTRIES, MONTHS, PROFESSIONS, RELATIONS, WEEKDAYS

_REL = "|".join(sorted((re.escape(r) for r in RELATIONS), key=len, reverse=True))
_PROF = "|".join(sorted(PROFESSIONS, key=len, reverse=True))


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Rule:
    """One rubric rule. `scores` is (self, close relation, other) for critical rules."""

    name: str
    pattern: re.Pattern[str]
    score: int
    mtype: MemoryType
    tags: tuple[str, ...]
    band: str  # critical | identity | temporal
    first_person: bool = True  # only counts in the user's own voice
    scores: tuple[int, int, int] | None = None
    unless: re.Pattern[str] | None = None


_CRITICAL = (
    Rule(
        "birth",
        _rx(
            r"\bgave birth\b|\b(?:baby|son|daughter|child|twins|grandson|granddaughter)\s+"
            r"(?:was|were|is|has been)\s+born\b|\bhad (?:a|our|my|her|his) (?:baby|son|daughter|"
            r"twins)\b|\bwelcomed (?:a|our) (?:baby|son|daughter)\b|\b(?:am|are|is|'m|'re|'s) "
            r"(?:pregnant|expecting a baby|expecting)\b"
        ),
        9,
        MemoryType.EVENT,
        ("life-event", "family"),
        "critical",
        False,
        (10, 9, 6),
        _rx(
            r"\b(?:not|n't) (?:pregnant|expecting)\b|\bexpecting (?:a|an|the) (?:call|email|"
            r"package|delivery|reply|answer)\b"
        ),
    ),
    Rule(
        "death",
        _rx(
            r"\bpassed away\b|\bhas died\b|\bdied\b|\bdeath of\b|\bfuneral\b|\blost (?:my|our) "
            rf"(?:{_REL})\b|\bkilled in\b|\bno longer with us\b|\brest in peace\b"
        ),
        9,
        MemoryType.EVENT,
        ("life-event", "family"),
        "critical",
        False,
        (10, 9, 5),
        _rx(
            r"\b(?:phone|battery|laptop|car|computer|plants?|wifi|internet|server|engine|"
            r"conversation|hype|meme|trend)\s+(?:\w+\s+)?died\b|\bdied (?:laughing|of laughter)\b"
        ),
    ),
    Rule(
        "marriage",
        _rx(
            r"\bgot married\b|\bgetting married\b|\b(?:we|i)\s*(?:are|am|'re|'m) (?:now )?married\b|"
            r"\bgot engaged\b|\b(?:are|am|'re|'m) engaged\b|\bproposed to\b|\bfiled for divorce\b|"
            r"\bgetting divorced\b|\bgot divorced\b|\b(?:are|am|'re|'m) (?:now )?divorced\b|"
            r"\bseparated from\b|\bbroke up with\b"
        ),
        9,
        MemoryType.EVENT,
        ("life-event", "relationship"),
        "critical",
        False,
        (10, 8, 5),
    ),
    Rule(
        "diagnosis",
        _rx(
            r"\bdiagnosed with\b|\bdiagnosis of\b|\bcancer\b|\btumou?r\b|\bstroke\b|\bheart attack\b|"
            r"\bchemo(?:therapy)?\b|\bterminal(?:ly)? ill\b|\bmiscarriage\b|\bdementia\b|"
            r"\balzheimer'?s\b|\bhospitali[sz]ed\b|\bin (?:the )?hospital\b|\bemergency surgery\b|"
            r"\b(?:had|having|need|needs) (?:an? )?(?:major )?surgery\b|\bintensive care\b|\bICU\b"
        ),
        9,
        MemoryType.FACT,
        ("health", "life-event"),
        "critical",
        False,
        (10, 9, 6),
    ),
    Rule(
        "life-change",
        _rx(
            r"\bgot fired\b|\bwas fired\b|\bbeen fired\b|\b(?:got|was|been) laid off\b|"
            r"\blost (?:my|his|her|their) job\b|\bcar accident\b|\b(?:was|were) in an accident\b|"
            r"\bhad an accident\b|\b(?:i|we) (?:just )?retired\b|\bwent bankrupt\b|"
            r"\bhouse (?:burned|burnt) down\b|\b(?:got|was|were) robbed\b|\badopted (?:a|our) "
            r"(?:son|daughter|child|baby)\b"
        ),
        9,
        MemoryType.EVENT,
        ("life-event",),
        "critical",
        False,
        (9, 8, 5),
    ),
)

# "moving to <place>" is scored by `moving_score`: another country is life-altering (9),
# a new city is a change of home (8).
MOVE_RE = _rx(
    r"\b(?:moving|moved|move|relocating|relocated|relocate|emigrating|emigrated|emigrate|"
    r"immigrated|immigrating)\s+(?:back\s+|out\s+)?(?:(?P<abroad>abroad|overseas)\b|"
    r"(?:to|from|into)\s+(?P<place>(?:the\s+|a\s+)?[\w'-]+(?:\s+[\w'-]+){0,2}))"
)
_NEW_HOME_RE = _rx(r"^(?:a\s+)?new\s+(?P<what>house|home|flat|apartment|place|city|town|country)\b")
CITIZEN_RE = _rx(
    r"\b(?:became|become|got|received) (?:a |my )?(?:citizen|citizenship|green card|permanent residen\w+)\b"
)

_IDENTITY = (
    Rule(
        "name",
        _rx(r"\bmy name(?: is|'s)\b|\bcall me\b|\bi'?m called\b|\bi go by\b"),
        8,
        MemoryType.FACT,
        ("identity",),
        "identity",
    ),
    Rule(
        "age",
        _rx(
            r"\b(?:i am|i'm) \d{1,3}(?: years old| yo)?\b|\bmy birthday\b|\bi was born "
            r"(?:in|on)\b|\bmy (?:age|date of birth)\b|\bi turn(?:ed)? \d{1,3}\b"
        ),
        8,
        MemoryType.FACT,
        ("identity",),
        "identity",
    ),
    Rule(
        "home",
        _rx(
            r"\b(?:i|we) (?:still |now |currently )?(?:live|lived|am living|'m living|"
            r"are living|'re living|reside|grew up)\b|\bmy (?:home|house|flat|apartment|"
            r"address|hometown|neighbou?rhood)\b|\b(?:i'm|i am|we're|we are) (?:originally )?"
            r"from\b|\b(?:i|we) (?:just )?(?:moved|am moving|'m moving|are moving|'re moving|"
            r"will move) (?:to|into|in)\b"
        ),
        8,
        MemoryType.FACT,
        ("home",),
        "identity",
    ),
    Rule(
        "job-change",
        _rx(
            r"\b(?:got|accepted|started|landed|start) (?:a|the|my|an) (?:new )?"
            r"(?:job|position|role|offer)\b|\bgot promoted\b|\bmy promotion\b|"
            r"\bi (?:quit|resigned|handed in my notice)\b|\bnew job\b|\bi (?:joined|"
            r"am joining|'m joining|start(?:ed)? at)\b"
        ),
        8,
        MemoryType.FACT,
        ("work", "career"),
        "identity",
    ),
    Rule(
        "job",
        _rx(
            rf"\b(?:i|we) (?:still |now |currently )?work(?:ed)? (?:at|for|as|in|on)\b|"
            rf"\bmy (?:job|boss|manager|employer|company|role|position|career|team lead|"
            rf"colleagues?|coworkers?)\b|\b(?:i'm|i am) (?:a|an) (?:senior |junior |lead |"
            rf"head |freelance )?(?:{_PROF})\b|\bi (?:teach|study|studied|graduated|majored)\b"
        ),
        7,
        MemoryType.FACT,
        ("work",),
        "identity",
    ),
    Rule(
        "relationship-named",
        re.compile(
            rf"\b(?i:my (?:{_REL}))(?:'s name is|, | is called | "
            rf"named | )(?:[A-Z][a-z]+)\b"
        ),
        8,
        MemoryType.FACT,
        ("relationship",),
        "identity",
    ),
    Rule(
        "relationship",
        _rx(rf"\bmy (?:{_REL})\b|\bour (?:kids|children|son|daughter|baby)\b"),
        7,
        MemoryType.FACT,
        ("relationship",),
        "identity",
    ),
    Rule(
        "health",
        _rx(
            r"\b(?:allergic|allerg(?:y|ies)|asthma|diabet(?:es|ic)|migraines?|epilep\w*|"
            r"medication|prescription|blood pressure|vegetarian|vegan|pescatarian|"
            r"gluten[- ]free|celiac|coeliac|lactose|intolerant|pregnan\w*|therapist|"
            r"depression|anxiety|adhd|autis\w+|insomnia|injur(?:y|ed|ies)|broke my \w+|"
            r"sprained|physio\w*|chronic|disabilit\w+|wheelchair|sober)\b|"
            r"\bdon't drink (?:alcohol|coffee)\b|\bdon't eat (?:meat|pork|fish|dairy)\b"
        ),
        8,
        MemoryType.FACT,
        ("health",),
        "identity",
        False,
    ),
    Rule(
        "preference",
        _rx(
            r"\b(?:i|we) (?:really |absolutely |totally |also |just |still |kind of |"
            r"kinda |do(?:n't| not)? |no longer |never |(?:would|will) always )*"
            r"(?:like|love|enjoy|adore|prefer|hate|dislike|detest|loathe|can't stand|"
            r"cannot stand|can't bear)s?\b|\bmy (?:favou?rite|fave)\b|\b(?:i'm|i am) "
            r"(?:a (?:big |huge )?fan of|(?:not )?into|obsessed with|passionate about|"
            r"(?:really |very |not )?(?:keen on|interested in))\b|"
            r"\bi(?:'d| would) rather\b|\bnot a fan of\b"
        ),
        7,
        MemoryType.PREFERENCE,
        ("preference",),
        "identity",
        unless=_rx(r"\b(?:do|would|did) you (?:\w+ )?(?:like|love|enjoy|prefer)\b"),
    ),
    Rule(
        "about-me",
        _rx(
            r"\b(?:i|we) (?:have|own|'ve got|have got) (?:a|an|two|three|four|\d+) "
            r"(?:dogs?|cats?|pets?|kids|children|sons?|daughters?|brothers?|sisters?|"
            r"cars?|house|horses?|degree|phd|master'?s)\b|\bi speak\b|\bi(?:'m| am) "
            r"(?:fluent|learning|studying|married|single|divorced|widowed|an? "
            r"(?:introvert|extrovert|morning person|night owl))\b|\bi (?:play|drive|ride|"
            r"run|swim|cook|paint|climb|knit)\b|\bmy (?:religion|pronouns|nationality|"
            r"hobby|hobbies|dream|goal)\b"
        ),
        7,
        MemoryType.FACT,
        ("identity",),
        "identity",
    ),
    Rule(
        "decision",
        _rx(
            r"\b(?:i|we|they|the team) (?:have |'ve |finally )?(?:decided|agreed|chose|"
            r"committed|promised|resolved|settled on|signed)\b|\bdecision\b|\bwe'll go "
            r"with\b|\bfinal answer\b|\bgoing forward\b"
        ),
        7,
        MemoryType.FACT,
        ("decision",),
        "identity",
        False,
    ),
    Rule(
        "finance-major",
        _rx(
            r"\b(?:bought|buying|sold|selling) (?:a|our|my) (?:new )?(?:house|"
            r"home|flat|apartment|car)\b|\bmortgage\b|\bmy (?:salary|income|"
            r"savings|debt|rent)\b|\b(?:got|get|getting) a raise\b"
        ),
        7,
        MemoryType.FACT,
        ("finance",),
        "identity",
    ),
)

_TEMPORAL = (
    Rule(
        "deadline",
        _rx(
            r"\bdeadline\b|\bdue (?:on|by|date|tomorrow|today|next|this|in|at)\b|"
            r"\b(?:submit|send|finish|deliver|file|pay|renew|cancel|book)\w* (?:[\w-]+ ){0,3}"
            r"(?:by|before)\b|"
            r"\bby (?:end of|eod|eow|close of)\b|\bno later than\b|\bexpires?\b"
        ),
        6,
        MemoryType.EVENT,
        ("deadline",),
        "temporal",
        False,
    ),
    Rule(
        "meeting",
        _rx(
            r"\bmeeting\b|\bmeet (?:with|up)\b|\bcall with\b|\bvideo call\b|\bzoom\b|"
            r"\bappointment\b|\binterview\b|\bstand-?up\b|\bsync\b|\b1:1\b|\bone-on-one\b|"
            r"\bconference\b|\bwebinar\b|\bcheck-?up\b|\bconsultation\b|\breservation\b|"
            r"\bbooked a table\b|\b(?:dinner|lunch|coffee|drinks) with\b|\bcatch up with\b"
        ),
        5,
        MemoryType.EVENT,
        ("meeting",),
        "temporal",
        False,
    ),
    Rule(
        "plan",
        _rx(
            r"\bplan(?:ning)? to\b|\b(?:i'm|we're|i am|we are) going to\b|\bgonna\b|"
            r"\bintend to\b|\bnext (?:week|month|year|weekend|time|monday|tuesday|wednesday|"
            r"thursday|friday|saturday|sunday)\b|\bthis (?:weekend|evening|friday|saturday|"
            r"sunday)\b|\btomorrow\b|\btonight\b|\blater today\b|\bupcoming\b|\bscheduled\b|"
            r"\breschedul\w+|\bpostpon\w+|\bremind me\b|\bdon't forget\b|\bneed to\b|"
            r"\bhave to\b|\bwill (?:be|have|need|start|finish|go|visit|call|send)\b"
        ),
        5,
        MemoryType.EVENT,
        ("plan",),
        "temporal",
        False,
    ),
    Rule(
        "travel",
        _rx(
            r"\bflight\b|\bfly(?:ing)? (?:to|out|back|home)\b|\btrip\b|\btravel\w*\b|"
            r"\bvacation\b|\bholiday\b|\bhotel\b|\bairbnb\b|\bitinerary\b|\bboarding\b|"
            r"\blayover\b|\btrain to\b|\broad trip\b"
        ),
        5,
        MemoryType.EVENT,
        ("travel",),
        "temporal",
        False,
    ),
    Rule(
        "illness",
        _rx(
            r"\b(?:sick|flu|a cold(?! (?:beer|drink|one|day|night|shower|water|brew|snap|front|war|case|call|"
            r"welcome|start))|fever|covid|headache|sore throat|feeling unwell|under the "
            r"weather|stomach bug)\b"
        ),
        5,
        MemoryType.EVENT,
        ("health",),
        "temporal",
        False,
    ),
    Rule(
        "occasion",
        _rx(
            r"\bwedding\b|\bbirthday\b|\banniversary\b|\bgraduation\b|\bbaby shower\b|"
            r"\bhousewarming\b|\breunion\b"
        ),
        5,
        MemoryType.EVENT,
        ("event",),
        "temporal",
        False,
    ),
    Rule(
        "project",
        _rx(
            r"\bproject\b|\blaunch\w*\b|\brelease\b|\bdeploy\w*\b|\bsprint\b|\bmilestone\b|"
            r"\broadmap\b|\bpull request\b|\bbug\b|\bfeature\b|\bclient\b|\bproposal\b|"
            r"\bpresentation\b|\breport\b|\bquarterly\b|\bbudget\b|\bticket\b|\bmigration\b"
        ),
        4,
        MemoryType.GENERAL,
        ("project", "work"),
        "temporal",
        False,
    ),
    Rule(
        "activity",
        _rx(
            r"\bwent to\b|\bvisited\b|\battended\b|\bwatched\b|\bhad (?:dinner|lunch|"
            r"breakfast|drinks|coffee) (?:with|at)\b|\bparty\b|\bconcert\b|\bfestival\b|"
            r"\bhike\b|\bhiked\b|\bmarathon\b"
        ),
        4,
        MemoryType.EVENT,
        ("activity",),
        "temporal",
        False,
    ),
    Rule(
        "purchase",
        _rx(
            r"\b(?:bought|ordered|paid|spent|purchased|subscribed|refund(?:ed)?|"
            r"invoice|bill)\b"
        ),
        4,
        MemoryType.EVENT,
        ("finance",),
        "temporal",
        False,
    ),
)

RULES: tuple[Rule, ...] = _CRITICAL + _IDENTITY + _TEMPORAL

SELF_RE = re.compile(r"\b(?:I|I'm|I've|I'd|i|i'm|we|We|we're|We're|we've|our|Our|us|me|myself)\b")
CLOSE_RE = _rx(rf"\b(?:my|our) (?:{_REL})\b")
HYPOTHETICAL_RE = _rx(
    r"^\s*(?:if|what if|suppose|imagine|in case)\b|\bwhat if\b|\b(?:afraid|worried|scared) "
    r"(?:that|of|i)\b|\bhope (?:not|it's not|it isn't)\b|\bin (?:a|the) (?:movie|book|show|game|"
    r"novel|series|dream)\b"
)

NOISE_PHRASES = re.compile(
    r"\b(?:hi|hello|hey|hiya|yo|howdy|greetings|good (?:morning|afternoon|evening|night|day)|"
    r"morning|thanks(?: a lot| so much)?|thank you(?: (?:so|very) much)?|thx|ty|cheers|"
    r"much appreciated|appreciate it|how are (?:you|things)|how's it going|how are you doing|"
    r"what's up|sup|hope you(?:'re| are) (?:well|doing well|good)|hope all is well|"
    r"nice to (?:meet|hear from) you|good to hear|have a (?:nice|good|great) (?:day|one|weekend|"
    r"evening)|you too|same here|me too|talk (?:to you )?(?:later|soon)|see (?:you|ya)(?: soon| "
    r"later)?|ttyl|bye|goodbye|good night|gn|brb|lol|lmao|haha+|hehe+|ok(?:ay)?|k|cool|nice|great|"
    r"awesome|perfect|sounds good|no worries|no problem|np|sure|yep|yeah|yes|nope|no|of course|"
    r"you're welcome|my pleasure|glad to help|happy to help|how can i help(?: you)?(?: today)?|"
    r"anything else|let me know|got it|will do|fair enough|indeed|true|right|wow|omg|oh|ah|hmm|"
    r"interesting|that's (?:funny|great|nice|cool|awesome|interesting)|i see|makes sense|sorry|"
    r"good luck|congrats|congratulations|well done|take care|have fun|enjoy|so happy for you|"
    r"all good|not much|same|lovely weather|nice weather|it's (?:raining|sunny|cold|hot) "
    r"(?:today|outside)?)\b",
    re.IGNORECASE,
)
GREETING_RE = _rx(r"^\W*(?:hi|hello|hey|hiya|yo|howdy|good (?:morning|afternoon|evening))\b")
THANKS_RE = _rx(r"\b(?:thanks|thank you|thx|cheers|appreciate)\b")

TIME_RE = _rx(r"\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b|\bnoon\b|\bmidnight\b")


_NOT_PLACES = MONTHS | WEEKDAYS | {"next", "tomorrow", "today", "tonight", "monday", "i"}


def place_is_country(place: str) -> bool:
    """Whether the first one to three words of `place` name a country (or "abroad")."""
    words = place.lower().replace("the ", "", 1).split()
    if not words:
        return False
    if words[0] in {"abroad", "overseas"}:
        return True
    return any(" ".join(words[:n]) in COUNTRIES for n in (3, 2, 1))


def moving_score(sentence: str) -> tuple[int, list[str]] | None:
    """Score a "moving to <place>" sentence: (score, reasons), or None when it is not one.

    Another country (or "abroad") is life-altering (9 for the user, 7 for others); a new city
    or home is a change of home (8 / 5). "Moved the meeting to Friday" is not a move.
    """
    if CITIZEN_RE.search(sentence):
        return 9, ["citizenship"]
    m = MOVE_RE.search(sentence)
    if not m:
        return None
    subject_self = bool(SELF_RE.search(sentence))
    abroad = bool(m.group("abroad"))
    if not abroad:
        place = m.group("place") or ""
        words = place.split()
        if words and words[0].lower() == "the":
            words = words[1:]
        if not words:
            return None
        first = words[0]
        new_home = _NEW_HOME_RE.match(" ".join(words))
        if new_home:
            abroad = new_home.group("what").lower() == "country"
        elif first[0].isupper() and first.lower() not in _NOT_PLACES:
            abroad = place_is_country(" ".join(words))
        elif any(" ".join(words[:n]).lower() in CITIES for n in (3, 2, 1)):
            abroad = False
        elif place_is_country(" ".join(words)):
            abroad = True
        else:
            return None
    if abroad:
        return (9 if subject_self else 7), ["moving-country"]
    return (8 if subject_self else 5), ["moving-home"]
