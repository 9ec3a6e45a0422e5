"""Pure decisions of the ingestion paths (design A): which path saves what, at what salience,
with what provenance; which neighbours are contradiction candidates; what a paradigm shift is;
how long a failed item waits. No I/O here — values in, values out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from ..models import Importance, Memory, MemoryType, Source

#: The four ingestion paths of design A, plus imported chat transcripts (conversation rules).
Path = Literal["conversation", "email", "calendar", "save_memory", "archive"]
PATHS: tuple[str, ...] = ("conversation", "email", "calendar", "save_memory", "archive")


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Design A's save thresholds; every value is a config field with the design's default."""

    grounded: float = 3.0  # conversation, tool-grounded exchange
    parametric: float = 5.0  # conversation, unverified model statements
    email: float = 1.0  # email and calendar, unless the model says save: false
    archive_raw: float = 3.0  # the fixed salience of a raw archived context slide
    distilled: float = 5.0  # facts distilled from an archived slide


def should_save(
    path: str,
    salience: float,
    *,
    tool_grounded: bool = False,
    model_save: bool = True,
    thresholds: Thresholds = Thresholds(),
) -> bool:
    """Whether a triaged item on `path` is saved (design A's ShouldSave closures).

    - conversation: salience >= 3 when tool-grounded, >= 5 when parametric (the model's
      own opinion `model_save` is advisory here: the thresholds decide);
    - email / calendar: salience >= 1 unless the model explicitly said save: false;
    - save_memory: always (no triage);
    - archive: distilled facts at >= 5 (the raw slide is always kept, at a fixed salience).
    """
    if path == "save_memory":
        return True
    if path == "conversation":
        limit = thresholds.grounded if tool_grounded else thresholds.parametric
        return salience >= limit
    if path in ("email", "calendar"):
        return model_save and salience >= thresholds.email
    if path == "archive":
        return salience >= thresholds.distilled
    raise ValueError(f"unknown ingestion path {path!r}; expected one of: {', '.join(PATHS)}")


#: a turn of at most this many words in which every sentence is small talk says nothing to keep
NOISE_MAX_WORDS = 8


def is_noise_turn(text: str, *, max_words: int = NOISE_MAX_WORDS) -> bool:
    """Whether what a person said is pure small talk ("lol ok", "thanks!", "sure, sounds
    good"): at most `max_words` words, no question, no claim about anything (the claims engine
    finds none) and every sentence a greeting, thanks or acknowledgement with at most one
    content word, or no content word at all. A short plain statement ("I have one cat.") is a
    fact, not noise; longer turns are never noise: a detector that misses one fact in a long
    turn would lose it."""
    from ..llm.heuristic.claims import claims
    from ..llm.heuristic.rules import NOISE_PHRASES
    from ..llm.heuristic.text import content_terms, split_sentences, words
    from ..llm.heuristic.triage import is_noise

    if len(words(text)) > max_words:
        return False
    sentences = [s for s in split_sentences(text) if s.strip()]
    for s in sentences:
        if s.rstrip().endswith("?") or not is_noise(s):
            return False
        if content_terms(s) and not NOISE_PHRASES.search(s):
            return False
    return not claims(text)


@dataclass(frozen=True, slots=True)
class Admission:
    """Whether a conversation turn is saved, why not, and whose words carried it."""

    save: bool
    reason: str | None = None  # "noise" or "below_threshold" when not saved
    user_stated: bool = False  # saved for what the person said (not the assistant's reply)


def admit_conversation(
    user_text: str,
    salience: float,
    *,
    tool_grounded: bool = False,
    thresholds: Thresholds = Thresholds(),
) -> Admission:
    """Admission of a conversation turn.

    What the person says is kept whatever its triaged salience (salience only sets its rank
    and importance) unless it is pure small talk (`is_noise_turn`). Design A's thresholds
    (tool-grounded >= 3, parametric >= 5) decide what the assistant's own reply may add when
    the person said nothing worth keeping: they exist to keep unverified model statements out,
    not the user's facts (deviation from design A, docs/architecture.md).
    """
    if user_text.strip() and not is_noise_turn(user_text):
        return Admission(True, user_stated=True)
    if should_save("conversation", salience, tool_grounded=tool_grounded, thresholds=thresholds):
        return Admission(True)
    return Admission(False, "noise" if user_text.strip() else "below_threshold")


