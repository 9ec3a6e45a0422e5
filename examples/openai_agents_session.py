"""An OpenAI Agents SDK agent whose session lives in a Salience mind (`SalienceSession`).
The model here is the SDK's ScriptedModel so the example runs offline; use any model instead.

    pip install 'salience[agents]'
    python examples/openai_agents_session.py
"""

from __future__ import annotations

import asyncio

from _home import example_config
from agents import Agent, Runner, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message

from salience import Mind
from salience.integrations.openai_agents import SalienceSession


async def main() -> None:
    set_tracing_disabled(True)
    model = ScriptedModel([[assistant_message("Noted: Lisbon.")], [assistant_message("In Lisbon.")]])
    agent = Agent(name="assistant", model=model)
    with Mind.open("agents-example", config=example_config()) as mind:
        session = SalienceSession("chat-1", mind, triage="now")
        await Runner.run(agent, "I moved to Lisbon last month.", session=session)
        result = await Runner.run(agent, "Where do I live?", session=session)
        print("reply:", result.final_output)
        print("transcript items:", len(await session.get_items()))
        print("remembered:", [h.memory.content for h in mind.search("where does the user live")][:2])


if __name__ == "__main__":
    asyncio.run(main())
