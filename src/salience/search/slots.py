"""Newer wins among the same slot (issue 14 item 2), as pure functions over candidates.

Two memories that make claims on one slot with different values ("I live in Lisbon" / "Home
is Berlin now") cannot both be current, whether or not a supersession was recorded (the
contradiction gate may never have compared them, or they came from different imports). Among
the candidates of one search, `stale_ids` marks every such memory that a newer one
contradicts; `newest_first` moves each stale hit just below the memory that replaces it and
says `stale` in its explanation. The claims and the conflict test are the heuristic engine's
(`salience.llm.heuristic.claims` / `.contradiction`): offline, deterministic, cached per text.

"Newer" is when the statement was made: `occurred_at` (an email's date, an imported turn's
time) else `created_at`. An episode or a reflection is read without its title line (a title
such as "Spotify: listening, music" is not a speaker): its body quotes what the user said, so
an episode built from a statement that was later replaced is stale too.

Claims-free, `updates_above` pairs a newer statement with an older candidate it replaces when
the claims engine reads neither: a change announced on the same topic (`same_topic`), a fact
that answers the question as well (`answers_alike`; two numbers of one measure count,
`same_measure`), or the older statement's nearest neighbour among the candidates
(`nearest_update`). Derived memories (episodes, reflections, profile revisions: `derived`) can
be outdated, never be the newer statement.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cache
from typing import Protocol

from ..llm.heuristic.claims import PETS, RELATION_WORDS, Claim, claims
from ..llm.heuristic.contradiction import conflict, only_adds
from ..llm.heuristic.discourse import SPEAKER_ACTS, SPEAKER_POSSESSIVES
from ..llm.heuristic.text import stem, words
from ..models import Memory, MemoryType, SearchHit
from ..models.text import cached_stem, text_cache
from .rank import stemmed_words

ClaimsFn = Callable[[str], Sequence[Claim]]

#: explanation key of a hit a newer candidate contradicts (1.0)
STALE = "stale"


_DERIVED = frozenset({MemoryType.EPISODE, MemoryType.REFLECTION})


#: a line of a profile revision: "Diet: vegetarian." (the attribute, then its value)
_PROFILE_LINE = re.compile(r"^\s*(?P<key>[^:\n]{1,40}):\s*(?P<value>.+)$", re.M)


def derived(memory: Memory) -> bool:
    """Whether `memory` retells what was said rather than saying it: an episode, a
    reflection, a revision of the user profile. It may be outdated by a newer statement,
    never be the newer statement itself."""
    return memory.memory_type in _DERIVED or memory.is_profile


def statement_text(memory: Memory) -> str:
    """The text whose claims a memory makes: its content; an episode's or a reflection's
    without the title line."""
    if memory.memory_type in _DERIVED:
        title, _, body = memory.content.partition("\n")
        return body.strip() or title
    return memory.content


def _topic_text(memory: Memory) -> str:
    """What `updates_above` reads of a memory: its `statement_text`; a profile revision's
    without its heading, each "Attribute: value" line as a sentence ("Diet vegan.": the
    attribute is no speaker)."""
    if not memory.is_profile:
        return statement_text(memory)
    title, _, body = memory.content.partition("\n")
    return _PROFILE_LINE.sub(
        lambda m: f"{m['key'].strip()} {m['value'].strip().rstrip('.')}.", body.strip()) or title


def stated_at(memory: Memory) -> datetime | None:
    """When `memory`'s statement was made: `occurred_at`, else `created_at`."""
    return memory.occurred_at or memory.created_at


def stated_before(a: Memory, b: Memory) -> bool:
    """Whether `a` was stated strictly before `b` (False when either time is unknown)."""
    ta, tb = stated_at(a), stated_at(b)
    return ta is not None and tb is not None and ta < tb


#: words a statement on each slot usually holds, for the full-text search of `slot_terms`
_SLOT_WORDS: dict[str, tuple[str, ...]] = {
    "residence": ("live", "lives", "living", "moved", "home", "based", "reside", "relocated",
                  "relocating", "renting", "flat", "apartment", "lease", "movers",
                  "neighbourhood", "neighborhood"),
    "employer": ("work", "works", "working", "job", "employed", "joined", "company",
                 "employee", "employer", "hired"),
    "job": ("work", "job", "role", "title"),
    "manager": ("manager", "boss", "report", "lead", "supervisor", "manages"),
    "partner": ("girlfriend", "boyfriend", "partner", "wife", "husband", "dating", "fiance"),
    "status": ("single", "married", "engaged", "divorced", "relationship", "dating",
               "girlfriend", "boyfriend", "partner"),
    "diet": ("vegetarian", "vegan", "pescatarian", "meat", "diet", "keto", "eat", "eating"),
    "children": ("kids", "children", "child", "son", "daughter", "baby", "twins"),
    "sons": ("sons", "son", "boys", "kids"), "daughters": ("daughters", "daughter", "girls"),
    "phone": ("phone", "number", "mobile"), "email": ("email", "address"),
    "age": ("old", "age", "turned"), "salary": ("salary", "earn", "paid"),
    "studies": ("study", "studying", "degree"), "school": ("school",),
    "car": ("drive", "car"), "bank": ("bank",),
}
_VALUE_SLOTS = frozenset({"like", "habit", "use", "own", "choose", "*", "*have", "go", "trait"})


def slot_terms(text: str, *, claims_fn: ClaimsFn = claims) -> list[str]:
    """Full-text terms that find earlier statements on the slots `text` makes claims on: the
    slot's usual words ("live", "moved", "home" for a residence), the value of a polar claim
    or a denial ("vim" for "switched from vim to VS Code"), a thing's own words for a change
    announced about it ("grant report" for "the grant report deadline was extended").

    The embedding neighbours of a statement need not hold the statement it replaces ("Olá
    from Portugal! I now live in Lisbon" is nearer to other Lisbon news than to "I live in
    Leeds"); these terms are the second way in. The claim check decides, precisely."""
    terms: list[str] = []
    for c in claims_fn(text):
        attr = c.attribute.split("@", 1)[0].split(":", 1)[0]
        if c.kind == "thing":
            if c.marked:
                terms += [w for w in c.subject.split() if len(w) > 3]
            continue
        if attr in _SLOT_WORDS:
            terms += _SLOT_WORDS[attr]
        elif attr in _VALUE_SLOTS or attr in ("tool", "pets"):
            words = c.value.split("@")[0].split() if attr != "pets" else [c.attribute[5:]]
            terms += [w for w in words if len(w) > 2]
        elif attr.startswith("favourite"):
            terms += ["favourite", "favorite", *attr.split()[1:]]
        if c.subject != "user" and c.kind in ("person", "relation"):
            terms += [w for w in c.subject.replace("'s", "").split() if len(w) > 2]
    return list(dict.fromkeys(terms))[:16]


