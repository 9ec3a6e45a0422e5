"""Heuristic contradiction detection: CONTRADICTS or COMPATIBLE, by comparing claims.

Both texts are turned into claims (`salience.llm.heuristic.claims`). Two claims conflict when
they share subject and attribute and:

- exclusive attribute, both affirmed, different values ("I live in Berlin" / "I moved to
  Lisbon"); values where one contains the other ("Berlin" / "Berlin, Germany") agree;
- the same value affirmed and negated ("I work at Google" / "I left Google");
- a polar statement with the opposite polarity ("I love sushi" / "I don't like sushi");
- a numeric template with other numbers ("I have 2 kids" / "I have 3 kids").

Generic "X is Y" values only conflict when both are names, dates, numbers, roles ("a
doctor") or colours: "my boss is nice" and "my boss is demanding" are compatible.
"""

from __future__ import annotations

from collections.abc import Sequence

from .claims import Claim, claims


def _same_value(a: str, b: str) -> bool:
    if a == b:
        return True
    sa, sb = set(a.split()), set(b.split())
    return bool(sa and sb) and (sa <= sb or sb <= sa)


def conflict(a: Claim, b: Claim) -> bool:
    """Whether two claims cannot both be true."""
    if a.subject != b.subject or a.attribute != b.attribute:
        return False
    if a.attribute == "polar":
        return a.value == b.value and a.negated != b.negated
    if a.attribute == "num":
        return a.value == b.value and a.numbers != b.numbers
    same = _same_value(a.value, b.value)
    if a.negated != b.negated:
        return same
    if a.negated or same:
        return False
    if a.attribute.startswith("is:"):
        if a.category != b.category:
            return False
        return a.category in {"name", "date", "number", "role", "colour"}
    return True


def contradicts(new: str, candidates: Sequence[str]) -> list[int]:
    """Positions of `candidates` that `new` contradicts."""
    new_claims = claims(new)
    if not new_claims:
        return []
    hits: list[int] = []
    for i, candidate in enumerate(candidates):
        old_claims = claims(candidate)
        if any(conflict(a, b) for a in new_claims for b in old_claims):
            hits.append(i)
    return hits
