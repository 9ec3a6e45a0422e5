"""Newer wins among the same slot (issue 14 item 2): `stale_ids` and `newest_first` are pure
functions over candidate memories and hits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from salience.models import Memory, SearchHit
from salience.search.slots import STALE, newest_first, stale_ids, stated_before

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def mem(mid: str, text: str, days: float, *, occurred: float | None = None) -> Memory:
    """A memory created `days` after T0 (stated `occurred` days after T0 when given)."""
    return Memory(
        content=f"User: {text}\nAssistant: Noted.", id=mid,
        created_at=T0 + timedelta(days=days),
        occurred_at=T0 + timedelta(days=occurred) if occurred is not None else None,
    )


def test_the_older_of_two_values_in_one_slot_is_stale() -> None:
    lisbon = mem("a", "I live in Lisbon.", 0)
    berlin = mem("b", "Home is Berlin now.", 30)
    sushi = mem("c", "I love sushi.", 10)
    assert stale_ids([berlin, sushi, lisbon]) == {"a": "b"}


def test_a_newer_claim_that_adds_or_tells_of_the_past_leaves_the_older_current() -> None:
    notion = mem("a", "i use notion for all my work notes", 0)
    journal = mem("b", "i also keep a journal in obsidian, that one's just for me", 14)
    assert stale_ids([notion, journal]) == {}
    switch = mem("c", "moved all my notes from notion to obsidian", 14)
    assert stale_ids([notion, switch]) == {"a": "c"}
    # a past tense or an "also" beside an announced change still replaces (review)
    rent = mem("r", "my rent is 1450 a month", 0)
    assert stale_ids([rent, mem("s", "the landlord was cheeky, my rent is 1650 a month now",
                                    9)]) == {"r": "s"}


def test_every_older_value_points_at_the_newest() -> None:
    ms = [mem("a", "I work at Siemens.", 0), mem("b", "I started a new job at Stripe.", 20),
          mem("c", "I accepted a job offer at Spotify!", 40)]
    assert stale_ids(ms) == {"a": "c", "b": "c"}


def test_agreeing_or_unrelated_memories_are_not_stale() -> None:
    ms = [mem("a", "I live in Berlin.", 0), mem("b", "I moved to Berlin in 2019.", 5),
          mem("c", "My sister lives in Munich.", 9), mem("d", "I live in Berlin, Germany.", 12),
          mem("e", "The grant report is due 12 May.", 13),
          mem("f", "The ethics form is due 20 May.", 14)]
    assert stale_ids(ms) == {}


def test_newer_means_stated_later_not_saved_later() -> None:
    # imported out of order: the Berlin email was written first, saved last
    berlin = mem("b", "Home is Berlin now.", 40, occurred=1)
    lisbon = mem("a", "I live in Lisbon.", 0, occurred=20)
    assert stale_ids([berlin, lisbon]) == {"b": "a"}
    assert stated_before(berlin, lisbon) and not stated_before(lisbon, berlin)


def test_statements_of_the_same_instant_never_make_each_other_stale() -> None:
    assert stale_ids([mem("a", "I live in Lisbon.", 3), mem("b", "I live in Berlin.", 3)]) == {}


def hit(m: Memory, score: float) -> SearchHit:
    return SearchHit(memory=m, score=score, explanation={"rrf": score})


def test_a_stale_hit_moves_below_its_replacement_and_says_so() -> None:
    lisbon, berlin = mem("a", "I live in Lisbon.", 0), mem("b", "Home is Berlin now.", 30)
    other = mem("c", "I love sushi.", 10)
    hits = [hit(lisbon, 0.9), hit(other, 0.7), hit(berlin, 0.5)]
    out = newest_first(hits, stale_ids([h.memory for h in hits]))
    assert [h.memory.id for h in out] == ["c", "b", "a"]
    assert out[2].explanation[STALE] == 1.0 and STALE not in out[1].explanation
    assert [h.score for h in out] == sorted((h.score for h in out), reverse=True)


def test_a_stale_hit_whose_replacement_is_absent_keeps_its_place() -> None:
    lisbon, sushi = mem("a", "I live in Lisbon.", 0), mem("c", "I love sushi.", 10)
    out = newest_first([hit(lisbon, 0.9), hit(sushi, 0.7)], {"a": "gone"})
    assert [h.memory.id for h in out] == ["a", "c"] and out[0].explanation[STALE] == 1.0


def test_no_stale_hits_leave_the_list_as_it_was() -> None:
    hits = [hit(mem("a", "I live in Lisbon.", 0), 0.9), hit(mem("c", "I love sushi.", 1), 0.7)]
    assert newest_first(hits, {}) == hits


def test_an_episode_quoting_a_replaced_statement_is_stale() -> None:
    from salience.models import MemoryType

    episode = Memory(
        content="Spotify: listening, music\n\n(2 March) I listen to music on Spotify. "
                "Been listening to a lot of lo-fi beats lately.",
        id="e", memory_type=MemoryType.EPISODE, created_at=T0 + timedelta(days=1),
    )
    switched = mem("n", "I cancelled Spotify and use Apple Music now.", 20)
    assert stale_ids([episode, switched]) == {"e": "n"}


def test_a_question_names_the_slots_it_asks_about() -> None:
    from salience.search.slots import question_slots

    assert question_slots("Where is home for me?") == {"residence"}
    assert {"employer", "job"} <= question_slots("Which company do I work for?")
    assert question_slots("Who is my manager?") == {"manager"}
    assert "when" in question_slots("When is my yoga class?")
    assert question_slots("What did Caroline research?") == frozenset()


def test_slot_first_puts_the_hits_that_answer_the_slot_ahead() -> None:
    from salience.search.slots import slot_first

    chatter = mem("c", "Made a jazz playlist for work.", 9)
    canva = mem("n", "I took a full-time job at Canva.", 20)
    hits = [hit(chatter, 0.9), hit(canva, 0.8)]
    out = slot_first(hits, "Which company do I work for?")
    assert [h.memory.id for h in out] == ["n", "c"]
    assert [h.score for h in out] == [0.9, 0.8]
    assert slot_first(hits, "What's the weather like?") == hits  # no slot: unchanged


def test_a_question_naming_a_year_is_not_answered_by_a_claim_of_another_time() -> None:
    from salience.search.slots import slot_first

    past = mem("p", "back in 2015 i worked at deloitte as an auditor, hated every minute", 20)
    now = mem("n", "i'm a product manager at atlassian, on the jira team", 5)
    hits = [hit(past, 0.9), hit(now, 0.8)]
    assert [h.memory.id for h in slot_first(hits, "where did i work back in 2015?")] == [
        "p", "n"]
    assert slot_first(hits, "where do i work?")[0].memory.id == "n"


def test_a_things_claim_answers_only_a_question_that_names_the_thing() -> None:
    from salience.search.slots import answers_slot, question_slots

    q = "When is the Aurora concert I have tickets for?"
    demo = mem("d", "Our team's sprint demo is every second Thursday at 2pm.", 1)
    concert = mem("e", "The Aurora concert is on 14 March at Sentrum Scene.", 2)
    slots = question_slots(q)
    assert "when" in slots
    assert answers_slot(demo, slots)  # without the question, any dated memory answers
    assert not answers_slot(demo, slots, query=q)
    assert answers_slot(concert, slots, query=q)
    # a person's fixed slot needs no shared word
    canva = mem("f", "I took a full-time job at Canva.", 3)
    assert answers_slot(canva, question_slots("Which company do I work for?"),
                        query="Which company do I work for?")


def test_a_slot_answer_is_about_the_person_the_question_asks_about() -> None:
    """"Which city does my sister live in?" is not answered by where I live, nor "What city do
    I live in?" by where my sister lives (compat13 o01, o02: slot_first moved the wrong one)."""
    from salience.search.slots import answers_slot, asked_person, question_slots

    mine = mem("a", "i live in lisbon btw, been here like six years now", 0)
    hers = mem("b", "my sister just moved to porto, she's obsessed with it already lol", 9)
    q_hers, q_mine = "which city does my sister live in?", "what city do i live in?"
    assert answers_slot(hers, question_slots(q_hers), query=q_hers)
    assert not answers_slot(mine, question_slots(q_hers), query=q_hers)
    assert answers_slot(mine, question_slots(q_mine), query=q_mine)
    assert not answers_slot(hers, question_slots(q_mine), query=q_mine)
    job = mem("c", "i work as a dental hygienist, 4 days a week", 0)
    q = "what does my partner do for work?"
    assert not answers_slot(job, question_slots(q), query=q)
    kids = mem("d", "my kids live in Denver now", 3)
    assert answers_slot(kids, question_slots("Where do my kids live?"),
                        query="Where do my kids live?")
    assert not answers_slot(kids, question_slots(q_mine), query=q_mine)
    # someone else's relative, by name or pronoun, is asked about the same way
    assert asked_person("Where do Melanie's kids live?") == "kids"
    assert asked_person("where does my sister's husband live?") == "husband"
    assert asked_person("what's my dog's name?") is None  # a pet: the speaker's claims answer
    assert asked_person("what's my car's colour?") is None
    assert asked_person("Who is my manager?") is None  # the speaker's manager slot
    anil = mem("e", "from next week I'm reporting to Anil Mehta, who runs the data platform", 4)
    assert answers_slot(anil, question_slots("Who is my manager?"), query="Who is my manager?")
    assert asked_person("what's my boss's mobile?") == "boss"
    assert asked_person("Which year did Jolene and her partner start dating?") is None
    assert asked_person("When did Andrew go fishing with his girlfriend?") is None
    assert not answers_slot(mine, question_slots("where does her sister live?"),
                            query="where does her sister live?")


