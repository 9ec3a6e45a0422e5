"""Turning user text into literal search terms (stop words stripped, design B §7.2)."""

from __future__ import annotations

import re

# A compact English stop-word list (design B strips ~60 words before OR-joining terms).
STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren't",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "let",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "don",
        "doesn",
        "didn",
        "isn",
        "wasn",
        "weren",
        "won",
        "wouldn",
        "shouldn",
        "couldn",
        "ll",
        "re",
        "ve",
        "d",
        "m",
        "o",
        "y",
        # modals and indefinite pronouns: as common in questions as any word above, and no
        # more telling ("Is there an antibiotic I must avoid?" matched "Must be good coffee
        # then!"); "may" stays (the month)
        "must",
        "mustn",
        "might",
        "shall",
        "ought",
        "anything",
        "something",
        "everything",
        "nothing",
        "anyone",
        "someone",
        "everyone",
        "anybody",
        "somebody",
        "everybody",
        "nobody",
    ]
)

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)


def words(text: str) -> list[str]:
    """Lower-cased word tokens of `text` (letters and digits; apostrophes inside words kept)."""
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


def query_terms(text: str) -> list[str]:
    """Distinct content words of a query, in order: the terms full-text search OR-joins."""
    out: list[str] = []
    seen: set[str] = set()
    for w in words(text):
        base = w.split("'")[0] if "'" in w else w
        if not base or base in STOP_WORDS or w in STOP_WORDS or base in seen:
            continue
        seen.add(base)
        out.append(base)
    return out


_ABOUT_AGENT = re.compile(
    r"\b(?:who|what) are you\b|\bwhat kind of \w+ are you\b|\bwhat should i call you\b"
    r"|\byour (?:own )?(?:name|role|personality|purpose|instructions|persona)\b"
    r"|\b(?:about|describe|introduce) yourself\b|\bwhat can you do\b",
    re.IGNORECASE,
)


def about_agent(query: str, agent_name: str | None = None) -> bool:
    """Whether `query` asks about the agent itself ("who are you?", "what's your name?",
    "tell me about yourself", or the agent's name as a word) rather than about what it
    remembers."""
    if _ABOUT_AGENT.search(query.replace("’", "'")):
        return True
    name = (agent_name or "").strip()
    return bool(name) and re.search(rf"\b{re.escape(name)}\b", query, re.IGNORECASE) is not None
