"""A clause's residence or employer read from its head words, without a sentence template
(`salience.llm.heuristic.slot_words`, issue 14)."""

from __future__ import annotations

import pytest

from salience.llm.heuristic.claims import claims


def _slot(text: str, attribute: str) -> set[tuple[str, str]]:
    return {(c.subject, c.value) for c in claims(text) if c.attribute == attribute}


@pytest.mark.parametrize(("text", "place"), [
    ("finally got the keys to my own studio in Neukölln", "neukölln"),
    ("unpacking in Denver, the altitude is no joke", "denver"),
    ("I rent a room in Kreuzberg.", "kreuzberg"),
])
def test_a_home_noun_and_a_place_are_the_speakers_residence(text: str, place: str) -> None:
    assert ("user", place) in _slot(text, "residence")


@pytest.mark.parametrize(("text", "org"), [
    ("first week as a product manager at Canva done", "canva"),
    ("the offer from Airbus came through and I took it", "airbus"),
    ("I work in sales at Oracle.", "oracle"),
])
def test_a_job_noun_and_an_organisation_are_the_speakers_employer(text: str, org: str) -> None:
    assert ("user", org) in _slot(text, "employer")


@pytest.mark.parametrize("text", [
    "We stayed in a lovely flat in Seville on our trip.",
    "My sister's new flat in Leeds is huge.",
    "I used to live in a flat in Paris.",
    "If the job offer from Airbus comes through I might take it.",
])
def test_a_visit_someone_elses_home_the_past_or_a_plan_gives_no_slot(text: str) -> None:
    assert not _slot(text, "residence") | _slot(text, "employer")


def test_a_job_held_in_a_past_period_is_no_claim_on_the_job_now() -> None:
    assert not _slot("I was a waiter in my twenties.", "job")
    assert ("user", "waiter") in _slot("I am a waiter.", "job")
