"""Heuristic distillation and episode synthesis (extractive, deterministic)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from ..brain import Episode, Fact
from .entities import DATE_RE, find_entities
from .lexicon import STOPWORDS
from .text import (
    content_terms,
    is_content_word,
    normalize_space,
    split_sentences,
    stem,
    trim,
    words,
)
from .triage import is_noise, score_sentence, segments

if TYPE_CHECKING:
    from ...models import Memory

#: Sentences scoring below this are not facts (3 = informative but unremarkable).
DISTILL_MIN_SALIENCE = 3
EPISODE_SENTENCES = 3
EPISODE_SUMMARY_CHARS = 700
_GENERIC_WORDS = frozenset(
    [
        "said",
        "told",
        "asked",
        "think",
        "know",
        "got",
        "get",
        "went",
        "go",
        "going",
        "make",
        "made",
        "want",
        "need",
        "today",
        "yesterday",
        "tomorrow",
        "time",
        "good",
        "great",
        "new",
        "really",
        "also",
        "user",
        "assistant",
    ]
)


def memory_time(m: Memory) -> datetime | None:
    """When a memory happened: `occurred_at`, else `created_at`."""
    return m.occurred_at or m.created_at


def chronological(memories: Sequence[Memory]) -> list[Memory]:
    """Memories sorted by `memory_time`; undated ones keep their order, after the dated ones."""
    indexed = list(enumerate(memories))
    dated = sorted(
        ((i, m) for i, m in indexed if memory_time(m) is not None),
        key=lambda p: (memory_time(p[1]), p[0]),
    )
    undated = [(i, m) for i, m in indexed if memory_time(m) is None]
    return [m for _, m in dated + undated]


def distill(text: str) -> list[Fact]:
    """Fact-bearing sentences of an archived context slide, each with its own salience.

    Greetings, small talk and questions are dropped; a sentence is kept when it scores at
    least `DISTILL_MIN_SALIENCE` and is a statement with a subject or a concrete detail.
    Sentences the assistant said are prefixed with "Assistant: " (they are unverified).
    """
    facts: list[Fact] = []
    seen: set[str] = set()
    for sentence, assistant in segments(text):
        sentence = normalize_space(sentence)
        if sentence.endswith("?") or is_noise(sentence):
            continue
        scored = score_sentence(sentence, assistant=assistant)
        if scored.score < DISTILL_MIN_SALIENCE:
            continue
        if scored.score == DISTILL_MIN_SALIENCE and not (
            find_entities(sentence) or any(ch.isdigit() for ch in sentence)
        ):
            continue
        if assistant and scored.score < 5:
            continue  # the assistant's own chatter, not a fact about the world or the user
        fact = f"Assistant: {sentence}" if assistant else sentence
        key = fact.lower().rstrip(".!")
        if key in seen:
            continue
        seen.add(key)
        facts.append(Fact(text=fact, salience=scored.score))
    return facts


def _display_forms(texts: Sequence[str]) -> dict[str, str]:
    """stem -> its most frequent surface form (lower case)."""
    forms: dict[str, Counter[str]] = {}
    for text in texts:
        for w in words(text):
            lw = w.lower()
            if is_content_word(lw):
                forms.setdefault(stem(lw), Counter())[lw] += 1
    return {s: c.most_common(1)[0][0] for s, c in forms.items()}


def top_entities(memories: Sequence[Memory], limit: int = 10) -> list[tuple[str, int]]:
    """Entities by the number of memories mentioning them (stored entities, else extracted)."""
    counts: Counter[str] = Counter()
    display: dict[str, str] = {}
    order: dict[str, int] = {}
    for m in memories:
        names = m.entities or [e.text for e in find_entities(m.text) if e.kind != "url"]
        for name in {n.lower(): n for n in names}.values():
            key = name.lower()
            counts[key] += 1
            display.setdefault(key, name)
            order.setdefault(key, len(order))
    ranked = sorted(counts, key=lambda k: (-counts[k], order[k]))
    return [(display[k], counts[k]) for k in ranked[:limit]]


def top_keywords(
    texts: Sequence[str], *, exclude: set[str] | None = None, limit: int = 5
) -> list[tuple[str, int]]:
    """Content words by document frequency (display form, count), excluding entity words."""
    exclude = exclude or set()
    df: Counter[str] = Counter()
    first: dict[str, int] = {}
    for text in texts:
        for t in dict.fromkeys(content_terms(text)):
            if t.isdigit() or t in exclude or t in _GENERIC_WORDS or len(t) < 3:
                continue
            df[t] += 1
            first.setdefault(t, len(first))
    forms = _display_forms(texts)
    ranked = sorted(df, key=lambda t: (-df[t], first[t]))
    return [(forms.get(t, t), df[t]) for t in ranked[:limit]]


def _date_span(memories: Sequence[Memory]) -> str:
    times = [t for t in (memory_time(m) for m in memories) if t is not None]
    if not times:
        return ""
    a, b = min(times).date(), max(times).date()
    return f"({a.isoformat()})" if a == b else f"({a.isoformat()} to {b.isoformat()})"


def synthesize_episode(memories: Sequence[Memory]) -> Episode:
    """An extractive episode: the title names the top entities and keywords, the summary is
    the most central sentences (most shared vocabulary with the rest) in time order."""
    ordered = chronological(memories)
    texts = [m.text for m in ordered]
    entities = top_entities(ordered)
    entity_words = {stem(w) for name, _ in entities for w in words(name)}
    keywords = top_keywords(texts, exclude=entity_words, limit=3)

    sentences: list[tuple[int, int, str, set[str]]] = []  # (memory index, position, text, terms)
    for mi, text in enumerate(texts):
        for si, sentence in enumerate(split_sentences(text)):
            if is_noise(sentence):
                continue
            terms = set(content_terms(sentence)) - STOPWORDS
            if terms:
                sentences.append((mi, si, sentence, terms))
    scored: list[tuple[float, int]] = []
    for idx, (mi, _, _, terms) in enumerate(sentences):
        centrality = sum(
            len(terms & other) / len(terms | other)
            for j, (mj, _, _, other) in enumerate(sentences)
            if j != idx and mj != mi
        )
        specificity = 0.1 * len(terms & entity_words)
        scored.append((centrality + specificity, idx))
    chosen = sorted(
        idx for _, idx in sorted(scored, key=lambda p: (-p[0], p[1]))[:EPISODE_SENTENCES]
    )
    body = " ".join(sentences[i][2] for i in chosen) or normalize_space(" ".join(texts))
    span = _date_span(ordered)
    summary = trim(f"{span} {body}".strip(), EPISODE_SUMMARY_CHARS)

    names = [name for name, _ in entities if not DATE_RE.fullmatch(name)][:2]
    shared = [k for k, c in keywords if c >= 2]
    kws = (shared if names else [k for k, _ in keywords])[: 3 - len(names) if names else 3]
    if names and kws:
        title = f"{' & '.join(names)}: {', '.join(kws)}"
    elif names:
        title = " & ".join(names)
    elif kws:
        title = "Episode: " + ", ".join(kws)
    else:
        title = trim(texts[0] if texts else "Episode", 60)
    return Episode(title=trim(title, 80), summary=summary, entities=[n for n, _ in entities])
