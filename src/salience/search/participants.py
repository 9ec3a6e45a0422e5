"""Participant-aware ranking (issue 15): who said, wrote or organised a memory, and whether a
query names them.

A memory's participants are the people it is *by*: the speaker of a transcript line
("Caroline: I moved to Sweden"), an email's sender (`From:`), a calendar event's organiser
(`Organizer:`), or what the writer recorded in metadata (`speaker`, `author`, `sender`,
`from`, `organizer`/`organiser`, `participants`). People merely mentioned are not participants
(the knowledge graph's mentions cover them). Generic role labels ("User", "Assistant") are not
names a question would use, so they never match.

A question that names a participant ("What did Caroline say about adoption?") mostly asks about
what that person said: on LoCoMo, 1,965 of the 2,048 evidence turns of questions naming one
participant are that participant's turns. `boost` shifts those memories up by a bounded amount
(like the time match): it reorders memories of similar relevance and never lifts an unrelated
one over a relevant one; a query that names no participant is left alone. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, MutableMapping, Sequence

from ..models import Memory
from ..models.text import text_cache
from .query import words

META_KEYS = ("speaker", "author", "sender", "from", "organizer", "organiser", "participants")
ROLE_LABELS = frozenset({"user", "assistant", "system", "me", "i", "you", "bot", "ai", "human"})
_ORGANIZER = re.compile(r"^\s*organi[sz]er\s*:\s*(?P<who>.+)$", re.IGNORECASE | re.MULTILINE)
_EMAIL = re.compile(r"<[^>]*>|\S+@\S+")
MIN_NAME_CHARS = 2
PEOPLE_CACHE = 4096  # memory texts whose people are kept (as rank.STEM_CACHE)
NAME_CACHE = 4096  # speaker / sender / organiser labels whose name key is kept
NAME_MAX_CHARS = 200  # a longer label is keyed again each time (the cache stays < 1 MB)


def _names(value: object) -> list[str]:
    if isinstance(value, str):
        return [v for v in (p.strip() for p in value.split(",")) if v]
    if isinstance(value, Iterable) and not isinstance(value, bytes | Mapping):
        return [str(v).strip() for v in value if isinstance(v, str) and v.strip()]
    return []


@text_cache(NAME_CACHE, NAME_MAX_CHARS)
def _key(name: str) -> str | None:
    """The comparable form of a person's name: its words, lower-cased (None for a role;
    cached: a mind's speakers and senders are few and recur in every search)."""
    toks = words(_EMAIL.sub(" ", name))
    if not toks or " ".join(toks) in ROLE_LABELS or len("".join(toks)) < MIN_NAME_CHARS:
        return None
    return " ".join(toks)


def participants(memory: Memory) -> frozenset[str]:
    """The people `memory` is by (name keys, lower-cased words joined by one space)."""
    people = content_people(memory.content)
    meta = memory.metadata
    if not meta:  # most memories carry no metadata: their text alone says who they are by
        return people
    raw: list[str] = []
    for k in META_KEYS:
        value = meta.get(k)
        if value:
            raw += _names(value)
    if not raw:
        return people
    return frozenset(k for k in map(_key, raw) if k) | people


@text_cache(PEOPLE_CACHE)
def content_people(content: str) -> frozenset[str]:
    """The people a memory's text says it is by: its speakers' lines and a calendar
    organiser (cached: the same candidates recur across searches and are ranked twice)."""
    if ":" not in content:  # no "Name:" line and no "Organizer:": nobody it names
        return frozenset()
    from ..graph.extract import statements

    raw = [who for who, _ in statements(content)]
    raw += [who for m in _ORGANIZER.finditer(content) for who in _names(m["who"])]
    return frozenset(k for k in (_key(n) for n in raw) if k)


def named(query: str, known: Iterable[str]) -> frozenset[str]:
    """The participants of `known` that `query` names: the full name, or its first word
    (a first name) when that is a word of the query ("Caroline's" names "caroline")."""
    q = {w.split("'")[0] for w in words(query)}
    q_text = f" {' '.join(words(query))} "
    out = set()
    for p in known:
        first = p.split(" ", 1)[0]
        if f" {p} " in q_text or first in q:
            out.add(p)
    return frozenset(out)


def boost(
    ranked: Sequence[tuple[str, float, dict[str, float]]],
    memories: Mapping[str, Memory],
    query: str,
    shift: float,
    people: MutableMapping[str, frozenset[str]] | None = None,
) -> list[tuple[str, float, dict[str, float]]]:
    """Memories by a participant the query names gain `shift` (scores higher-is-better);
    the list is re-sorted. Unchanged when the query names none of the candidates' people.
    `people` caches `participants` per memory id (a search that ranks twice reads each once)."""
    if shift <= 0 or not ranked:
        return list(ranked)
    cache: MutableMapping[str, frozenset[str]] = {} if people is None else people
    by = {}
    for i, _, _ in ranked:
        if i in memories:
            if i not in cache:
                cache[i] = participants(memories[i])
            by[i] = cache[i]
    asked = named(query, set().union(*by.values()) if by else ())
    if not asked:
        return list(ranked)
    out = []
    for i, s, e in ranked:
        hit = bool(by.get(i, frozenset()) & asked)
        out.append((i, s + shift if hit else s, {**e, "participant_match": 1.0 if hit else 0.0}))
    out.sort(key=lambda r: (-r[1], r[0]))
    return out
