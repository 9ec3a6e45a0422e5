"""Who is speaking and what a sentence is about: the discourse layer of claim extraction.

- **Segments.** A text is cut into segments that share a first person: a transcript line
  "Caroline: I moved to Boston" speaks for Caroline, "User: …" (or a line without a label) for
  the user; the assistant's lines are left out. An email's headers are read, not claimed: its
  body speaks for the sender (`From:`), "you" is the user, and the `Subject:` line is the
  topic a bare "the deadline" or "it" may refer to. A calendar event's title is its topic.
- **Noun phrases** ("the quarterly budget draft", "a new laptop") are found without a tagger:
  a determiner followed by up to four content words; the first one of a sentence that is not
  a person or a time is the antecedent of a later "it" or "the deadline".
- **Clauses.** A sentence is split where a new clause begins (";", ", but", ", and I", ", it
  is", " and joined …"); a clause without a subject inherits the previous clause's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ...models.text import text_cache
from .lexicon import COMMON_CAPS, MONTHS, RELATIONS, STOPWORDS, WEEKDAYS
from .text import split_sentences, split_speaker, stem

_HEADERS = frozenset({"subject", "from", "to", "cc", "bcc", "date", "sent", "reply-to",
                      "message-id", "in-reply-to"})
_EVENT_HEADERS = frozenset({"event", "when", "where", "repeats", "organizer", "attendees",
                            "location", "description"})
_ASSISTANTS = frozenset({"assistant", "ai", "bot", "system", "agent", "model", "chatbot"})
_USERS = frozenset({"user", "me", "human", "customer"})
#: labels that introduce the speaker's own text ("Note: I moved")
_LABELS = COMMON_CAPS | frozenset({
    "note", "notes", "update", "updates", "fyi", "todo", "ps", "p.s", "summary", "question",
    "answer", "status", "edit", "correction", "context", "important", "warning", "news",
    "tldr", "tl;dr", "info", "idea", "plan", "goal", "task", "result", "results", "minutes",
    "reminder", "heads up", "quick update", "big news", "good news", "bad news",
})
DETERMINERS = frozenset({"the", "a", "an", "my", "our", "your", "this", "that", "these",
                         "those", "his", "her", "their", "another"})
#: modifiers that do not tell two things apart ("the new laptop" is "the laptop")
NP_MODIFIERS = frozenset({
    "new", "old", "next", "last", "current", "latest", "final", "upcoming", "weekly",
    "monthly", "daily", "annual", "yearly", "big", "small", "little", "quick", "short", "long",
    "whole", "entire", "same", "other", "usual", "regular", "full", "updated", "revised",
    "draft", "official", "kids'", "kids", "children's", "our", "my", "your",
    "bi-weekly", "biweekly", "fortnightly", "overall", "total",
})
_VERBISH = frozenset({
    "is", "are", "was", "were", "be", "been", "has", "have", "had", "will", "would", "can",
    "could", "should", "must", "may", "might", "does", "do", "did", "arrived", "came", "comes",
    "costs", "cost", "got", "gets", "looks", "seems", "needs", "said", "says", "went", "goes",
    "starts", "ends", "moved", "takes", "meets", "runs", "happens", "closes", "opens", "shows", "includes", "covers", "attached", "below", "above", "here", "there", "today",
    "tomorrow", "yesterday", "tonight", "now", "again", "please", "and", "or", "but",
})
_PERSONAL = frozenset({"i", "me", "we", "us", "you", "he", "she", "him", "her", "they", "them",
                       "it", "this", "that", "someone", "everyone", "anyone", "nobody"})
_TOKEN_RE = re.compile(r"[\w'’&-]+|[^\w\s]")
_NAME_RE = re.compile(r"^[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,2}$")
_EMAIL_PREFIX = re.compile(r"^\s*(?:(?:re|fw|fwd|aw|wg|sv|tr)\s*:\s*|\[[^\]]*\]\s*)+", re.I)
_LEAD_LABEL = re.compile(r"^\s*(?P<label>[A-Za-z][\w '’-]{0,24}?)\s*:\s+(?=\S)")


@dataclass(frozen=True, slots=True)
class Segment:
    """Consecutive text with one first person.

    `first`: who "I"/"we" are ("user", a speaker's name, an email's sender; None: unknown,
    first-person claims are skipped). `you`: who "you" is (the user in an email; None in a
    conversation, where "you" is the assistant). `topic`: an email's subject or an event's
    title (None when there is none).
    """

    first: str | None
    you: str | None
    topic: str | None
    text: str
    kind: str = "text"  # text | email | calendar


def name_key(raw: str) -> str:
    """A person's or an organisation's comparable name: lower case, titles and "'s" removed."""
    s = re.sub(r"['’]s$", "", raw.strip())
    s = re.sub(r"^(?:dr|mr|mrs|ms|miss|prof|sir|dame)\.?\s+", "", s, flags=re.I)
    return " ".join(s.lower().replace("’", "'").split())


def _sender(value: str) -> str | None:
    name = value.split("<", 1)[0].strip().strip('"').strip()
    if name and "@" not in name:
        return name_key(name)
    m = re.search(r"([\w.+-]+)@", value)
    if m is None:
        return None
    local = re.split(r"[._+-]", m.group(1))[0]
    return local.lower() or None


def topic_of(subject: str) -> str | None:
    """The topic key of an email subject or event title ("Re: Q3 budget draft" → "q3 budget")."""
    s = _EMAIL_PREFIX.sub("", subject).strip()
    key = np_key(s)
    return key or None


def speaker_of(label: str) -> tuple[bool, str | None]:
    """(is a speaker label, the speaker key or None for the assistant) of a line label."""
    low = " ".join(label.lower().split())
    if low in _USERS:
        return True, "user"
    if low in _ASSISTANTS:
        return True, None
    if low in _LABELS or low in _HEADERS or low in _EVENT_HEADERS:
        return False, None
    words = label.split()
    if _NAME_RE.match(label) and all(w.lower() not in STOPWORDS for w in words):
        return True, name_key(label)
    return False, None


def segments(text: str) -> list[Segment]:
    """The segments of `text` (see the module docstring)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    first_line = next((ln for ln in lines if ln.strip()), "")
    label0, _ = split_speaker(first_line)
    label0 = (label0 or "").lower()
    out: list[Segment] = []
    if label0 in _HEADERS or label0 in _EVENT_HEADERS:
        kind = "calendar" if label0 in _EVENT_HEADERS else "email"
        sender: str | None = None
        topic: str | None = None
        i = 0
        while i < len(lines) and lines[i].strip():
            label, value = split_speaker(lines[i])
            key = (label or "").lower()
            if key == "from":
                sender = _sender(value)
            elif key in ("subject", "event"):
                topic = topic_of(value)
            elif key not in _HEADERS and key not in _EVENT_HEADERS:
                break
            i += 1
        body = "\n".join(lines[i:]).strip()
        first = sender if kind == "email" else None
        if body:
            out.append(Segment(first, "user", topic, body, kind))
        return out
    speaker: str | None = "user"
    buf: list[str] = []

    def flush() -> None:
        if buf and speaker is not None:
            out.append(Segment(speaker, None, None, "\n".join(buf)))
        buf.clear()

    for line in lines:
        label, said = split_speaker(line)
        if label is not None:
            is_speaker, who = speaker_of(label)
            if is_speaker:
                flush()
                speaker = who
                buf.append(said)
                continue
        buf.append(line)
    flush()
    return out


