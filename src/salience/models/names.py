"""The entity normaliser: raw mentions → canonical names, lookup keys and aliases.

Pure functions, shared by every backend's ingestion path and by the graph layer:

- `clean_name` — Unicode NFKC, whitespace collapsed, surrounding quotes and punctuation
  stripped: `"  Bob  "` → `"Bob"`.
- `entity_key` — the case-insensitive lookup key of a name: `"bob "` → `"bob"`.
- `parse_name` — simple canonical forms with an alias: `"Robert (Bob)"`, `'Robert "Bob" Smith'`,
  `"Robert aka Bob"` → canonical `Robert` / `Robert Smith` plus alias `Bob`.

Resolution (in the stores and `KnowledgeGraph.resolve`) matches a key against entity names first,
then against registered aliases, so "Bob", "bob " and "Robert (Bob)" land on one entity once the
alias is known — either registered explicitly (`graph.add_alias`) or learnt from a mention in
the `"Robert (Bob)"` form.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInput

_STRIP = " \t\r\n\"'“”‘’`.,;:!?"
_PAREN = re.compile(r"^(?P<name>[^()]+?)\s*\((?P<alias>[^()]+)\)\s*$")
_QUOTED = re.compile(r"^(?P<first>[^\"“”]+?)\s+[\"“](?P<alias>[^\"“”]+)[\"”]\s*(?P<rest>.*)$")
_AKA = re.compile(r"^(?P<name>.+?)\s+(?:aka|a\.k\.a\.?|alias|known as)\s+(?P<alias>.+)$", re.I)
_WORD = re.compile(r"[\w][\w'’.-]*", re.UNICODE)
MAX_NAME_CHARS = 200


@dataclass(frozen=True, slots=True)
class ParsedName:
    """A mention split into its canonical name and the aliases it spells out."""

    canonical: str
    aliases: tuple[str, ...] = ()

    @property
    def keys(self) -> tuple[str, ...]:
        """Lookup keys, canonical first."""
        return tuple(dict.fromkeys(entity_key(n) for n in (self.canonical, *self.aliases)))


def clean_name(raw: Any) -> str:
    """A display name: NFKC, single spaces, no surrounding quotes or punctuation."""
    if not isinstance(raw, str):
        raise InvalidInput(f"an entity name must be text, got {type(raw).__name__}")
    if "\x00" in raw:
        raise InvalidInput("an entity name contains a NUL character")
    s = " ".join(unicodedata.normalize("NFKC", raw).split()).strip(_STRIP)
    if len(s) > MAX_NAME_CHARS:
        raise InvalidInput(f"an entity name is longer than {MAX_NAME_CHARS} characters")
    return s


def entity_key(name: str) -> str:
    """The case- and whitespace-insensitive key names and aliases are matched by."""
    return clean_name(name).casefold()


def parse_name(raw: str) -> ParsedName:
    """Split `raw` into a canonical name and aliases (see the module docstring)."""
    text = " ".join(unicodedata.normalize("NFKC", str(raw)).split())
    for pattern in (_PAREN, _AKA):
        m = pattern.match(text)
        if m:
            name, alias = clean_name(m["name"]), clean_name(m["alias"])
            if name and alias:
                same = entity_key(name) == entity_key(alias)
                return ParsedName(name, () if same else (alias,))
    m = _QUOTED.match(text)
    if m:
        name = clean_name(f"{m['first']} {m['rest']}")
        alias = clean_name(m["alias"])
        if name and alias:
            return ParsedName(name, (alias,))
    return ParsedName(clean_name(text))


def mention_keys(text: str, max_words: int = 3) -> list[str]:
    """Every 1..`max_words`-word span of `text` as a lookup key, longest first, deduplicated:
    candidate entity mentions for anchoring a query in the graph."""
    words = [w.strip(_STRIP) for w in _WORD.findall(text)]
    words = [w for w in words if w]
    out: dict[str, None] = {}
    for n in range(min(max_words, len(words)), 0, -1):
        for i in range(len(words) - n + 1):
            key = " ".join(words[i : i + n]).casefold()
            if key:
                out[key] = None
    return list(out)
