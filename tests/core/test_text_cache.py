"""`models.text.text_cache`: a process-wide cache of whole texts bounded in entries and in
characters (issue 17: the soak's RSS grew with unbounded text caches)."""

from __future__ import annotations

from salience.models.text import text_cache


def test_long_texts_are_computed_again_not_kept() -> None:
    calls: list[str] = []

    @text_cache(8, max_chars=10)
    def length(text: str) -> int:
        calls.append(text)
        return len(text)

    assert length("short") == 5 and length("short") == 5
    assert calls == ["short"]  # cached
    long = "x" * 11
    assert length(long) == 11 and length(long) == 11
    assert calls == ["short", long, long]  # not cached
    assert length.cache_info().currsize == 1  # type: ignore[attr-defined]
    for i in range(20):
        length(str(i))
    assert length.cache_info().currsize == 8  # type: ignore[attr-defined]
