"""mbox, ICS and chat-JSONL importers: parsing, bad input, incremental re-import."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

import pytest
from ingest_helpers import failing

from salience.errors import InvalidInput
from salience.ingest.mbox import html_to_text
from salience.models import MemoryFilter, MemoryType, Source

EMAIL_DATE = "Tue, 03 Feb 2026 09:30:00 +0100"


def _mbox(path: Path, messages: list[bytes]) -> Path:
    with path.open("wb") as f:
        for raw in messages:
            f.write(b"From sender@example.com Tue Feb  3 09:30:00 2026\n")
            f.write(raw.replace(b"\nFrom ", b"\n>From ").rstrip(b"\n") + b"\n\n")
    return path


def _email(subject: str, body: str, *, mid: str | None = None, date: str = EMAIL_DATE) -> bytes:
    msg = EmailMessage()
    msg["Subject"] = subject
    msg["From"] = "Ana Silva <ana@example.com>"
    msg["To"] = "me@example.com"
    msg["Date"] = date
    if mid:
        msg["Message-ID"] = f"<{mid}@example.com>"
    msg.set_content(body)
    return bytes(msg)


# -- mbox ----------------------------------------------------------------------------------------
def test_mbox_import_saves_emails_with_dates_and_is_incremental(mind, brain, tmp_path):
    box = _mbox(tmp_path / "in.mbox", [
        _email("Flight to Lisbon", "Your flight TP123 leaves at 10:00 on March 3.", mid="a1"),
        _email("Dinner", "Dinner with Marco on Friday at 8pm.", mid="a2"),
    ])
    rep = mind.import_mbox(box)
    assert (rep.items, rep.saved, rep.already_imported) == (2, 2, 0)
    emails = mind.list(MemoryFilter(memory_types=[MemoryType.EMAIL]), order="created_asc")
    assert len(emails) == 2
    m = emails[0]
    assert m.source is Source.IMPORT
    assert m.occurred_at == datetime(2026, 2, 3, 8, 30, tzinfo=UTC)
    assert m.content.startswith("Subject: Flight to Lisbon\nFrom: Ana Silva <ana@example.com>")
    assert m.metadata["message_id"] == "a1@example.com"
    calls = brain.calls["triage"]
    again = mind.import_mbox(box)
    assert (again.items, again.already_imported, again.saved) == (2, 2, 0)
    assert brain.calls["triage"] == calls  # nothing re-triaged
    # append a message: only the new one is processed
    with box.open("ab") as f:
        f.write(b"From x@example.com Tue Feb  3 09:30:00 2026\n" + _email("New", "A new mail.", mid="a3"))
    third = mind.import_mbox(box)
    assert (third.items, third.already_imported, third.saved) == (3, 2, 1)
    assert mind.count() == 3
    src = mind.store.harvest_sources()
    assert len(src) == 1 and src[0].kind == "mbox" and src[0].items == 3


def test_mbox_skipped_by_model_is_marked_and_not_retriaged(mind, brain, tmp_path):
    brain.save = False
    box = _mbox(tmp_path / "promo.mbox", [_email("SALE", "50% off everything", mid="p1")])
    assert mind.import_mbox(box).skipped == 1
    assert mind.import_mbox(box).already_imported == 1
    assert mind.count() == 0


def test_mbox_triage_failure_enqueues_and_marks_processed(mind, brain, tmp_path, clock):
    brain.fail = failing({"triage"})
    box = _mbox(tmp_path / "in.mbox", [_email("Hello", "Body text here.", mid="q1")])
    rep = mind.import_mbox(box)
    assert (rep.saved, rep.queued) == (0, 1)
    assert mind.queue_status()["pending_triage"] == 1
    assert mind.import_mbox(box).already_imported == 1  # enqueued counts as processed
    brain.fail = lambda site, text: None
    assert mind.drain_pending_triage().saved == 1
    assert mind.count() == 1


def test_mbox_defer_only_queues(mind, brain, tmp_path):
    box = _mbox(tmp_path / "in.mbox", [_email("A", "aaa", mid="d1"), _email("B", "bbb", mid="d2")])
    rep = mind.import_mbox(box, defer=True)
    assert rep.queued == 2 and brain.calls == {}
    assert mind.drain_pending_triage().saved == 2


def test_non_utf8_and_unknown_charsets_are_decoded_with_replacement(mind, brain, tmp_path):
    latin = (
        b"Subject: =?iso-8859-1?q?Caf=E9?=\nFrom: a@example.com\nMessage-ID: <l1@x>\n"
        b"Content-Type: text/plain; charset=iso-8859-1\n\nCaf\xe9 com leite \xe0s 8h.\n"
    )
    bogus = (
        b"Subject: weird\nFrom: b@example.com\nMessage-ID: <l2@x>\n"
        b"Content-Type: text/plain; charset=x-no-such-charset\n\nbad \xff\xfe bytes\n"
    )
    undeclared = b"Subject: raw\nFrom: c@example.com\nMessage-ID: <l3@x>\n\nna\xefve \xff\n"
    box = _mbox(tmp_path / "enc.mbox", [latin, bogus, undeclared])
    rep = mind.import_mbox(box)
    assert rep.saved == 3 and rep.invalid == 0
    texts = {m.metadata["message_id"]: m.content for m in mind.list()}
    assert "Subject: Café" in texts["l1@x"] and "Café com leite às 8h." in texts["l1@x"]
    assert "bad \ufffd\ufffd bytes" in texts["l2@x"]
    assert "\ufffd" in texts["l3@x"]


def test_html_only_bodies_become_text_and_attachments_are_skipped(mind, brain, tmp_path):
    msg = EmailMessage()
    msg["Subject"] = "Report"
    msg["From"] = "boss@example.com"
    msg["Message-ID"] = "<h1@x>"
    msg.set_content("<html><head><style>p{}</style></head><body><p>Q3 numbers are <b>up</b>"
                    "&nbsp;12%</p><script>x()</script></body></html>", subtype="html")
    msg.add_attachment(b"\x00" * 5_000_000, maintype="application", subtype="pdf",
                       filename="huge.pdf")
    box = _mbox(tmp_path / "h.mbox", [bytes(msg)])
    rep = mind.import_mbox(box)
    assert rep.saved == 1
    assert any("attachment skipped: huge.pdf" in n for n in rep.notes)
    m = mind.list()[0]
    assert "Q3 numbers are up 12%" in m.content
    assert "<p>" not in m.content and "x()" not in m.content and "p{}" not in m.content
    assert "[attachment skipped: huge.pdf (application/pdf, ~4.8 MB)]" in m.content
    assert len(m.content) < 2000


def test_huge_bodies_are_truncated_and_chunked(mind, brain, tmp_path, config):
    body = "Line about the project plan number 42. " * 10_000  # ~390 KB
    box = _mbox(tmp_path / "big.mbox", [_email("Big", body, mid="b1")])
    rep = mind.import_mbox(box)
    assert rep.saved == 1 and any("body truncated" in n for n in rep.notes)
    total = sum(len(m.content.encode()) for m in mind.list(limit=1000))
    assert total <= config.import_max_body_bytes + 2000
    assert mind.count() > 1  # chunked at chunk_bytes


def test_malformed_mbox_input(mind, tmp_path):
    garbage = tmp_path / "garbage.mbox"
    garbage.write_bytes(b"\x00\xff not an mbox at all\n\n\x89PNG")
    with pytest.raises(InvalidInput, match="not an mbox"):  # no "From " line: loud, not 0 items
        mind.import_mbox(garbage)
    headerless = _mbox(tmp_path / "h.mbox", [b"no headers, just text\n"])
    rep = mind.import_mbox(headerless)
    assert rep.items == 1 and rep.saved == 1
    assert mind.list()[0].content.startswith("Subject: (no subject)")
    bad_date = _mbox(tmp_path / "d.mbox", [_email("x", "y", mid="bd", date="not a date")])
    assert mind.import_mbox(bad_date).saved == 1
    undated = [m for m in mind.list() if m.metadata.get("message_id") == "bd@example.com"]
    assert undated[0].occurred_at is None
    with pytest.raises(InvalidInput):
        mind.import_mbox(tmp_path / "missing.mbox")
    with pytest.raises(InvalidInput):
        mind.import_mbox(tmp_path)


def test_html_to_text():
    assert html_to_text("<p>a&amp;b</p><br>c") == "a&b\n\nc"
    assert html_to_text("<div>x</div><div>y</div>") == "x\ny"


# -- ICS -----------------------------------------------------------------------------------------
ICS = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
BEGIN:VEVENT
UID:ev1@example.com
SEQUENCE:0
DTSTART:20260310T140000Z
DTEND:20260310T150000Z
SUMMARY:Dentist appointment
LOCATION:Clinic on Rua Augusta
DESCRIPTION:Bring the insurance card.
ORGANIZER;CN=Dr Silva:mailto:silva@clinic.example
ATTENDEE;CN=Ana:mailto:ana@example.com
ATTENDEE:mailto:me@example.com
END:VEVENT
BEGIN:VEVENT
UID:ev2@example.com
SUMMARY:Someday: plan the garden
END:VEVENT
BEGIN:VEVENT
UID:ev3@example.com
DTSTART;VALUE=DATE:20260401
SUMMARY:Ana's birthday
RRULE:FREQ=YEARLY
END:VEVENT
END:VCALENDAR
"""


