"""What a memory adds to the knowledge graph, as a pure function of its text and entities.

`extract(memory)` returns a `MemoryGraph`: the memory's mentions with an entity type, and the
facts (relations) its claims make, e.g. "I live in Berlin" → `User —lives_in→ Berlin` (valid
from the statement's time, `occurred_at` else `created_at`). Nothing here touches a store: the
write paths hand the result to `Store.write_graph` / `IngestBatch.graph`, and
`store.graph_writer.apply_graph` decides what to assert and what to retire.

- **Who speaks.** "I" is the speaker of the line: "Caroline: I moved to Sweden" makes a fact about
  Caroline; an email's body speaks for its sender (`From:`); lines without a label speak for
  "User" (the default speaker of `remember_turn`); the assistant's lines make no facts.
- **Facts** come from the claim engine (`salience.llm.heuristic.claims`, consumed through
  `claims(text)`): residence → `lives_in`, employer → `works_at`, job → `works_as`, diet →
  `has_diet`, "my favourite X is Y" → `favourite`, manager → `reports_to`, partner and
  relatives → `family_of`, doctor/coach/friend… → `knows`, pets → `owns`, tools → `uses`;
  plus appositions the claims do not cover ("my manager Sam", "my dog Rex"). Negated claims
  ("I left Siemens") end the matching relation; a denied value ("switched from vim") ends
  whatever relation held it. A fact is *functional* when its subject has one value per slot
  at a time (where one lives, works, one's manager, partner, editor): a new value retires the
  old one.
- **Mentions** are the memory's `entities`, the names found in its text (the speaker of
  "Caroline: …" included) and the names its facts use.
- **Types** come from the heuristic entity finder (person, place, org → organization, date,
  money → amount, …), then from the role a name plays in a fact (the object of `works_at` is an
  organization) and from cues ("my dog Rex" → pet, "the Apollo project" → project). Unknown
  stays `entity`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..llm.heuristic.claims import Claim, claims
from ..llm.heuristic.entities import find_entities
from ..llm.heuristic.lexicon import COMMON_CAPS, RELATIONS
from ..llm.heuristic.text import split_speaker, stem
from ..models import Memory
from ..models.graph import AUTO_ENTITY_TYPE, Fact, MemoryGraph, Mention
from ..models.names import clean_name, entity_key

ClaimsFn = Callable[[str], Sequence[Claim]]

USER = "User"  # the default speaker (remember_turn's label when no speaker is given)
_ASSISTANT = "assistant"
_HEADERS = frozenset({"subject", "from", "to", "cc", "bcc", "date", "sent", "reply-to"})
_EVENT_HEADERS = frozenset({"event", "when", "where", "attendees", "organizer", "description"})
_NOT_SPEAKERS = (COMMON_CAPS | _HEADERS) - {"user", _ASSISTANT}  # "Note: ...", "Reminder: ..."
MAX_MENTIONS = 25

# heuristic entity kinds → ontology entity types
KIND_TYPES: dict[str, str] = {
    "person": "person",
    "place": "place",
    "org": "organization",
    "date": "date",
    "money": "amount",
    "email": "email",
    "url": "url",
    "handle": "handle",
}
PETS = frozenset({"dog", "cat", "pet", "puppy", "kitten", "hamster", "parrot", "rabbit", "horse"})


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_FAMILY = RELATIONS - _set(
    "friend bestie boss manager colleague coworker roommate flatmate neighbour neighbor"
)
_MANAGERS = _set("boss manager supervisor lead")
_PARTNERS = _set("wife husband partner spouse girlfriend boyfriend fiance fiancee fiancé fiancée")


# -- relation types of claim attributes -------------------------------------------------------
# attribute → (relation type, object type, subject type or None, functional)
_CLAIM_RELATIONS: dict[str, tuple[str, str, str | None, bool]] = {
    "residence": ("lives_in", "place", None, True),
    "employer": ("works_at", "organization", "person", True),
    "job": ("works_as", "role", "person", True),
    "diet": ("has_diet", "concept", None, True),
}


#: roles one has one of at a time, which the claim engine states as their own slot
_DIRECT_ROLES = _set(
    "manager partner doctor dentist therapist landlord mentor coach trainer tutor advisor "
    "adviser accountant lawyer vet gp"
)
_ROLES = frozenset(RELATIONS | PETS | _MANAGERS | _DIRECT_ROLES)
_ONE_TOOL = _set("editor phone browser notes music computer")  # "I switched to Neovim"
_NOT_VALUES = _set("new old first current dream job work")  # "a new job at Stripe": no role


def _role_relation(role: str) -> tuple[str, str, bool]:
    """(relation type, object type, functional) of "my <role> <Name>" / "my <role> is <Name>"."""
    if role in PETS:
        return "owns", "pet", False
    if role in _MANAGERS:
        return "reports_to", "person", True
    if role in _PARTNERS:
        return "family_of", "person", True
    if role in _FAMILY:
        return "family_of", "person", False
    return "knows", "person", role in _DIRECT_ROLES


# -- statements: who says what ----------------------------------------------------------------
def statements(text: str) -> list[tuple[str, str]]:
    """(speaker, text) per line of `text` whose first person is known (see the module
    docstring); header lines, calendar events and the assistant's lines are left out."""
    lines = text.splitlines()
    first = (split_speaker(lines[0])[0] or "").lower() if lines else ""
    if first in _EVENT_HEADERS:
        return []
    start, speaker, email = 0, USER, first in _HEADERS
    if email:  # headers up to the first blank line; the body speaks for the sender
        speaker = ""
        while start < len(lines) and lines[start].strip():
            label, value = split_speaker(lines[start])
            if label is not None and label.lower() == "from":
                speaker = _sender_name(value)
            start += 1
    out: list[tuple[str, str]] = []
    for line in lines[start:]:
        label, said = split_speaker(line)
        if email or label is None or label.lower() in _NOT_SPEAKERS:
            said = line
        else:
            speaker = "" if label.lower() == _ASSISTANT else clean_name(label)
        if speaker and said.strip():
            out.append((speaker, said))
    return out