def tokens(text: str) -> list[str]:
    """Word and punctuation tokens (case kept)."""
    return _TOKEN_RE.findall(text)


def np_words(phrase: str) -> list[str]:
    """The content words of a noun phrase, lower case, stemmed, without determiners and
    modifiers that do not tell things apart."""
    out: list[str] = []
    for w in re.findall(r"[\w'’&-]+", phrase.lower().replace("’", "'")):
        w = re.sub(r"'s$", "", w)
        if w in {"to", "from"} and out:  # "the flight to Tokyo" is not "the flight from Tokyo"
            out.append(w)
            continue
        if not w or w in DETERMINERS or w in NP_MODIFIERS or w in STOPWORDS:
            continue
        out.append(stem(w) if not w[:1].isdigit() else w)
    return out


def np_key(phrase: str) -> str:
    """`np_words` joined: the comparable key of a thing ("the new laptop" → "laptop")."""
    return " ".join(np_words(phrase))


def _is_time_word(w: str) -> bool:
    low = w.lower()
    return low in MONTHS or low in WEEKDAYS or low in {
        "week", "month", "year", "day", "morning", "evening", "night", "afternoon", "weekend",
        "moment", "time", "minute", "hour", "today", "tomorrow", "spring", "summer", "autumn",
        "winter",
    }


