"""Batched ingestion (issue 21 item 4) stores and supersedes exactly what one-by-one ingestion
does: the same generated mailbox, chat log and calendar (planted updates among everyday mail,
exact duplicates in the chat) imported into two real SQLite minds — one item per batch and
the default batch — and drained from the triage queue, then compared memory by memory."""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from salience.clock import FrozenClock
from salience.config import Config
from salience.embed import HashEmbedder
from salience.ingest import pipeline
from salience.mind import Mind
from salience.models import MemoryFilter

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `bench` lives at the repo root, beside src/
    sys.path.insert(0, str(ROOT))

from bench.import_supersession import SPAN_DAYS, START, generate  # noqa: E402

CLOCK_AT = START + timedelta(days=SPAN_DAYS + 10)  # after every generated item


def _state(mind: Mind) -> list[tuple[Any, ...]]:
    """Every memory (superseded ones included) as comparable fields, ids replaced by the
    content they name."""
    mems = mind.list(MemoryFilter(include_superseded=True), limit=10_000)
    text = {m.id: m.content for m in mems}
    return sorted(
        (m.content, m.memory_type.value, m.source.value, round(m.salience, 6),
         round(m.confidence, 6), m.importance.value, tuple(m.tags), tuple(m.entities),
         text.get(m.superseded_by) if m.superseded_by else None,
         text.get(m.parent_id) if m.parent_id else None)
        for m in mems
    )


def _events(mind: Mind) -> list[tuple[str, str]]:
    return sorted((e.kind, str(e.payload.get("text") or e.payload.get("new") or ""))
                  for e in mind.store.events(limit=10_000))


class Counting(HashEmbedder):
    """The hash embedder, recording how many passages each call embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []

    def embed_passages(self, texts):  # type: ignore[no-untyped-def]
        self.calls.append(len(texts))
        return super().embed_passages(texts)


def _import_all(home: Path, name: str, files: Any, emb: Counting) -> tuple[list, ...]:
    cfg = Config(home=home, embedder="hash")
    with Mind.open(name, config=cfg, embedder=emb, clock=FrozenClock(CLOCK_AT)) as m:
        reports = [m.import_mbox(files.mbox).to_dict(), m.import_chat(files.chat).to_dict(),
                   m.import_ics(files.ics).to_dict()]
        for r in reports:
            r.pop("source")
        calls = sorted(c["call_site"] for c in m.store.interactions(limit=100_000))
        return _state(m), _events(m), reports, calls


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Any:
    # 40 emails (3 planted updates), 40 chat exchanges (2 planted), 20 events (2 planted)
    return generate(tmp_path_factory.mktemp("sources"), size=0.01, seed=21)


def test_batched_import_stores_and_supersedes_what_one_by_one_does(
    files: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    emb = Counting()
    batched = _import_all(tmp_path / "b", "batched", files, emb)
    monkeypatch.setattr(pipeline, "BATCH_SIZE", 1)
    monkeypatch.setattr("salience.ingest.source.BATCH_SIZE", 1)
    one = Counting()
    single = _import_all(tmp_path / "s", "single", files, one)
    assert len(one.calls) >= sum(r["saved"] for r in single[2])
    state, events, reports, calls = batched
    assert calls == single[3] and len(calls) > 100  # every model call logged (in fewer writes)
    assert reports == single[2]
    # one embedding call per batch of 32: 40 emails, 40 chat lines, 20 events -> 2 + 2 + 1
    saved = sum(r["saved"] for r in reports)
    assert len(emb.calls) == 5 and sum(emb.calls) >= saved, emb.calls
    assert sum(1 for row in state if row[8] is not None) >= 3, "nothing was superseded"
    assert len(state) > 60
    assert state == single[0]
    assert events == single[1]


def test_batched_drain_matches_one_by_one(
    files: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deferred path (`remember_turn` → queue → drain) batches too: same memories,
    same supersessions, every queue item removed once."""
    turns = [
        ("I live in Lisbon and I work at Acme.", "Nice!"),
        ("What's a good pasta recipe?", "Try cacio e pepe."),
        ("I live in Lisbon and I work at Acme.", "Nice!"),  # an exact repeat in the batch
        ("My phone number is +47 555 12 345.", "Saved."),
        ("thanks", ""),
        ("I moved to Porto last week.", "Congratulations on the move!"),
        ("My new number is +47 555 99 000, the old one stops working Friday.", "Noted."),
        ("I left Acme and I started a new job at Globex.", "Good luck at Globex!"),
    ] * 2

    def run(home: Path) -> tuple[list, dict]:
        cfg = Config(home=home, embedder="hash")
        with Mind.open("q", config=cfg, embedder=HashEmbedder(),
                       clock=FrozenClock(CLOCK_AT)) as m:
            for u, a in turns:
                m.remember_turn(u, a)
            rep = m.drain_pending_triage(limit=1000).to_dict()
            assert m.queue_status()["pending_triage"] == 0
            return _state(m), rep

    batched = run(tmp_path / "b")
    monkeypatch.setattr(pipeline, "BATCH_SIZE", 1)
    monkeypatch.setattr("salience.ingest.queue.BATCH_SIZE", 1)
    single = run(tmp_path / "s")
    assert batched == single
    assert sum(1 for row in batched[0] if row[8] is not None) >= 2
    assert batched[1]["saved"] >= 4 and batched[1]["processed"] == len(turns)
