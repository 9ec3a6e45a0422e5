"""`salience demo`: ingest a realistic multi-session conversation, then answer recall questions.

The conversation ships with the package (src/salience/data/demo_conversation.json, written for
Salience). Everything runs offline with the default local embedder.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from importlib import resources
from typing import Any

from .clock import ensure_utc
from .mind import Mind
from .models import SearchHit


@dataclass(slots=True)
class DemoAnswer:
    query: str
    expect: list[str]
    hits: list[SearchHit]
    found_at: int | None  # 1-based rank of the first hit containing an expected text
    note: str = ""


@dataclass(slots=True)
class DemoResult:
    ingested: int
    answers: list[DemoAnswer] = field(default_factory=list)

    @property
    def found(self) -> int:
        return sum(1 for a in self.answers if a.found_at is not None)


def load_demo() -> dict[str, Any]:
    """The bundled demo conversation."""
    text = resources.files("salience").joinpath("data/demo_conversation.json").read_text("utf-8")
    return json.loads(text)


def demo_turns(data: dict[str, Any]) -> list[dict[str, Any]]:
    """One `add()` item per turn: "Speaker: text", stamped with its session's date."""
    user = data.get("user", "User")
    items = []
    for session in data["sessions"]:
        when = ensure_utc(datetime.fromisoformat(session["date"].replace("Z", "+00:00")))
        for i, turn in enumerate(session["turns"]):
            speaker = user if turn["speaker"] == "user" else "Assistant"
            items.append(
                {
                    "content": f"{speaker}: {turn['text']}",
                    "session_id": session["id"],
                    "t": i,
                    "occurred_at": when,
                    "source": "user_stated" if turn["speaker"] == "user" else "agent_inferred",
                    "metadata": {"speaker": speaker},
                }
            )
    return items


def run_demo(mind: Mind, *, limit: int = 3) -> DemoResult:
    """Ingest the demo conversation into `mind` and run its questions."""
    data = load_demo()
    ids = mind.add_many(demo_turns(data))
    result = DemoResult(ingested=len(set(ids)))
    for q in data["questions"]:
        # feedback off: each question sees the same mind (a retrieval would bump salience)
        hits = mind.search(q["query"], limit=limit, feedback=False)
        found = next(
            (
                rank
                for rank, h in enumerate(hits, start=1)
                if any(e in h.memory.content for e in q["expect"])
            ),
            None,
        )
        result.answers.append(
            DemoAnswer(q["query"], list(q["expect"]), hits, found, q.get("note", ""))
        )
    return result
