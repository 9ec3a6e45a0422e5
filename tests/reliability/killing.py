"""Helpers of the reliability suite: child processes killed at random points, a seeded RNG."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parents[1]


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a child: this interpreter's import path, no user settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SALIENCE_")}
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), *sys.path])
    env.update(extra)
    return env


@dataclass
class KillResult:
    """What the parent saw of one killed child: its acknowledged lines and how it ended."""

    acked: list[str] = field(default_factory=list)
    returncode: int | None = None
    stderr: str = ""
    finished: bool = False


def run_and_kill(
    script: str,
    *,
    env: dict[str, str],
    rng: random.Random,
    min_acks: int = 1,
    max_extra_s: float = 0.6,
    start_word: str = "READY",
    timeout_s: float = 60.0,
) -> KillResult:
    """Run `script`, wait for `min_acks` acknowledged lines (or its start word when
    `min_acks` is 0), then SIGKILL it after a random extra delay. Lines starting with
    `ACK ` are acknowledgements; `DONE` means it finished before the kill."""
    child = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    res = KillResult()
    lock = threading.Lock()
    started = threading.Event()
    enough = threading.Event()

    def reader() -> None:
        assert child.stdout is not None
        for raw in child.stdout:
            if not raw.endswith("\n"):
                continue  # a line cut short by the kill was never acknowledged
            line = raw.rstrip("\n")
            if line == start_word:
                started.set()
            elif line.startswith("ACK "):
                with lock:
                    res.acked.append(line[4:])
                    if len(res.acked) >= min_acks:
                        enough.set()
            elif line == "DONE":
                res.finished = True
        started.set()
        enough.set()

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    (enough if min_acks else started).wait(timeout_s)
    time.sleep(rng.uniform(0.0, max_extra_s))
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=timeout_s)
    t.join(timeout_s)
    res.returncode = child.returncode
    res.stderr = child.stderr.read() if child.stderr else ""
    if child.stderr:
        child.stderr.close()
    return res
