"""The retrieval paths end to end on a small real SQLite mind with the hash embedder."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from salience.clock import FrozenClock
from salience.config import Config
from salience.embed import HashEmbedder
from salience.errors import InvalidInput
from salience.mind import Mind
from salience.search.candidates import Deadline
from salience.search.config import preset_names
from salience.search.pipeline import trajectory

T0 = datetime(2024, 6, 1, tzinfo=UTC)
FACTS = [
    ("Caroline adopted a beagle named Rosie", T0 - timedelta(days=60)),
    ("Melanie painted a sunrise over the lake", T0 - timedelta(days=40)),
    ("The team decided to move the launch to Friday", T0 - timedelta(days=3)),
    ("Caroline started a pottery class in May", T0 - timedelta(days=20)),
    ("Jon is training for the Berlin marathon", T0 - timedelta(days=2)),
]


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(T0)


@pytest.fixture
def mind(config: Config, clock: FrozenClock) -> Iterator[Mind]:
    with Mind.open("recall", config=config, embedder=HashEmbedder(), clock=clock) as m:
        m.add_many(
            {
                "content": c,
                "occurred_at": when,
                "session_id": "s1",
                "t": i,
                "entities": ["Caroline"] if "Caroline" in c else [],
            }
            for i, (c, when) in enumerate(FACTS)
        )
        yield m


@pytest.mark.parametrize("preset", preset_names())
def test_every_preset_finds_the_fact(mind: Mind, preset: str) -> None:
    hits = mind.search("beagle named Rosie", preset=preset, feedback=False)
    assert hits and hits[0].memory.content.startswith("Caroline adopted")
    assert hits[0].mind == "recall" and "score" in hits[0].explanation


def test_search_records_feedback(mind: Mind, clock: FrozenClock) -> None:
    hits = mind.search("marathon training", limit=1)
    m = mind.get(hits[0].memory.id)
    assert m.retrieval_count == 1 and m.last_retrieved_at == clock.now()
    assert m.salience == pytest.approx(5.15)


def test_entity_candidates_and_hop(mind: Mind) -> None:
    hits = mind.search("what about caroline", preset="rrf-balanced", feedback=False)
    contents = [h.memory.content for h in hits]
    assert any("beagle" in c for c in contents) and any("pottery" in c for c in contents)


def test_time_aware_boost(mind: Mind) -> None:
    from dataclasses import replace

    from salience.search.config import get_preset

    cfg = replace(get_preset("rrf-balanced"), time_aware=True, time_boost=3.0)
    hits = mind._recall().search("what happened in May", preset=cfg, feedback=False)
    assert hits[0].explanation.get("time_match") == 1.0


def test_catch_up_route(mind: Mind) -> None:
    hits = mind.search("catch me up", feedback=False)
    assert hits[0].memory.content.startswith("The team decided")
    assert hits[0].explanation == {"catch_up": 1.0}


def test_invalid_inputs(mind: Mind) -> None:
    with pytest.raises(InvalidInput):
        mind.search("   ")
    with pytest.raises(InvalidInput):
        mind.search("x", preset="nope")


def test_prefetch_and_heartbeat(mind: Mind) -> None:
    hits = mind.prefetch(["I love dogs", "tell me about pets"], "Rosie the beagle")
    assert len(hits) <= 3 and hits[0].memory.content.startswith("Caroline adopted")
    assert mind.heartbeat_prefetch("prepare for the Berlin marathon")[0].memory.content.startswith(
        "Jon"
    )


def test_trajectory_keeps_last_three() -> None:
    assert trajectory(["a", "b", "c", "d"], "now") == "b\nc\nd\nnow"


class SlowEmbedder(HashEmbedder):
    """Blocks query embedding until released: a stage that overruns the budget."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        self.release.wait(30)
        return super().embed_queries(texts)


