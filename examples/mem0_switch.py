"""Leaving mem0: the same calls, one import changed.

    python examples/mem0_switch.py
"""

from __future__ import annotations

from _home import example_config

# from mem0 import Memory
from salience.compat.mem0 import Memory


def main() -> None:
    with Memory(name="mem0-example", config=example_config()) as m:
        m.add([{"role": "user", "content": "I live in Leeds."}], user_id="alice")
        added = m.add([{"role": "user", "content": "I moved to Lisbon."},
                       {"role": "assistant", "content": "Noted."}], user_id="alice")
        print("add:", added)
        print("search:", m.search("where does alice live?", filters={"user_id": "alice"}))
        print("get_all:", [r["memory"] for r in m.get_all(filters={"user_id": "alice"})["results"]])


if __name__ == "__main__":
    main()
