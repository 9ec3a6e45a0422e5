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
    rows = [f"Maya: small talk number {i}" for i in range(20)] + ["Maya: allergic to penicillin"]
    store.insert([validate_memory(Memory(content=c, created_at=t, updated_at=t)) for c in rows])
    only_name = store.search_text(["maya"], limit=50)
    assert len(only_name) == len(rows) and all(h.score == 0.0 for h in only_name)
    hits = store.search_text(["maya", "penicillin"], limit=50)
    assert store.get(hits[0].id).content == "Maya: allergic to penicillin"
    assert hits[0].score > 0 and all(h.score == 0.0 for h in hits[1:])
    store.close()


def test_tiny_minds_keep_raw_text_scores(config: Config):
    store = open_store(config, "tiny")
    t = datetime(2026, 1, 1, tzinfo=UTC)
    store.insert([validate_memory(Memory(content="the dog barked", created_at=t, updated_at=t))])
    (hit,) = store.search_text(["dog"], limit=5)
    assert hit.score > 0
    store.close()
