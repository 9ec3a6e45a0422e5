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
        ("two days ago", d(2024, 3, 12), d(2024, 3, 13)),  # one day, a day of slack
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
    from salience.search.temporal import about_time, told_times

    said = datetime(2022, 3, 17, 14, tzinfo=UTC)
    day = parse_time_range("What was James doing on March 16, 2022?", datetime(2023, 1, 1,
                                                                                tzinfo=UTC))
    assert day is not None
    assert told_times("James: yesterday I went bowling", said)[0].start == datetime(
        2022, 3, 16, tzinfo=UTC)
    assert about_time(day, said, "James: yesterday I went bowling")
    assert about_time(day, datetime(2022, 3, 16, 9, tzinfo=UTC), "James: I went bowling")
    assert not about_time(day, said, "James: I went bowling")
    assert not about_time(day, said, "James: last year I went bowling a lot")
    assert told_times("I'm off to Paris in May", said) == ()
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


# --- every time phrase of a memory, one grammar for memories and queries (issue 15) ---------

MON = datetime(2024, 3, 11, 10, tzinfo=UTC)  # a Monday
FRI = datetime(2024, 3, 15, 10, tzinfo=UTC)  # a Friday


@pytest.mark.parametrize(
    ("text", "said", "start", "end"),
    [
        ("we had pizza last night", NOW, d(2024, 3, 13), d(2024, 3, 14)),
        ("I'm flying out tomorrow", NOW, d(2024, 3, 15), d(2024, 3, 16)),
        ("the move is next month", NOW, d(2024, 4, 1), d(2024, 5, 1)),
        ("we start next week", NOW, d(2024, 3, 18), d(2024, 3, 25)),
        ("next year I'll retire", NOW, d(2025, 1, 1), d(2026, 1, 1)),
        ("I went camping last weekend", NOW, d(2024, 3, 9), d(2024, 3, 11)),
        ("last weekend we hiked", MON, d(2024, 3, 9), d(2024, 3, 11)),
        ("we're going to the lake this weekend", NOW, d(2024, 3, 16), d(2024, 3, 18)),
        ("this weekend we went hiking", MON, d(2024, 3, 9), d(2024, 3, 11)),
        ("this weekend we're going hiking", MON, d(2024, 3, 16), d(2024, 3, 18)),
        ("two weekends ago I painted", NOW, d(2024, 3, 2), d(2024, 3, 4)),
        ("next weekend is the fair", NOW, d(2024, 3, 23), d(2024, 3, 25)),
        ("last summer we went to Spain", NOW, d(2023, 6, 1), d(2023, 9, 1)),
        ("last summer we went to Spain", datetime(2023, 10, 2, tzinfo=UTC), d(2023, 6, 1),
         d(2023, 9, 1)),
        ("this summer I'll learn to surf", NOW, d(2024, 6, 1), d(2024, 9, 1)),
        ("last winter was cold", NOW, d(2023, 12, 1), d(2024, 3, 1)),
        ("last winter was cold", datetime(2024, 10, 1, tzinfo=UTC), d(2023, 12, 1),
         d(2024, 3, 1)),
        ("this winter has been cold", datetime(2024, 1, 20, tzinfo=UTC), d(2023, 12, 1),
         d(2024, 3, 1)),
        ("last fall I moved", NOW, d(2023, 9, 1), d(2023, 12, 1)),
        ("in the spring of 2022", NOW, d(2022, 3, 1), d(2022, 6, 1)),
        ("last fri we met", NOW, d(2024, 3, 8), d(2024, 3, 9)),
        ("last Friday we met", FRI, d(2024, 3, 8), d(2024, 3, 9)),
        ("last Fri. we met", FRI, d(2024, 3, 8), d(2024, 3, 9)),
        ("this Friday is the party", MON, d(2024, 3, 15), d(2024, 3, 16)),
        ("this fri is the party", NOW, d(2024, 3, 15), d(2024, 3, 16)),
        ("see you next Tuesday", NOW, d(2024, 3, 19), d(2024, 3, 20)),
        ("one day ago", NOW, d(2024, 3, 13), d(2024, 3, 14)),
        ("3 days ago I ran", NOW, d(2024, 3, 11), d(2024, 3, 12)),
        ("we met this morning", NOW, d(2024, 3, 14), d(2024, 3, 15)),
        # year boundaries
        ("last month", datetime(2024, 1, 10, tzinfo=UTC), d(2023, 12, 1), d(2024, 1, 1)),
        ("next month", datetime(2023, 12, 10, tzinfo=UTC), d(2024, 1, 1), d(2024, 2, 1)),
        ("next week", datetime(2023, 12, 28, tzinfo=UTC), d(2024, 1, 1), d(2024, 1, 8)),
        ("last week", datetime(2024, 1, 3, tzinfo=UTC), d(2023, 12, 25), d(2024, 1, 1)),
        ("tomorrow", datetime(2023, 12, 31, 9, tzinfo=UTC), d(2024, 1, 1), d(2024, 1, 2)),
    ],
)
def test_memory_phrases(text: str, said: datetime, start: datetime, end: datetime) -> None:
    from salience.search.temporal import time_phrases

    spans = time_phrases(text, said)
    assert [(s.start, s.end) for s in spans] == [(start, end)], spans


