"""Sentence splitting of the heuristic engine: people who type in lower case end sentences
too; abbreviations, initials and times do not end one."""

from __future__ import annotations

from salience.llm.heuristic.text import split_sentences


def test_a_sentence_typed_in_lower_case_ends_at_its_full_stop() -> None:
    assert split_sentences("sessions are on fridays now, which is early but fine. ok so this "
                           "week has been a lot. monday was chaos.") == [
        "sessions are on fridays now, which is early but fine.",
        "ok so this week has been a lot.", "monday was chaos.",
    ]


def test_abbreviations_initials_and_times_do_not_end_a_sentence() -> None:
    for text in ("we meet at 3 p.m. tomorrow in the usual room.", "see e.g. the second list.",
                 "Dr. smith says hi to everyone.", "the U.K. office is closing.",
                 "the answer is approx. ten days."):
        assert split_sentences(text) == [text]