def test_ics_import_events_with_and_without_dates(mind, brain, tmp_path):
    p = tmp_path / "cal.ics"
    p.write_text(ICS)
    rep = mind.import_ics(p)
    assert (rep.items, rep.saved) == (3, 3)
    assert any("no start date" in n for n in rep.notes)
    by_uid = {m.metadata["uid"]: m for m in mind.list()}
    dentist = by_uid["ev1@example.com"]
    assert dentist.memory_type is MemoryType.CALENDAR
    assert dentist.occurred_at == datetime(2026, 3, 10, 14, 0, tzinfo=UTC)
    for part in ("Event: Dentist appointment", "Where: Clinic on Rua Augusta",
                 "Dr Silva <silva@clinic.example>", "Ana <ana@example.com>",
                 "Bring the insurance card."):
        assert part in dentist.content
    assert by_uid["ev2@example.com"].occurred_at is None
    assert "When: date unknown" in by_uid["ev2@example.com"].content
    bday = by_uid["ev3@example.com"]
    assert bday.occurred_at == datetime(2026, 4, 1, tzinfo=UTC) and "Repeats: FREQ=YEARLY" in bday.content
    assert mind.import_ics(p).already_imported == 3


def test_ics_updated_event_is_imported_again(mind, brain, tmp_path):
    p = tmp_path / "cal.ics"
    p.write_text(ICS)
    mind.import_ics(p)
    p.write_text(ICS.replace("SEQUENCE:0", "SEQUENCE:1").replace("14000", "16000"))
    rep = mind.import_ics(p)
    assert (rep.saved, rep.already_imported) == (1, 2)


