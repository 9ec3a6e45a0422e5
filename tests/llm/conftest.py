"""Fixtures of the LLM tests: the fake OpenAI-compatible server and a recording sleep."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from fake_openai import FakeOpenAI


@pytest.fixture(autouse=True)
def _no_salience_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Config() reads SALIENCE_* variables: the developer's own settings must not leak in."""
    for var in list(os.environ):
        if var.startswith("SALIENCE_"):
            monkeypatch.delenv(var)


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    """A scripted OpenAI-compatible server on 127.0.0.1, stopped after the test."""
    server = FakeOpenAI().start()
    try:
        yield server
    finally:
        server.stop()


class SleepRecorder:
    """An injected `sleep` that records the delays instead of waiting."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()
