from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from salience.ingest.chunking import chunk_text


def test_short_text_is_one_chunk():
    assert chunk_text("  hello world  ") == ["hello world"]
    assert chunk_text("   ") == []


def test_splits_on_sentences_first():
    s1 = "A" * 500 + "."
    s2 = "B" * 500 + "."
    s3 = "C" * 500 + "."
    chunks = chunk_text(f"{s1} {s2} {s3}", 1200)
    assert chunks == [f"{s1} {s2}", s3]


def test_never_splits_multibyte_characters():
    text = "東京" * 1000  # 6000 bytes, no spaces
    chunks = chunk_text(text, 100)
    assert all(len(c.encode()) <= 100 for c in chunks)
    assert "".join(chunks) == text


def test_rejects_tiny_limit():
    with pytest.raises(ValueError):
        chunk_text("abc", 4)


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=0, max_size=5000), st.integers(min_value=8, max_value=2000))
def test_chunk_properties(text: str, limit: int):
    text = text.encode("utf-8", "replace").decode("utf-8", "replace") if text else text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return
    chunks = chunk_text(text, limit)
    for c in chunks:
        assert c and c == c.strip()
        assert len(c.encode("utf-8")) <= limit
        c.encode("utf-8").decode("utf-8")  # valid UTF-8
    # no character lost: the non-space characters survive in order
    assert "".join("".join(chunks).split()) == "".join(text.split())


def test_a_later_chunk_of_a_speakers_line_says_who_speaks():
    from salience.ingest.chunking import chunk_message

    said = " ".join(f"This is sentence {i} about my week." for i in range(60))
    reply = " ".join(f"Reply sentence {i} here." for i in range(80))
    chunks = chunk_message(f"Caroline: {said}\nAssistant: {reply}", 1200)
    assert len(chunks) >= 3 and all(len(c.encode()) <= 1200 for c in chunks)
    assert all(c.startswith(("Caroline: ", "Assistant: ")) for c in chunks)
    assert chunks[-1].startswith("Assistant: Reply sentence")
    assert chunk_message("Caroline: short turn") == ["Caroline: short turn"]


def test_an_emails_headers_say_nobody():
    from salience.ingest.chunking import chunk_message

    body = " ".join(f"Body sentence {i} of the email." for i in range(90))
    text = f"From: alice@example.com\nSubject: hi\n\n{body}"
    assert chunk_message(text, 1200) == chunk_text(text, 1200)


def test_a_list_heading_or_a_key_is_no_speaker():
    from salience.ingest.chunking import chunk_message

    said = " ".join(f"This is sentence {i} about my week." for i in range(30))
    items = ", ".join(f"item {i}" for i in range(200))
    chunks = chunk_message(f"Caroline: {said}\nGroceries: {items}", 1200)
    assert len(chunks) >= 2 and not any(c.startswith("Groceries: ") for c in chunks[1:])
    # a transcript's speakers who talk on two lines or more are speakers
    a = " ".join(f"Alice line {i}." for i in range(60))
    b = " ".join(f"Bob line {i}." for i in range(60))
    chunks = chunk_message(f"Alice: {a}\nBob: {b}\nAlice: {a}\nBob: {b}", 1200)
    assert all(c.startswith(("Alice: ", "Bob: ")) for c in chunks)
