"""Token budgeting for prompt sections.

Counting is a documented approximation, not a tokenizer: `approx_tokens(text) =
ceil(chars / 4)` — the usual ≈ 4 characters per token of English BPE vocabularies; it
over-counts slightly for plain English and under-counts for CJK text. It is cheap, needs no
model, and is deterministic, which is what a budget needs. Pure functions only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

CHARS_PER_TOKEN = 4
ELLIPSIS = "…"


def approx_tokens(text: str) -> int:
    """≈ tokens in `text`: ceil(len / 4)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def truncate(text: str, budget_tokens: int) -> str:
    """`text` cut to fit `budget_tokens` (ending with "…" when cut); "" for a budget ≤ 0."""
    if budget_tokens <= 0:
        return ""
    limit = budget_tokens * CHARS_PER_TOKEN
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(ELLIPSIS))].rstrip() + ELLIPSIS


def fit_lines(lines: Iterable[str], budget_tokens: int, *, sep: str = "\n") -> str:
    """Join `lines` in order while the result fits `budget_tokens`; a line that does not fit is
    truncated when at least a few tokens remain, and nothing after it is kept."""
    out: list[str] = []
    used = 0
    for line in lines:
        extra = len(line) + (len(sep) if out else 0)
        if used + extra <= budget_tokens * CHARS_PER_TOKEN:
            out.append(line)
            used += extra
            continue
        remaining = budget_tokens - math.ceil((used + (len(sep) if out else 0)) / CHARS_PER_TOKEN)
        if remaining >= 4:
            out.append(truncate(line, remaining))
        break
    return sep.join(out)