def noun_phrases(sentence: str) -> list[str]:
    """Determiner-led noun phrases of `sentence` ("the quarterly budget draft"), in order;
    persons, times and pronouns are left out. A sentence that starts with a bare noun phrase
    ("Spicy food doesn't agree with me", "Notes from the design review") gives that too."""
    toks = tokens(sentence)
    out: list[str] = []
    i = 0
    n = len(toks)
    if toks and toks[0].lower() not in DETERMINERS and toks[0].lower() not in _PERSONAL \
            and toks[0].lower() not in STOPWORDS and toks[0][:1].isalpha():
        words: list[str] = []
        j = 0
        while j < n and len(words) < 4 and toks[j][:1].isalnum():
            low = toks[j].lower()
            if low in STOPWORDS or low in _VERBISH or (low.endswith("ed") and len(low) > 4):
                break
            words.append(toks[j])
            j += 1
        if words and not (len(words) == 1 and words[0][:1].isupper()
                          and words[0].lower() not in RELATIONS):
            out.append(" ".join(words))
    while i < n:
        low = toks[i].lower()
        if low in DETERMINERS:
            words = []
            j = i + 1
            while j < n and len(words) < 4 and toks[j][:1].isalnum():
                w = toks[j].lower()
                if w in STOPWORDS or w in _VERBISH or w in DETERMINERS or (
                    w.endswith("ed") and len(w) > 4 and words
                ):
                    break
                words.append(toks[j])
                j += 1
            if words and not all(_is_time_word(w) for w in words) and not (
                words[-1].lower() in RELATIONS and len(words) == 1
            ):
                out.append(" ".join(words))
            i = j
            continue
        i += 1
    return out


_CLAUSE_SPLIT = re.compile(
    r"\s*(?:;|\s[-–—]\s|,\s*(?:but|although|though|whereas|while|so|because|since)\s+"
    r"|\s+(?:but|although|though|whereas|because)\s+"
    r"|,\s*(?=(?:it|that|this|he|she|they|i|we|my|our|his|her)\s+(?:is|are|was|am|have|has|"
    r"do|does|did|will|not|just|also|still|now|really)\b)"
    r"|,?\s+and\s+(?=(?:i|we|he|she|they|it|my|our|now|then|also|have|am|are|is|got|started|"
    r"joined|moved|switched|bought|use|plays?|took|became|signed|quit|left)\b)"
    r"|,\s+(?=(?:now|then|so|and)\s+(?:i|we)\b)|:\s+(?=(?:i|we|my|our)\b)"
    r"|,\s*(?=(?:i|we)\s+(?!think|guess|mean|know|suppose|believe|feel)[a-z']+\b)"
    r"|,\s*(?=(?:still|now|currently|also)\s+[a-z]+ing\b))\s*",
    re.I,
)


def clauses(sentence: str) -> list[str]:
    """`sentence` cut into clauses (see the module docstring); empty pieces dropped. A piece
    of one or two words ("Anna" in "Anna and I broke up") stays with the next one."""
    pieces = [c.strip(" ,") for c in _CLAUSE_SPLIT.split(sentence) if c and c.strip(" ,")]
    out: list[str] = []
    carry = ""
    for p in pieces:
        if carry:
            p = f"{carry} and {p}"
            carry = ""
        if len(p.split()) <= 2 and p is not pieces[-1]:
            carry = p
            continue
        out.append(p)
    if carry:
        out.append(carry)
    return out


