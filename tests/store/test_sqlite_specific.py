"""SQLite-only store behaviour (everything shared lives in the conformance suite)."""

from __future__ import annotations

from datetime import UTC, datetime

from salience.config import Config
from salience.models import Memory, validate_memory
from salience.store import open_store


def test_matches_on_non_informative_terms_are_not_candidates(config: Config):
    """A term in more than half of the rows has no IDF in FTS5 (clamped to 1e-6): rows that
    matched only such terms must not become "best" keyword matches."""
    store = open_store(config, "idf")
    t = datetime(2026, 1, 1, tzinfo=UTC)
    rows = [f"Maya: small talk number {i}" for i in range(8)] + ["Maya: allergic to penicillin"]
    store.insert([validate_memory(Memory(content=c, created_at=t, updated_at=t)) for c in rows])
    assert store.search_text(["maya"], limit=20) == []
    hits = store.search_text(["maya", "penicillin"], limit=20)
    assert [store.get(h.id).content for h in hits] == ["Maya: allergic to penicillin"]
    store.close()
