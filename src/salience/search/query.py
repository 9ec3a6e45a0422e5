"""Turning user text into literal search terms (stop words stripped, design B §7.2)."""

from __future__ import annotations

import re

from ..models.text import STOP_WORDS, words


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