def strip_label(sentence: str) -> str:
    """A sentence without a leading "Big news:" / "Update:" label."""
    m = _LEAD_LABEL.match(sentence)
    if m and len(m.group("label").split()) <= 3:
        label = m.group("label").lower()
        if not re.search(r"\d", label):
            return sentence[m.end():]
    return sentence


def sentences(text: str) -> list[str]:
    """The sentences of a segment's text."""
    return split_sentences(text)


#: language that announces a change of state: a contrast with an earlier time ("now",
#: "anymore", "these days", "instead", "after all"), a change-of-state verb ("moved",
#: "switched", "swapped", "migrated", "quit", "retired", "broke up", "was born", "passed
#: away"), a commitment made ("signed up for", "signed with"), a reversed decision ("changed
#: our minds", "scratch that", "turns out", "we caved") or a replaced value ("new number",
#: "deadline extended", "bumped the rent", "the raise came through"). Independent of what changed: no slot, no value.
_UPDATE_RE = re.compile(
    r"\b(?:now|anymore|any more|no longer|no more|nowadays|these days|from now on|as of|"
    r"instead|after all|rather than|not any ?more|"
    r"switched|switching (?:to|from|over)|changed|changed (?:my|our|their|his|her) minds?|"
    r"moved|moving (?:to|in|out|into|back|off|on|house|away|over)|relocat(?:ed|ing)|"
    r"left (?:for|the|my|our)|quit|resign(?:ed|ing)|retir(?:ed|ing)|laid off|let go|"
    r"gave up|given up|giving up|stopped|quitting|broke up|broken up|split(?: up)?|"
    r"(?:are|we're|were|is) (?:done|over|through)|divorced|separated|got (?:married|engaged|"
    r"divorced|promoted|transferred|fired|hired|the job)|promoted|transferred|"
    r"reschedul(?:ed|ing)|postpon(?:ed|ing)|brought forward|extended|"
    r"delayed|bumped|raised|hiked|went (?:up|down)(?!\s+(?:to\s+)?(?:the|a|an|our|my|his|her|their|to see)\b)|dropped|cancel+ed|called off|overruled|"
    r"reversed|backed out|scrapped|scratch (?:that|the)|replac(?:ed|ing)|upgraded|downgraded|"
    r"turned into|became|turns out|turned out|correction|"
    r"new (?:number|job|role|address|place|flat|house|home|apartment|phone|email|e-mail|"
    r"manager|boss|team|company|car|laptop|doctor|dentist|time|date|deadline|schedule|plan|"
    r"price|rate|budget|office|school|partner|girlfriend|boyfriend)|"
    r"officially|arrived|welcomed|passed away|died|put (?:\w+ )?down|"
    r"sold|bought|starting (?:next|from|on|in|this)|from (?:next|this) (?:week|month|year)|"
    r"started|leaving|push(?:ed|ing)? (?:\w+ ){0,3}?(?:back|to|out)|born|"
    r"first (?:day|week|shift|month) (?:at|in|as|with)|notice period|handed in (?:my|our)|"
    r"joined|accepted (?:a|an|the|my|our|their|his|her)|took (?:a|the|up|"
    r"over)|took on|began|decided|chose|went with|opted|approved|rejected|shelved|adopted|"
    r"lost (?:my|our|the)|graduated|enrolled|engaged|married|pregnant|expecting|picked up|"
    r"swapped|swapping|signed (?:up|with|on)|migrated|migrating|ported|porting|caved|"
    r"came through|ditched|traded in)\b",
    re.IGNORECASE,
)


#: the verbs of `_UPDATE_RE` whose object may stand between them and their particle
_VERB_OBJECT_PARTICLE = frozenset({"put", "push", "pushed", "pushing"})


