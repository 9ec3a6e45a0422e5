"""An agent loop that learns from its own runs, with design B's agent records (issue 20).

Each turn the agent builds its system prompt with `mind.context(...)`, picks the procedure
(prompt template) to follow with `mind.procedures.best(...)`, runs, and records the run as an
execution trace — which also counts toward that procedure version's success rate. When the
user corrects it, the correction is recorded as an improvement signal; the third time the same
correction comes back, the signal becomes actionable and appears in the prompt's
self-awareness section exactly once. The agent responds by writing a better version of its
procedure, and an evolution run compares the two versions' recorded outcomes and promotes the
new one through the gate.

Run it (no model, no network; a throwaway mind in a temporary directory):

    python examples/agent_records_loop.py
"""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from salience import Config, FrozenClock, Mind
from salience.agent.rules import Gate

TOOLS = ["calendar", "email"]
V1 = "Write the meeting date the way it was said: {request}"
V2 = "Write meeting dates as ISO 8601 (YYYY-MM-DD): {request}"


def fake_run(template: str, request: str) -> tuple[bool, str]:
    """Stands in for the model call: the user accepts ISO dates, corrects anything else."""
    ok = "ISO 8601" in template
    return ok, f"[{'2026-05-04' if ok else 'May 4th'}] {request}"


def main() -> None:
    home = Path(tempfile.mkdtemp()) / "home"
    clock = FrozenClock(datetime(2026, 5, 1, 9, 0, tzinfo=UTC))
    with Mind.open("assistant", config=Config(home=home, embedder="hash"), clock=clock) as mind:
        mind.identity.create("Concierge", role="scheduling assistant")
        mind.procedures.create("schedule", V1, description="book a meeting")

        candidate = None  # a new version on trial, until the evolution gate decides
        for turn in range(1, 10):
            request = f"book the design review #{turn}"
            ctx = mind.context(request, tools=TOOLS, mode="demo", version="concierge 0.1")
            if ctx.signals:  # shown once: the agent acts on it now
                print(f"turn {turn}: self-awareness shows a signal:")
                print("   ", "\n    ".join(ctx.section("self_awareness").text.splitlines()))
                candidate = mind.procedures.new_version("schedule", V2, description="ISO dates")
                print(f"turn {turn}: wrote procedure v{candidate.version}; trying it")
            proc = candidate or mind.procedures.best("schedule")
            ok, answer = fake_run(proc.template, request)
            mind.traces.record(
                request,
                "success" if ok else "failure",
                trace={"procedure": proc.version, "answer": answer},
                procedure_id=proc.id,
                cost=1.0,
            )
            if ok:
                print(f"turn {turn}: v{proc.version} answered {answer!r} -> accepted")
            else:
                s = mind.signals.correction("date format", "the user wants ISO dates")
                print(f"turn {turn}: v{proc.version} answered {answer!r} -> corrected "
                      f"({s.count}x)")
            clock.advance(timedelta(hours=1))
            if candidate is not None and mind.procedures.get(candidate.id).runs >= 3:
                baseline = mind.procedures.versions("schedule")[0]
                run = mind.evolution.propose(
                    "procedure:schedule", baseline_id=baseline.id, candidate_id=candidate.id,
                    description="ISO dates after repeated corrections",
                )
                decided = mind.evolution.evaluate(run.id, gate=Gate(min_samples=3))
                print(f"turn {turn}: evolution {decided.status.value} ({decided.reason})")
                candidate = None

        print(f"active version: v{mind.procedures.active('schedule').version}")
        again = mind.context("book the retro", tools=TOOLS).section("self_awareness").text
        print("signal shown again:", "Improvement Signals" in again)
        print("runs:", mind.traces.counts())


if __name__ == "__main__":
    main()
