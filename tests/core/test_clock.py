from datetime import UTC, datetime, timedelta, timezone

from salience.clock import FrozenClock, ensure_utc, format_ts, parse_ts


def test_format_ts_sorts_as_text_for_every_year():
    stamps = [datetime(y, 1, 2, 3, 4, 5, 6, tzinfo=UTC) for y in (1, 94, 999, 1000, 2026, 9999)]
    texts = [format_ts(s) for s in stamps]
    assert texts == sorted(texts)
    assert texts[1].startswith("0094-01-02T03:04:05.000006")
    assert [parse_ts(t) for t in texts] == stamps


def test_naive_and_offset_times_become_utc():
    assert ensure_utc(datetime(2026, 1, 1, 12)) == datetime(2026, 1, 1, 12, tzinfo=UTC)
    plus2 = timezone(timedelta(hours=2))
    assert format_ts(datetime(2026, 1, 1, 12, tzinfo=plus2)).startswith("2026-01-01T10:00:00")


def test_frozen_clock_moves_only_when_told():
    c = FrozenClock(datetime(2026, 1, 1, tzinfo=UTC))
    assert c.now() == c.now()
    assert c.advance(days=2) == datetime(2026, 1, 3, tzinfo=UTC)
