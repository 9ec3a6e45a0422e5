"""Heuristic triage on realistic inputs: rubric bands, types, tags, entities, summaries, save."""

from __future__ import annotations

import pytest

from salience.errors import InvalidInput
from salience.llm import HeuristicBrain
from salience.models import MemoryType

brain = HeuristicBrain()

NOISE = [  # 1-3: greetings, thanks, small talk
    "Hi!",
    "hey there :)",
    "Good morning!",
    "Thanks so much, have a great day!",
    "thx, appreciate it",
    "lol that's funny",
    "How are you doing today?",
    "ok cool",
    "Sounds good, talk later!",
    "Nice weather today, isn't it?",
    "What's the capital of France?",
    "My phone died again.",
    "Gina: Sounds great! Good luck!",
    "Congrats, so happy for you!",
]
TEMPORAL = [  # 4-6: plans, deadlines, meetings, projects
    "The team meeting moved to Thursday at 3pm.",
    "I need to submit the quarterly report by Friday.",
    "We're planning a trip to Japan next month.",
    "I'm working on the database migration project this sprint.",
    "Dentist appointment on March 14 at 9am.",
    "Remind me to call the landlord tomorrow.",
    "Dinner with Priya and Sam on Saturday at 7pm.",
    "Our flight to Rome leaves at 6:40 on Sunday.",
    "We moved the meeting to Friday.",
    "Tom's wedding is on June 12.",
    "The client wants the proposal by end of week.",
    "If I ever got married I'd want a small wedding.",
    "I think I'm coming down with a cold.",
    "Note to self: renew the car insurance before 30 June.",
]
IDENTITY = [  # 7-8: preferences, relationships, health, job, home, facts about the user
    "I love sushi but I can't stand mayonnaise.",
    "My favourite colour is green.",
    "My sister Anna is a nurse in Porto.",
    "I'm allergic to peanuts.",
    "I work at Google as a software engineer.",
    "I live in Berlin with my partner.",
    "My name is Tom and I'm 34.",
    "I'm vegetarian and I don't drink alcohol.",
    "We decided to use PostgreSQL for the new service.",
    "My daughter started school this year.",
    "I speak Spanish and a bit of Japanese.",
    "I got a new job at Spotify, starting in May.",
    "I have two cats, Miso and Nori.",
    "I'm moving to Munich next month for work.",
    "I'm really interested in marine biology.",
    "Caroline: I'm keen on counseling or working in mental health.",
]
CRITICAL = [  # 9-10: life-altering
    "My mother passed away last night.",
    "We just had a baby girl! Her name is Mia.",
    "I got married to Sarah on Saturday.",
    "I was diagnosed with type 2 diabetes.",
    "We're moving to Canada in August.",
    "I got laid off today.",
    "My dad had a heart attack and is in the ICU.",
    "Sarah and I are getting divorced.",
    "I'm pregnant!",
]


@pytest.mark.parametrize("text", NOISE)
def test_noise_scores_1_to_3(text: str) -> None:
    t = brain.triage(text)
    assert 1 <= t.salience <= 3, (t.salience, t.reasons)


@pytest.mark.parametrize("text", TEMPORAL)
def test_temporal_and_project_scores_4_to_6(text: str) -> None:
    t = brain.triage(text)
    assert 4 <= t.salience <= 6, (t.salience, t.reasons)


@pytest.mark.parametrize("text", IDENTITY)
def test_identity_and_high_value_scores_7_to_8(text: str) -> None:
    t = brain.triage(text)
    assert 7 <= t.salience <= 8, (t.salience, t.reasons)


@pytest.mark.parametrize("text", CRITICAL)
def test_life_altering_scores_9_to_10(text: str) -> None:
    t = brain.triage(text)
    assert 9 <= t.salience <= 10, (t.salience, t.reasons)
    assert t.save


def test_whose_life_it_is_matters() -> None:
    own = brain.triage("My mother passed away last night.").salience
    news = brain.triage("The actor died in a car crash, the news said.").salience
    assert own >= 9 and news <= 6


def test_greetings_around_a_fact_do_not_dilute_it() -> None:
    t = brain.triage("Hi! Hope you're well. By the way, I'm allergic to shellfish. Thanks!")
    assert t.salience >= 7
    assert t.summary == "By the way, I'm allergic to shellfish."


def test_noise_is_not_saved_and_facts_are() -> None:
    assert not brain.triage("ok thanks!").save
    assert brain.triage("I prefer window seats on flights.").save


@pytest.mark.parametrize(
    ("text", "mtype"),
    [
        ("I love hiking in the Alps.", MemoryType.PREFERENCE),
        ("My favourite band is Radiohead.", MemoryType.PREFERENCE),
        ("I live in Lisbon.", MemoryType.FACT),
        ("My brother Jon works at Airbus.", MemoryType.FACT),
        ("Meeting with the auditors on Tuesday at 10am.", MemoryType.EVENT),
        ("My grandfather passed away.", MemoryType.EVENT),
        ("The Eiffel Tower is 330 metres tall.", MemoryType.FACT),
        ("hmm, not sure", MemoryType.GENERAL),
    ],
)
def test_memory_type(text: str, mtype: MemoryType) -> None:
    assert brain.triage(text).memory_type == mtype


