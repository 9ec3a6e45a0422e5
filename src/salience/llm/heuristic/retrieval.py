"""Heuristic retrieval helpers: query rewriting, lexical re-ranking, usefulness."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise

from .entities import find_entities
from .lexicon import STOPWORDS, SYNONYMS
from .text import content_terms, expand, is_content_word, normalize_space, stem, term_set, words

#: Share of a memory's content terms that must reappear in a response for it to count as used.
USEFUL_OVERLAP = 0.3
#: A memory also counts as used when this many of its content terms reappear, whatever the share.
USEFUL_MIN_SHARED = 4
#: Weight of the incoming order when re-ranking (candidates usually arrive already ranked).
RERANK_PRIOR = 0.3

_S = r"(?P<s>i|we|you|he|she|they|my \w+|our \w+|[\w']+)"
_QUESTION_FORMS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, re.IGNORECASE), r)
    for p, r in (
        (r"^(?:what|who) (?:is|are|was) (?P<x>(?:my|our|the|[\w]+'s) .+)$", r"\g<x> is"),
        (
            r"^where (?:do|does|did) "
            + _S
            + r" (?P<v>live|work|study|stay|go|grow up|come from)(?P<r>.*)$",
            r"\g<s> \g<v>\g<r> in",
        ),
        (r"^where (?:is|are|was) (?P<x>.+)$", r"\g<x> is in"),
        (r"^when (?:is|are|was) (?P<x>.+)$", r"\g<x> is on"),
        (r"^when (?:do|does|did|will) " + _S + r" (?P<r>.+)$", r"\g<s> \g<r> on"),
        (r"^how old (?:is|am|are) (?P<x>.+)$", r"\g<x> is years old"),
        (r"^how many (?P<n>\w+) (?:do|does|did) " + _S + r" (?P<r>.+)$", r"\g<s> \g<r> \g<n>"),
        (
            r"^what (?:did|have) (?P<s>we|i|they) (?:decide|agree|choose)(?:d)? (?:on|about|for)? ?(?P<r>.*)$",
            r"\g<s> decided \g<r>",
        ),
        (
            r"^what (?:do|does|did) "
            + _S
            + r" (?P<v>like|love|enjoy|prefer|eat|drink|play|do)(?P<r>.*)$",
            r"\g<s> \g<v>\g<r>",
        ),
        (r"^which (?P<n>[\w ]+?) (?:do|does|did) " + _S + r" (?P<r>.+)$", r"\g<s> \g<r> \g<n>"),
        (r"^(?:do|does|did|have|has|can|will) " + _S + r" (?P<r>.+)$", r"\g<s> \g<r>"),
        (r"^(?:is|are|was|were) (?P<x>\w+(?: \w+)?) (?P<r>.+)$", r"\g<x> is \g<r>"),
        (r"^(?:can you )?(?:tell me|remind me|what do you know) (?:about|of) (?P<x>.+)$", r"\g<x>"),
        (
            r"^(?:who|what|where|when|why|how|which) (?:is|are|was|were|do|does|did) (?P<x>.+)$",
            r"\g<x>",
        ),
    )
)


def _question_to_statement(query: str) -> str | None:
    q = normalize_space(expand(query)).rstrip("?!. ").strip()
    for pattern, repl in _QUESTION_FORMS:
        m = pattern.match(q)
        if m:
            return normalize_space(m.expand(repl))
    return None


def _keywords(query: str) -> list[str]:
    seen: list[str] = []
    for w in words(query):
        lw = w.lower().replace("’", "'")
        if lw.endswith("'s"):
            lw = lw[:-2]
        if is_content_word(lw) and lw not in seen:
            seen.append(lw)
    return seen


def _synonym_variant(keywords: list[str]) -> str | None:
    out = list(keywords)
    changed = False
    for kw in keywords:
        for syn in SYNONYMS.get(kw, ())[:2]:
            if syn not in out:
                out.append(syn)
                changed = True
    return " ".join(out) if changed else None


def _entity_variant(entities: list[str], keywords: list[str]) -> str | None:
    if not entities:
        return None
    parts: dict[str, str] = {}
    for p in [*entities, *keywords[:3]]:
        parts.setdefault(p.lower(), p)
    return " ".join(parts.values())


def rewrite_query(query: str, n: int = 3) -> list[str]:
    """Up to `n` distinct variations of `query`: a statement form of a question, the keywords,
    the keywords with synonyms, then entity and stem forms as fallbacks."""
    keywords = _keywords(query)
    entities = [e.text for e in find_entities(query) if e.kind not in ("url", "email")]
    candidates = [
        _question_to_statement(query),
        " ".join(keywords) if keywords else None,
        _synonym_variant(keywords),
        _entity_variant(entities, keywords),
        " ".join(dict.fromkeys(stem(k) for k in keywords)) if keywords else None,
        f"about {' '.join(keywords)}" if keywords else None,
    ]
    original = normalize_space(query).lower().rstrip("?!. ")
    out: list[str] = []
    seen = {original}
    for c in candidates:
        if not c:
            continue
        key = normalize_space(c).lower().rstrip("?!. ")
        if key and key not in seen:
            seen.add(key)
            out.append(normalize_space(c))
        if len(out) >= n:
            break
    return out


def _expanded_terms(query: str) -> set[str]:
    terms = term_set(query)
    for w in words(query):
        for syn in SYNONYMS.get(w.lower(), ()):
            terms.add(stem(syn))
    return terms


def rerank(query: str, candidates: Sequence[str]) -> list[int]:
    """Candidates ordered by BM25-style overlap with the query (synonyms included), entity and
    phrase matches, blended with their incoming order (weight `RERANK_PRIOR`)."""
    n = len(candidates)
    if n <= 1:
        return list(range(n))
    q_terms = _expanded_terms(query)
    q_seq = content_terms(query)
    q_bigrams = set(pairwise(q_seq))
    q_entities = {e.text.lower() for e in find_entities(query)}
    docs = [content_terms(c) for c in candidates]
    df: Counter[str] = Counter(t for d in docs for t in set(d))
    avg_len = sum(len(d) for d in docs) / n or 1.0
    raw: list[float] = []
    for text, doc in zip(candidates, docs, strict=True):
        tf = Counter(doc)
        score = 0.0
        for t in q_terms & tf.keys():
            idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            f = tf[t]
            score += idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * len(doc) / avg_len))
        bigrams = set(pairwise(doc))
        score += 0.5 * len(q_bigrams & bigrams)
        low = text.lower()
        score += sum(1.0 for e in q_entities if e in low)
        raw.append(score)
    top = max(raw) or 1.0
    final = [(1 - RERANK_PRIOR) * r / top + RERANK_PRIOR * (1 - i / n) for i, r in enumerate(raw)]
    return sorted(range(n), key=lambda i: (-final[i], i))


def is_useful(response: str, memory: str) -> bool:
    """YES when the response reuses the memory: a distinctive name or number from it, or enough
    of its content terms (share ≥ `USEFUL_OVERLAP` with at least 2 terms, or ≥ `USEFUL_MIN_SHARED`)."""
    m_terms = term_set(memory)
    r_terms = term_set(response)
    if not m_terms or not r_terms:
        return False
    shared = m_terms & r_terms
    if len(shared) >= USEFUL_MIN_SHARED:
        return True
    if len(shared) >= 2 and len(shared) / len(m_terms) >= USEFUL_OVERLAP:
        return True
    r_low = response.lower()
    for e in find_entities(memory):
        key = e.text.lower()
        distinctive = e.kind in ("person", "place", "org", "name", "email", "url", "money")
        if distinctive and len(key) > 2 and key not in STOPWORDS and _mentions(r_low, key):
            return True
    numbers = {w for w in words(memory) if any(ch.isdigit() for ch in w) and len(w) >= 2}
    return any(_mentions(r_low, num.lower()) for num in numbers)


def _mentions(text: str, phrase: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", text) is not None
