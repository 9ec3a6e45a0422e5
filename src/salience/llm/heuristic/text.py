"""Text primitives of the heuristic engine: sentences, words, stems, content terms."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ...models.text import stem
from .lexicon import STOPWORDS

WORD_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_SPEAKER_RE = re.compile(
    r"^\s*(?:\[[^\]]{0,40}\]\s*)?(?P<speaker>[A-Za-z][\w .'-]{0,30}?)\s*:\s+(?=\S)"
)
_BOUNDARY_RE = re.compile(r"([.!?…]+)([\"')\]]*)\s+")
_ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "st",
        "jr",
        "sr",
        "vs",
        "etc",
        "e.g",
        "i.e",
        "eg",
        "ie",
        "inc",
        "ltd",
        "co",
        "corp",
        "no",
        "approx",
        "dept",
        "fig",
        "mt",
        "u.s",
        "a.m",
        "p.m",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "ave",
        "rd",
    ]
)
_CONTRACTIONS = (
    (re.compile(r"\bcan'?t\b|\bcannot\b", re.I), "can not"),
    (re.compile(r"\bwon'?t\b", re.I), "will not"),
    (re.compile(r"\b(\w+)n't\b", re.I), r"\1 not"),
    (re.compile(r"\bi'?m\b", re.I), "i am"),
    (re.compile(r"\b(we|you|they)'re\b", re.I), r"\1 are"),
    (re.compile(r"\b(i|we|you|they)'ve\b", re.I), r"\1 have"),
    (re.compile(r"\b(i|we|you|they|he|she)'ll\b", re.I), r"\1 will"),
    (re.compile(r"\b(it|he|she|that|what|there|who)'s\b", re.I), r"\1 is"),
)
_BULLET_RE = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")


def normalize_space(text: str) -> str:
    """Collapse all whitespace runs to single spaces and trim."""
    return " ".join(text.split())


def split_speaker(line: str) -> tuple[str | None, str]:
    """Split a transcript line "Name: text" into (name, text); (None, line) otherwise.

    Only short speaker labels count, so "Note: buy milk" is read as speaker "Note"; callers
    treat unknown speakers as the user.
    """
    m = _SPEAKER_RE.match(line)
    if not m or len(m.group("speaker").split()) > 3:
        return None, line
    return m.group("speaker").strip(), line[m.end() :]


def _units(text: str) -> list[str]:
    """Paragraph-like units: blank lines, bullets and speaker lines start a new unit."""
    units: list[str] = []
    current: list[str] = []
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw.strip()
        if not line:
            if current:
                units.append(" ".join(current))
                current = []
            continue
        starts_new = bool(_BULLET_RE.match(line)) or split_speaker(line)[0] is not None
        if starts_new and current:
            units.append(" ".join(current))
            current = []
        current.append(_BULLET_RE.sub("", line))
    if current:
        units.append(" ".join(current))
    return units


def split_sentences(text: str) -> list[str]:
    """Split text into sentences (abbreviation- and initial-aware); whitespace normalised."""
    out: list[str] = []
    for unit in _units(text):
        unit = normalize_space(unit)
        start = 0
        for m in _BOUNDARY_RE.finditer(unit):
            end = m.end()
            before = unit[start : m.start()].split()
            last = before[-1].lower().rstrip(".") if before else ""
            nxt = unit[end : end + 1]
            if m.group(1) == "." and (
                last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha())
            ):
                continue
            if (
                m.group(1) == "."
                and nxt
                and not (nxt.isupper() or nxt.isdigit() or nxt in "\"'(¿¡@#")
                and not (nxt.islower() and len(last) >= 3 and last.isalpha())
            ):  # "3 p.m. tomorrow" goes on; "which is fine. ok so" (typed in lower case) ends
                continue
            sentence = unit[start:end].strip()
            if sentence:
                out.append(sentence)
            start = end
        tail = unit[start:].strip()
        if tail:
            out.append(tail)
    return out


def words(text: str) -> list[str]:
    """Word tokens with original case (apostrophes kept inside words)."""
    return WORD_RE.findall(text.replace("’", "'"))


def is_content_word(word: str) -> bool:
    """Not a stop word, and either a number or at least two characters long."""
    w = word.lower()
    return w not in STOPWORDS and (w.isdigit() or len(w) > 1)


def content_terms(text: str) -> list[str]:
    """Stemmed content words of `text`, in order (duplicates kept)."""
    return [stem(w) for w in words(text) if is_content_word(w)]


def term_set(text: str) -> set[str]:
    """The set of stemmed content words of `text`."""
    return set(content_terms(text))


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    """Jaccard similarity of two term collections (0 when both are empty)."""
    sa, sb = set(a), set(b)
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / len(sa | sb)


def trim(text: str, max_chars: int) -> str:
    """Cut `text` at a word boundary to at most `max_chars` characters, adding "…" when cut."""
    text = normalize_space(text)
    if len(text) <= max_chars:
        return text
    cut = text[: max_chars - 1]
    if " " in cut[max_chars // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:-") + "…"


def expand(text: str) -> str:
    """Expand English contractions ("don't" → "do not", "I'm" → "i am")."""
    text = text.replace("’", "'")
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    return text
