"""Topic-aware catch-up (issue 14, item 6): a catch-up phrase with a topic ("what did we decide
about payments?") searches the decisions and important memories about that topic. What was seen:
the generic decision list came back, without the payments decision."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from salience.clock import FrozenClock
from salience.config import Config
from salience.embed import HashEmbedder
from salience.errors import InvalidInput
from salience.mind import Mind
from salience.models import Importance, Memory
from salience.search.catchup import (
    catch_up_topic,
    is_catch_up,
    mentions,
    select_topic_catch_up,
)

T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
PAYMENTS = "Decision: payments move to Stripe on 1 July; the PayPal checkout is switched off."


@pytest.mark.parametrize(
    ("query", "topic"),
    [
        ("what did we decide about payments?", "payments"),
        ("What did we decide about the venue?", "venue"),
        ("Catch me up on the onboarding project", "onboarding project"),
        ("where were we with the kitchen renovation?", "kitchen renovation"),
        ("brief me on the Q3 budget, please", "Q3 budget"),
        ("what's next for the launch", "launch"),
        ("recap of the design review", "design review"),
        ("fill me in on Priya's visa", "Priya's visa"),
        ("Payments: what did we decide?", "Payments"),
        ("what did we agree regarding the Lisbon office lease", "Lisbon office lease"),
    ],
)
def test_topic_of_a_catch_up_phrase(query: str, topic: str) -> None:
    assert is_catch_up(query)
    assert catch_up_topic(query) == topic


@pytest.mark.parametrize(
    "query",
    ["Catch me up", "where were we?", "brief me", "what's next?", "quick recap please",
     "what did we decide so far?", "catch me up on everything", "what have I missed today?"],
)
def test_a_plain_catch_up_phrase_has_no_topic(query: str) -> None:
    assert is_catch_up(query)
    assert catch_up_topic(query) is None


def test_no_topic_without_a_catch_up_phrase() -> None:
    assert catch_up_topic("payments to Stripe") is None


def m(content: str, importance: str = "normal") -> Memory:
    return Memory(content=content, importance=importance)  # type: ignore[arg-type]


def test_select_topic_catch_up_puts_key_memories_first_in_relevance_order() -> None:
    about = [
        m("We talked about payments over lunch."),
        m("Decision: payments move to Stripe."),
        m("Payments outage last night", "critical"),
        m("Payment provider shortlist: Stripe, Adyen."),
        m("Decision: payments move to Stripe."),  # duplicate
        m("Decision: the office closes at six."),  # a decision, but not about payments
        m("We decided the payment reminders go out on Mondays."),  # about it, further down
    ]
    out = [x.content for x in select_topic_catch_up(about, "payments", limit=4)]
    assert out == [
        "Decision: payments move to Stripe.",
        "Payments outage last night",
        "We decided the payment reminders go out on Mondays.",
        "We talked about payments over lunch.",
    ]


def test_mentions_the_topic() -> None:
    assert mentions(m("The payment failed"), "payments")
    assert mentions(m("Q3 numbers are in"), "the Q3 budget")
    assert not mentions(m("Repayment plan"), "payments")  # a word, not a part of one
    assert not mentions(m("The office closes at six"), "payments")


# -- a real mind ----------------------------------------------------------------------------------
@pytest.fixture
def mind(config: Config) -> Iterator[Mind]:
    clock = FrozenClock(T0)
    with Mind.open("catchup", config=config, embedder=HashEmbedder(), clock=clock) as mind:
        mind.add(PAYMENTS, occurred_at=T0 - timedelta(days=20))
        clock.advance(days=1)
        mind.add("The PayPal fees were discussed at length.", occurred_at=T0 - timedelta(days=19))
        for topic in [
            "the offsite is in Porto", "we hire two designers", "the logo stays blue",
            "standups move to 10:15", "the beta opens in August", "we drop the mobile app",
            "the wiki moves to Notion", "Friday is demo day", "the budget review is monthly",
            "support rotates weekly", "the API freezes on the 20th", "docs ship with v2",
        ]:
            clock.advance(hours=6)
            mind.add(f"Decision: {topic}.")
        mind.add("Critical: the office alarm code changed.", importance=Importance.CRITICAL)
        clock.advance(hours=1)
        mind.add("lol ok")
        yield mind


def test_topic_catch_up_finds_the_payments_decision(mind: Mind) -> None:
    query = "what did we decide about payments?"
    hits = mind.search(query, limit=5, feedback=False)
    assert hits[0].memory.content == PAYMENTS
    assert hits[0].explanation.get("catch_up") == 1.0
    assert all(h.mind == "catchup" for h in hits)
    # the generic selection (what was seen) has newer decisions and leaves it out
    generic = [h.memory.content for h in mind.catch_up(limit=5)]
    assert PAYMENTS not in generic


@pytest.mark.parametrize("topic", ["payments", "what did we decide about payments?"])
def test_catch_up_takes_a_topic(mind: Mind, topic: str) -> None:
    hits = mind.catch_up(topic, limit=5)
    assert hits[0].memory.content == PAYMENTS
    with pytest.raises(InvalidInput):
        mind.catch_up("  ?! ", limit=5)


def test_catch_up_without_a_topic_is_unchanged(mind: Mind) -> None:
    got = [h.memory.content for h in mind.search("catch me up", limit=5, feedback=False)]
    assert got == [h.memory.content for h in mind.catch_up(limit=5)]
    assert got[0] == "Critical: the office alarm code changed."


def test_topic_catch_up_over_two_minds(mind: Mind, config: Config) -> None:
    with Mind.open("team", config=config, embedder=HashEmbedder(), clock=mind.clock) as team:
        team.add("Decision: refunds over 500 EUR need a second approver for payments.")
        team.add("Decision: the office closes at six.")
        hits = mind.recall("what did we decide about payments?", others=[team], limit=4)
    top = [(h.memory.content, h.mind) for h in hits[:2]]
    assert sorted(top) == sorted([
        (PAYMENTS, "catchup"),
        ("Decision: refunds over 500 EUR need a second approver for payments.", "team"),
    ])