def _sender_name(value: str) -> str:
    """The display name of a `From:` value ("Anna Berg <anna@x.org>" → "Anna Berg")."""
    name = value.split("<", 1)[0].strip().strip('"')
    if "@" in name:
        return ""  # only an address: who "I" is stays unknown
    return clean_name(name)


# -- extraction -----------------------------------------------------------------------------------
_APPOSITION = re.compile(
    r"\b(?:my|our)\s+(?P<role>(?:best\s+)?[a-z-]+)\s+(?P<name>(?-i:[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?))",
    re.IGNORECASE,
)
_PROJECT = re.compile(
    r"\b(?:project\s+(?P<a>(?-i:[A-Z][\w-]+(?:\s+[A-Z][\w-]+)?))"
    r"|(?:the\s+)?(?P<b>(?-i:[A-Z][\w-]+(?:\s+[A-Z][\w-]+)?))\s+project)\b",
    re.IGNORECASE,
)
_SKIP_NAMES = frozenset({"i", "the", "a", "an", "my", "our", "me", "we", "you"})
_ROLE_MARK = "'s "  # "User's sister": a relative known only by the role
_ROLE_STEMS = {stem(w): w for w in (*RELATIONS, *PETS, *_MANAGERS)}  # "is:" attributes are stemmed


