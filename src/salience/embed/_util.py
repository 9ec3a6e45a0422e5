"""Small helpers shared by the embedding providers (no heavy imports here)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Generic, TypeVar

from ..errors import InvalidInput

T = TypeVar("T")


def as_text_list(texts: Sequence[str]) -> list[str]:
    """Return `texts` as a list of str; a bare string is a caller bug (it would embed characters)."""
    if isinstance(texts, str | bytes):
        raise InvalidInput("embed a list of strings, not a single string: use [text]")
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise InvalidInput(f"texts[{i}] is {type(t).__name__}, not str")
    return out


def batched(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """Consecutive slices of at most `size` items."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


class Lazy(Generic[T]):
    """A value built on first use, exactly once, safely across threads."""

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._value: T | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._value is not None

    def get(self) -> T:
        value = self._value
        if value is None:
            with self._lock:
                value = self._value
                if value is None:
                    value = self._value = self._build()
        return value

    def peek(self) -> T | None:
        """The value if already built, else None (never builds)."""
        return self._value


def describe_error(exc: BaseException) -> str:
    """One line naming the exception type and its message (for skip reasons and details)."""
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__
