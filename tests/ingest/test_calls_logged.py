"""Every model call of every call site lands in `ai_interactions` (issue 16): the mind's one
brain, built by `salience.wiring.MindServices` with its recorder, serves ingestion, recall and
the cognitive engine — with the heuristic brain and with a real HTTP model server."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from fake_llm import FakeLLMServer, completion, valid_answer
from ingest_helpers import TopicEmbedder

from salience.clock import FrozenClock
from salience.config import Config
from salience.llm.heuristic import HeuristicBrain
from salience.mind import Mind

T0 = datetime(2026, 2, 1, 9, 0, tzinfo=UTC)
COGNITIVE = {"consolidation", "episode_synthesis", "reflection"}
EVERY_LAYER = {"reflection_every": 3, "reflection_min_group": 3}  # a reflection on a small mind
#: schema-valid answers of the call sites `valid_answer` does not cover
ANSWERS = {
    "ConsolidationAnswer": {
        "profile": "Has a dog called Rex.",
        "attributes": [{"name": "pet", "value": "dog Rex", "memories": [1]}],
        "traits": [],
    },
    "EpisodeAnswer": {"title": "Walks with Rex", "summary": "The user walked the dog Rex."},
    "ReflectionAnswer": {"patterns": ["Walks the dog every morning."]},
    "RewriteAnswer": {"variations": ["the dog Rex"]},
}


def _live(mind: Mind, clock: FrozenClock) -> None:
    """Ingest, recall and a cognitive run: every path that asks the brain something."""
    for i in range(6):
        clock.advance(minutes=1)
        mind.remember_turn(f"I walked my dog Rex in the park, morning {i}.", "Nice!", defer=False)
    mind.add("I live in Lisbon.", salience=9.0)  # something to consolidate into a profile
    mind.search("where do I walk my dog?", limit=3)
    clock.advance(hours=3)
    report = mind.cognitive_run()
    assert report.reason == "explicit"


def _logged(mind: Mind) -> Counter[str]:
    return Counter(r["call_site"] for r in mind.store.interactions(limit=10_000))


def test_heuristic_brain_every_call_logged(tmp_path, monkeypatch) -> None:
    calls: Counter[str] = Counter()
    run = HeuristicBrain._run

    def counting(self, call_site, prompt_chars, fn):  # type: ignore[no-untyped-def]
        calls[str(call_site)] += 1
        return run(self, call_site, prompt_chars, fn)

    monkeypatch.setattr(HeuristicBrain, "_run", counting)
    clock = FrozenClock(T0)
    cfg = Config(home=tmp_path / "home", embedder="hash", llm="heuristic", **EVERY_LAYER)
    with Mind.open("h", config=cfg, clock=clock, embedder=TopicEmbedder()) as mind:
        _live(mind, clock)
        assert set(calls) >= COGNITIVE, calls  # the cognitive call sites ran ...
        assert _logged(mind) == calls  # ... and every call of every site is in the log


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    s = FakeLLMServer()

    def answer(schema: str, prompt: str, n: int) -> tuple[int, object, dict[str, str]]:
        body = ANSWERS.get(schema) or valid_answer(schema, prompt)
        return 200, completion(json.dumps(body)), {}

    s.responder = answer
    s.start()
    try:
        yield s
    finally:
        s.stop()


def test_model_server_every_request_logged(tmp_path, server: FakeLLMServer) -> None:
    clock = FrozenClock(T0)
    cfg = Config(
        home=tmp_path / "home", embedder="hash", llm="openai", llm_base_url=server.url,
        llm_model="fake", llm_max_retries=0, **EVERY_LAYER,
    )
    with Mind.open("o", config=cfg, clock=clock, embedder=TopicEmbedder()) as mind:
        _live(mind, clock)
        logged = _logged(mind)
        assert COGNITIVE & set(logged), logged
        assert sum(logged.values()) == server.requests  # one row per request, none missed
        rows = mind.store.interactions(limit=10_000)
        assert {r["provider"] for r in rows} == {"openai"}


def test_a_given_brain_factory_gets_the_recorder(tmp_path) -> None:
    clock = FrozenClock(T0)
    cfg = Config(home=tmp_path / "home", embedder="hash")
    made: list[HeuristicBrain] = []

    def factory(on_call):  # type: ignore[no-untyped-def]
        made.append(HeuristicBrain(on_call=on_call, clock=clock))
        return made[-1]

    with Mind.open("f", config=cfg, clock=clock, embedder=TopicEmbedder(), brain=factory) as m:
        assert m.brain is made[0] and m.cognitive.brain is made[0]
        m.remember_turn("I walked my dog Rex.", defer=False)
        assert _logged(m)["triage"] >= 1
    assert len(made) == 1  # one brain for every service


class ClosingEmbedder(TopicEmbedder):
    """The topic embedder, counting `close()` calls."""

    closed = 0

    def close(self) -> None:
        type(self).closed += 1


def test_close_releases_what_the_mind_built(tmp_path, server: FakeLLMServer, monkeypatch) -> None:
    import salience.embed

    monkeypatch.setattr(salience.embed, "make_embedder", lambda *a, **k: ClosingEmbedder())
    cfg = Config(
        home=tmp_path / "home", embedder="hash", llm="openai", llm_base_url=server.url,
        llm_model="fake", llm_max_retries=0,
    )
    mind = Mind.open("c", config=cfg, clock=FrozenClock(T0))
    mind.remember_turn("I walked my dog Rex.", defer=False)  # opens the HTTP client
    mind.prefetch(["hi"], "where is Rex?", budget_s=5.0)  # starts the recall thread pool
    client, recall = mind.brain.llm, mind._recall()
    assert client._client is not None and recall._executor is not None
    mind.close()
    assert client._client is None  # the LLM client's connection pool
    assert recall._executor is None  # the recall thread pool
    assert ClosingEmbedder.closed == 1  # the embedder the mind loaded
    mind.close()  # idempotent
    assert ClosingEmbedder.closed == 1
