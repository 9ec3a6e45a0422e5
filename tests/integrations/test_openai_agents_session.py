"""`SalienceSession` with the real OpenAI Agents SDK: the cases of the SDK's own session tests
(basic flow, pop, limits and settings, unicode, empty adds, isolation, the Runner carrying the
history) plus the agent path: turns reach triage. The model is the SDK's `ScriptedModel` (the
LLM stand-in); the Runner, the session protocol and the mind are real."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.memory import Session, SessionSettings
from agents.testing import ScriptedModel, assistant_message, function_call

from salience import Mind
from salience.integrations.openai_agents import SalienceSession, item_text

set_tracing_disabled(True)  # the SDK's traces go to OpenAI's servers unless disabled


@pytest.fixture
def mind(backend_mind: Mind) -> Mind:
    return backend_mind


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_is_a_session_and_round_trips_items(mind: Mind) -> None:
    s = SalienceSession("basic", mind)
    assert isinstance(s, Session)
    items = [{"role": "user", "content": "Hello"}, {"role": "assistant", "content": "Hi there!"}]
    run(s.add_items(items))
    assert run(s.get_items()) == items
    run(s.clear_session())
    assert run(s.get_items()) == []
    run(s.add_items([]))
    assert run(s.get_items()) == [] and run(s.pop_item()) is None


def test_pop_limits_settings_and_unicode(mind: Mind) -> None:
    s = SalienceSession("limits", mind, triage=None)
    items = [{"role": "user" if i % 2 == 0 else "assistant", "content": str(i)} for i in range(1, 5)]
    run(s.add_items(items))
    assert run(s.get_items(limit=2)) == items[2:]
    assert run(s.get_items(limit=10)) == items
    assert run(s.pop_item()) == items[-1]
    assert run(s.get_items()) == items[:-1]
    limited = SalienceSession("limits", mind, session_settings=SessionSettings(limit=1))
    assert run(limited.get_items()) == [items[2]]
    assert run(limited.get_items(limit=2)) == items[1:3]  # an explicit limit wins
    run(s.add_items([{"role": "user", "content": "こんにちは 🦜 café"}, {"role": "user", "content": "Hello"}]))
    assert [i["content"] for i in run(s.get_items(limit=2))] == ["こんにちは 🦜 café", "Hello"]
    # identical items are two items (a transcript is not deduplicated)
    run(s.add_items([{"role": "user", "content": "Hello"}]))
    assert [i["content"] for i in run(s.get_items(limit=2))] == ["Hello", "Hello"]


def test_runner_carries_history_and_sessions_are_isolated(mind: Mind) -> None:
    model = ScriptedModel()
    agent = Agent(name="test", model=model)
    one, two = SalienceSession("s1", mind), SalienceSession("s2", mind)

    async def main() -> Any:
        model.enqueue([assistant_message("San Francisco")])
        r1 = await Runner.run(agent, "What city is the Golden Gate Bridge in?", session=one)
        model.enqueue([assistant_message("I like dogs.")])
        await Runner.run(agent, "I like dogs.", session=two)
        model.enqueue([assistant_message("California")])
        r2 = await Runner.run(agent, "What state is it in?", session=one)
        return r1, r2

    r1, r2 = run(main())
    assert (r1.final_output, r2.final_output) == ("San Francisco", "California")
    last_input = model.last_call.input
    assert any("Golden Gate Bridge" in str(i.get("content", "")) for i in last_input)
    assert not any("dogs" in str(i.get("content", "")) for i in last_input)
    assert len(run(one.get_items())) == 4 and len(run(two.get_items())) == 2
    assert mind.sessions.get("s1").id == "s1"  # a GOP of the mind


def test_turns_go_through_the_agent_path(mind: Mind) -> None:
    @function_tool
    def weather(city: str) -> str:
        """The weather in a city."""
        return f"Sunny in {city}"

    model = ScriptedModel()
    agent = Agent(name="assistant", model=model, tools=[weather])
    s = SalienceSession("chat", mind, triage="now")

    async def main() -> None:
        model.enqueue([assistant_message("Noted: you live in Lisbon now.")])
        await Runner.run(agent, "I moved to Lisbon last month.", session=s)
        model.enqueue([function_call("weather", {"city": "Lisbon"}, call_id="c1")])
        model.enqueue([assistant_message("It is sunny in Lisbon.")])
        await Runner.run(agent, "What's the weather like?", session=s)
        model.enqueue([assistant_message("You're welcome!")])
        await Runner.run(agent, "thanks!", session=s)

    run(main())
    kept = [m.content for m in mind.list() if "agents-item" not in m.tags]
    assert any("I moved to Lisbon last month." in c for c in kept)  # triaged and kept
    assert not any(c.startswith("User: thanks!") for c in kept)  # small talk was not
    roles = [item_text(i)[0] for i in run(s.get_items())]
    assert "tool_call" in roles and "tool_result" in roles
    hits = mind.search("where does the user live now", limit=3)
    assert any("Lisbon" in h.memory.content for h in hits)
    run(s.clear_session())
    assert run(s.get_items()) == [] and any("Lisbon" in m.content for m in mind.list())


def test_deferred_turns_wait_for_the_heartbeat(mind: Mind) -> None:
    s = SalienceSession("later", mind)  # triage="defer" (default)
    run(s.add_items([{"role": "user", "content": "My sister Maya is allergic to penicillin."}]))
    run(s.flush())  # no reply came: remember what the user said
    assert mind.queue_status()["pending_triage"] == 1
    mind.heartbeat()
    assert any("penicillin" in m.content for m in mind.list() if "agents-item" not in m.tags)
