"""Heuristic contradiction detection: CONTRADICTS or COMPATIBLE, by comparing claims.

Both texts are turned into claims (`salience.llm.heuristic.claims`). Two claims conflict only
when they are about the same subject and the same attribute (slot) and:

- a one-value slot, both affirmed, different values ("I live in Berlin" / "Home is Lisbon
  now"); values where one contains the other ("Berlin" / "Berlin, Germany") agree;
- the same value affirmed and denied ("I work at Google" / "I left Google");
- a polar slot (likes, habits, owning, using, choosing) with the same value and the opposite
  polarity ("I love sushi" / "I don't like sushi anymore");
- a denial of any slot's value ("switched from vim to VS Code" denies "I use vim");
- a count, a rate or a numeric template with other numbers ("two kids" / "our third child").

Things are the same subject when their keys name the same thing ("budget draft" / "quarterly
budget draft"; "yoga" / "yoga class"), never "budget draft" / "design review". The same kind
of sentence about a thing recurs ("The deadline is 12 May", "It is 400 EUR", "The team sync is
at 10:00" in every such email), so claims about things (times, prices, budgets, places of
events and objects) conflict only when one of the statements announces a change ("was moved
to", "is now due", "instead", "a new date"). Generic "my X is Y" values conflict only when
both are names, dates, numbers, roles ("a doctor") or colours: "my boss is nice" and "my boss
is demanding" are compatible.
"""

from __future__ import annotations

from collections.abc import Sequence

from .claim_values import EXCLUSIVE_TOOL_KINDS
from .claims import HAVING, IMPLICIT_COUNT, POLAR, Claim, _subject_match, claims

#: slots whose value is a number: any other number conflicts
_NUMERIC = frozenset({"children", "sons", "daughters", "grandchildren", "age", "phone",
                      "household"})


def same_value(a: str, b: str) -> bool:
    """Values that agree: equal, or one's words contain the other's."""
    if a == b:
        return True
    sa, sb = set(a.replace("@", " @").split()), set(b.replace("@", " @").split())
    if "@" in a or "@" in b:  # qualified values ("coffee@after 6pm") only equal themselves
        return False
    return bool(sa and sb) and (sa <= sb or sb <= sa)


def same_subject(a: Claim, b: Claim) -> bool:
    """Whether two claims are about the same subject."""
    if a.subject == b.subject:
        return True
    if "thing" in (a.kind, b.kind):
        return _subject_match(a.subject, b.subject)
    if a.kind == b.kind == "person":  # "anna" / "anna berg"
        wa, wb = set(a.subject.split()), set(b.subject.split())
        return wa <= wb or wb <= wa
    return False


def _numeric(attr: str) -> bool:
    return attr in _NUMERIC or attr.startswith(("pets:", "rate:", "amount:")) or attr in {
        "price", "budget", "rent", "fee", "limit", "rate", "salary", "total", "cost"}


def _denies(wild: Claim, other: Claim) -> bool:
    """`wild` ("*", denied) against any affirmed claim on the same value."""
    if not wild.negated or other.negated or other.attribute in ("*", "*have"):
        return False
    if _numeric(other.attribute) or other.attribute in {"when", "num"}:
        return False
    return same_value(wild.value, other.value.split("@")[0])


def _same_generic(a: str, b: str) -> bool:
    """"is:credit limit" and "is:credit card limit" name one attribute (two words or more in
    common, the shorter one all inside the longer)."""
    if not (a.startswith("is:") and b.startswith("is:")):
        return False
    wa, wb = set(a[3:].split()), set(b[3:].split())
    short = wa if len(wa) <= len(wb) else wb
    return len(short) >= 2 and (wa <= wb or wb <= wa)


def _household_conflict(a: Claim, b: Claim) -> bool:
    """"two kids" / "a family of five now": a household is one or two parents and the
    children, so another size says the count of children changed (marked, both affirmed)."""
    kids, home = (a, b) if a.attribute == "children" else (b, a)
    if kids.negated or home.negated or not (a.marked or b.marked):
        return False
    if not (kids.value.isdigit() and home.value.isdigit()):
        return False
    return int(home.value) - int(kids.value) not in (1, 2)