def test_prefetch_budget_returns_what_it_has(config: Config, clock: FrozenClock) -> None:
    emb = SlowEmbedder()
    with Mind.open("slow", config=config, embedder=emb, clock=clock) as m:
        m.add_many([c for c, _ in FACTS])
        hits = m.prefetch([], "beagle Rosie", budget_s=0.2)
        assert not emb.release.is_set()  # returned while the vector stage was still blocked
        emb.release.set()
    assert hits and hits[0].memory.content.startswith("Caroline adopted")
    assert "vector_rank" not in hits[0].explanation and "text_rank" in hits[0].explanation


def test_deadline_with_injected_clock() -> None:
    t = [0.0]
    dl = Deadline(2.0, monotonic=lambda: t[0])
    assert dl.remaining() == 2.0 and not dl.expired()
    t[0] = 2.5
    assert dl.expired() and dl.remaining() == 0.0
    assert Deadline(None).remaining() is None


def test_expired_deadline_skips_stages(mind: Mind) -> None:
    from salience.search.candidates import QuerySpec, gather

    got = gather(
        mind.store,
        [QuerySpec("", "beagle", "beagle", 10)],
        sources=("text", "vector"),
        embed=mind.embedder.embed_queries,
        deadline=Deadline(0.0),
    )
    assert got.lists == {} and "text" in got.skipped and "vector" in got.skipped


def test_mark_and_evaluate_usefulness(mind: Mind) -> None:
    hits = mind.search("beagle Rosie", limit=2, feedback=False)
    first = hits[0].memory.id
    mind.mark_useful([first], True)
    assert mind.get(first).usefulness == pytest.approx(0.55)
    verdicts = mind.evaluate_usefulness("Rosie, Caroline's beagle, was adopted recently", hits)
    assert verdicts[first] is True
    assert mind.get(first).usefulness == pytest.approx(0.595)


def test_recall_over_two_minds(config: Config, clock: FrozenClock, mind: Mind) -> None:
    with Mind.open("workspace", config=config, embedder=HashEmbedder(), clock=clock) as ws:
        ws.add("Rosie the beagle needs a vet visit on Monday")
        hits = mind.recall("beagle Rosie vet", others=[ws], limit=5)
    assert {h.mind for h in hits} == {"recall", "workspace"}
    assert {h.mind for h in hits[:2]} == {"recall", "workspace"}  # both top hits, attributed


class FakeLLMBrain:
    """A brain that claims to be an LLM: reverses rankings, rewrites deterministically."""

    def __init__(self) -> None:
        self.rewrites: list[str] = []

    def status(self) -> object:
        from types import SimpleNamespace

        return SimpleNamespace(heuristic=False)

    def rewrite_query(self, query: str, *, n: int = 3) -> list[str]:
        self.rewrites.append(query)
        return [f"{query} pottery", query, "marathon"][:n]

    def rerank(self, query: str, candidates: Sequence[str]) -> list[int]:
        return list(reversed(range(len(candidates))))

    def is_useful(self, response: str, memory: str) -> bool:
        return "beagle" in memory


def test_brain_rewrites_rerank_and_usefulness(mind: Mind) -> None:
    from salience.search.pipeline import Recall

    brain = FakeLLMBrain()
    rec = Recall(mind.store, clock=mind.clock, embed=mind.embedder.embed_queries, brain=brain)
    plain = mind.search("beagle Rosie", preset="formula", feedback=False, limit=5)
    hits = rec.search("beagle Rosie", preset="formula", feedback=False, limit=5)
    assert brain.rewrites == ["beagle Rosie"]
    assert any("text~1_rank" in h.explanation for h in hits)  # a rewrite's candidates
    assert hits[-1].explanation.get("rerank_position") == float(len(hits))
    assert plain[0].memory.id != hits[0].memory.id  # the reversed order was applied
    verdicts = rec.evaluate_usefulness("anything", plain[:2])
    assert verdicts[plain[0].memory.id] is True


def test_text_matches_without_evidence_are_not_candidates():
    from salience.models import Candidate
    from salience.search.candidates import informative

    cands = [Candidate("a", 1, 0.8), Candidate("b", 2, 0.0), Candidate("c", 3, 0.3)]
    assert [(c.id, c.rank) for c in informative(cands)] == [("a", 1), ("c", 2)]
