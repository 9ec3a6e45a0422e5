"""Heuristic identity consolidation: a profile from high-salience facts and preferences."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..brain import IdentityProfile
from .claims import Claim, claims
from .lexicon import RELATIONS
from .synthesis import chronological
from .text import expand, split_sentences

if TYPE_CHECKING:
    from ...models import Memory

MAX_TRAITS = 8
_REL = "|".join(sorted(RELATIONS, key=len, reverse=True))
_LIKE_RE = re.compile(
    r"\b(?:i|we)\s+(?:really\s+|absolutely\s+|also\s+|still\s+)*(?:love|like|enjoy|adore)\s+"
    r"(?P<obj>[^,.;!?]+)",
    re.I,
)
_DISLIKE_RE = re.compile(
    r"\b(?:i|we)\s+(?:really\s+|also\s+|still\s+)*(?:hate|dislike|detest|can not stand|do not like|"
    r"do not enjoy|no longer like)\s+(?P<obj>[^,.;!?]+)",
    re.I,
)
_RELATIVE_RE = re.compile(rf"\bmy\s+(?P<rel>{_REL})(?:,)?\s+(?P<name>[A-Z][a-z]+)\b")
_HEALTH_RE = re.compile(
    r"\ballergic to [^,.;!?]+|\b(?:lactose|gluten) intolerant\b|\btype \d diabetes\b|\bdiabetes\b|"
    r"\basthma\b|\bmigraines\b|\bc[o]?eliac(?: disease)?\b|\bepilepsy\b|\badhd\b|\binsomnia\b",
    re.I,
)
_LANG_RE = re.compile(r"\bI speak (?P<langs>[A-Z][a-z]+(?:(?:,\s*|\s+and\s+)[A-Z][a-z]+)*)")
_OBJ_STOP = re.compile(
    r"\s+(?:but|because|since|when|although|though|so|(?:and|or) (?:i|we|my|it|he|she|they))\b.*$",
    re.I,
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
_ATTR_ORDER = (
    "name",
    "age",
    "residence",
    "employer",
    "occupation",
    "relationship status",
    "diet",
    "languages",
    "health",
    "likes",
    "dislikes",
)
_LABELS = {
    "name": "Name",
    "age": "Age",
    "residence": "Lives in",
    "employer": "Works at",
    "occupation": "Occupation",
    "relationship status": "Relationship status",
    "diet": "Diet",
    "languages": "Speaks",
    "health": "Health",
    "likes": "Likes",
    "dislikes": "Dislikes",
}
_CLAIM_ATTRS = {
    "residence": "residence",
    "employer": "employer",
    "job": "occupation",
    "name": "name",
    "age": "age",
    "status": "relationship status",
    "diet": "diet",
}


def _object(raw: str) -> str:
    obj = _OBJ_STOP.sub("", raw).strip().lower()
    obj = re.sub(r"\s+(?:anymore|any more|a lot|so much|very much|now)$", "", obj)
    return " ".join(obj.split()[:5])


def _apply_claim(attrs: dict[str, str], c: Claim) -> None:
    if c.attribute.startswith("favourite "):
        if c.subject == "user" and not c.negated:
            attrs[c.attribute] = c.value
        return
    if c.attribute == "name" and c.subject != "user":
        if not c.negated:
            attrs[f"{c.subject}'s name"] = c.value.title()
        return
    key = _CLAIM_ATTRS.get(c.attribute)
    if key is None or c.subject != "user":
        return
    if c.negated:
        if attrs.get(key, "").lower() == c.value.lower():
            del attrs[key]
        return
    value = c.value.title() if key in ("residence", "employer", "name") else c.value
    attrs[key] = value


def _add_item(items: list[str], item: str) -> None:
    if item and item not in items:
        items.append(item)


def consolidate(
    memories: Sequence[Memory], previous: IdentityProfile | None = None
) -> IdentityProfile:
    """Merge the claims of `memories` (later ones win) into `previous`' attributes; derive
    traits from topic frequencies; render a readable profile."""
    attrs: dict[str, str] = dict(previous.attributes) if previous else {}
    likes = [s.strip() for s in attrs.pop("likes", "").split(";") if s.strip()]
    dislikes = [s.strip() for s in attrs.pop("dislikes", "").split(";") if s.strip()]
    health = [s.strip() for s in attrs.pop("health", "").split(";") if s.strip()]
    languages = [s.strip() for s in attrs.pop("languages", "").split(",") if s.strip()]
    ordered = chronological(memories)
    tag_counts: Counter[str] = Counter()
    for m in ordered:
        tag_counts.update(set(m.tags))
        for c in claims(m.text):
            _apply_claim(attrs, c)
        for sentence in split_sentences(m.text):
            if sentence.rstrip().endswith("?"):
                continue
            text = expand(sentence)
            for lm in _LIKE_RE.finditer(text):
                obj = _object(lm.group("obj"))
                if obj:
                    _add_item(likes, obj)
                    if obj in dislikes:
                        dislikes.remove(obj)
            for dm in _DISLIKE_RE.finditer(text):
                obj = _object(dm.group("obj"))
                if obj:
                    _add_item(dislikes, obj)
                    if obj in likes:
                        likes.remove(obj)
            for rm in _RELATIVE_RE.finditer(sentence):
                attrs[rm.group("rel").lower()] = rm.group("name")
            for hm in _HEALTH_RE.finditer(sentence):
                _add_item(health, _object(hm.group(0)))
            for lang in _LANG_RE.finditer(sentence):
                for name in re.split(r",\s*|\s+and\s+", lang.group("langs")):
                    _add_item(languages, name)
    if likes:
        attrs["likes"] = "; ".join(likes[-12:])
    if dislikes:
        attrs["dislikes"] = "; ".join(dislikes[-12:])
    if health:
        attrs["health"] = "; ".join(health)
    if languages:
        attrs["languages"] = ", ".join(languages)
    traits = _traits(tag_counts, len(ordered), attrs, previous)
    return IdentityProfile(profile=_render(attrs, traits), attributes=attrs, traits=traits)


def _traits(
    tags: Counter[str], n: int, attrs: dict[str, str], previous: IdentityProfile | None
) -> list[str]:
    out: list[str] = []
    threshold = max(2, round(0.15 * n))
    for tag, trait in sorted(_TAG_TRAITS, key=lambda p: -tags[p[0]]):
        if tags[tag] >= threshold:
            out.append(trait)
    if attrs.get("diet") in ("vegetarian", "vegan", "pescatarian"):
        out.append(attrs["diet"])
    if len(attrs.get("languages", "").split(",")) >= 2:
        out.append("multilingual")
    for t in previous.traits if previous else []:
        if t not in out:
            out.append(t)
    return out[:MAX_TRAITS]


def _render(attrs: dict[str, str], traits: list[str]) -> str:
    lines: list[str] = []
    for key in _ATTR_ORDER:
        if key in attrs:
            lines.append(f"{_LABELS[key]}: {attrs[key]}.")
    family = [f"{k} {v}" for k, v in attrs.items() if k in RELATIONS]
    if family:
        lines.append("Family and people: " + ", ".join(family) + ".")
    named = [f"{k} is {v}" for k, v in attrs.items() if k.endswith("'s name")]
    if named:
        lines.append("Names: " + ", ".join(named) + ".")
    favourites = [
        f"{k[len('favourite ') :]}: {v}" for k, v in attrs.items() if k.startswith("favourite ")
    ]
    if favourites:
        lines.append("Favourites: " + ", ".join(favourites) + ".")
    if traits:
        lines.append("Traits: " + ", ".join(traits) + ".")
    return "\n".join(lines) if lines else "No identity facts recorded yet."