#: what a question asks about: (pattern, slots whose claims answer it)
_QUESTION_SLOTS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = tuple(
    (re.compile(p, re.I), frozenset(slots)) for p, slots in (
        (r"\bwhere\b.*\b(?:live|living|home|based|reside|moved?)\b|\b(?:which|what) (?:city|town|"
         r"country|borough)\b|\bwhere is home\b", ("residence",)),
        (r"\b(?:work|working|employer|company|companies)\b", ("employer", "job")),
        (r"\b(?:job|profession|occupation|title|for a living|role)\b|\bwhat do i do\b",
         ("job", "employer")),
        (r"\b(?:manager|boss|report to|supervis\w*|team lead|work under|line manager)\b",
         ("manager",)),
        (r"\b(?:partner|dating|girlfriend|boyfriend|married|single|relationship|wife|husband|"
         r"engaged|divorced)\b", ("partner", "status")),
        (r"\b(?:kids|children|child|sons|daughters|baby)\b", ("children", "sons", "daughters")),
        (r"\b(?:pets?|dogs?|cats?|rabbits?|hamsters?|parrots?|goldfish)\b", ("own", "pets")),
        (r"\b(?:diet|vegan|vegetarian|pescatarian|meat|fish|keto|gluten|eat)\b",
         ("diet", "habit")),
        (r"\b(?:phone|mobile|number)\b", ("phone",)), (r"\be-?mail\b", ("email",)),
        (r"\bhow old\b|\bage\b", ("age",)), (r"\b(?:salary|earn|paid)\b", ("salary",)),
        (r"^\s*(?:when|what time|which days?|what days?)\b", ("when",)),
        (r"\b(?:budget|cost|price|how much|spend|rent)\b", ("budget", "price", "amount", "rent")),
        (r"\b(?:like|love|enjoy|favou?rite|prefer|into)\b", ("like", "favourite", "prefer")),
        (r"\b(?:use|using|app|editor|browser|laptop|phone|tool|tracker|bank)\b",
         ("use", "tool", "bank", "car")),
        (r"\b(?:decid\w*|chose|choose|pick\w*|going with|plan)\b", ("choose", "choice")),
    )
)


#: words of a question that name no thing (stemmed)
_QUESTION_WORDS = frozenset({"when", "what", "which", "where", "who", "how", "is", "are", "do",
                             "doe", "did", "the", "a", "an", "my", "our", "i", "we", "me", "of",
                             "for", "to", "in", "on", "at", "time", "tim", "dat", "day", "favourit",
                             "favorit", "prefer", "like", "love", "enjoy", "us", "up", "it"})
#: the same, as `stem` leaves them ("like" → "lik"): a query word is compared stemmed
_QUESTION_STEMS = _QUESTION_WORDS | frozenset(stem(w) for w in _QUESTION_WORDS)


def question_slots(query: str) -> frozenset[str]:
    """The slots a question asks about ("Where do I live?" → residence), by its words."""
    out: set[str] = set()
    for pattern, slots in _QUESTION_SLOTS:
        if pattern.search(query):
            out |= slots
    return frozenset(out)


#: slots a question names only with what it is about ("my favourite *place*", "when is the
#: *concert*"): a claim on one answers only when it shares a word with the question
_OPEN_SLOTS = frozenset({"like", "favourite", "prefer", "habit", "use", "tool", "own", "choose",
                         "choice", "when", "budget", "price", "amount", "rent", "go", "num"})


#: "my sister", "her boss", "Melanie's kids": a relation a question asks about (the word after
#: a possessive; a word of `claims.RELATION_WORDS`)
_POSSESSED = re.compile(  # a lookahead: "my sister's husband" holds two, which overlap
    r"(?=(?<!\band )(?<!\bwith )(?<!& )\b(?:my|our|his|her|their|your|[a-z]+['’]s)\s+"
    r"(?:(?:own|new|older|younger|little|big|best|ex)[\s-]+)?([a-z]+)\b)", re.I)


def asked_person(query: str) -> str | None:
    """The person a relation names that a question asks about — "which city does my sister
    live in?" → "sister", "where does my sister's husband live?" → "husband" — or None when it
    asks about the speaker, a named person or a pet ("what's our dog called?" is answered by
    "we've got a greyhound called Pepper", a claim of the speaker's). A relation joined to someone
    ("Jolene and her partner", "with his girlfriend") is company, not whom it asks about; one
    that is the slot asked ("who is my manager?") is the value, and the speaker the subject."""
    found = [m.group(1).lower() for m in _POSSESSED.finditer(query)]
    person = next((w for w in reversed(found) if w in RELATION_WORDS and w not in PETS), None)
    if person is None:
        return None
    # "who is my manager?" asks the speaker's manager slot: the relation is the value asked for
    own = {slot for slot, ws in _SLOT_WORDS.items() if person in ws}
    return person if question_slots(query) - own else None


#: a question about someone by name, in the third person: "where does *kofi* live?", "what
#: diet is *jake* on?", "which team is *lucia* on?"
_ASKED_NAME = re.compile(
    r"\b(?:does|did|is|was|has|will)\s+([a-z][a-z-]*)\b(?!['’])", re.I)
_NOT_A_NAME = frozenset({
    "i", "you", "he", "she", "it", "we", "they", "me", "my", "your", "his", "her", "its", "our",
    "their", "the", "a", "an", "this", "that", "these", "those", "there", "here", "someone",
    "anyone", "everyone", "somebody", "anybody", "everybody", "one", "all", "any", "each",
    "what", "which", "who", "whom", "whose", "how", "when", "where", "why", "not", "no",
    "still", "now", "also", "ever", "never", "always", "usually", "really", "actually",
    "currently", "already", "again", "just", "supposed", "going", "coming",
})


def asked_name(query: str) -> str | None:
    """The name a question asks about in the third person ("where does kofi live?" →
    "kofi"), or None: a pronoun, an article, a possessive ("what is jake's diet?": the
    relation path), a word a slot is usually said with ("where is home?") or a verb or adverb
    ("who is coming to stay?", "is she still …") is no name."""
    m = _ASKED_NAME.search(query)
    if m is None:
        return None
    w = m.group(1).lower()
    if (w in _NOT_A_NAME or w.endswith(("ing", "ed", "ly")) or stem(w) in _SLOT_STEMS
            or stem(w) in _QUESTION_STEMS):
        return None  # a verb or an adverb after the auxiliary: "who is coming to stay?"
    return w


def names_person(memory: Memory, name: str) -> bool:
    """Whether `memory`'s statement says `name` (lower-case) or is spoken by them."""
    said = _read(_topic_text(memory))
    return name in said.words or name in {p.lower() for p in said.speakers}


def user_said(memory: Memory) -> bool:
    """Whether `memory` is the user's own statement or profile: no named speaker in it (an
    imported chat's turns name theirs: "Caroline: …")."""
    return not _read(_topic_text(memory)).speakers


#: a question about the user themself: the user is its subject or object
_ASKS_ABOUT_USER = re.compile(r"\b(?:i|i['’]m|im|me|my)\b", re.I)
#: the words that make the speaker a statement's subject or object (not "my" alone)
_SPEAKER_ACTS = SPEAKER_ACTS


def asks_about_user(query: str) -> bool:
    """Whether `query` asks about the user themself ("which team am i on?", "what car do i
    drive?") — not about someone of theirs ("what car does my wife drive?": `asked_person`) or
    someone by name (`asked_name`)."""
    return (_ASKS_ABOUT_USER.search(query) is not None and asked_person(query) is None
            and asked_name(query) is None)


def tells_of_someone_else(memory: Memory) -> bool:
    """Whether a user's statement is news of someone else: it starts with them ("my coworker
    lucia moved over to the search team", "Tom just moved to Berlin": `someone_else`) and the
    speaker is nowhere its subject or object ("my boss moved me to the search team" is the
    user's own news)."""
    if someone_else(memory) is None:
        return False
    return not _speaker_words(memory) & _SPEAKER_ACTS