def update_words(text: str) -> frozenset[str]:
    """The lower-cased words of `text` that are part of a change announcement (`_UPDATE_RE`):
    "switched", "now" say that something changed, not what it is about."""
    out: set[str] = set()
    for m in _UPDATE_RE.finditer(text):
        said = m.group(0).lower().split()
        # "new number": the number is a topic; "put Biscuit down", "push standup to": the
        # word between is one too
        out.update(said[:1] if said[0] == "new" else [said[0], said[-1]]
                   if said[0] in _VERB_OBJECT_PARTICLE else said)
    return frozenset(out)


#: change words that start or acquire something ("bought", "signed up", "joined"): they add a
#: thing as often as they replace one
_ONSET_RE = re.compile(
    r"^(?:bought|signed (?:up|with|on)|started|starting\b.*|began|joined|enrolled|adopted|"
    r"picked up|took (?:a|the|up|over|on)|accepted\b.*|first (?:day|week|shift|month)\b.*)$",
    re.I)
#: a replacement verb with what it replaces before "to/into/over/…" ("switched electricity to
#: the green tariff", "moved my savings over to marcus", "switched her to amlodipine")
_REPLACED_THING = re.compile(
    r"\b(?:switched|switching|swapped|swapping|migrated|migrating|ported|porting|moved|moving|"
    r"traded in|ditched|replaced|replacing|changed|upgraded|downgraded)\s+"
    r"(?P<obj>(?:[\w'+-]+\s+){1,3}?)(?:to|into|over|from|for|with|onto|out|off|back)\b", re.I)
#: people or groups who act on their own things ("half the office swapped to macbooks", "the
#: doctor switched her to amlodipine"), besides relatives, first names and he/she — not "they",
#: which as often acts on the speaker's thing ("they bumped it to 1590")
_ACTORS = frozenset({"doctor", "doc", "office", "team", "leadership", "everyone", "everybody",
                     "company", "coworker", "coworkers", "colleague", "colleagues", "friend",
                     "friends", "people", "he", "she", "boss", "manager"})
#: words that carry no thing of their own as a replaced object ("bumped it", "moved
#: everything over")
_NO_THING = frozenset({"everything", "it", "stuff", "things", "all", "everyone", "us", "me",
                       "over", "back", "out", "them", "this", "that"})
_OTHERS_OBJECT = frozenset({"her", "him", "his", "their"})
_CLAUSE_BREAK = re.compile(r"[,;:—–]|\s-\s|\b(?:and|so|but|because|then)\b", re.I)


def change_told(text: str) -> list[tuple[str, str]]:
    """(sentence, change words) of every change announcement a person asserts in `text`."""
    return [(sentence, m.group(0)) for sentence in _asserted(text)
            for m in _UPDATE_RE.finditer(sentence)]


@text_cache(4096)
def only_onsets(text: str) -> bool:
    """Whether every change `text` announces starts or acquires something ("bought a used
    vespa", "signed up for spin classes"): it adds a thing as often as it replaces one."""
    told = change_told(text)
    return bool(told) and all(_ONSET_RE.match(word) for _, word in told)


#: at most this many change words are read for whose change it is: a text with more is no
#: one else's news alone (and reading each against its clause stays linear)
_OTHERS_MAX = 16


@text_cache(4096)
def others_change(text: str) -> bool:
    """Whether every change `text` announces is someone else's: the clause holding the change
    word has a person or group before it ("half the office swapped to macbooks", "the doctor
    switched her to amlodipine") and no word of the speaker's."""
    from bisect import bisect_right

    from .lexicon import FIRST_NAMES

    seen = 0
    for sentence in _asserted(text):
        found = list(_UPDATE_RE.finditer(sentence))
        if not found:
            continue
        breaks = [(b.start(), b.end()) for b in _CLAUSE_BREAK.finditer(sentence)]
        starts = [b[0] for b in breaks]
        for m in found:
            seen += 1
            if seen > _OTHERS_MAX:
                return False
            k = bisect_right(starts, m.start())  # breaks before the change word
            begin = breaks[k - 1][1] if k else 0
            k_after = bisect_right(starts, m.end() - 1)
            end = breaks[k_after][0] if k_after < len(breaks) else len(sentence)
            subj = re.findall(r"[\w'’]+", sentence[begin:m.start()].lower())
            clause = set(subj) | set(re.findall(r"[\w'’]+", sentence[m.end():end].lower()))
            person = any(w in RELATIONS or w in FIRST_NAMES or w in _ACTORS for w in subj)
            if not person or clause & _FIRST_PERSON:
                return False
    return seen > 0