def extract(memory: Memory, *, claims_fn: ClaimsFn = claims) -> MemoryGraph:
    """The graph records of `memory` (pure; see the module docstring).

    The names to link the memory to are its `entities`, the names found in its text — the
    speaker of "Caroline: ..." included: what Caroline says is about Caroline (on LoCoMo,
    leaving speakers out made `rrf-connected` 0.010 R@10 worse) — and the names its facts
    mention (objects, named subjects).
    """
    text = memory.content
    found = find_entities(text)
    heuristic = {entity_key(e.text): KIND_TYPES.get(e.kind, AUTO_ENTITY_TYPE) for e in found}
    cues: dict[str, str] = {}  # entity key -> type from appositions and fact roles
    facts: list[Fact] = []
    aliases: list[tuple[str, str]] = []
    said_by = statements(text)
    for speaker, said in said_by:
        me = Mention(speaker, "person")
        cues[entity_key(speaker)] = "person"
        for m in _APPOSITION.finditer(said):
            role = " ".join(m["role"].lower().split()).removeprefix("best ")
            name = _display(m["name"])
            if name and (role in RELATIONS or role in PETS):
                rtype, otype, functional = _role_relation(role)
                cues[entity_key(name)] = otype
                facts.append(Fact(me, rtype, Mention(name, otype), role, functional))
        for m in _PROJECT.finditer(said):
            name = _display(m["a"] or m["b"] or "")
            if name:
                cues[entity_key(name)] = "project"
        for c in claims_fn(said):
            new, alias = _claim_facts(c, me, said)
            aliases.extend(alias)
            facts.extend(new)
            for f in new:
                for end in (f.subject, f.obj):
                    if end.entity_type != AUTO_ENTITY_TYPE and not f.negated:
                        cues.setdefault(entity_key(end.name), end.entity_type)
    mentioned = [e.text for e in found[:MAX_MENTIONS]]
    linked = list(dict.fromkeys(n for n in (*memory.entities, *mentioned) if n.strip()))
    # "my name is Ada": the memory is about the speaker, whom "Ada" now also names
    named = {entity_key(alias): who for who, alias in aliases}
    linked = list(dict.fromkeys(named.get(entity_key(n), n) for n in linked))
    keys = {entity_key(n) for n in linked}
    skip = ({entity_key(s) for s, _ in said_by} | {entity_key(USER)}) - keys
    for f in facts:
        for end in (f.subject, f.obj):
            k = entity_key(end.name)
            if k not in keys and k not in skip and not _is_role_node(end.name):
                linked.append(end.name)
                keys.add(k)
    typed = {
        entity_key(n): cues.get(entity_key(n)) or heuristic.get(entity_key(n), AUTO_ENTITY_TYPE)
        for n in linked
    }
    return MemoryGraph(
        memory_id=memory.id,
        valid_from=memory.occurred_at or memory.created_at,
        mentions=tuple(Mention(n, typed[entity_key(n)]) for n in linked),
        facts=tuple(dict.fromkeys(_retype(f, typed) for f in facts)),
        aliases=tuple(dict.fromkeys(aliases)),
    )


def prepare(memories: Sequence[Memory], *, claims_fn: ClaimsFn = claims) -> list[MemoryGraph]:
    """The `MemoryGraph` of each memory, for the write paths (`IngestBatch.graph`,
    `Store.write_graph`). `Memory.entities` is left as it is: the names a memory mentions are
    linked by the graph write (links of kind `mention`), so candidate search by entity and the
    rankings that read it see exactly what they saw before."""
    return [extract(m, claims_fn=claims_fn) for m in memories]


def _claim_facts(c: Claim, me: Mention, said: str) -> tuple[list[Fact], list[tuple[str, str]]]:
    """The facts (and aliases) one claim makes when `me` says it."""
    subject = _subject(c.subject, me, said)
    if subject is None or not c.value:
        return [], []
    facts, aliases = _claim_facts_of(c, subject, me, said)
    if facts and _is_role_node(subject.name) and c.attribute != "name":
        # "my sister lives in Lisbon": User -family_of-> User's sister, then the fact
        rtype, _, functional = _role_relation(c.subject)
        facts.insert(0, Fact(me, rtype, subject, c.subject, functional))
    return facts, aliases


