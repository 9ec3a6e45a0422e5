"""Claude's memory tool backed by a Salience mind (`SalienceMemoryTool`). Offline, this feeds
the tool the commands Claude sends; with ANTHROPIC_API_KEY set it also runs a real
conversation through the SDK's tool runner.

    pip install 'salience[anthropic]'
    python examples/claude_memory_tool.py
"""

from __future__ import annotations

import os

from _home import example_config

from salience import Mind
from salience.integrations.claude_memory import SalienceMemoryTool


def main() -> None:
    with Mind.open("claude-example", config=example_config()) as mind:
        tool = SalienceMemoryTool(mind)
        print(tool.call({"command": "create", "path": "/memories/user.md",
                         "file_text": "- prefers short answers\n"}))
        print(tool.call({"command": "str_replace", "path": "/memories/user.md",
                         "old_str": "short", "new_str": "short, direct"}))
        print(tool.call({"command": "view", "path": "/memories"}))
        print("versions:", tool.versions("/memories/user.md"))
        print("search:", tool.search("how should answers be"))
        if os.environ.get("ANTHROPIC_API_KEY"):
            import anthropic

            runner = anthropic.Anthropic().beta.messages.tool_runner(
                model=os.environ.get("ANTHROPIC_MODEL", "claude-sonnet-4-5"), max_tokens=1024,
                tools=[tool], messages=[{"role": "user", "content": "What do you know about me?"}],
            )
            print(runner.until_done().content)


if __name__ == "__main__":
    main()