def test_malformed_ics(mind, tmp_path):
    p = tmp_path / "bad.ics"
    p.write_text("this is not a calendar")
    with pytest.raises(InvalidInput, match="not a valid iCalendar"):
        mind.import_ics(p)
    p.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(InvalidInput):
        mind.import_ics(p)
    empty = tmp_path / "empty.ics"
    empty.write_text("BEGIN:VCALENDAR\nVERSION:2.0\nEND:VCALENDAR\n")
    assert mind.import_ics(empty).items == 0


# -- chat JSONL ----------------------------------------------------------------------------------
def test_chat_jsonl_shapes_grounding_and_incremental(mind, brain, tmp_path):
    brain.salience_for = lambda text: 4  # between the grounded (3) and parametric (5) bars
    conv = {"id": "c1", "messages": [
        {"role": "system", "content": "be nice"},
        {"role": "user", "content": "What's the weather in Porto?"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "t1"}]},
        {"role": "tool", "content": "18C sunny"},
        {"role": "assistant", "content": "18C and sunny in Porto."},
        {"role": "user", "content": [{"type": "text", "text": "Who wrote Dune?"}]},
        {"role": "assistant", "content": "Frank Herbert."},
    ]}
    arr = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    lines = [json.dumps(conv), "", json.dumps(arr), "{not json", json.dumps({"foo": 1}),
             json.dumps({"role": "user", "content": "I adopted a dog"}),
             json.dumps({"role": "assistant", "content": "Congrats!"})]
    p = tmp_path / "chat.jsonl"
    p.write_text("\n".join(lines) + "\n")
    rep = mind.import_chat(p)
    assert rep.invalid == 2 and rep.items == 6
    # what the user said is kept; "hi" / "hello" is small talk and its reply scores 4 < 5
    assert rep.saved == 3 and rep.skipped == 1
    saved = {m.content.split("\n")[0]: m for m in mind.list()}
    assert set(saved) == {"User: What's the weather in Porto?", "User: Who wrote Dune?",
                          "User: I adopted a dog"}
    weather = saved["User: What's the weather in Porto?"]
    assert "18C and sunny in Porto." in weather.content and weather.source is Source.IMPORT
    assert mind.import_chat(p).already_imported == 4


def test_chat_missing_file(mind, tmp_path):
    with pytest.raises(InvalidInput):
        mind.import_chat(tmp_path / "nope.jsonl")
