"""Split content into chunks of at most `max_bytes` UTF-8 bytes (design A's MaxChunkBytes).

Splits on paragraph and sentence boundaries first, then on whitespace, and only as a last resort
inside a word — but never inside a multi-byte character. Chunks are stripped of surrounding
whitespace; joining them with single spaces reproduces the text's words in order.
"""

from __future__ import annotations

import re
from collections import Counter

_SENTENCE_END = re.compile(r"(?<=[.!?。！？…])\s+|\n\s*\n+|\n")


def chunk_text(text: str, max_bytes: int = 1200) -> list[str]:
    """Chunks of `text`, each non-empty and at most `max_bytes` bytes when UTF-8 encoded."""
    if max_bytes < 8:
        raise ValueError("max_bytes must be at least 8")
    text = text.strip()
    if not text:
        return []
    if _size(text) <= max_bytes:
        return [text]
    chunks: list[str] = []
    current = ""
    for piece in _pieces(text, max_bytes):
        candidate = f"{current} {piece}" if current else piece
        if _size(candidate) <= max_bytes:
            current = candidate
        else:
            if current:
                chunks.append(current)
            current = piece
    if current:
        chunks.append(current)
    return chunks


def _size(s: str) -> int:
    return len(s.encode("utf-8"))


def _pieces(text: str, max_bytes: int) -> list[str]:
    """Sentences, with any sentence longer than `max_bytes` split into words / byte-safe parts."""
    out: list[str] = []
    for sentence in _SENTENCE_END.split(text):
        sentence = sentence.strip()
        if not sentence:
            continue
        if _size(sentence) <= max_bytes:
            out.append(sentence)
            continue
        for word in sentence.split():
            if _size(word) <= max_bytes:
                out.append(word)
            else:
                out.extend(_split_word(word, max_bytes))
    return out


def _split_word(word: str, max_bytes: int) -> list[str]:
    """Cut an over-long word into parts of at most `max_bytes` bytes on character boundaries."""
    parts: list[str] = []
    start = 0
    size = 0
    for i, ch in enumerate(word):
        n = len(ch.encode("utf-8"))
        if size + n > max_bytes:
            parts.append(word[start:i])
            start, size = i, 0
        size += n
    parts.append(word[start:])
    return parts


#: "Caroline: …" at the start of a line: who says that line (1-3 capitalised words); the
#: header fields of an e-mail or an event say nobody
_LABEL_RE = re.compile(r"^[ \t]*(?P<s>[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2}):[ \t]", re.MULTILINE)
_HEADERS = frozenset({
    "from", "to", "cc", "bcc", "subject", "date", "sent", "re", "fwd", "fw", "reply-to",
    "note", "notes", "summary", "location", "organizer", "organiser", "attendees", "when",
    "where", "description", "status", "title", "url", "link", "ps", "p.s", "tl;dr", "tldr",
    "update", "edit", "warning", "error", "todo", "note to self",
})


def chunk_message(text: str, max_bytes: int = 1200) -> list[str]:
    """`chunk_text`, where each chunk after the first that begins inside a speaker's line
    ("Caroline: …" — not an e-mail's or an event's header field) starts with that speaker's
    label, so the chunk still says who is speaking: a question naming the speaker finds it, and
    a participant's turns stay theirs. A speaker is the first line's, one labelling two lines
    or more, or the user or the assistant; a chunk inside a line labelled otherwise (a list
    heading, a key) gets no label. Room for the label is kept inside `max_bytes`."""
    text = text.strip()
    if _size(text) <= max_bytes:
        return chunk_text(text, max_bytes)
    lines = [(m.start(), m.group("s")) for m in _LABEL_RE.finditer(text)]
    said = Counter(s for _, s in lines)
    # a speaker: the first line's, one that speaks on two lines or more, or the user or the
    # assistant — not a list heading or a key that happens to start one line ("Groceries: …")
    speakers = {s for s in said if s.lower() not in _HEADERS and (
        said[s] > 1 or s.lower() in {"user", "assistant"}
        or (lines[0][0] == 0 and lines[0][1] == s))}
    labels = [(pos, s if s in speakers else None) for pos, s in lines]
    if not speakers:
        return chunk_text(text, max_bytes)
    reserve = max(_size(s) for s in speakers) + 2
    if max_bytes - reserve < 8:
        return chunk_text(text, max_bytes)
    chunks = chunk_text(text, max_bytes - reserve)
    # a chunk is its span's words joined by single spaces: the span is at least as long
    out, cursor = chunks[:1], len(chunks[0])
    for chunk in chunks[1:]:
        first = chunk.split(None, 1)[0]
        at = text.find(first, cursor)
        cursor = at + len(chunk) if at >= 0 else cursor
        line = [s for pos, s in labels if pos <= at] if at >= 0 else []
        starts_labelled = _LABEL_RE.match(chunk) is not None
        out.append(f"{line[-1]}: {chunk}" if line and line[-1] and not starts_labelled else chunk)
    return out