def tells_of_self(memory: Memory) -> bool:
    """Whether a user's statement speaks of the user ("i'm on the payments team", "my diet is
    vegan") and is no news of someone else (`tells_of_someone_else`); a request ("translate
    'see you tomorrow' into german") does not."""
    return bool(_speaker_words(memory) & (_SPEAKER_ACTS | SPEAKER_POSSESSIVES)) and (
        not tells_of_someone_else(memory))


#: what a statement says is the speaker's own ("my new manager", "our team lead")
_POSSESSED_BY_SPEAKER = re.compile(r"\b(?:my|our)\s+[\w-]+(?:\s+[\w-]+)?", re.I)


def others_news_for(memory: Memory, query: str) -> bool:
    """Whether a user's statement is news of someone else (`tells_of_someone_else`) for a
    question about the user: not when the question names that someone ("who's my manager?"
    for "my manager is elena …") or the statement says the speaker's own thing the question
    asks about ("Priya left, so my new *manager* is Tom" for "who is my manager?")."""
    if not tells_of_someone_else(memory):
        return False
    asked = {stem(w) for w in words(query.lower())}
    if stem(someone_else(memory) or "") in asked:
        return False
    said = _spoken(_topic_text(memory))
    names = _first_name_stems()
    for m in _POSSESSED_BY_SPEAKER.finditer(said):
        ws = m.group(0).lower().split()[1:]
        # the noun after "my": "my manager", "my *new* manager" — not "my flatmate *works*"
        noun = ws[1] if len(ws) > 1 and cached_stem(ws[0]) in _SAME_THING else ws[0]
        if stem(noun) in asked and stem(noun) not in names:
            return False
    return True


def own_answer_for(memory: Memory, query: str) -> bool:
    """Whether a user's statement speaks of the user (`tells_of_self`) about a thing the
    question names ("i'm on the payments *team*" for "which team am i on?"); a remark of the
    user's on something else ("skipped my run, too muggy") is not."""
    asked = {stem(w) for w in words(query.lower())} - _QUESTION_STEMS
    return tells_of_self(memory) and bool(topic_words(memory) & asked)


def _speaker_words(memory: Memory) -> frozenset[str]:
    return frozenset(re.findall(r"[\w']+", _spoken(_topic_text(memory)).lower().replace(
        "’", "'")))


def _about_person(c: Claim, person: str | None) -> bool:
    """Whether claim `c` is about the person a question asks about (`asked_person`): that
    relation, or — when it asks about the speaker — anyone but a relation of theirs (a pet's
    claims answer "what's my dog called?" through the pet)."""
    base = c.subject.split("'s ")[-1]
    if person is None:
        return c.kind != "relation" or base in PETS
    return c.kind == "relation" and base == person


def answers_slot(memory: Memory, slots: frozenset[str], *, claims_fn: ClaimsFn = claims,
                 query: str | None = None) -> bool:
    """Whether `memory` makes a claim (affirmed or denied: "we don't have a dog anymore"
    answers "Do I have a dog?") on one of `slots`. With `query`, a claim about a *thing*
    ("the sprint demo is every second Thursday") or on an open slot (a preference, a time, a
    price) answers only when it shares a word with the question: "When is the Aurora
    concert?" is not answered by every dated memory, "What's my favourite place?" not by every
    preference. A person's fixed slots (residence, employer, manager, …) need no shared word.
    With `query`, the claim must be about the person it asks about (`asked_person`): where my
    sister lives does not answer where I live, nor the other way round; a question about
    someone by name (`asked_name`) is answered only by a statement that names them."""
    named = {stem(w) for w in words(query)} - _QUESTION_STEMS if query is not None else None
    person = asked_person(query) if query is not None else None
    name = asked_name(query) if query is not None else None
    if name is not None and not names_person(memory, name):
        return False  # "where does kofi live?": a statement that names kofi, or his own
    for c in claims_fn(statement_text(memory)):
        base = c.attribute.split("@", 1)[0].split(":", 1)[0].split(" ", 1)[0]
        if c.attribute not in slots and base not in slots:
            continue
        if query is not None and name is None and not _about_person(c, person):
            continue
        if named is not None and (c.kind == "thing" or base in _OPEN_SLOTS):
            said = {stem(w) for w in words(f"{c.subject} {c.attribute} {c.value}")}
            # the thing named beyond the slot's own words: the bathroom's budget, not the
            # kitchen's; the tool the cto evaluates, not the one the team uses
            things = named - _SLOT_STEMS - {stem(base)}
            pool = said | set(f"{c.subject} {c.value}".split())
            if c.kind == "self":  # the speaker's own claim: its sentence names the thing
                pool |= stemmed_words(statement_text(memory))
            if not (things or named) & pool:
                continue
        return True
    return False


def slot_answers(memories: Sequence[Memory], query: str, *,
                 claims_fn: ClaimsFn = claims) -> list[int]:
    """Positions of the `memories` that make a claim on the slot the question asks about
    ("Which company do I work for?" → an employer) and say every year the question names
    (`_YEAR`); [] when the question has no recognised slot."""
    slots = question_slots(query)
    if not slots:
        return []
    years = _YEAR.findall(query)
    return [k for k, m in enumerate(memories)
            if answers_slot(m, slots, claims_fn=claims_fn, query=query)
            and all(y in statement_text(m) for y in years)]


#: a year a question names ("where did i work back in 2015?"): a claim on the slot that does
#: not say it is about another time — today's employer is no answer to 2015's
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


def slot_order(n: int, answers: Sequence[int]) -> list[int]:
    """Positions 0..n-1 with `answers` first, each group in its own order."""
    chosen = set(answers)
    return [*answers, *(k for k in range(n) if k not in chosen)]


def slot_first(hits: Sequence[SearchHit], query: str, *, window: int = 10,
               claims_fn: ClaimsFn = claims) -> list[SearchHit]:
    """Within the top `window`, the hits that make a claim on the slot the question asks
    about come first (scores re-spread so they stay sorted). A question with no recognised
    slot, or no such hit, leaves `hits` as they are."""
    head, tail = list(hits[:window]), list(hits[window:])
    answers = slot_answers([h.memory for h in head], query, claims_fn=claims_fn)
    if not answers:
        return list(hits)
    scores = sorted((h.score for h in head), reverse=True)
    order = slot_order(len(head), answers)
    return [replace(head[k], score=sc) for k, sc in zip(order, scores, strict=True)] + tail


def stale_ids(memories: Sequence[Memory], *, claims_fn: ClaimsFn = claims) -> dict[str, str]:
    """{id of a stale memory: id of the newest memory among `memories` that contradicts it}.

    A memory is stale when a memory stated after it makes a claim on the same subject and slot
    with another value (or denies its value) — unless that one only adds to what was said
    ("i also keep a journal in obsidian" leaves "i use notion for my work notes" current;
    `contradiction.only_adds`, the rule ingest applies). Memories stated at the same instant, or without
    a time, never make each other stale. Claims are read from the content (who speaks and an
    email's sender are there, not in the summary)."""
    items = [(m, stated_at(m), claims_fn(statement_text(m))) for m in memories]
    items = [it for it in items if it[1] is not None and it[2]]
    items.sort(key=lambda it: it[1])  # type: ignore[arg-type, return-value]
    out: dict[str, str] = {}
    for i, (old, t_old, c_old) in enumerate(items):
        for new, t_new, c_new in reversed(items[i + 1:]):  # newest first
            if t_new is None or t_old is None or not t_new > t_old:
                break
            if any(conflict(a, b) for a in c_new for b in c_old) and not only_adds(
                    statement_text(new)):
                out[old.id] = new.id
                break
    return out


