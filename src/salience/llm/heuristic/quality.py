"""Heuristic quality scoring: specificity, uniqueness, confidence (design A's subagent scores)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ..brain import Quality
from .entities import find_entities
from .lexicon import CERTAINTY, HEDGES, VAGUE
from .rules import TIME_RE
from .text import content_terms, normalize_space, term_set, words


def _phrase_re(phrases: frozenset[str]) -> re.Pattern[str]:
    alternatives = sorted((re.escape(p) for p in phrases), key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b", re.IGNORECASE)


_HEDGE_RE = _phrase_re(HEDGES)
_CERTAIN_RE = _phrase_re(CERTAINTY)
_NUMBER_RE = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?(?![\w])")


def specificity(text: str) -> float:
    """How concrete `text` is: names, dates and times, numbers, exact identifiers, in [0, 1].

    Each concrete signal raises the score with diminishing returns (1 − e^(−0.6·signals));
    a longer informative text adds up to 0.15; vague words ("something", "stuff") subtract.
    """
    entities = find_entities(text)
    named = sum(e.kind in ("person", "place", "org", "name", "handle") for e in entities)
    dates = sum(e.kind == "date" for e in entities) + len(TIME_RE.findall(text))
    exact = sum(e.kind in ("email", "url", "money") for e in entities)
    entity_text = " ".join(e.text for e in entities)
    numbers = max(0, len(_NUMBER_RE.findall(text)) - len(_NUMBER_RE.findall(entity_text)))
    signals = 1.0 * named + 0.8 * dates + 0.6 * numbers + 1.0 * exact
    terms = content_terms(text)
    vague = sum(w.lower() in VAGUE for w in words(text))
    score = 1 - math.exp(-0.6 * signals) + 0.15 * min(1.0, len(terms) / 10) - 0.1 * vague
    return round(max(0.0, min(1.0, score)), 3)


def uniqueness(text: str, existing: Sequence[str]) -> float:
    """How new `text` is against `existing` texts, in [0, 1]; 1.0 when there is nothing to
    compare with, 0.0 for a duplicate.

    0.6 × (1 − highest Jaccard overlap of content terms with any existing text)
    + 0.4 × mean rarity of its terms (1 − the share of existing texts containing each term).
    """
    if not existing:
        return 1.0
    terms = term_set(text)
    if not terms:
        return 0.0
    norm = normalize_space(text).lower()
    others = [term_set(e) for e in existing]
    if any(normalize_space(e).lower() == norm for e in existing):
        return 0.0
    best = 0.0
    for other in others:
        if other:
            best = max(best, len(terms & other) / len(terms | other))
    n = len(others)
    rarity = sum(1 - sum(t in o for o in others) / n for t in terms) / len(terms)
    return round(max(0.0, min(1.0, 0.6 * (1 - best) + 0.4 * rarity)), 3)


def confidence(text: str) -> float:
    """How sure the statement sounds, in [0.05, 1]: 0.8, −0.15 per hedge ("maybe", "I think"),
    +0.1 per certainty marker ("definitely", "confirmed"), −0.2 for a question."""
    score = 0.8
    score -= 0.15 * min(4, len(_HEDGE_RE.findall(text)))
    score += 0.1 * min(2, len(_CERTAIN_RE.findall(text)))
    if text.strip().endswith("?"):
        score -= 0.2
    return round(max(0.05, min(1.0, score)), 3)


def quality(text: str, existing: Sequence[str] = ()) -> Quality:
    """All quality scores of `text` at once."""
    return Quality(
        specificity=specificity(text),
        uniqueness=uniqueness(text, existing),
        confidence=confidence(text),
        entities=[e.text for e in find_entities(text)[:20]],
    )