def split_exchange(text: str) -> tuple[str, str]:
    """(person's words, assistant's words) of an exchange text "User: …\nAssistant: …"
    (the layout `remember_turn` and the chat importer write)."""
    head, sep, tail = text.partition("\nAssistant: ")
    if head.startswith("Assistant: ") and not sep:
        return "", head[len("Assistant: "):]
    _, colon, said = head.partition(": ")
    return (said if colon else head), tail


def quality_boost(salience: float, specificity: float, uniqueness: float) -> float:
    """Design A's quality boost: salience + (specificity+uniqueness)/2 · (1 − salience/10),
    clamped to [1, 10]."""
    boosted = salience + (specificity + uniqueness) / 2 * (1 - salience / 10)
    return clamp_salience(boosted)


def clamp_salience(value: float) -> float:
    """Salience kept inside the stored range [1, 10]."""
    return max(1.0, min(10.0, float(value)))


def importance_for(salience: float) -> Importance:
    """Design B's importance class from design A's rubric bands: 9–10 critical, 7–8 important,
    1–6 normal. `temporary` is design B's scratch class, set only on purpose (a caller's
    `importance="temporary"`): a low triage score is not a request to delete at 30 days
    (deviation, docs/architecture.md)."""
    if salience >= 9:
        return Importance.CRITICAL
    if salience >= 7:
        return Importance.IMPORTANT
    return Importance.NORMAL


def source_for(
    path: str, *, tool_grounded: bool = False, imported: bool = False, user_stated: bool = False
) -> Source:
    """Provenance (design B's source) of a memory saved on `path`: a conversation turn kept
    for what the person said is `user_stated`."""
    if imported or path in ("email", "calendar"):
        return Source.IMPORT
    if path == "conversation" and user_stated:
        return Source.USER_STATED
    if path == "conversation":
        return Source.TOOL_VERIFIED if tool_grounded else Source.AGENT_INFERRED
    if path == "archive":
        return Source.SYSTEM
    return Source.USER_STATED


def memory_type_for(path: str, triaged: MemoryType) -> MemoryType:
    """Emails are `email` and events `calendar` whatever the triage says; otherwise the
    triage's type."""
    if path == "email":
        return MemoryType.EMAIL
    if path == "calendar":
        return MemoryType.CALENDAR
    return triaged


def uses_quality(path: str) -> bool:
    """Quality scoring and the contradiction check run on triaged paths only (design A)."""
    return path in ("conversation", "email", "calendar")


def contradiction_candidates(
    scored: Sequence[tuple[str, float]], *, max_distance: float = 0.3, limit: int = 3
) -> list[str]:
    """Ids among `(id, cosine similarity)` neighbours (best first) that are close enough to be
    checked: the top `limit` with cosine distance (1 − similarity) < `max_distance`."""
    return [mid for mid, sim in scored[:limit] if 1.0 - sim < max_distance]


def is_paradigm_shift(old: Memory, *, min_salience: float = 7.0) -> bool:
    """Superseding this memory shifts the mind's picture of the person: an identity or
    preference memory (by type or tag) held at high salience."""
    identity_like = old.memory_type in (MemoryType.IDENTITY, MemoryType.PREFERENCE) or bool(
        {"identity", "preference"} & set(old.tags)
    )
    return identity_like and old.salience >= min_salience


def retry_delay(attempts: int, *, base_s: float = 60.0, cap_s: float = 6 * 3600) -> timedelta:
    """How long a failed queue item waits before its next attempt: base · 2^(attempts−1)."""
    n = max(1, attempts)
    return timedelta(seconds=min(cap_s, base_s * 2 ** (n - 1)))


def retention_cutoff(now: datetime, days: int) -> datetime:
    """ai_interactions rows created before this instant are purged."""
    return now - timedelta(days=days)


def thresholds_from(config: object) -> Thresholds:
    """The thresholds of a `Config` (falls back to design A's defaults for absent fields)."""
    d = Thresholds()
    return Thresholds(
        grounded=float(getattr(config, "triage_threshold_grounded", d.grounded)),
        parametric=float(getattr(config, "triage_threshold_parametric", d.parametric)),
        email=float(getattr(config, "triage_threshold_email", d.email)),
        archive_raw=float(getattr(config, "archive_raw_salience", d.archive_raw)),
        distilled=float(getattr(config, "distilled_fact_threshold", d.distilled)),
    )
