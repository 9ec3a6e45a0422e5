"""Temporal phrases resolved against a fixed `now`."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from salience.search.temporal import parse_time_range

NOW = datetime(2024, 3, 14, 15, 0, tzinfo=UTC)  # a Thursday


def d(y: int, m: int, day: int) -> datetime:
    return datetime(y, m, day, tzinfo=UTC)


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("what did I do yesterday?", d(2024, 3, 13), d(2024, 3, 14)),
        ("plans for today", d(2024, 3, 14), d(2024, 3, 15)),
        ("what happened last week", d(2024, 3, 4), d(2024, 3, 11)),
        ("notes from this week", d(2024, 3, 11), d(2024, 3, 18)),
        ("last month's trip", d(2024, 2, 1), d(2024, 3, 1)),
        ("anything last year", d(2023, 1, 1), d(2024, 1, 1)),
        ("what did we do in May", d(2023, 5, 1), d(2023, 6, 1)),
        ("in March", d(2024, 3, 1), d(2024, 4, 1)),
        ("the concert in May 2023", d(2023, 5, 1), d(2023, 6, 1)),
        ("on 8 May, 2023 we met", d(2023, 5, 8), d(2023, 5, 9)),
        ("on May 8th", d(2023, 5, 8), d(2023, 5, 9)),
        ("what happened in 2022", d(2022, 1, 1), d(2023, 1, 1)),
        ("last Friday", d(2024, 3, 8), d(2024, 3, 9)),
        ("last Thursday", d(2024, 3, 7), d(2024, 3, 8)),
        ("two days ago", d(2024, 3, 11), d(2024, 3, 14)),
    ],
)
def test_phrases(query: str, start: datetime, end: datetime) -> None:
    span = parse_time_range(query, NOW)
    assert span is not None
    assert (span.start, span.end) == (start, end)


@pytest.mark.parametrize("query", ["What does Caroline like?", "may I ask", "before the trip"])
def test_no_phrase(query: str) -> None:
    assert parse_time_range(query, NOW) is None


def test_contains_is_half_open() -> None:
    span = parse_time_range("yesterday", NOW)
    assert span is not None
    assert span.contains(d(2024, 3, 13)) and not span.contains(d(2024, 3, 14))
    assert not span.contains(None)


def test_recency_intent_phrases():
    from salience.search.temporal import wants_recent

    for q in ["Where does Maya live these days?", "Who is her current employer?",
              "Is she still vegetarian?", "What is she reading at the moment?", "latest news"]:
        assert wants_recent(q), q
    for q in ["Where did Maya live in March?", "What is the dog called?", "nowhere to go"]:
        assert not wants_recent(q), q


def test_recency_intent_prefers_the_newest_statement(tmp_path):
    from dataclasses import replace

    from salience.search.config import get_preset

    for name in ("formula", "relevance"):
        _recency_gap(tmp_path / name, replace(get_preset(name), recency_intent=False))


def _recency_gap(tmp_path, off):
    from dataclasses import replace
    from datetime import UTC, datetime

    from salience import Config, FrozenClock, Mind

    cfg = Config(home=tmp_path, embedder="hash")
    clock = FrozenClock(datetime(2026, 7, 1, tzinfo=UTC))
    on = replace(off, recency_intent=True)
    with Mind.open("recent", config=cfg, clock=clock) as m:
        # no contradiction check: this is about ranking two unreconciled statements
        m.add("Maya lives in Leeds.", occurred_at=datetime(2026, 3, 1, tzinfo=UTC),
              check_contradictions=False)
        m.add("Maya lives in Lisbon.", occurred_at=datetime(2026, 6, 1, tzinfo=UTC),
              check_contradictions=False)

        def gap(preset):
            hits = m.search("where does Maya live these days", limit=2, preset=preset, feedback=False)
            by = {("Lisbon" in h.memory.content): h for h in hits}
            return by[True].score - by[False].score, by[True]

        gap_off, _ = gap(off)
        gap_on, newest = gap(on)
    assert gap_on > gap_off
    assert newest.explanation["recency_intent"] == 1.0


def test_a_memory_is_about_the_time_its_words_tell() -> None:
    """'yesterday I went bowling' said on 17 March is about 16 March; a memory's phrase
    broader than the question's span ('last year') or a bare month does not match."""
    from salience.search.temporal import about_time, told_time

    said = datetime(2022, 3, 17, 14, tzinfo=UTC)
    day = parse_time_range("What was James doing on March 16, 2022?", datetime(2023, 1, 1,
                                                                                tzinfo=UTC))
    assert day is not None
    assert told_time("James: yesterday I went bowling", said).start == datetime(2022, 3, 16,
                                                                                tzinfo=UTC)
    assert about_time(day, said, "James: yesterday I went bowling")
    assert about_time(day, datetime(2022, 3, 16, 9, tzinfo=UTC), "James: I went bowling")
    assert not about_time(day, said, "James: I went bowling")
    assert not about_time(day, said, "James: last year I went bowling a lot")
    assert told_time("I'm off to Paris in May", said) is None
    month = parse_time_range("Where did James travel in July 2022?", said)
    assert month is not None
    assert about_time(month, datetime(2022, 8, 3, tzinfo=UTC), "James: two days ago I was in Banff")
    assert not about_time(month, None, "James: yesterday I was in Banff")


def test_a_question_about_a_month_is_answered_by_a_memory_naming_the_month() -> None:
    """"Whose wedding am I going to in August?": "getting married in August" is about August
    as much as "school starts again on August 18" — a month alone counts when the question
    asks about a month."""
    from salience.search.temporal import about_time

    now = datetime(2026, 3, 30, tzinfo=UTC)
    said = datetime(2026, 3, 2, tzinfo=UTC)
    span = parse_time_range("Whose wedding am I going to in August?", now)
    assert span is not None
    assert about_time(span, said, "User: My friend Lars is getting married in August.")
    assert about_time(span, said, "User: The kids' school starts again on August 18.")
    day = parse_time_range("What did I do on 16 March 2026?", now)
    assert day is not None  # a day's question is not answered by a month
    assert not about_time(day, said, "User: We're going skiing in March.")