def test_queries_use_the_same_grammar() -> None:
    """A question parses with the grammar the memories do: a phrase new to memories is new to
    questions too."""
    for q, start in [
        ("What did Jon do last weekend?", d(2024, 3, 9)),
        ("What did Jon eat last night?", d(2024, 3, 13)),
        ("What did Jon do last summer?", d(2023, 6, 1)),
        ("Where was Jon last fri?", d(2024, 3, 8)),
    ]:
        span = parse_time_range(q, NOW)
        assert span is not None and span.start == start, (q, span)


def test_every_phrase_of_a_memory_counts() -> None:
    from salience.search.temporal import about_time, told_times

    text = ("Last year I ran a marathon. Yesterday I went bowling, and next week "
            "I'm off to Rome.")
    said = NOW
    told = told_times(text, said)
    assert [(t.start, t.end) for t in told] == [
        (d(2023, 1, 1), d(2024, 1, 1)),
        (d(2024, 3, 13), d(2024, 3, 14)),
        (d(2024, 3, 18), d(2024, 3, 25)),
    ]
    later = datetime(2024, 6, 1, tzinfo=UTC)
    day = parse_time_range("What did Jon do on 13 March 2024?", later)
    week = parse_time_range("Where was Jon on March 20, 2024?", later)
    assert day is not None and week is not None
    assert about_time(day, said, text)  # the second phrase, not the first
    assert not about_time(week, said, text)  # a week's phrase is broader than one day


def _day_questions(text: str, days: dict[int, bool]) -> None:
    """`text` said on NOW (14 March 2024) matches a question about each day of March 2024 in
    `days` as that day's value says."""
    from salience.search.temporal import about_time

    later = datetime(2024, 6, 1, tzinfo=UTC)
    for day, ok in days.items():
        span = parse_time_range(f"What did Jon do on {day} March 2024?", later)
        assert span is not None
        assert about_time(span, NOW, text) is ok, (text, day)


def test_a_day_question_matches_n_days_ago() -> None:
    """"three days ago" tells of one day: a question about that day matches it (within a
    day's slack), one about a day a week off does not."""
    _day_questions("Jon: three days ago I adopted a puppy", {11: True, 10: True, 12: True,
                                                             9: False, 4: False})


def test_vague_phrases_have_slack() -> None:
    """"a few days ago" is vague: a day within about three days of its centre (11 March)
    matches; "the other day" is two to five days back."""
    _day_questions("Jon: a few days ago I adopted a puppy", {9: True, 13: True, 2: False})
    _day_questions("Jon: I adopted another dog the other day", {9: True, 12: True, 7: False})


def test_last_weekend_question_matches_this_weekend_said_on_monday() -> None:
    from salience.search.temporal import about_time

    asked = datetime(2024, 3, 13, tzinfo=UTC)  # Wednesday
    span = parse_time_range("What did Jon do last weekend?", asked)
    assert span is not None and (span.start, span.end) == (d(2024, 3, 9), d(2024, 3, 11))
    assert about_time(span, MON, "Jon: this weekend we went hiking")
    assert about_time(span, MON, "Jon: on Saturday... no, last weekend we went hiking")
    assert not about_time(span, MON, "Jon: this weekend we're going hiking")
    assert about_time(span, d(2024, 3, 10), "Jon: hiking today!")  # said within it


def test_a_memory_without_a_time_tells_nothing() -> None:
    from salience.search.temporal import about_time, told_times

    span = parse_time_range("What did Jon do last weekend?", NOW)
    assert span is not None
    assert not about_time(span, None, "Jon: this weekend we went hiking")
    assert told_times("Jon: I like hiking", NOW) == ()


@pytest.mark.parametrize(("query", "earlier"), [
    ("what did i do for a living before i retrained?", True),
    ("what was my childhood dog called?", True),
    ("what phone did i have before?", True),
    ("where was my previous flat?", True),
    ("what did i have growing up, a cat or a dog?", True),
    ("What did Caroline research?", False),
    ("when did i move to lisbon?", False),
    ("what phone do i have now?", False),
    ("where did i live before, and where do i live now?", False),
])
def test_a_question_about_an_earlier_state_is_told_apart(query: str, earlier: bool) -> None:
    """A question about an earlier state — not any past tense — asks for what a newer
    statement replaced: the update stages must not put the newer one first (compat13 p03, p06,
    p08)."""
    from salience.search.temporal import asks_earlier_state

    assert asks_earlier_state(query) is earlier
