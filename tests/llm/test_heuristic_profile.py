"""The heuristic user profile on realistic phrasing: clean attribute values from what the
user says about themselves, nothing from the assistant, questions, plans or small talk."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from salience.llm import HeuristicBrain
from salience.llm.heuristic.identity import clean_thing, proper_noun, user_text
from salience.models import Memory

brain = HeuristicBrain()
T0 = datetime(2026, 2, 1, 9, 0, tzinfo=UTC)


def profile_of(*texts: str):
    mems = [Memory(content=t, created_at=T0 + timedelta(hours=i)) for i, t in enumerate(texts)]
    return brain.consolidate(mems)


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("I live in Södermalm.", "residence", "Södermalm"),
        ("We just moved to Lisbon last week!", "residence", "Lisbon"),
        ("I've relocated from Leeds to São Paulo.", "residence", "São Paulo"),
        ("I live in a small flat in Vasastan with my partner.", "residence", "Vasastan"),
        ("Home is Berlin now.", "residence", "Berlin"),
        ("We live in the Netherlands.", "residence", "Netherlands"),
        ("I'm originally from Cork.", "hometown", "Cork"),
        ("I work at Siemens.", "employer", "Siemens"),
        ("I started a new job at Stripe.", "employer", "Stripe"),
        ("I accepted a job offer at Spotify!", "employer", "Spotify"),
        ("I work at Siemens as a data analyst.", "occupation", "data analyst"),
        ("I'm a senior software engineer.", "occupation", "senior software engineer"),
        ("My name is Tom Becker.", "name", "Tom Becker"),
        ("Call me Liz.", "name", "Liz"),
        ("I'm 34 years old.", "age", "34"),
        ("I'm vegetarian.", "diet", "vegetarian"),
        ("I've been vegan for two years.", "diet", "vegan"),
        ("I'm pescatarian now.", "diet", "pescatarian"),
        ("I went keto in January.", "diet", "keto"),
        ("We got married in June!", "relationship status", "married"),
        ("I'm allergic to penicillin.", "health", "allergic to penicillin"),
        ("I have asthma, so no running in the cold.", "health", "asthma"),
        ("I speak English, Swedish and German.", "languages", "English, Swedish, German"),
        ("My dog is called Rex, a border collie.", "pets", "dog Rex (border collie)"),
        ("We adopted a kitten named Miso.", "pets", "kitten Miso"),
        ("My new manager is Astrid Lund.", "manager", "Astrid Lund"),
        ("My sister Anna lives in Oslo.", "sister", "Anna"),
        ("We have two kids.", "number of children", "2"),
        ("My new phone number is 555-0199.", "phone", "555-0199"),
        ("My favourite band is Radiohead.", "favourite band", "Radiohead"),
        ("I love hiking in the mountains.", "likes", "hiking in the mountains"),
        ("I love to cook on weekends.", "likes", "cooking on weekends"),
        ("I can't stand cilantro.", "dislikes", "cilantro"),
        ("I'm not a fan of horror movies.", "dislikes", "horror movies"),
    ],
)
def test_clean_values_from_natural_statements(text: str, key: str, value: str) -> None:
    p = profile_of(f"User: {text}\nAssistant: Noted!")
    assert p.attributes.get(key) == value, p.attributes


@pytest.mark.parametrize(
    "text",
    [
        "Thanks, I like it here!",
        "I like it, glad you are settling.",
        "I really like that idea!",
        "I love you guys.",
        "I'd like to book a table for two.",
        "I would love to live in Paris one day.",
        "If I lived in Paris I'd eat croissants every day.",
        "I want to move to Berlin next year.",
        "Do you think I should work at Google?",
        "My sister says I live in a bubble.",
        "I used to live in Madrid.",
        "I live in the city centre.",
        "I work from home on Fridays.",
        "I work with Anna on the launch.",
        "My sister is a doctor.",
        "I love my job.",
        "lol ok",
    ],
)
def test_no_junk_attributes(text: str) -> None:
    p = profile_of(f"User: {text}\nAssistant: Sure.")
    assert p.attributes == {}, p.attributes
    assert p.profile == "No facts about the user recorded yet."


def test_the_assistant_speaks_for_itself_only() -> None:
    p = profile_of(
        "User: We arrived yesterday.\nAssistant: I like it, glad you are settling in. "
        "I live in the cloud and I work at OpenAI."
    )
    assert p.attributes == {}
    assert user_text("User: I'm vegan.\nAssistant: I love steak.") == "I'm vegan."


def test_later_statements_win_and_negations_clear() -> None:
    p = profile_of(
        "I'm vegetarian.",
        "I'm pescatarian now.",
        "I work at Siemens.",
        "I quit Siemens last month.",
        "I love sushi.",
        "I don't like sushi anymore.",
        "My manager is Bo Ek.",
        "My new manager is Astrid Lund.",
        "My dog is called Rex.",
        "My dog is called Rex, a border collie.",
    )
    assert p.attributes["diet"] == "pescatarian"
    assert "employer" not in p.attributes
    assert p.attributes["dislikes"] == "sushi" and "likes" not in p.attributes
    assert p.attributes["manager"] == "Astrid Lund"
    assert p.attributes["pets"] == "dog Rex (border collie)"
    assert "vegetarian" not in p.profile and "Siemens" not in p.profile


def test_sources_name_the_memories_behind_each_attribute() -> None:
    home = Memory(content="I live in Leeds.", created_at=T0)
    move = Memory(content="We moved to Lisbon.", created_at=T0 + timedelta(days=1))
    food = Memory(content="I love ramen and I love sushi.", created_at=T0 + timedelta(days=2))
    p = brain.consolidate([food, move, home])
    assert p.sources["residence"] == [move.id]
    assert p.sources["likes"] == [food.id]
    assert p.attributes["likes"] == "ramen; sushi"


def test_value_helpers() -> None:
    assert proper_noun("Acme Corp as an engineer") == "Acme Corp"
    assert proper_noun("a startup called Lumen") == "Lumen"
    assert proper_noun("a flat in Södermalm", anywhere_after_in=True) == "Södermalm"
    assert proper_noun("Berlin on Monday") == "Berlin"
    assert proper_noun("the team") == ""
    assert clean_thing("it here") == "" and clean_thing("that idea") == ""
    assert clean_thing("glad you are settling") == ""
    assert clean_thing("to run by the river") == "running by the river"
    assert clean_thing("Radiohead a lot") == "Radiohead"