def newest_first(hits: Sequence[SearchHit], stale: Mapping[str, str]) -> list[SearchHit]:
    """`hits` with each stale hit moved just below the hit that replaces it (when that one is
    in the list; otherwise it keeps its place) and `stale` = 1.0 in its explanation. Scores
    stay monotone: a moved hit takes a score just under its replacement's."""
    out = list(hits)
    for hit in list(out):
        newer_id = stale.get(hit.memory.id)
        if newer_id is None:
            continue
        pos = next(k for k, h in enumerate(out) if h is hit)
        marked = replace(hit, explanation={**hit.explanation, STALE: 1.0})
        newer_pos = next((k for k, h in enumerate(out) if h.memory.id == newer_id), None)
        if newer_pos is None or newer_pos < pos:
            out[pos] = marked
            continue
        del out[pos]
        newer_pos -= 1
        top = out[newer_pos].score
        nxt = out[newer_pos + 1].score if newer_pos + 1 < len(out) else None
        score = (top + nxt) / 2 if nxt is not None else top - max(abs(top) * 1e-6, 1e-9)
        out.insert(newer_pos + 1, replace(marked, score=score))
    return out


#: explanation keys of `update_first`: the newer memory that announces a change on an older
#: candidate's topic, and that older candidate (a hint, not a proven contradiction: `stale`)
UPDATE = "announces_update"
OLDER = "older_on_topic"
#: shared words shorter than this say nothing about a topic ("go", "up")
_TOPIC_WORD_MIN = 3
#: units of time say nothing about a topic ("15 minutes a day" / "one coffee a day")
_TIME_UNITS = frozenset({"day", "days", "daily", "week", "weeks", "weekly", "month", "months",
                         "monthly", "year", "years", "yearly", "hour", "hours", "minute",
                         "minutes", "today", "tonight", "tomorrow", "yesterday", "morning",
                         "evening", "afternoon", "night", "weekend", "weekends", "time",
                         "spring", "summer", "autumn", "fall", "winter", "quarter", "term",
                         "semester", "season", "fortnight"})
#: the words of a statement that only place it in time ("for the next quarter")
_TIME_STEMS = frozenset(stem(w) for w in _TIME_UNITS | {
    "next", "last", "coming", "past", "previous", "following", "latest", "recent", "recently"})


@dataclass(frozen=True, slots=True)
class _Said:
    """What `updates_above` reads of one statement (cached per text: a search compares every
    pair of its top candidates)."""

    topic: frozenset[str]  # `topic_words`
    names: frozenset[str]  # `names_said`
    relations: frozenset[str]  # `relations_named`
    slots: frozenset[str]  # `slots_spoken`
    words: frozenset[str]  # every word, lower-cased
    someone: str | None  # `someone_else`
    speakers: frozenset[str]  # who speaks, other than the user ("caroline")
    first_person: bool  # it begins with the speaker ("i live in lisbon", "we've got …")


#: the stemmed words of `_SLOT_WORDS`: sharing only these ("live", "work") says two
#: statements are about the same kind of fact, not about the same person or thing
_SLOT_STEMS = frozenset(stem(w) for ws in _SLOT_WORDS.values() for w in ws)
_SLOT_STEM_SETS = {slot: frozenset(stem(w) for w in ws) for slot, ws in _SLOT_WORDS.items()}