def test_a_question_about_someone_by_name_is_answered_by_a_statement_naming_them() -> None:
    """"Where does kofi live?" is not answered by where I live (heldout dev dc01: slot_first
    put the speaker's own residence first); a speaker answers about themself."""
    from salience.search.slots import answers_slot, asked_name, question_slots

    mine = mem("a", "i live in chicago, logan square specifically", 0)
    q = "where does kofi live?"
    assert asked_name(q) == "kofi"
    assert not answers_slot(mine, question_slots(q), query=q)
    mine_too = mem("b", "kofi and i live in chicago now", 9)
    assert answers_slot(mine_too, question_slots(q), query=q)
    assert answers_slot(mine, question_slots("where do i live?"), query="where do i live?")
    own = Memory(content="Caroline: I work as a counselor now.\nMelanie: Nice!", id="c",
                 created_at=T0)
    q = "What does Caroline do for work?"
    assert answers_slot(own, question_slots(q), query=q)
    for q in ("where is home?", "how much is rent?", "what is jake's diet?",
              "when is the app launch?", "what time is my flight?",
              "Who is coming to stay with us over Easter?", "where is she still working?"):
        assert asked_name(q) is None, q


def test_an_open_slot_answer_shares_the_thing_the_question_names_not_only_the_slot() -> None:
    """"What's the budget for the bathroom?" is not answered by the kitchen's budget, nor
    "which tool is the cto evaluating?" by the tool the team uses: sharing the slot's own word
    ("budget", "tool") is not sharing the thing (compat13 s01, q05). A question that names
    only the slot is answered by any claim on it."""
    from salience.search.slots import answers_slot, question_slots

    kitchen = mem("a", "kitchen reno budget is 18k max, we agreed that", 0)
    for q in ("what's the budget for the bathroom?", "what's the kitchen renovation budget?"):
        assert answers_slot(kitchen, question_slots(q), query=q) is ("kitchen" in q)
    jira = mem("b", "our team uses jira for tickets", 0)
    q = "which tool is the cto evaluating?"
    assert not answers_slot(jira, question_slots(q), query=q)
    q = "what do we use for tickets?"
    assert answers_slot(jira, question_slots(q), query=q)