@text_cache(4096)
def replaced_things(text: str) -> tuple[tuple[str, ...], ...]:
    """The words of what each replacement verb in `text` says it replaced ("switched
    *electricity* to …" → ["electricity"]); ["her"] for another's thing, [] for none named
    ("switched to korean", "bumped it"); a tuple, cached per text."""
    out: list[tuple[str, ...]] = []
    for sentence in _asserted(text):
        for m in _REPLACED_THING.finditer(sentence):
            ws = [w.lower() for w in re.findall(r"[\w'+-]+", m.group("obj"))]
            if any(w in _OTHERS_OBJECT for w in ws):
                out.append(("her",))
                continue
            out.append(tuple(w for w in ws if w not in STOPWORDS and w not in _NO_THING))
    return tuple(out)


#: what makes a sentence not a statement of how things are: a hypothetical, a wish, a plan
#: or a doubt ("if I moved to Porto", "thinking about switching"); claims skip these clauses
#: too (`claims._SKIP_RE`)
HYPOTHETICAL_RE = re.compile(
    r"^\s*(?:if|what if|suppose|imagine|when|whether|unless|in case|maybe|perhaps|hopefully)\b|"
    r"\b(?:used to|would|could|might|should|wish|hope to|hoping to|want to|wants to|wanted to|"
    r"would like|thinking (?:about|of)|considering|dream(?:ing)? of|was going to|"
    r"were going to|if i|if we|pretend|in (?:a|the|my) dream|in the (?:movie|book|show|game)|"
    r"(?:my |the |our )?(?:goal|target|aim) (?:is|was|weight)|aim(?:ing)? (?:to|for))\b",
    re.I,
)
#: a change denied or called off ("we're not moving after all", "didn't switch", "won't
#: change") or said in jest ("just kidding"). Reported speech is not excluded: "the allergist
#: said I can have milk again" is the user's own update
_NO_CHANGE_RE = re.compile(
    r"\b(?:not|n't|never|no)\s+(?:\w+\s+)?(?:mov|switch|chang|quit|leav|relocat|retir|resign|"
    r"cancel|postpon|reschedul|extend|replac|sell|sold|buy|bought|go ahead|swap|sign(?:ed)? up|"
    r"migrat|port(?:ed|ing)\b)\w*|"
    r"\b(?:joked|joking|kidding)\b",
    re.I,
)
#: a period of one's past: what one "was" or did then is no claim on now ("back when I was at
#: uni I worked at a Pret", "in college I used to go to Anytime Fitness")
PAST_PERIOD_RE = re.compile(
    r"\b(?:in my (?:teens|twenties|thirties|forties|fifties|youth|early|late)|as a (?:kid|child|"
    r"student|teenager)|back (?:then|in)|at uni|in college|at university|years ago|"
    r"when i was|before (?:the|my|i)|for (?:\w+ )?(?:years|months|a while))\b", re.I)
#: a statement about how things were rather than are: a past state ("my first car was a 1998
#: camry", "the old office was in Soho") — what `PAST_PERIOD_RE` says with a period
PAST_STATE_RE = re.compile(
    r"\b(?:my|our|his|her|their)\s+(?:first|old|previous|former|childhood)\b|"
    r"\b(?:was|were|used to)\b", re.I)
#: the words of a speaker about themselves ("i", "my", "we", "our" …)
#: the speaker's own words: as subject or object (`SPEAKER_ACTS`) and as owner
SPEAKER_POSSESSIVES = frozenset({"my", "mine", "our", "ours"})
_FIRST_PERSON = frozenset({"i", "i'm", "i've", "i'd", "i'll", "im", "ive", "me", "my", "mine",
                           "myself", "we", "we're", "we've", "we'd", "we'll", "us", "our",
                           "ours", "ourselves"})