#: slots a statement speaks by the shape of a value it holds: an e-mail address, a phone
#: number ("please use jo@smithdesign.co from now on" is about the e-mail slot)
_VALUE_SHAPES = (
    ("email", re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")),
    ("phone", re.compile(r"(?<![\w.])\+?\d[\d ()-]{6,}\d\b")),
)


#: a statement that begins with its speaker
_FIRST_PERSON = re.compile(r"\s*(?:i|i['’]m|im|i['’]ve|ive|i['’]d|i['’]ll|we|we['’]re|we['’]ve|"
                           r"my|our)\b", re.I)
#: a word negated by its prefix ("non-work"): one word, not the word it negates
_NON = re.compile(r"\bnon-(?=\w)", re.I)


@text_cache(4096)
def _read(statement: str) -> _Said:
    from ..llm.heuristic.discourse import segments, update_words
    from ..llm.heuristic.lexicon import MONTHS, RELATIONS, STOPWORDS, WEEKDAYS

    segs = segments(statement)
    said = " ".join(seg.text for seg in segs)  # no assistant lines, no headers
    said = _NON.sub("non", said)  # "anything non-work" says nothing of work
    skip = update_words(said)
    low = frozenset(words(said.lower()))  # each word once: a long message repeats many
    stem_of = {w: cached_stem(w) for w in low}
    stems = set(stem_of.values())
    names = {
        cached_stem(w.lower())
        for sentence in re.split(r"(?<=[.!?])\s+|\n", said)
        for w in words(sentence)[1:] if w[:1].isupper() and w.lower() != "i"
    }
    return _Said(
        topic=frozenset(
            stem_of[w] for w in low
            if len(w) >= _TOPIC_WORD_MIN and w not in STOPWORDS and w not in WEEKDAYS
            and w not in MONTHS and w not in _TIME_UNITS and w not in skip
            and (w.isalpha() or not any(ch.isdigit() for ch in w))  # letters hold no digit
        ),
        names=frozenset(names),
        relations=frozenset(w for w in low if w in RELATIONS),
        slots=frozenset(slot for slot, st in _SLOT_STEM_SETS.items() if st & stems)
        | frozenset(slot for slot, shape in _VALUE_SHAPES if shape.search(said)),
        words=low,
        someone=_someone(said),
        speakers=frozenset(s.first for s in segs if s.first and s.first != "user"),
        first_person=_FIRST_PERSON.match(said) is not None,
    )


#: words before a noun that refer back to a thing already named ("the budget", "our launch")
_DEFINITE = frozenset({"the", "my", "our", "your", "his", "her", "their", "its", "this", "that",
                       "these", "those"})
#: words after a noun that qualify it anew ("the budget for the trip", "the date of the party")
_QUALIFIES = frozenset({"for", "of"})


@text_cache(4096)
def _noun_phrases(statement: str) -> tuple[frozenset[tuple[str, str]], frozenset[str]]:
    """(the (modifier, head) stem pairs, the definite heads) of what the people of `statement`
    say — read only when a pair misses a thing of the question (`implied_things`): each content
    word followed by another in one sentence is a pair ("wedding budget"); a head is definite
    when every time it is said it follows a definite word and no qualifier follows it ("the
    budget's gone up")."""
    from ..llm.heuristic.lexicon import STOPWORDS as stopwords

    said = _spoken(statement)
    modified: set[tuple[str, str]] = set()
    seen: dict[str, bool] = {}
    for sentence in re.split(r"(?<=[.!?,;:])\s+|\n|\s[-–—]\s", said.lower()):
        ws = words(sentence)
        for k, w in enumerate(ws):
            if w in stopwords or len(w) < _TOPIC_WORD_MIN:
                continue
            h = cached_stem(w)
            before = ws[k - 1] if k else ""
            if before and before not in stopwords and len(before) >= _TOPIC_WORD_MIN:
                modified.add((cached_stem(before), h))
            bare = before in _DEFINITE and (k + 1 == len(ws) or ws[k + 1] not in _QUALIFIES)
            seen[h] = seen.get(h, True) and bare
    return frozenset(modified), frozenset(h for h, bare in seen.items() if bare)


def implied_things(old: Memory, new: Memory, things: set[str] | frozenset[str]) -> frozenset[str]:
    """The `things` (stems) an older statement names that a newer one refers back to without
    naming them: the older one says the thing before a noun ("the app launch is march 14", "our
    wedding budget is 25k") and the newer one says that noun only after "the"/"my"/… with no
    qualifier of its own ("the launch slipped to april 2", "the budget's gone up"). "the
    bathroom budget" or "the budget for the trip" names another thing."""
    if not things:
        return frozenset()
    modified, _ = _noun_phrases(_topic_text(old))
    _, definite = _noun_phrases(_topic_text(new))
    return frozenset(t for t in things if any(h in definite for m, h in modified if m == t))


def things_said(old: Memory, new: Memory, things: set[str] | frozenset[str]) -> frozenset[str]:
    """The `things` (stems, said by the older statement) that a newer one says too, by the
    word or by referring back to it (`implied_things`)."""
    said = frozenset(things) & topic_words(new)
    return said | implied_things(old, new, frozenset(things) - said)


def topic_words(memory: Memory) -> frozenset[str]:
    """The stemmed content words of what the memory's people say (no assistant lines, no
    stop words, no weekday, month or number, no word of a change announcement such as
    "switched" or "now"): what two statements on one topic share."""
    return _read(_topic_text(memory)).topic


def names_said(memory: Memory) -> frozenset[str]:
    """The stemmed words a memory's statement capitalises inside a sentence: names ("Pepper",
    "Lukas", "Notion"), not a sentence's first word."""
    return _read(_topic_text(memory)).names


def relations_named(memory: Memory) -> frozenset[str]:
    """The people a memory's statement names by their relation ("my sister", "our son")."""
    return _read(_topic_text(memory)).relations


def slots_spoken(memory: Memory) -> frozenset[str]:
    """The slots whose usual words (`_SLOT_WORDS`) the memory's statement uses."""
    return _read(_topic_text(memory)).slots


def same_measure(a: Memory, b: Memory) -> bool:
    """Whether two statements give numbers that measure the same thing: the same unit ("92
    kg" / "84 kg"), currency, counted noun ("6 engineers" / "11 engineers") or both a clock
    time ("7am to 3pm" / "10pm to 6am")."""
    return bool(_measures(_topic_text(a)) & _measures(_topic_text(b)))


@text_cache(4096)
def _measures(statement: str) -> frozenset[str]:
    """What the numbers of what a memory's people say measure (`claim_values.measures`); read
    only when a pair is compared (the parse costs more than the rest of `_read`)."""
    from ..llm.heuristic.claim_values import measures
    from ..llm.heuristic.lexicon import STOPWORDS

    return measures(_spoken(statement), stopwords=STOPWORDS)


def _spoken(statement: str) -> str:
    """What the people of `statement` say: no assistant lines, no headers."""
    from ..llm.heuristic.discourse import segments

    return " ".join(seg.text for seg in segments(statement))


class Close(Protocol):
    """`close(old, new, share)`: whether `new` answers the question about as well as `old` —
    it rises above the candidates' median relevance by `share` of `old`'s rise (`dense`: by
    the embeddings alone; `pipeline.answers_as_well`)."""

    def __call__(self, old: Memory, new: Memory, share: float, *,
                 dense: bool = False) -> bool: ...


def updates_above(
    memories: Sequence[Memory],
    similarity: Callable[[Memory, Memory], float | None],
    gate: Callable[[Memory, Memory], float],
    *,
    query: str | None = None,
    close: Close | None = None,
) -> dict[str, str]:
    """{id of an older memory: id of the newest memory among `memories` stated after it that
    announces a change (`announces_update`) on its topic — or, with `close`, that states a
    fact on the very thing the question asks about and answers it about as well
    (`answers_alike`)}.

    Two statements on one topic name it: they share a content word (`topic_words`; a change
    word such as "switched" or "now" says nothing about the topic), or both use the usual
    words of the slot the question asks about ("how many kids …": "one kid, Milo" / "baby #2
    arrived"; `slots_spoken`). Sharing a word, they are on one topic when
    - a shared word is what the question asks about ("climbing") or a name one of them
      writes ("Pepper", "Lukas") — a shared slot word alone ("live", "work") is not, nor a
      shared word the newer one gives another thing than the question's ("the bathroom
      tiles" for "what kitchen tiles did we pick?": `_rival_thing`), or
    - they do not name different people by relation ("my sister lives …" / "my brother now
      lives …") and a shared word is in the question, or their embeddings are at least as
      close as the mind's calibrated contradiction gate says an update and the statement it
      replaces are (`similarity(a, b) >= gate(a, b)`).
    No claim is parsed: this holds for phrasings the claims engine does not read ("gave up
    guitar tbh, doing piano lessons now", "lukas and i are done"). Closeness alone is not
    enough: e5 puts "Our home Wi-Fi network is called Fjordnet." and "I switched my electricity
    provider to Fjordkraft in March." inside its gate (0.907)."""
    from ..llm.heuristic.discourse import announces_update, states_fact

    timed = [(m, stated_at(m)) for m in memories if stated_at(m) is not None and (
        m.memory_type is not MemoryType.IDENTITY or m.is_profile)]
    # an episode, a reflection or a profile revision retells statements, each of which
    # carries its own news: it may be outdated by a newer statement, never the newer one
    said = [(m, t) for m, t in timed if not derived(m)]
    announced = {m.id for m, _ in said if announces_update(statement_text(m))
                 and not replaces_nothing(m, past=False)}
    relaxed = close is not None and query is not None and asks_one_value(query)
    def may_replace(m: Memory, t: datetime) -> bool:  # rises above the median where some
        # older one does: the least any path asks (two numbers of one measure)
        return any(t_old < t and close(old, m, 0.0)  # type: ignore[misc, operator]
                   for old, t_old in timed)

    news = [(m, t) for m, t in said if m.id in announced or (
        relaxed and may_replace(m, t) and states_fact(statement_text(m)))]
    if not news:
        return {}
    news.sort(key=lambda it: it[1], reverse=True)  # type: ignore[arg-type, return-value]
    asked = {stem(w) for w in words(query.lower())} if query is not None else set()
    wanted = question_slots(query) if query is not None else frozenset()
    scoped = scope_words(query) if query is not None else frozenset()
    head = [m for m, _ in timed]

    @cache
    def people() -> frozenset[str]:  # the candidates' speakers, read when a pair needs them
        return frozenset().union(*(_read(_topic_text(m)).speakers for m, _ in timed))

    def alike(old: Memory, new: Memory) -> bool:  # answers the question as well: cheap first
        if not close(old, new, 0.0) or not (  # type: ignore[misc]
                close(old, new, ANSWERS_AS_WELL_SHARE)  # type: ignore[misc]
                or same_measure(old, new)):  # two numbers of one measure: above the median
            return False
        return (not replaces_nothing(new) and answers_alike(old, new, asked, wanted, people())
                and _near(old, new, similarity, gate))

    def nearest(old: Memory, new: Memory) -> bool:
        if not relaxed:
            return False
        # a told change may answer in other words than the older one, when it is the
        # speaker's change of the thing itself
        told = new.id in announced and not _another_change(old, new, asked)
        if not close(old, new, NEAREST_SHARE) and not (  # type: ignore[misc]
                told and close(old, new, NEAREST_SHARE, dense=True)):  # type: ignore[misc]
            return False
        return nearest_update(
            old, new, head, similarity, gate, asked, wanted,
            answers_well=close(old, new, PARAPHRASE_SHARE),  # type: ignore[misc]
            announced=told, scoped=scoped)

    person = asked_person(query) if query is not None else None

    def own_news(new: Memory) -> bool:  # the speaker's own fact, for a question about a relative
        r = _read(_topic_text(new))
        return person is not None and r.first_person and person not in r.words

    out: dict[str, str] = {}
    for old, t_old in timed:
        found: list[Memory] = []
        for new, t_new in news:  # newest first
            if not t_new > t_old or (found and t_new < stated_at(found[0])):  # type: ignore[operator]
                break
            if own_news(new):
                continue
            if new.id in announced:
                if same_topic(old, new, asked, similarity, gate, wanted) or nearest(old, new):
                    found.append(new)
            elif relaxed and (alike(old, new) or nearest(old, new)):
                found.append(new)
        if found:  # of statements made at once (one message's facts), the closest to the older
            out[old.id] = max(found, key=lambda n: similarity(old, n) or 0.0).id
    return out


#: the share of an older statement's relevance lift that a newer one with no change word
#: must reach to answer the question "about as well" (`answers_alike`'s path; the caller's
#: `close(old, new, share)`)
ANSWERS_AS_WELL_SHARE = 0.5


#: the same, for a newer statement that is the older one's nearest neighbour
#: (`nearest_update`): being the closest statement to it is the stronger sign of one topic
NEAREST_SHARE = 0.2
#: the same, for a nearest newer statement that says none of the question's things the older
#: one says and shares no word with it (it says them otherwise: "day 40 without a cigarette"
#: for "do i smoke?"; `nearest_update`'s `answers_well`)
PARAPHRASE_SHARE = 0.3
#: how far below the calibrated contradiction gate the embeddings of an older statement and
#: its nearest newer neighbour may be (e5: the gate is 0.886; the updates of a held-out
#: development set that no lexical test paired lay at 0.852-0.929, docs/architecture.md)
NEAREST_SLACK = 0.04
#: the other candidates a nearest neighbour must be nearer than (a search's top 10 has 8)
NEAREST_OTHERS = 3
#: the same, for a newer statement that announces a change (`announces_update`): the change
#: word is the stronger sign, nearness only confirms the topic, so one other suffices
ANNOUNCED_OTHERS = 1


def replaces_nothing(new: Memory, *, past: bool = True) -> bool:
    """Whether every sentence a statement asserts adds to what was said ("i also pay for
    crunchyroll", "started swimming tuesday mornings too": `ADDS_RE`) or, with `past`, tells
    of the past ("back in 2015 i worked at deloitte", "my first car was a 1998 camry":
    `PAST_PERIOD_RE`, `PAST_STATE_RE` — for a statement with no change word: "i was laid off"
    announces one): then it replaces nothing. One such sentence in a long message ("… i also
    have to redo the rollout plan") says nothing of the others. A remark with nothing in it
    ("hmm let me think about it": `_says_nothing`) replaces nothing either."""
    adds, told_past = _adds_or_past(statement_text(new))
    return adds or (past and told_past) or _says_nothing(_topic_text(new))


#: the words of a remark that carries no fact: acknowledgements, thinking aloud, goodbyes
_CHATTER = frozenset({
    "hmm", "hmmm", "haha", "hahaha", "lol", "lmao", "ok", "okay", "kk", "cool", "thanks",
    "thank", "thx", "ty", "think", "thinking", "let", "lemme", "enough", "today", "tonight",
    "sure", "yeah", "yep", "yes", "no", "nope", "nah", "great", "nice", "awesome", "good", "fine",
    "bye", "later", "check", "back", "get", "alright", "right", "sounds", "anyway", "well", "oh",
    "ah", "wow", "cheers", "perfect", "noted", "gotcha", "got", "it", "that's", "thats", "done",
    "chat", "talk", "soon", "night", "morning", "again", "much", "appreciate", "lot",
})


@text_cache(4096)
def _says_nothing(statement: str) -> bool:
    """Whether what the people of `statement` say is only chatter ("hmm let me think about it",
    "haha ok that's enough for today"): no word outside stop words and `_CHATTER`."""
    from ..llm.heuristic.lexicon import STOPWORDS

    said = words(_spoken(statement).lower())
    return bool(said) and all(w in STOPWORDS or w in _CHATTER for w in said)


@text_cache(4096)
def _adds_or_past(statement: str) -> tuple[bool, bool]:
    """(every asserted sentence adds, every asserted sentence adds or tells of the past)."""
    from ..llm.heuristic.discourse import ADDS_RE, PAST_PERIOD_RE, PAST_STATE_RE, asserted

    said = asserted(statement)
    return (all(ADDS_RE.search(s) for s in said),
            all(any(r.search(s) for r in (ADDS_RE, PAST_PERIOD_RE, PAST_STATE_RE))
                for s in said))


def nearest_update(
    old: Memory,
    new: Memory,
    head: Sequence[Memory],
    similarity: Callable[[Memory, Memory], float | None],
    gate: Callable[[Memory, Memory], float],
    asked: set[str] | frozenset[str],
    wanted: frozenset[str],
    *,
    answers_well: bool = False,
    announced: bool = False,
    scoped: frozenset[str] = frozenset(),
) -> bool:
    """Whether a newer statement may replace an older one for a question because it is the
    older one's nearest neighbour among the candidates `head` — no shared word, no change word
    needed ("i smoke about half a pack a day" / "day 40 without a cigarette"; "you can call me
    kat" / "can you use Katherine with me from here on out?"):

    - their embeddings are within `NEAREST_SLACK` of the mind's calibrated contradiction gate,
      and none of the other candidates (at least `NEAREST_OTHERS`) is as close to the older one;
    - both are the user's own statements (no named speaker: between named people — an
      imported chat, LoCoMo — a newer turn on a topic adds to what was said more often than it
      replaces it: "Dancing makes me so happy" / "Dancing helps me de-stress" a month later),
      about the same person (`someone_else`), not two relatives;
    - the newer one does not add or tell of the past (`replaces_nothing`), nor speak only of
      others when the older one speaks of the user ("so proud of dan, he got hired as a
      pharmacist" for "what's my job?"; `discourse.about_others`);
    - every thing the question names that the older one says ("grocery" in "what's our
      grocery budget?") the newer one says too: "eating out budget is 200" answers another
      question — unless the two share no word at all (the newer one says it otherwise: "day
      40 without a cigarette" for "do i smoke?") and the newer one still answers the question
      well (`answers_well`: `PARAPHRASE_SHARE` of the older one's rise);
    - when the older one speaks the slot asked about ("phone"), the newer one does too.

    A newer statement that announces a change (`announced`: "after the breach news i exported
    everything into bitwarden and deleted the old vault" for "i keep all my passwords in
    lastpass") is held to less, since the change word already says something was replaced:
    - it must be nearer than `ANNOUNCED_OTHERS` other candidate, counting as rivals only the
      candidates that state something (not a question, a request or chatter) and are not part
      of its own message (`_rival_statement`; e5 puts "do you know any good tongue twisters"
      nearer "learning japanese on duolingo" than "switched to korean");
    - it may leave out a thing of the question the older one says, unless the question narrows
      itself by that thing (`scoped`, `scope_words`: "… learning on duolingo?") or the newer
      one names another thing in its place (`_rival_thing`: "the bathroom budget").

    The caller pairs it with relevance: the newer one rises above the candidates' median by
    `NEAREST_SHARE` of the older one's rise."""
    from ..llm.heuristic.discourse import about_others

    others = [m for m in head if m.id not in (old.id, new.id)]
    if announced:  # a question, a request or chatter is no rival answer on the topic
        others = [m for m in others if _rival_statement(m, new)]
    if len(others) < (ANNOUNCED_OTHERS if announced else NEAREST_OTHERS):
        return False  # nearest among too few says nothing
    sim = similarity(old, new)
    if sim is None or sim < gate(old, new) - NEAREST_SLACK:
        return False
    if any((similarity(old, m) or 0.0) >= sim for m in others):
        return False
    r_old, r_new = _read(_topic_text(old)), _read(_topic_text(new))
    if r_old.speakers or r_new.speakers or r_old.someone != r_new.someone or _two_relatives(
            old, new):
        return False  # the user's own statements only, about the same person
    if replaces_nothing(new) or (about_others(statement_text(new))
                                 and not about_others(statement_text(old))):
        return False
    things = (r_old.topic & set(asked)) - _QUESTION_STEMS  # "work" of "my work email" too
    missing = things - things_said(old, new, things)
    if missing and (r_old.topic & r_new.topic or not answers_well) and not (
            announced and not missing & scoped and not _rival_thing(old, new, missing)):
        return False  # "the bathroom budget is 8k" for "what's the kitchen budget?"
    spoken = r_old.slots & wanted
    return not spoken or bool(r_new.slots & spoken)


#: prepositions that narrow what a question asks about ("… learning on duolingo?", "… use
#: for work?")
_SCOPING = frozenset({"on", "at", "for", "in", "with", "from", "about", "of", "to", "by"})


@text_cache(1024)
def scope_words(query: str) -> frozenset[str]:
    """The stems of the content words a question narrows itself by, after a preposition
    ("duolingo" of "what language am i learning on duolingo?", "work" of "what laptop do i
    use for work?"): an answer to it must say them."""
    from ..llm.heuristic.lexicon import STOPWORDS

    ws = words(query.lower())
    out: set[str] = set()
    for k in range(1, len(ws)):
        if ws[k - 1] in _SCOPING and ws[k] not in STOPWORDS and ws[k] not in _QUESTION_WORDS:
            out.add(cached_stem(ws[k]))
    return frozenset(out)


def _same_message(a: Memory, b: Memory) -> bool:
    """Whether two memories come from one message: its chunks, or a fact said in passing."""
    ra, rb = a.parent_id or a.id, b.parent_id or b.id
    return ra == rb or a.id in b.related_ids or b.id in a.related_ids


def _another_change(old: Memory, new: Memory, asked: set[str] | frozenset[str]) -> bool:
    """Whether the change a newer statement announces is of something else than the older
    statement's thing, so its change word is no sign that it replaces the older one:
    - every change word starts or acquires something ("bought a used vespa for weekend trips",
      "signed up for the tuesday spin classes": `discourse.only_onsets`) — that adds a thing
      as often as it replaces one;
    - every change is someone else's ("half the office swapped to macbooks":
      `discourse.others_change`);
    - a replacement verb names what it replaced, and that is neither the older statement's
      thing nor the question's ("switched *electricity* to the green tariff" for "who's my
      internet provider?", "switched *her* to amlodipine": `discourse.replaced_things`).
    From an adversarial review of 44 compatible pairs written against the told-change path
    (docs/architecture.md, "Ninth pass")."""
    from ..llm.heuristic.discourse import only_onsets, others_change, replaced_things

    text = statement_text(new)
    if only_onsets(text) or others_change(text):
        return True
    theirs = topic_words(old) | frozenset(asked)
    for replaced in replaced_things(text):
        if replaced == ("her",) or (replaced and not any(
                cached_stem(w) in theirs for w in replaced)):
            return True
    return False

def _rival_statement(m: Memory, new: Memory) -> bool:
    """Whether a candidate could be a rival answer to an older statement's topic: it states
    something (not chatter, a question or a request) and is not part of `new`'s message."""
    from ..llm.heuristic.discourse import states_fact

    return (not _same_message(m, new) and states_fact(statement_text(m))
            and not _says_nothing(_topic_text(m)))


#: words before a noun that say which version or how much of the same thing, not another
#: thing ("the full draft" is the thesis draft still)
_SAME_THING = frozenset(cached_stem(w) for w in (
    "full", "whole", "entire", "final", "first", "second", "third", "last", "next", "new",
    "old", "latest", "current", "updated", "revised", "rough", "early", "late", "real",
    "actual", "official", "proper", "complete", "partial", "initial", "original", "own",
    "big", "bigger", "small", "smaller", "main", "usual", "exact"))


def _rival_thing(old: Memory, new: Memory, missing: frozenset[str] | set[str]) -> bool:
    """Whether a newer statement names another thing in place of one the older one names:
    the older one says a missing thing before a noun ("the kitchen budget") and the newer one
    says that noun after another word ("the bathroom budget") — not a word of version or
    degree ("the full draft" after "the thesis draft": `_SAME_THING`)."""
    modified_old, _ = _noun_phrases(_topic_text(old))
    modified_new, _ = _noun_phrases(_topic_text(new))
    heads = {h for m, h in modified_old if m in missing}
    return any(h in heads and m not in missing and m not in _SAME_THING
               for m, h in modified_new)


#: a question with many answers — a list, a description, a reason — rather than one current
#: value: "In what ways is Caroline participating …?", "What books has she read?", "Why …?".
#: The days, hours or times of a schedule are one value ("which days am i in the office?")
_MANY_ANSWERS = re.compile(
    r"^\s*(?:in\s+)?(?:what|which)\s+(?:\w+\s+)?(?:ways?|types?|kinds?|sorts?)\b|"
    r"^\s*(?:what|which)\s+(?!is\b|was\b|does\b|has\b)(?!(?:days|nights|mornings|"
    r"afternoons|evenings|weekends|weekdays|hours|times|shifts)\b)\w+(?<![su])s\b|"
    r"^\s*(?:why|how (?:has|have|did|do|does))\b|\b(?:list|all the|some of the)\b",
    re.IGNORECASE,
)


def asks_one_value(query: str) -> bool:
    """Whether `query` asks for one current value ("What's the kitchen budget?", "Where do I
    live?") rather than for many answers (`_MANY_ANSWERS`), where a newer statement adds one
    instead of replacing the older."""
    return _MANY_ANSWERS.search(query) is None


#: the share of the question's words in an older statement that a newer one with no change
#: word must say too (`answers_alike`)
ALIKE_SHARE = 2 / 3


def answers_alike(
    old: Memory, new: Memory, asked: set[str] | frozenset[str], wanted: frozenset[str],
    people: frozenset[str] = frozenset(),
) -> bool:
    """Whether a newer statement with no change word may still replace an older one for a
    question (`asked`: its stemmed words, `wanted`: its slots): both say the thing the question
    names ("kitchen", "grant" — not only a slot's usual word such as "live"), the newer one
    saying at least `ALIKE_SHARE` of the question's words that the older one says ("the
    bathroom budget is 8k" says half of what "the kitchen budget is 15k" says of "what's the
    kitchen budget?"), or they share a name one of them writes ("Lumen" — a person's name only
    when the question names them: people in a chat call each other by name); about the
    same person ("my sister lives in Oslo" is no answer to where I live), not about two
    different relatives, and when the older one speaks the slot asked about ("lives"), the
    newer one does too ("Sam's birthday is in May" answers no residence question).

    The caller pairs this with relevance — the newer statement must answer the question about
    as well as the older one (`close`), which a passing remark that shares a name does not — and
    with closeness: their embeddings within the mind's calibrated contradiction gate."""
    shared = (topic_words(old) & topic_words(new)) - _SLOT_STEMS
    named = {n for n in shared & (names_said(old) | names_said(new))
             if n in asked or not _a_person(n, people)}
    if not named:
        # the things the question names that the older one says; a slot's own word ("live",
        # "salary") is not one: the newer one may say the slot otherwise ("mum's settled into
        # the care home in Swansea" for "Mum lives in Cardiff")
        said_old = (topic_words(old) & asked) - _SLOT_STEMS
        if same_measure(old, new):
            if not _measures_alike(old, new, said_old):
                return False
        elif not shared & asked:
            return False
        elif len(things_said(old, new, said_old)) < ALIKE_SHARE * len(said_old):
            return False  # "the bathroom budget is 8k" says less of "the kitchen budget?"
    if someone_else(old) != someone_else(new) or _two_relatives(old, new):
        return False
    spoken = slots_spoken(old) & wanted
    return not spoken or bool(slots_spoken(new) & spoken)


def _measures_alike(old: Memory, new: Memory, said_old: set[str] | frozenset[str]) -> bool:
    """For two statements that measure the same thing (`same_measure`): whether the newer one
    answers for the same thing — it says `ALIKE_SHARE` of the things of the question that the
    older one says (`said_old`: "the kitchen budget" of "what's the kitchen renovation
    budget?"), or it names nothing else besides times ("down to 84 kg after the summer" for
    "how much do I weigh?"). "the bathroom budget is 8k" names another thing than "the kitchen
    budget is 15k"."""
    if len(things_said(old, new, said_old)) >= ALIKE_SHARE * len(said_old):
        return True
    own = topic_words(new) - topic_words(old) - _SLOT_STEMS - _TIME_STEMS
    return not own


_THIRD_PERSON = re.compile(
    r"^\s*(?:(?:my|our)\s+(?P<rel>\w+(?:-\w+)*)(?:\s+(?P<rel2>\w+(?:-\w+)*))?|"
    r"(?P<name>[A-Z][a-z]+)(?:'s)?(?:\s+and\s+\w+)?\s+(?:is|was|has|had|got|just|finally|"
    r"now|will|moved|started|quit|left|switched|changed|'s)\b)"
)


def someone_else(memory: Memory) -> str | None:
    """Who the memory's first sentence is about when it is not the speaker: a relative
    ("my brother moved …" → "brother") or a first name ("Tom just moved …" → "tom"); None
    for the speaker's own statements — and for "they"/"he"/"she", which as often stand for
    whoever acts on the speaker's own thing ("they pushed my deadline to Friday")."""
    return _read(_topic_text(memory)).someone


def _someone(said: str) -> str | None:
    from ..llm.heuristic.lexicon import FIRST_NAMES, RELATIONS

    m = _THIRD_PERSON.match(said)
    if m is None:
        return None
    if m.group("rel"):
        return next((w.lower() for w in (m.group("rel"), m.group("rel2") or "")
                     if w.lower() in RELATIONS), None)
    name = m.group("name").lower()
    return name if name in FIRST_NAMES else None


def _near(old: Memory, new: Memory, similarity: Callable[[Memory, Memory], float | None],
          gate: Callable[[Memory, Memory], float]) -> bool:
    """Whether the embeddings of two statements are as close as the mind's calibrated
    contradiction gate says an update and the statement it replaces are."""
    sim = similarity(old, new)
    return sim is not None and sim >= gate(old, new)


@cache
def _first_name_stems() -> frozenset[str]:
    from ..llm.heuristic.lexicon import FIRST_NAMES

    return frozenset(stem(n) for n in FIRST_NAMES)


def _a_person(name: str, people: frozenset[str]) -> bool:
    """Whether the stemmed `name` is a person's: a known first name, or one of `people` (the
    candidates' speakers) or a short form of one ("mel" for Melanie)."""
    return name in _first_name_stems() or any(
        p.startswith(name) or name.startswith(stem(p)) for p in people)


def _two_relatives(a: Memory, b: Memory, ignore: frozenset[str] = frozenset()) -> bool:
    """Whether `a` and `b` name people by relation and no relation is the same (relation
    words in `ignore` — the words of the slot asked about, "kid" / "baby" — do not count)."""
    ra, rb = relations_named(a) - ignore, relations_named(b) - ignore
    return bool(ra and rb and not ra & rb)


def same_topic(
    old: Memory,
    new: Memory,
    asked: set[str] | frozenset[str],
    similarity: Callable[[Memory, Memory], float | None],
    gate: Callable[[Memory, Memory], float],
    wanted: frozenset[str] = frozenset(),
) -> bool:
    """The topic test of `updates_above` for one pair (`asked`: the question's stemmed words,
    `wanted`: the slots it asks about, `question_slots`)."""
    shared = topic_words(old) & topic_words(new)
    if (shared - _SLOT_STEMS) & (names_said(old) | names_said(new)):
        return True  # a name both mention: one topic, whoever speaks
    other = someone_else(new)
    asked_about = {w for slot in wanted for w in _SLOT_WORDS.get(slot, ())}
    if other is not None and other not in _read(_topic_text(old)).words | asked_about:
        return False  # "Tom just moved to Berlin" is no update of "I live in Munich"
    if not shared:
        # no shared word, but both speak about the slot the question asks about ("how many
        # kids …": "one kid, Milo" / "baby #2 arrived"; "what time is my flight?": "on the
        # 14th at 6:40am" / "i'm on the 11:25 departure instead"), and not about two relatives
        both = slots_spoken(old) & slots_spoken(new) & wanted
        if "when" in wanted and "clock" in _measures(_topic_text(old)) & _measures(
                _topic_text(new)):
            both |= {"when"}
        ignore = frozenset().union(*(_SLOT_WORDS.get(s, ()) for s in both)) if both else frozenset()
        return bool(both) and not _two_relatives(old, new, ignore)
    if shared & asked:
        said_old = (topic_words(old) & asked) - _QUESTION_STEMS
        missing = said_old - things_said(old, new, said_old)
        if missing and _rival_thing(old, new, missing):
            return False  # "the bathroom tiles" for "what kitchen tiles did we pick?"
    if (shared - _SLOT_STEMS) & asked:
        return True  # the thing the question asks about, whoever it concerns
    if _two_relatives(old, new):
        return False
    if shared & asked:
        return True
    sim = similarity(old, new)
    return sim is not None and sim >= gate(old, new)


__all__ = [
    "OLDER",
    "STALE",
    "UPDATE",
    "answers_alike",
    "answers_slot",
    "asks_about_user",
    "asks_one_value",
    "derived",
    "names_said",
    "nearest_update",
    "newest_first",
    "others_news_for",
    "own_answer_for",
    "question_slots",
    "relations_named",
    "replaces_nothing",
    "same_measure",
    "same_topic",
    "slot_answers",
    "slot_first",
    "slot_order",
    "slot_terms",
    "slots_spoken",
    "someone_else",
    "stale_ids",
    "stated_at",
    "stated_before",
    "statement_text",
    "tells_of_self",
    "tells_of_someone_else",
    "topic_words",
    "updates_above",
]
