"""The LLM path of consolidation: the model's profile feeds the user profile (with the memory
ids it cites as sources), never the persona; a paradigm shift runs with thinking on."""

from __future__ import annotations

from datetime import UTC, datetime

from fake_openai import FakeOpenAI

from salience import Config, FrozenClock, Mind
from salience.llm import IdentityProfile, LLMBrain
from salience.llm.openai import OpenAICompatibleLLM
from salience.models import Memory


def brain_for(fake: FakeOpenAI, sleeps) -> LLMBrain:
    llm = OpenAICompatibleLLM(base_url=fake.url, model="m", sleep=sleeps, max_retries=1)
    return LLMBrain(llm)


def test_cited_memories_become_sources(fake: FakeOpenAI, sleeps) -> None:
    a, b = Memory(content="I live in Lisbon."), Memory(content="I'm vegan.")
    fake.reply_json({
        "profile": "Lives in Lisbon; vegan.",
        "attributes": [
            {"name": "Residence", "value": "Lisbon", "memories": [1, 1, 7]},
            {"name": "diet", "value": "vegan", "memories": [2]},
            {"name": "likes", "value": "surfing"},
        ],
        "traits": ["curious"],
    })
    prev = IdentityProfile(profile="Old.", attributes={"likes": "jazz"}, sources={"likes": ["x"]})
    p = brain_for(fake, sleeps).consolidate([a, b], previous=prev)
    assert p.attributes == {"likes": "surfing", "residence": "Lisbon", "diet": "vegan"}
    # id 7 is not in the list; an uncited answer drops the previous attribute's sources
    assert p.sources == {"residence": [a.id], "diet": [b.id]}
    body = fake.requests[-1].body
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    prompt = body["messages"][-1]["content"]
    assert "never the assistant's replies" in prompt and "core fact" not in prompt


def test_paradigm_shift_thinks_and_says_so(fake: FakeOpenAI, sleeps) -> None:
    fake.reply_json({"profile": "Pescatarian.", "attributes": [], "traits": []})
    brain_for(fake, sleeps).consolidate([Memory(content="I'm pescatarian now.")],
                                        paradigm_shift=True)
    body = fake.requests[-1].body
    assert body["chat_template_kwargs"] == {"enable_thinking": True}
    assert "A core fact about the user has just changed" in body["messages"][-1]["content"]


def test_mind_with_a_model_writes_the_profile_not_the_persona(
    fake: FakeOpenAI, sleeps, tmp_path
) -> None:
    cfg = Config(home=tmp_path / "home", embedder="hash")
    clock = FrozenClock(datetime(2026, 5, 1, 9, 0, tzinfo=UTC))
    with Mind.open("llm-profile", config=cfg, clock=clock, brain=brain_for(fake, sleeps)) as mind:
        mind.identity.create("Ada", role="personal assistant", personality="friendly, concise")
        home = mind.add("User: I live in Södermalm.\nAssistant: Lovely, I like it there.",
                        salience=8.0)
        fake.reply_json({
            "profile": "Lives in Södermalm.",
            "attributes": [{"name": "residence", "value": "Södermalm", "memories": [1]}],
            "traits": [],
        })
        report = mind.cognitive_run()
        assert report.profile == "created" and report.errors == []
        prompt = fake.requests[0].body["messages"][-1]["content"]
        assert "I live in Södermalm." in prompt and "I like it there" not in prompt  # user only
        assert mind.identity.get().personality == "friendly, concise"
        p = mind.profile.get()
        assert p.attributes == {"residence": "Södermalm"} and p.source_ids == [home]
        assert "# About the User\nLives in Södermalm." in mind.context().text