def test_tags_name_the_rule_and_the_topic() -> None:
    t = brain.triage("I'm allergic to peanuts, so no satay for me at dinner.")
    assert t.tags[0] == "health"
    assert "food" in t.tags
    meeting = brain.triage("Sprint planning meeting on Monday at 10am about the API launch.")
    assert {"meeting", "project"} <= set(meeting.tags)


def test_entities_come_with_the_triage() -> None:
    t = brain.triage("Lunch with Priya Patel at Nando's in Leeds on Friday, she owes me £12.")
    assert {"Priya Patel", "Leeds", "Friday", "£12"} <= set(t.entities)


def test_summary_is_the_informative_part_trimmed() -> None:
    long = (
        "Hello! I finally booked the venue for Mia's birthday party on May 3 at the Riverside Hall, "
        "after calling the Oak Room, the Old Mill, the Harbour Club, the boathouse by the lake and "
        "three other places that were either full or far too expensive for forty guests and a band."
    )
    t = brain.triage(long)
    assert t.summary.startswith("I finally booked the venue")
    assert len(t.summary) <= 240 and t.summary.endswith("…")
    assert "Hello" not in t.summary


def test_assistant_lines_do_not_count_as_the_users_identity() -> None:
    t = brain.triage(
        "User: what should I cook tonight?\nAssistant: I love recommending pasta! Try carbonara."
    )
    assert t.salience <= 5
    assert t.memory_type != MemoryType.PREFERENCE


def test_user_facts_inside_a_transcript_count() -> None:
    t = brain.triage(
        "User: hi\nAssistant: Hello! How can I help?\nUser: I just moved to Vancouver with my wife."
    )
    assert t.salience >= 8


# -- email and calendar -------------------------------------------------------------------------


def test_promotional_email_is_not_saved() -> None:
    t = brain.triage(
        "Subject: 50% off everything this weekend!\nFrom: deals@shop.example\n\n"
        "Huge sale on all shoes. Unsubscribe here.",
        kind="email",
    )
    assert t.salience <= 2 and not t.save
    assert t.memory_type == MemoryType.EMAIL
    assert t.tags[:2] == ["email", "newsletter"]


def test_one_time_code_email_is_noise() -> None:
    t = brain.triage(
        "Subject: Your verification code\nFrom: no-reply@bank.example\n\nYour code is 493021.",
        kind="email",
    )
    assert t.salience == 1 and not t.save


def test_personal_email_is_saved_with_subject_in_summary() -> None:
    t = brain.triage(
        "Subject: Dinner Saturday?\nFrom: Anna <anna@example.com>\nTo: tom@example.com\n\n"
        "Hi Tom, want to have dinner with us on Saturday at 7pm at Casa Lisboa?\n\nBest,\nAnna\n\n"
        "On Fri, Mar 6, 2026 Tom wrote:\n> see you soon",
        kind="email",
    )
    assert t.save and 4 <= t.salience <= 6
    assert t.summary.startswith("Dinner Saturday? — Hi Tom")
    assert "see you soon" not in t.summary
    assert {"Anna", "Casa Lisboa", "Saturday"} <= set(t.entities)


def test_important_automated_email_keeps_its_value() -> None:
    t = brain.triage(
        "Subject: Your flight to Tokyo is confirmed\nFrom: no-reply@airline.example\n\n"
        "Flight JL44 departs London Heathrow on 14 March 2026 at 11:05. Do not reply to this email.",
        kind="email",
    )
    assert t.save and t.salience >= 4


def test_transactional_email_is_kept_low() -> None:
    t = brain.triage(
        "Subject: Your order has shipped\nFrom: shop@example.com\n\nTracking number 1Z999.",
        kind="email",
    )
    assert t.save and t.salience == 3


def test_calendar_event_from_ics() -> None:
    t = brain.triage(
        "BEGIN:VEVENT\nSUMMARY:Dentist appointment\nDTSTART:20260314T090000Z\nLOCATION:Smile Clinic\nEND:VEVENT",
        kind="calendar",
    )
    assert t.memory_type == MemoryType.CALENDAR and t.save
    assert t.summary == "Dentist appointment at 2026-03-14 09:00 UTC in Smile Clinic"
    assert "Smile Clinic" in t.entities and "UTC" not in t.entities


def test_calendar_funeral_scores_high() -> None:
    assert (
        brain.triage("Funeral of my grandmother, St Mary's church, 11am", kind="calendar").salience
        >= 9
    )


def test_unknown_kind_and_non_text_are_rejected() -> None:
    with pytest.raises(InvalidInput, match="unknown triage kind"):
        brain.triage("hello", kind="sms")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="must be text"):
        brain.triage(b"bytes")  # type: ignore[arg-type]


def test_triage_is_deterministic() -> None:
    text = "We're moving to Canada in August; my sister Anna will help us pack."
    assert brain.triage(text) == brain.triage(text)