SPEAKER_ACTS = _FIRST_PERSON - SPEAKER_POSSESSIVES
#: words that make another person a sentence's subject
_THIRD_PERSON_WORDS = frozenset({"he", "she", "he's", "she's", "they", "they're", "his", "her",
                                 "their", "everyone", "everyone's", "everybody", "people",
                                 "someone", "nobody"})


@text_cache(4096)
def about_others(text: str) -> bool:
    """Whether every sentence a person asserts in `text` is about someone else: it names
    another person (he, she, they, everyone, a relative, a first name) and says nothing of the
    speaker ("so proud of dan, he got hired as a pharmacist", "at the office everyone's on
    lastpass"); "she upped my dose" is the speaker's own news, and so is a sentence naming
    no one ("went full neovim this month")."""
    from .lexicon import FIRST_NAMES

    said = asserted(text)
    if not said:
        return False
    for sentence in said:
        toks = re.findall(r"[\w'’]+", sentence.lower().replace("’", "'"))
        if any(t in _FIRST_PERSON for t in toks):
            return False
        if not any(t in _THIRD_PERSON_WORDS or t in RELATIONS or t in FIRST_NAMES
                   for t in toks):
            return False
    return True


#: a statement that adds to what was said rather than replacing it ("i also pay for
#: crunchyroll", "got another cat", "started vitamin d as well")
ADDS_RE = re.compile(
    r"\b(?:also|as well|in addition|additionally|another|on top of (?:that|the))\b|"
    r"\btoo\b(?=\s*(?:[.!,;)]|$))", re.I | re.M)
#: change words that also just place a statement in time ("I love Lisbon now"): not enough
#: to outdate a stored value on their own (`announces_update(strong=True)`)
_WEAK_UPDATE = frozenset({"now", "these days", "nowadays", "officially", "as of"})


@text_cache(4096)
def announces_update(text: str, *, strong: bool = False) -> bool:
    """Whether what a person says in `text` (not the assistant's lines, not an email's
    headers) announces that something changed (`_UPDATE_RE`): "climbing's now on
    wednesdays", "gave up guitar tbh", "changed our minds, Leo's starting at the public
    school". It says nothing about *what* changed; ranking pairs it with an older memory on
    the same topic (`salience.search.slots.updates_above`). A question, a hypothetical or a
    plan (`HYPOTHETICAL_RE`), a change denied ("we're not moving after all") or a joke
    announces nothing. `strong`: a time word alone ("now", "these days") does not
    count."""
    return any(
        not strong or m.group(0).lower() not in _WEAK_UPDATE
        for sentence in _asserted(text) for m in _UPDATE_RE.finditer(sentence)
    )


def asserted(text: str) -> list[str]:
    """The sentences a person says in `text` as a fact (no question, hypothetical, plan,
    denied change or joke)."""
    return list(_asserted(text))


def _asserted(text: str) -> Iterator[str]:
    """The sentences a person says in `text` as a fact: no question, no hypothetical or plan
    (`HYPOTHETICAL_RE`), no change denied and no joke (`_NO_CHANGE_RE`)."""
    for seg in segments(text):
        for sentence in split_sentences(seg.text):
            if sentence.rstrip().endswith("?") or HYPOTHETICAL_RE.search(sentence) or (
                    _NO_CHANGE_RE.search(sentence)):
                continue
            yield sentence


@text_cache(4096)
def states_fact(text: str) -> bool:
    """Whether a person states something as a fact in `text` (`_asserted`): "we're calling it
    Halo" does, "what if we called it Halo?", "if I moved it'd be to Japan" and "we're not
    moving after all" do not. A newer statement on an older one's topic that states a fact
    may be its update even without a change word (`salience.search.slots.updates_above`)."""
    return next(_asserted(text), None) is not None