def conflict(a: Claim, b: Claim) -> bool:
    """Whether two claims cannot both be true."""
    if not same_subject(a, b):
        return False
    if a.attribute in ("*", "*have") or b.attribute in ("*", "*have"):
        wild, other = (a, b) if a.attribute in ("*", "*have") else (b, a)
        if wild.attribute == "*have" and not (other.attribute in HAVING
                                              or other.attribute.startswith("tool:")):
            return False
        return _denies(wild, other)
    if a.attribute != b.attribute:
        pair = {a.attribute, b.attribute}
        if pair == {"like", "habit"}:  # "I no longer drink tea" / "I prefer tea"
            habit, like = (a, b) if a.attribute == "habit" else (b, a)
            return habit.negated and not like.negated and same_value(habit.value, like.value)
        if "children" in pair and pair & {"sons", "daughters"}:  # "no kids" / "a son now"
            kids, other = (a, b) if a.attribute == "children" else (b, a)
            return (kids.value == "0" and not kids.negated and not other.negated
                    and other.value not in ("", "0"))
        if pair == {"children", "household"}:
            return _household_conflict(a, b)
        if not (_same_generic(a.attribute, b.attribute)):
            return False
    if "thing" in (a.kind, b.kind) and not (a.marked or b.marked):
        return False
    if a.attribute in POLAR:
        return a.negated != b.negated and same_value(a.value, b.value)
    if a.attribute.startswith("tool:") and a.attribute[5:] not in EXCLUSIVE_TOOL_KINDS and not (
        a.marked or b.marked
    ):
        return a.negated != b.negated and a.value == b.value
    if a.attribute == "num":
        return a.value == b.value and a.numbers != b.numbers
    if a.attribute.startswith("rate:"):
        if a.category and b.category and a.category != b.category:
            return False
        return not a.negated and not b.negated and a.value != b.value
    same = a.value == b.value if _numeric(a.attribute) else same_value(a.value, b.value)
    if a.negated != b.negated:
        return same
    if a.negated or same:
        return False
    if a.attribute.startswith("is:"):
        if a.category != b.category:
            return False
        return a.category in {"name", "date", "number", "role", "colour"}
    return True


def conflicting(new_claims: Sequence[Claim], old_claims: Sequence[Claim]) -> list[tuple[Claim,
                                                                                         Claim]]:
    """Every (new, old) pair of claims that conflict."""
    return [(a, b) for a in new_claims for b in old_claims if conflict(a, b)]


def adds_one(new: Claim, old: Claim) -> bool:
    """Whether `new` raises a count that `old` said with an article ("we adopted a second cat"
    after "we have a cat called Miso"): the older statement is about the one it names, which
    is still true; only its count is stale. Ranking puts the newer first for "how many cats?"
    (`conflict` holds); a supersession would hide the older cat's name."""
    return (old.category == IMPLICIT_COUNT and _numeric(old.attribute)
            and new.attribute == old.attribute and not new.negated and not old.negated
            and new.value.isdigit() and old.value.isdigit() and int(new.value) > int(old.value))


def only_adds(text: str) -> bool:
    """Whether every sentence a person asserts in `text` adds to what was said ("i also keep a
    journal in obsidian", "got another cat": `discourse.ADDS_RE`) and announces no change
    ("Also finance came back and the budget is now 4,500" does): it replaces nothing."""
    from .discourse import ADDS_RE, announces_update, asserted

    said = asserted(text)
    return bool(said) and all(ADDS_RE.search(s) and not announces_update(s) for s in said)


def contradicts(new: str, candidates: Sequence[str]) -> list[int]:
    """Positions of `candidates` that `new` contradicts: a claim of each cannot both be true
    (`conflict`), unless the newer one only adds to a count the older said with an article
    (`adds_one`): then the older statement is outdated for ranking, not superseded. A
    statement that only adds to what was said (`only_adds`) contradicts nothing."""
    new_claims = claims(new)
    if not new_claims or only_adds(new):
        return []
    hits: list[int] = []
    for i, candidate in enumerate(candidates):
        old_claims = claims(candidate)
        if any(conflict(a, b) and not adds_one(a, b) for a in new_claims for b in old_claims):
            hits.append(i)
    return hits
