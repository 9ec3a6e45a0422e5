"""Heuristic triage: salience by design A's rubric, memory type, tags, entities, summary."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...models import MemoryType
from ..brain import Triage
from .entities import Entity, find_entities
from .lexicon import TOPICS
from .mail import (
    EMAIL_AUTOMATED_RE,
    EMAIL_CODE_RE,
    EMAIL_PROMO_RE,
    EMAIL_TRANSACTIONAL_RE,
    ICS_RE,
    parse_email,
    parse_ics,
)
from .rules import (
    CLOSE_RE,
    GREETING_RE,
    HYPOTHETICAL_RE,
    NOISE_PHRASES,
    RULES,
    SELF_RE,
    THANKS_RE,
    TIME_RE,
    Rule,
    moving_score,
)
from .text import content_terms, normalize_space, split_sentences, split_speaker, trim, words

SUMMARY_CHARS = 240
_ASSISTANT_SPEAKERS = frozenset({"assistant", "ai", "bot", "system", "agent", "gpt", "claude"})
INVERSION_RE = re.compile(
    r"\b(?:should|can|could|do|did|would|will|shall|may|must|am|have|where|what|how)\s+(?:i|we)\b"
    r"(?!\s*(?:'m|am|'ve|have|was|were)\b)",
    re.IGNORECASE,
)


@dataclass(slots=True)
class SentenceScore:
    """The verdict on one sentence."""

    text: str
    score: int
    mtype: MemoryType | None = None
    tags: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    noise: bool = False
    band: str = ""


def is_noise(sentence: str) -> bool:
    """Greetings, thanks, acknowledgements and small talk, with at most one content word left."""
    rest = NOISE_PHRASES.sub(" ", sentence)
    return len(content_terms(rest)) <= 1


def _subject_scores(rule: Rule, sentence: str) -> tuple[int, str]:
    assert rule.scores is not None
    if SELF_RE.search(sentence):
        return rule.scores[0], "self"
    if CLOSE_RE.search(sentence):
        return rule.scores[1], "close"
    return rule.scores[2], "other"


def _weighty(sentence: str, assistant: bool) -> bool:
    """A short sentence is still worth keeping when a critical or identity rule fires
    ("I'm pregnant!")."""
    for rule in RULES:
        if rule.band == "temporal" or (assistant and rule.first_person):
            continue
        if rule.pattern.search(sentence) and not (rule.unless and rule.unless.search(sentence)):
            return True
    return False


def score_sentence(sentence: str, *, assistant: bool = False) -> SentenceScore:
    """Score one sentence by the rubric. Assistant sentences skip first-person rules (the "I"
    is the assistant) and are capped at 6: an unverified model statement is not identity."""
    if is_noise(sentence) and not _weighty(sentence, assistant):
        score = 1 if (GREETING_RE.search(sentence) or THANKS_RE.search(sentence)) else 2
        return SentenceScore(sentence, score, tags=["small-talk"], reasons=["noise"], noise=True)
    best = SentenceScore(sentence, 0)
    hypothetical = bool(HYPOTHETICAL_RE.search(sentence))
    inverted = bool(INVERSION_RE.search(sentence))
    for rule in RULES:
        if (assistant or inverted) and rule.first_person:
            continue
        if not rule.pattern.search(sentence) or (rule.unless and rule.unless.search(sentence)):
            continue
        score, why = rule.score, rule.name
        if rule.scores is not None:
            score, subject = _subject_scores(rule, sentence)
            why = f"{rule.name}:{subject}"
        if hypothetical and rule.band in ("critical", "identity"):
            score, why = max(4, score - 4), why + ":hypothetical"
        _merge(best, score, rule.mtype, rule.tags, why, rule.band)
    moved = moving_score(sentence)
    if moved is not None and not assistant:
        score, why = moved
        if hypothetical:
            score = max(4, score - 4)
        _merge(
            best,
            score,
            MemoryType.FACT,
            ("home", "life-event") if score >= 9 else ("home",),
            why[0],
            "critical" if score >= 9 else "identity",
        )
    if best.score == 0:
        best.score = 3 if len(content_terms(sentence)) >= 3 else 2
        best.reasons.append("informative" if best.score == 3 else "minor")
    if sentence.rstrip().endswith("?") and best.band not in ("critical",):
        best.score = max(2, best.score - 1)
        best.reasons.append("question")
    if assistant:
        best.score = min(best.score, 6)
    return best


def _merge(
    best: SentenceScore, score: int, mtype: MemoryType, tags: tuple[str, ...], why: str, band: str
) -> None:
    if score > best.score:
        best.score, best.mtype, best.band = score, mtype, band
        best.tags = list(tags) + [t for t in best.tags if t not in tags]
    else:
        best.tags.extend(t for t in tags if t not in best.tags)
    best.reasons.append(why)


def segments(text: str) -> list[tuple[str, bool]]:
    """(sentence, spoken_by_assistant) pairs of a text that may be a transcript."""
    out: list[tuple[str, bool]] = []
    assistant = False
    for sentence in split_sentences(text):
        speaker, rest = split_speaker(sentence)
        if speaker is not None:
            assistant = speaker.lower() in _ASSISTANT_SPEAKERS
            sentence = rest
        if sentence.strip():
            out.append((sentence.strip(), assistant))
    return out


def summarize(
    scored: list[SentenceScore], *, subject: str = "", max_chars: int = SUMMARY_CHARS
) -> str:
    """Extractive summary: informative sentences in order; when they do not fit, the most
    salient sentence first. Noise is dropped unless nothing else is left."""
    useful = [s for s in scored if not s.noise] or scored
    seen: set[str] = set()
    useful = [s for s in useful if not (s.text.lower() in seen or seen.add(s.text.lower()))]
    if not useful:
        return trim(subject, max_chars)
    joined = normalize_space(" ".join(s.text for s in useful))
    prefix = f"{subject} — " if subject else ""
    if len(prefix) + len(joined) <= max_chars:
        return prefix + joined
    top = max(useful, key=lambda s: s.score)  # the earliest of the best (max is stable)
    rest = [s for s in useful if s is not top]
    text = top.text
    for s in rest:
        if len(prefix) + len(text) + 1 + len(s.text) > max_chars:
            break
        text += " " + s.text
    return trim(prefix + text, max_chars)


def topic_tags(text: str) -> list[str]:
    """Topic tags (food, travel, health, ...) whose vocabulary appears in `text`."""
    lowered = {w.lower() for w in words(text)}
    return [tag for tag, vocab in TOPICS.items() if lowered & vocab]


def triage(text: str, *, kind: str = "conversation") -> Triage:
    """Triage `text` by the rubric; see `salience.llm.brain.Triage`."""
    subject = ""
    sender = ""
    body = text
    is_email = kind == "email"
    is_calendar = kind == "calendar" or bool(ICS_RE.search(text))
    if is_calendar and ICS_RE.search(text):
        body = parse_ics(text)
    else:
        headers, parsed_body = parse_email(text)
        if "subject" in headers and ("from" in headers or is_email):
            is_email = True
            subject, body = headers["subject"], parsed_body or headers["subject"]
            sender = headers.get("from", "")
    scored = [score_sentence(s, assistant=a) for s, a in segments(body)]
    if subject:
        scored.insert(0, score_sentence(subject))
        scored[0].noise = True  # the subject heads the summary instead
    if not scored:
        scored = [SentenceScore(normalize_space(text)[:200], 1, noise=True, reasons=["empty"])]
    entities: list[Entity] = find_entities(f"{subject}\n{body}\n{sender}" if subject else body)
    best = max(scored, key=lambda s: s.score)
    salience = best.score
    reasons = [r for s in scored for r in s.reasons]
    tags = [t for s in sorted(scored, key=lambda s: -s.score) for t in s.tags]

    informative = [s for s in scored if not s.noise]
    dated = any(e.kind == "date" for e in entities) or bool(TIME_RE.search(body))
    if best.band == "temporal" and dated and salience < 6:
        salience += 1
        reasons.append("dated")
    if best.band == "identity" and salience < 8:
        identity_rules = {r for s in informative for r in s.reasons if s.band == "identity"}
        speakers = {split_speaker(line)[0] for line in body.splitlines()} - {None}
        named = [
            e for e in entities if e.kind in ("person", "place", "org") and e.text not in speakers
        ]
        if len(identity_rules) >= 2 or named:
            salience += 1
            reasons.append("specific-identity")
    if not best.band and informative and salience < 4:
        named = [e for e in entities if e.kind not in ("url", "handle")]
        if len(named) >= 2 or any(e.kind in ("date", "money") for e in entities):
            salience += 1
            reasons.append("specific")

    save = salience >= 3
    if is_email:
        full = f"{subject}\n{body}"
        if EMAIL_CODE_RE.search(full):
            salience, save = 1, False
            reasons.append("one-time-code")
            tags.insert(0, "notification")
        elif EMAIL_PROMO_RE.search(full) and salience < 7:
            salience, save = min(salience, 2), False
            reasons.append("promotion")
            tags.insert(0, "newsletter")
        elif EMAIL_AUTOMATED_RE.search(full):
            if salience < 5:
                salience, save = min(salience, 2), False
                reasons.append("automated")
                tags.insert(0, "newsletter")
            else:
                salience -= 1
                reasons.append("automated-but-relevant")
        elif EMAIL_TRANSACTIONAL_RE.search(full):
            salience = 3 if salience < 5 else salience
            save = True
            reasons.append("transactional")
            tags.insert(0, "purchase")
        else:
            save = True
    if is_calendar:
        salience, save = max(salience, 4), True

    if is_email:
        mtype = MemoryType.EMAIL
    elif is_calendar:
        mtype = MemoryType.CALENDAR
    elif best.mtype is not None:
        mtype = best.mtype
    elif informative and (
        any(e.kind != "url" for e in entities) or any(ch.isdigit() for ch in body)
    ):
        mtype = MemoryType.FACT
    else:
        mtype = MemoryType.GENERAL

    kind_tags = ["email"] if is_email else ["calendar"] if is_calendar else []
    all_tags: list[str] = []
    for t in [*kind_tags, *tags, *topic_tags(body)]:
        if t not in all_tags and not (t == "small-talk" and informative):
            all_tags.append(t)
    return Triage(
        salience=max(1, min(10, salience)),
        summary=summarize(scored, subject=subject),
        memory_type=mtype,
        tags=all_tags[:8],
        entities=[e.text for e in entities[:20]],
        save=save,
        reasons=reasons,
    )


def fact_salience(sentence: str) -> int:
    """The salience one sentence would get on its own (used by distillation)."""
    return score_sentence(sentence).score


__all__ = [
    "SentenceScore",
    "fact_salience",
    "is_noise",
    "score_sentence",
    "segments",
    "summarize",
    "triage",
]
