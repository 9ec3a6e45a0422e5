"""`AsyncMind`: the same API for asyncio code, never blocking the event loop.

    python examples/async_mind.py
"""

from __future__ import annotations

import asyncio

from _home import example_config

from salience.aio import AsyncMind


async def main() -> None:
    async with await AsyncMind.open("async-example", config=example_config()) as mind:
        await mind.add_many([f"Meeting {i} is about project {i % 3}" for i in range(30)])
        results = await asyncio.gather(*(mind.search(f"project {i % 3}", limit=1) for i in range(20)))
        print("20 concurrent searches, first hits:", {r[0].memory.content for r in results})
        await mind.remember_turn("My sister Maya is allergic to penicillin.")
        await mind.heartbeat()
        await mind.awareness.add("Book Maya's flights")
        print((await mind.context("penicillin")).text)


if __name__ == "__main__":
    asyncio.run(main())
