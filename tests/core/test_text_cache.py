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


def test_the_texts_kept_are_bounded_in_characters_in_all() -> None:
    @text_cache(1_000, max_chars=100, budget_chars=1_000)
    def upper(text: str) -> str:
        return text.upper()

    for i in range(200):  # 200 texts of 100 characters: 20,000 characters
        upper(f"{i:03d}" + "x" * 97)
    info = upper.cache_info()  # type: ignore[attr-defined]
    assert info.currsize == 10  # the 10 most recent: 1,000 characters
    assert info.chars == 1_000


def test_keyword_arguments_are_part_of_the_key() -> None:
    calls: list[tuple[str, bool]] = []

    @text_cache(8)
    def tagged(text: str, *, strong: bool = False) -> str:
        calls.append((text, strong))
        return f"{text}:{strong}"

    assert tagged("a") == "a:False" and tagged("a", strong=True) == "a:True"
    assert tagged("a") == "a:False" and tagged("a", strong=True) == "a:True"
    assert calls == [("a", False), ("a", True)]
