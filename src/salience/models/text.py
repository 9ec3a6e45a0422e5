"""Word tokens, stop words and the light suffix stemmer shared by the full-text index (the
store's `bm25`), the query parser (`search.query`) and the heuristic brain
(`llm.heuristic.text`): below all three, so the store tokenizes without importing search."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any, NamedTuple, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

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


def word_tokens(text: str) -> list[str]:
    """The word tokens of `text` as written (letters and digits; apostrophes inside words
    kept); `words` normalises each one."""
    return _WORD.findall(text)


def normal_word(token: str) -> str:
    """One token of `word_tokens` as `words` gives it: lower case, a typographic apostrophe
    made plain."""
    return token.lower().replace("’", "'")


def words(text: str) -> list[str]:
    """Lower-cased word tokens of `text` (letters and digits; apostrophes inside words kept)."""
    return [normal_word(w) for w in _WORD.findall(text)]


def stem(word: str) -> str:
    """A small, deterministic English suffix stripper (for matching, not for display)."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) <= 3 or w.isdigit():
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "i"
    if w.endswith("sses"):
        return w[:-2]
    if w.endswith("ing") and len(w) > 5:
        w = w[:-3]
        if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "lsz":
            w = w[:-1]
        return w
    if w.endswith("ed") and len(w) > 4:
        w = w[:-2]
        if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "lsz":
            w = w[:-1]
        return w
    if w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if w.endswith("e") and len(w) > 3 and not w.endswith("ee"):
        w = w[:-1]
    elif w.endswith("y") and len(w) > 3:
        w = w[:-1] + "i"
    return w


#: distinct words whose stem `cached_stem` keeps (words are short: ~2 MB at most)
WORD_STEM_CACHE = 16_384


@lru_cache(maxsize=WORD_STEM_CACHE)
def cached_stem(word: str) -> str:
    """`stem`, kept for the words seen most recently: a search stems the same words in every
    candidate it reads."""
    return stem(word)


#: texts longer than this are read again rather than cached: a process-wide cache of whole
#: texts is bounded in bytes, not only in entries (issue 17: a server's RSS grew with them)
TEXT_CACHE_MAX_CHARS = 2_000
#: and the texts one cache keeps total at most this many characters (issue 17: 16,384 texts of
#: 2,000 characters were 33 M characters in the claims cache alone; short texts never reach it:
#: 16,384 soak sentences or LoCoMo turns are 1-5 M)
TEXT_CACHE_BUDGET_CHARS = 4_000_000


class CacheInfo(NamedTuple):
    """`functools.lru_cache`'s statistics, plus the characters of the texts kept."""

    hits: int
    misses: int
    maxsize: int
    currsize: int
    chars: int


def text_cache(
    maxsize: int, max_chars: int = TEXT_CACHE_MAX_CHARS, budget_chars: int = TEXT_CACHE_BUDGET_CHARS
) -> Callable[[F], F]:
    """A least-recently-used cache (thread-safe) for a pure function of a text (its first
    argument) that keeps no text longer than `max_chars`, at most `maxsize` texts and at most
    `budget_chars` characters of texts in all."""
    import threading
    from collections import OrderedDict
    from functools import wraps

    def deco(fn: F) -> F:
        kept: OrderedDict[Any, tuple[Any, int]] = OrderedDict()  # key -> (value, chars)
        lock = threading.Lock()
        stats = {"hits": 0, "misses": 0, "chars": 0}

        @wraps(fn)
        def wrapper(text: str, *args: Any, **kwargs: Any) -> Any:
            n = len(text)
            if n > max_chars:
                return fn(text, *args, **kwargs)
            key = (text, args, tuple(kwargs.items())) if args or kwargs else text
            with lock:
                hit = kept.get(key)
                if hit is not None:
                    kept.move_to_end(key)
                    stats["hits"] += 1
                    return hit[0]
                stats["misses"] += 1
            value = fn(text, *args, **kwargs)
            with lock:
                if key not in kept:
                    kept[key] = (value, n)
                    stats["chars"] += n
                    while len(kept) > maxsize or stats["chars"] > budget_chars:
                        stats["chars"] -= kept.popitem(last=False)[1][1]
            return value

        def cache_info() -> CacheInfo:
            with lock:
                return CacheInfo(stats["hits"], stats["misses"], maxsize, len(kept), stats["chars"])

        def cache_clear() -> None:
            with lock:
                kept.clear()
                stats.update(hits=0, misses=0, chars=0)

        wrapper.cache_clear = cache_clear  # type: ignore[attr-defined]
        wrapper.cache_info = cache_info  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return deco