def _claim_facts_of(
    c: Claim, subject: Mention, me: Mention, said: str
) -> tuple[list[Fact], list[tuple[str, str]]]:
    attr, neg = c.attribute, c.negated
    if attr == "name":
        name = _display(_span(said, c.value))
        if not name or neg:
            return [], []
        if subject is me:
            return [], [(me.name, name)]  # "my name is Ada": an alias of the speaker
        rtype, otype, functional = _role_relation(c.subject)
        return [Fact(me, rtype, Mention(name, otype), c.subject, functional)], []
    if attr == "*":  # "switched from vim to VS Code": whatever vim was, it no longer holds
        obj = _display(_span(said, c.value), keep_case=True)
        return ([Fact(subject, "*", Mention(obj), "*", negated=True)] if obj else []), []
    if attr in _CLAIM_RELATIONS:
        rtype, otype, stype, functional = _CLAIM_RELATIONS[attr]
        if stype is not None and subject.entity_type == AUTO_ENTITY_TYPE:
            subject = Mention(subject.name, stype)
        obj = _display(_span(said, c.value), keep_case=otype in ("role", "concept"))
        if not obj or obj.lower() in _NOT_VALUES:
            return [], []
        return [Fact(subject, rtype, Mention(obj, otype), attr, functional, neg)], []
    if attr.startswith("favourite "):
        obj = _display(_span(said, c.value), keep_case=True)
        fact = Fact(subject, "favourite", Mention(obj, "concept"), attr, True, neg)
        return ([fact] if obj else []), []
    if attr.startswith("tool:"):  # "I use Notion for notes": one notes app at a time
        obj = _display(_span(said, c.value), keep_case=True)
        fact = Fact(subject, "uses", Mention(obj, "tool"), attr, attr[5:] in _ONE_TOOL, neg)
        return ([fact] if obj else []), []
    role = attr if attr in _ROLES else ""
    if attr.startswith("is:") and c.category == "name":  # "my sister is Anna"
        word = attr[3:].removeprefix("best ")
        role = _ROLE_STEMS.get(word, word if word in _ROLES else "")
        role = "" if role in _DIRECT_ROLES else role  # the claim engine states those directly
    if role and subject is me:  # "my manager is Sam", "I report to Priya"
        name = _display(_span(said, c.value))
        if name and name[:1].isupper():
            rtype, otype, functional = _role_relation(role)
            return [Fact(me, rtype, Mention(name, otype), role, functional, neg)], []
    return [], []


def _subject(raw: str, me: Mention, said: str) -> Mention | None:
    """The entity a claim subject names: the speaker, "<speaker>'s sister", or a name."""
    if raw == "user":
        return me
    if raw == "the" or not raw:
        return None
    if raw in RELATIONS or raw in PETS:
        return Mention(f"{me.name}{_ROLE_MARK}{raw}", "pet" if raw in PETS else "person")
    name = _display(_span(said, raw))
    return Mention(name) if name and entity_key(name) not in _SKIP_NAMES else None


def _is_role_node(name: str) -> bool:
    """Whether `name` is an unnamed relative's node ("User's sister")."""
    return _ROLE_MARK in name


def _span(text: str, value: str) -> str:
    """`value` (a lower-cased claim value) as it is written in `text`, else `value`."""
    words = value.split()
    if not words:
        return value
    pattern = r"\b" + r"\s+".join(re.escape(w) for w in words) + r"\b"
    m = re.search(pattern, text, re.IGNORECASE)
    return m.group(0) if m else value


def _display(name: str, *, keep_case: bool = False) -> str:
    """A display name: cleaned; an all-lower-case proper name gets capitals ("berlin")."""
    try:
        s = clean_name(name)
    except Exception:  # an unusable mention (too long, NUL): no entity
        return ""
    s = re.sub(r"['’]s$", "", s)
    if s.lower() in _SKIP_NAMES:
        return ""
    if not keep_case and s.islower():
        s = " ".join(w[:1].upper() + w[1:] for w in s.split())
    return s


def _retype(f: Fact, typed: dict[str, str]) -> Fact:
    """Give a fact's generic ends the type the memory's mentions settled on."""
    s, o = f.subject, f.obj
    if (
        s.entity_type == AUTO_ENTITY_TYPE
        and typed.get(entity_key(s.name), AUTO_ENTITY_TYPE) != AUTO_ENTITY_TYPE
    ):
        s = Mention(s.name, typed[entity_key(s.name)])
    if (
        o.entity_type == AUTO_ENTITY_TYPE
        and typed.get(entity_key(o.name), AUTO_ENTITY_TYPE) != AUTO_ENTITY_TYPE
    ):
        o = Mention(o.name, typed[entity_key(o.name)])
    if s is f.subject and o is f.obj:
        return f
    return Fact(s, f.relation_type, o, f.slot, f.functional, f.negated)


__all__ = [
    "USER",
    "Fact",
    "MemoryGraph",
    "Mention",
    "extract",
    "prepare",
    "statements",
]
