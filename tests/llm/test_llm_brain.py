"""`LLMBrain` end to end over the fake OpenAI-compatible server, and `make_brain`."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime

import pytest
from fake_openai import FakeOpenAI

from salience.config import Config
from salience.errors import InvalidInput, LLMError
from salience.llm import (
    Brain,
    HeuristicBrain,
    IdentityProfile,
    InteractionRecord,
    LLMBrain,
    make_brain,
)
from salience.llm.llm_brain import map_ids
from salience.llm.openai import OpenAICompatibleLLM
from salience.llm.prompts import TRIAGE_GBNF
from salience.models import Memory, MemoryType


def llm_brain(fake: FakeOpenAI, sleeps, *, grammar: bool = False, **kw) -> LLMBrain:
    llm = OpenAICompatibleLLM(
        base_url=fake.url, model="m", grammar=grammar, sleep=sleeps, max_retries=1
    )
    return LLMBrain(llm, **kw)


def sent(fake: FakeOpenAI, i: int = -1) -> dict:
    return fake.requests[i].body


def test_triage_uses_the_grammar_and_maps_the_answer(fake: FakeOpenAI, sleeps) -> None:
    fake.reply_json(
        {
            "salience": 9,
            "summary": "The user is moving to Canada in August.",
            "memory_type": "FACT",
            "tags": ["Home", "home", " life-event "],
            "entities": ["Canada", "canada", "August"],
            "save": True,
        }
    )
    t = llm_brain(fake, sleeps, grammar=True).triage("We're moving to Canada in August.")
    assert (t.salience, t.memory_type, t.save) == (9, MemoryType.FACT, True)
    assert t.tags == ["home", "life-event"] and t.entities == ["Canada", "August"]
    body = sent(fake)
    assert body["grammar"] == TRIAGE_GBNF and "response_format" not in body
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert "<text>\nWe're moving to Canada in August.\n</text>" in body["messages"][-1]["content"]
    assert "9-10 critical and permanent" in body["messages"][-1]["content"]


def test_triage_of_an_email_is_an_email(fake: FakeOpenAI, sleeps) -> None:
    fake.reply_json(
        {
            "salience": 2,
            "summary": "A sale.",
            "memory_type": "general",
            "tags": [],
            "entities": [],
            "save": False,
        }
    )
    t = llm_brain(fake, sleeps).triage("Subject: Sale\n\n50% off", kind="email")
    assert t.memory_type == MemoryType.EMAIL and t.save is False
    assert sent(fake)["response_format"]["json_schema"]["name"] == "TriageAnswer"
    with pytest.raises(InvalidInput):
        llm_brain(fake, sleeps).triage("x", kind="fax")  # type: ignore[arg-type]


def test_contradiction_ids_map_back_to_positions(fake: FakeOpenAI, sleeps) -> None:
    fake.reply_json(
        {
            "verdicts": [
                {"id": 1, "verdict": "compatible"},
                {"id": 2, "verdict": "CONTRADICTS"},
                {"id": 9, "verdict": "CONTRADICTS"},  # not a candidate: ignored
            ]
        }
    )
    brain = llm_brain(fake, sleeps)
    assert brain.contradicts("I moved to Lisbon.", ["I love jazz.", "I live in Berlin."]) == [1]
    prompt = sent(fake)["messages"][-1]["content"]
    assert '<candidate id="1">I love jazz.</candidate>' in prompt
    assert '<candidate id="2">I live in Berlin.</candidate>' in prompt
    assert brain.contradicts("anything", []) == []
    assert len(fake.requests) == 1  # no call without candidates


def test_rerank_and_rewrite_mapping(fake: FakeOpenAI, sleeps) -> None:
    fake.reply_json({"order": [3, 3, 1, 7]})
    fake.reply_json(
        {"variations": ["Where do I live?", "home city", "Home City", "residence", "address", "x"]}
    )
    brain = llm_brain(fake, sleeps)
    assert brain.rerank("q", ["a", "b", "c", "d"]) == [2, 0, 1, 3]
    assert brain.rewrite_query("Where do I live?", n=3) == ["home city", "residence", "address"]
    assert brain.rerank("q", ["only"]) == [0]  # no call for one candidate
    assert len(fake.requests) == 2


def test_usefulness_distillation_episode(fake: FakeOpenAI, sleeps) -> None:
    fake.reply_json({"answer": "no"})
    fake.reply_json(
        {
            "facts": [
                {"text": "The user is vegetarian.", "salience": 8},
                {"text": "The user is vegetarian.", "salience": 8},
                {"text": "Flight JL44 leaves at 11:05 on May 3.", "salience": 6},
            ]
        }
    )
    fake.reply_json(
        {
            "title": "Lisbon trip planning",
            "summary": "Anna and the user booked Lisbon.",
            "entities": ["Anna", "Lisbon"],
        }
    )
    brain = llm_brain(fake, sleeps)
    assert brain.is_useful("response", "memory") is False
    facts = brain.distill("User: I'm vegetarian ...")
    assert [(f.text, f.salience) for f in facts] == [
        ("The user is vegetarian.", 8),
        ("Flight JL44 leaves at 11:05 on May 3.", 6),
    ]
    m = Memory(
        content="Booked flights to Lisbon with Anna.",
        created_at=datetime(2026, 3, 2, tzinfo=UTC),
        tags=["travel"],
    )
    ep = brain.synthesize_episode([m])
    assert ep.title == "Lisbon trip planning" and ep.entities == ["Anna", "Lisbon"]
    prompt = sent(fake)["messages"][-1]["content"]
    assert (
        '<memory id="1" date="2026-03-02" type="general" salience="5" tags="travel">Booked flights'
        in prompt
    )


def test_reflection_thinks_and_consolidation_does_not(fake: FakeOpenAI, sleeps) -> None:
    fake.reply_json(
        {
            "patterns": ["Weekly standups."],
            "evolving_interests": [],
            "connections": [],
            "predictions": ["More standups."],
        }
    )
    fake.reply_json(
        {
            "profile": "Tom lives in Lisbon.",
            "attributes": [{"name": "Residence", "value": "Lisbon"}],
            "traits": ["curious"],
        }
    )
    brain = llm_brain(fake, sleeps)
    r = brain.reflect([Memory(content="Standup with Anna.")])
    assert r.patterns == ["Weekly standups."] and "PREDICTIONS\n- More standups." in r.render()
    assert sent(fake)["chat_template_kwargs"] == {"enable_thinking": True}
    prev = IdentityProfile(profile="Tom.", attributes={"name": "Tom", "residence": "Berlin"})
    p = brain.consolidate([Memory(content="I moved to Lisbon.")], previous=prev)
    assert p.attributes == {"name": "Tom", "residence": "Lisbon"} and p.traits == ["curious"]
    assert sent(fake)["chat_template_kwargs"] == {"enable_thinking": False}
    assert "Previous profile:\n<text>\nTom.\n</text>" in sent(fake)["messages"][-1]["content"]
    assert brain.reflect([]).patterns == [] and len(fake.requests) == 2


def test_thinking_overrides(fake: FakeOpenAI, sleeps) -> None:
    fake.reply_json({"answer": "YES"})
    brain = llm_brain(fake, sleeps, thinking={"usefulness": True, "reflection": False})
    assert brain.is_useful("r", "m") is True
    assert sent(fake)["chat_template_kwargs"] == {"enable_thinking": True}
    status = brain.status()
    assert status.heuristic is False
    assert status.thinking["usefulness"] is True and status.thinking["reflection"] is False
    assert status.thinking["triage"] is False


def test_model_failures_surface_as_llm_errors(fake: FakeOpenAI, sleeps) -> None:
    fake.reply(500, {"error": {"message": "boom"}})
    fake.reply(500, {"error": {"message": "boom"}})
    fake.reply_json({"verdicts": [{"id": 1}]})
    brain = llm_brain(fake, sleeps)
    with pytest.raises(LLMError, match="HTTP 500"):
        brain.quality("text")
    with pytest.raises(
        LLMError, match=r"ContradictionAnswer: verdicts\.0\.verdict: Field required"
    ):
        brain.contradicts("a", ["b"])


def test_map_ids() -> None:
    assert map_ids([2, 2, 0, -1, 4, 1], 3) == [1, 0]
    assert map_ids([], 3) == []


# -- make_brain ---------------------------------------------------------------------------------


def test_make_brain_heuristic_by_default_records_calls(tmp_path) -> None:
    records: list[InteractionRecord] = []
    brain = make_brain(Config(home=tmp_path), on_call=records.append)
    assert isinstance(brain, HeuristicBrain) and isinstance(brain, Brain)
    status = brain.status()
    assert status.heuristic is True and status.provider == "heuristic"
    brain.triage("I'm allergic to peanuts.")
    brain.contradicts("I live in Lisbon.", ["I live in Berlin."])
    assert [(r.call_site, r.provider, r.outcome) for r in records] == [
        ("triage", "heuristic", "ok"),
        ("contradiction", "heuristic", "ok"),
    ]
    assert (
        records[0].prompt_chars == len("I'm allergic to peanuts.") and records[0].output_chars > 0
    )


def test_heuristic_errors_are_recorded_too() -> None:
    records: list[InteractionRecord] = []
    brain = HeuristicBrain(on_call=records.append)
    with pytest.raises(InvalidInput):
        brain.synthesize_episode([])
    assert records == []  # rejected before the call
    with pytest.raises(InvalidInput):
        brain.rewrite_query("x", n=0)


def test_make_brain_openai(fake: FakeOpenAI, tmp_path) -> None:
    records: list[InteractionRecord] = []
    config = Config(
        home=tmp_path,
        llm="openai",
        llm_base_url=fake.url,
        llm_model="qwen3-8b",
        llm_api_key="sk-abc",
        llm_grammar=True,
        llm_max_retries=0,
    )
    brain = make_brain(config, on_call=records.append, thinking={"rerank": True})
    assert isinstance(brain, LLMBrain) and isinstance(brain, Brain)
    fake.reply_json({"order": [2, 1]})
    assert brain.rerank("q", ["a", "b"]) == [1, 0]
    body = sent(fake)
    assert body["model"] == "qwen3-8b" and body["chat_template_kwargs"] == {"enable_thinking": True}
    assert fake.requests[0].headers["authorization"] == "Bearer sk-abc"
    (rec,) = records
    assert (rec.call_site, rec.provider, rec.model, rec.thinking) == (
        "rerank",
        "openai",
        "qwen3-8b",
        True,
    )
    s = brain.status()
    assert s.grammar is True and s.base_url == fake.url and s.model == "qwen3-8b"


def test_importing_the_llm_package_does_not_import_httpx() -> None:
    code = (
        "import sys, salience.llm\n"
        "from salience.config import Config\n"
        "salience.llm.make_brain(Config()).triage('hi')\n"
        "print(json.dumps(sorted(m for m in ('httpx', 'salience.llm.openai') if m in sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", "import json\n" + code], capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == []
