"""A newer statement that is the older one's nearest neighbour among a search's candidates
replaces it for a one-value question, with no shared word and no change word (issue 14,
held-out phrasing: "i smoke about half a pack a day" / "day 40 without a cigarette"); two
numbers measuring one thing ("I weigh 92 kg" / "down to 84 kg after the summer") do too; a
profile revision is a derived memory a newer statement can outdate."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from salience.llm.heuristic.claim_values import measures
from salience.llm.heuristic.lexicon import STOPWORDS
from salience.llm.heuristic.text import stem, words
from salience.models import PROFILE_TAG, Memory, MemoryType
from salience.search.slots import (
    derived,
    implied_things,
    nearest_update,
    question_slots,
    same_measure,
    scope_words,
    statement_text,
    updates_above,
)

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def mem(mid: str, text: str, days: float) -> Memory:
    return Memory(content=f"User: {text}\nAssistant: Got it.", id=mid,
                  created_at=T0 + timedelta(days=days))


def chatter(n: int) -> list[Memory]:
    return [mem(f"c{i}", f"chatter line {i} about nothing much", 1 + i) for i in range(n)]


def gate(a: Memory, b: Memory) -> float:
    return 0.886


def sims(table: dict[frozenset[str], float], default: float = 0.82):
    """similarity(a, b) from a table of id pairs, `default` for every other pair."""
    def similarity(a: Memory, b: Memory) -> float | None:
        return table.get(frozenset((a.id, b.id)), default)
    return similarity


def close_all(old: Memory, new: Memory, share: float) -> bool:
    return True


def close_weak(old: Memory, new: Memory, share: float) -> bool:
    """Rises above the median, but only by a quarter of the older one's rise."""
    return share <= 0.25


@pytest.mark.parametrize(("text", "expected"), [
    ("I weigh 92 kg.", {"unit:kg"}),
    ("down to 84 kg after the summer", {"unit:kg"}),
    ("raise came through, 55k from april", {"unit:k"}),
    ("we're 11 engineers after the latest hires", {"count:engineer"}),
    ("we have three kids", {"count:kids"}),
    ("on nights for the next quarter, 10pm to 6am", {"clock"}),
    ("upped my citalopram to 30mg", {"unit:mg"}),
    ("rent is £1,200 a month", {"money:gbp"}),
    ("I've lived here since 2019", set()),
    ("6 of them came", set()),
    ("in the 1990s", set()),
    ("the 3rd of May", set()),
])
def test_measures_names_what_a_number_measures(text: str, expected: set[str]) -> None:
    assert measures(text, stopwords=STOPWORDS) == expected


def test_a_number_of_the_same_measure_replaces_the_older_without_the_questions_words() -> None:
    old, new = mem("a", "I weigh 92 kg.", 0), mem("b", "down to 84 kg after the summer", 30)
    assert same_measure(old, new)
    head = [old, *chatter(4), new]
    near = sims({frozenset(("a", "b")): 0.92})
    assert updates_above(head, near, gate, query="How much do I weigh?",
                         close=close_weak) == {"a": "b"}
    # another thing of the same unit: "the bathroom budget" is no answer on the kitchen's
    kitchen, bathroom = (mem("k", "The kitchen budget is 15k.", 0),
                         mem("w", "The bathroom budget is 8k.", 20))
    assert updates_above([kitchen, *chatter(4), bathroom], sims({}, 0.95), gate,
                         query="What's the kitchen budget?", close=close_all) == {}


def test_the_nearest_newer_statement_replaces_one_it_shares_no_word_with() -> None:
    old = mem("a", "i smoke about half a pack a day, want to cut down", 0)
    new = mem("b", "day 40 without a cigarette today. the patches helped", 45)
    head = [old, *chatter(5), new]
    q = "do i smoke?"
    near = sims({frozenset(("a", "b")): 0.90})
    assert updates_above(head, near, gate, query=q, close=close_all) == {"a": "b"}
    # not the nearest: a chatter line is as close to the older one
    tie = sims({frozenset(("a", "b")): 0.90, frozenset(("a", "c2")): 0.90})
    assert updates_above(head, tie, gate, query=q, close=close_all) == {}
    # too far below the calibrated gate
    assert updates_above(head, sims({frozenset(("a", "b")): 0.84}), gate, query=q,
                         close=close_all) == {}
    # with no word shared, the newer one must answer the question about as well
    assert updates_above(head, near, gate, query=q, close=close_weak) == {}
    # too few candidates to call one the nearest
    assert updates_above([old, new], near, gate, query=q, close=close_all) == {}
    # a question about many things, or about the past, is left alone by this path
    assert updates_above(head, near, gate, query="why do i smoke?", close=close_all) == {}


@pytest.mark.parametrize(("old_text", "new_text", "query"), [
    # adds to it
    ("i pay for netflix", "i also pay for crunchyroll for anime", "what streaming do i pay for?"),
    # tells of the past
    ("i drive a tesla model y", "my first car was a 1998 camry that leaked oil everywhere",
     "what car do i drive?"),
    ("i'm a product manager at atlassian", "back in 2015 i worked at deloitte as an auditor",
     "where do i work?"),
    # someone else's
    ("i drive a tesla model y", "my wife's car is a subaru outback", "what car do i drive?"),
    # a thing of the question the older one says, the newer one shares a word but not that
    ("grocery budget is 600 a month", "eating out budget is 200 a month, we always blow it",
     "what's our grocery budget?"),
    # the older one speaks the slot asked about, the newer one does not
    ("my phone is a pixel 8", "i draw on an ipad air with the pencil", "what phone do i have?"),
])
def test_the_nearest_newer_statement_that_is_no_replacement_moves_nothing(
        old_text: str, new_text: str, query: str) -> None:
    old, new = mem("a", old_text, 0), mem("b", new_text, 30)
    head = [old, *chatter(5), new]
    assert updates_above(head, sims({frozenset(("a", "b")): 0.93}), gate, query=query,
                         close=close_all) == {}
    asked = frozenset(stem(w) for w in words(query.lower()))
    assert not nearest_update(old, new, head, sims({frozenset(("a", "b")): 0.93}), gate,
                              asked, question_slots(query), answers_well=True)


@pytest.mark.parametrize(("old_text", "new_text", "thing", "implied"), [
    ("the app launch is march 14", "leadership agreed the launch slipped to april 2", "app",
     True),
    ("our wedding budget is 25k all in", "with their help the budget's gone up to 32k", "wedding",
     True),
    # another thing before the noun, or after it: another budget
    ("our wedding budget is 25k all in", "the honeymoon budget is 5k", "wedding", False),
    ("our wedding budget is 25k all in", "the budget for the honeymoon is 5k", "wedding", False),
    ("my mom's birthday is march 3", "my dad's birthday is november 21", "mom", False),
    # said bare once and qualified once: not only the one thing
    ("our wedding budget is 25k", "the budget grew. the trip budget too", "wedding", False),
    # the thing modifies no noun the newer one says
    ("training for a half marathon", "signed up for the chicago full marathon", "training",
     False),
])
def test_a_newer_statement_refers_back_to_a_thing_by_its_noun(
        old_text: str, new_text: str, thing: str, implied: bool) -> None:
    old, new = mem("a", old_text, 0), mem("b", new_text, 30)
    t = stem(thing)
    assert implied_things(old, new, {t}) == (frozenset({t}) if implied else frozenset())


def test_the_nearest_newer_statement_saying_the_thing_by_its_noun_replaces_it() -> None:
    old = mem("a", "the app launch is march 14, marketing booked the press", 0)
    new = mem("b", "a payment bug, so leadership agreed the launch slipped to april 2", 20)
    head = [old, *chatter(5), new]
    q = "when is the app launch?"
    near = sims({frozenset(("a", "b")): 0.90})
    assert updates_above(head, near, gate, query=q, close=close_all) == {"a": "b"}
    other = mem("b", "a payment bug, so the website launch slipped to april 2", 20)
    assert updates_above([old, *chatter(5), other], near, gate, query=q, close=close_all) == {}


def profile(mid: str, lines: str, days: float) -> Memory:
    return Memory(content=f"About the user (profile revision 1, 2026-03-03):\n{lines}",
                  id=mid, memory_type=MemoryType.IDENTITY, tags=[PROFILE_TAG],
                  created_at=T0 + timedelta(days=days))


def test_a_profile_revision_is_derived_and_a_newer_statement_outdates_it() -> None:
    rev = profile("p", "Diet: vegetarian.\nOccupation: nurse.", 1)
    assert rev.is_profile and derived(rev)
    assert statement_text(rev) == rev.content  # claims read it as before
    new = mem("b", "switched to a vegan diet last month, no more cheese", 20)
    head = [rev, *chatter(4), new]
    assert updates_above(head, sims({}, 0.80), gate, query="What's my diet?",
                         close=close_all) == {"p": "b"}
    # a profile revision is never the newer statement
    old = mem("a", "I'm vegetarian.", 0)
    later = profile("q", "Diet: vegan.", 30)
    assert updates_above([old, *chatter(4), later], sims({}, 0.95), gate,
                         query="What's my diet?", close=close_all) == {}
    # the agent's own identity memory is not a profile revision
    assert not Memory(content="I am Ada.", memory_type=MemoryType.IDENTITY).is_profile


def test_an_announced_addition_replaces_nothing() -> None:
    """"started swimming … too" announces a change ("started") that adds a habit: the run on
    weekend mornings is no older answer it replaces."""
    run = mem("a", "i run on weekend mornings, usually 10k", 0)
    swim = mem("b", "started swimming tuesday mornings at the community pool too", 20)
    near = sims({frozenset(("a", "b")): 0.95})
    assert updates_above([run, *chatter(4), swim], near, gate, query="when do i run?",
                         close=close_all) == {}
    # the same change without "too" replaces it
    swap = mem("c", "started swimming tuesday mornings instead of running", 20)
    assert updates_above([run, *chatter(4), swap], sims({frozenset(("a", "c")): 0.95}), gate,
                         query="when do i run?", close=close_all) == {"a": "c"}


def test_the_nearest_path_reads_only_the_users_own_statements() -> None:
    """Between named people a newer turn on a topic mostly adds to it (LoCoMo)."""
    def said(mid: str, who: str, text: str, days: float) -> Memory:
        return Memory(content=f"{who}: {text}", id=mid, created_at=T0 + timedelta(days=days))

    old = said("a", "Jon", "Dancing makes me so happy.", 0)
    new = said("b", "Jon", "It's where I'm most alive, it helps me de-stress.", 30)
    head = [old, *chatter(4), new]
    near = sims({frozenset(("a", "b")): 0.93})
    assert updates_above(head, near, gate, query="What does Jon's dance make him?",
                         close=close_all) == {}


@pytest.mark.parametrize(("old_text", "new_text", "query"), [
    # news of someone else, said without "my friend" at the start (a reviewer's pairs)
    ("i'm a high school chemistry teacher", "so proud of dan, he got hired as a pharmacist",
     "what's my job?"),
    ("i use 1password for all my passwords",
     "at the office everyone's on lastpass, company policy", "what password manager do i use?"),
    ("i'm vegetarian, no meat or fish", "cooking for leah on friday, she's vegan so no cheese",
     "what's my diet?"),
])
def test_news_of_someone_else_replaces_nothing_of_the_users(
        old_text: str, new_text: str, query: str) -> None:
    old, new = mem("a", old_text, 0), mem("b", new_text, 30)
    head = [old, *chatter(5), new]
    assert updates_above(head, sims({frozenset(("a", "b")): 0.93}), gate, query=query,
                         close=close_all) == {}


def test_a_word_negated_by_its_prefix_is_not_said() -> None:
    from salience.search.slots import topic_words

    m = mem("b", "personal email is jordan.r@fastmail.com, use that for anything non-work", 0)
    assert "work" not in topic_words(m)


def test_an_older_statement_at_the_median_answers_nothing() -> None:
    from salience.search.pipeline import answers_as_well

    def row(i: str, rel: float) -> tuple[str, float, dict[str, float]]:
        return (i, 1 - rel, {"relevance": rel, "formula": rel})

    head = [row("new", 0.10), row("old", 0.19), row("c1", 0.19), row("c2", 0.19), row("c3", 0.2)]
    close = answers_as_well(head)
    assert close is not None
    old, new = Memory(content="x", id="old"), Memory(content="y", id="new")
    assert not close(old, new, 0.2)  # the older one does not rise above the median


def test_an_announced_new_clock_time_replaces_the_old_one_for_a_when_question() -> None:
    """No shared word ("flight" / "departure"), but both give a clock time and the newer one
    announces the change: for "what time …?" it is the update (held-out phrasing)."""
    old = mem("a", "my flight to montreal is on the 14th at 6:40am, ugh", 0)
    new = mem("b", "airline changed my booking, i'm on the 11:25 departure instead, same day", 9)
    far = sims({}, 0.80)
    assert updates_above([old, new], far, gate, query="what time is my flight to montreal?") == {
        "a": "b"}
    # a question that does not ask when, or a newer statement with no clock time: no update
    assert updates_above([old, new], far, gate, query="where is my flight going?") == {}
    other = mem("c", "airline changed my booking, i'm in seat 14c instead", 9)
    assert updates_above([old, other], far, gate, query="what time is my flight to montreal?") == {}


def test_an_announced_change_may_say_the_new_value_without_the_asked_thing() -> None:
    """"migrated everything into bitwarden" never says "password": the change word says
    something was replaced, and it is the older statement's nearest neighbour (held-out
    phrasing). Without a change word the same pair moves nothing."""
    old = mem("a", "i keep all my passwords in lastpass", 0)
    new = mem("b", "migrated everything into bitwarden over the weekend, old vault deleted", 20)
    q = "which password manager do i use?"
    near = sims({frozenset(("a", "b")): 0.90})
    assert updates_above([old, *chatter(5), new], near, gate, query=q,
                         close=close_weak) == {"a": "b"}
    plain = mem("b", "everything's in bitwarden over the weekend, old vault deleted", 20)
    assert updates_above([old, *chatter(5), plain], near, gate, query=q,
                         close=close_weak) == {}


def test_an_announced_change_must_say_what_the_question_narrows_itself_by() -> None:
    assert scope_words("what language am i learning on duolingo?") == {stem("duolingo")}
    assert scope_words("what laptop do i use for work?") == {stem("work")}
    assert scope_words("how much is my rent?") == frozenset()
    old = mem("a", "i'm learning spanish on duolingo, 200 day streak", 0)
    new = mem("b", "signed up for italian classes at the community college", 20)
    near = sims({frozenset(("a", "b")): 0.90})
    assert updates_above([old, *chatter(5), new], near, gate,
                         query="what language am i learning on duolingo?",
                         close=close_weak) == {}


def test_an_announced_change_naming_another_thing_in_place_of_the_asked_one_moves_nothing(
) -> None:
    old = mem("a", "the kitchen tiles are terracotta from the reclamation yard", 0)
    new = mem("b", "switched the bathroom tiles to slate, the grout is grey", 20)
    near = sims({frozenset(("a", "b")): 0.90})
    assert updates_above([old, *chatter(5), new], near, gate,
                         query="what kitchen tiles did we pick?", close=close_weak) == {}
    # a word of version or degree before the noun names the same thing
    draft = mem("a", "thesis draft is due to my advisor on may 30", 0)
    ext = mem("b", "my advisor gave me an extension!! full draft due june 20 instead", 20)
    assert updates_above([draft, *chatter(5), ext], near, gate,
                         query="when is my thesis draft due?", close=close_weak) == {"a": "b"}


def test_an_announced_change_counts_only_statements_as_rivals_and_few_suffice() -> None:
    """A request to the assistant ("do you know any good tongue twisters") nearer the older
    statement is no rival answer; a statement of fact nearer it is. One other candidate is
    enough to call an announced change the nearest."""
    old = mem("a", "learning japanese on duolingo, 200 day streak", 0)
    new = mem("b", "switched to korean, got a tutor twice a week", 20)
    ask = mem("q", "do you know any good tongue twisters?", 10)
    fact = mem("f", "my sister lives in osaka with her two cats", 10)
    q = "what language am i learning?"
    table = {frozenset(("a", "b")): 0.90, frozenset(("a", "q")): 0.91,
             frozenset(("a", "f")): 0.91}
    assert updates_above([old, ask, *chatter(3), new], sims(table), gate, query=q,
                         close=close_weak) == {"a": "b"}
    assert updates_above([old, fact, *chatter(3), new], sims(table), gate, query=q,
                         close=close_weak) == {}
    # a chunk of the newer statement's own message is no rival either
    part = Memory(content="User: the tutor is on italki, lessons start monday", id="p",
                  parent_id="b", chunk_index=1, created_at=new.created_at)
    table[frozenset(("a", "p"))] = 0.91
    assert updates_above([old, part, *chatter(3), new], sims(table), gate, query=q,
                         close=close_weak) == {"a": "b"}
    # one other statement suffices for an announced change, not for a plain statement; a
    # request alone leaves nothing to be nearer than
    far = mem("g", "my cousin runs a ramen place in leeds", 10)
    table[frozenset(("a", "g"))] = 0.85
    assert updates_above([old, far, new], sims(table), gate, query=q,
                         close=close_weak) == {"a": "b"}
    assert updates_above([old, ask, new], sims(table), gate, query=q, close=close_weak) == {}
    quiet = mem("b", "korean with a tutor twice a week", 20)
    assert updates_above([old, far, quiet], sims(table), gate, query=q, close=close_all) == {}


def test_the_dense_rise_measures_a_newer_statement_without_the_questions_words() -> None:
    from salience.search.pipeline import answers_as_well

    def row(i: str, rel: float, cos: float) -> tuple[str, float, dict[str, float]]:
        return (i, 1 - rel, {"relevance": rel, "formula": rel, "cosine_distance": cos})

    # the older one's words match the question: its fused rise is large, the embeddings' not
    head = [row("old", 0.06, 0.11), row("new", 0.15, 0.15), row("c1", 0.165, 0.165),
            row("c2", 0.17, 0.17), row("c3", 0.18, 0.18)]
    close = answers_as_well(head)
    assert close is not None
    old, new = Memory(content="x", id="old"), Memory(content="y", id="new")
    assert not close(old, new, 0.2)
    assert close(old, new, 0.2, dense=True)
    assert not close(old, new, 0.5, dense=True)


@pytest.mark.parametrize(("old_text", "new_text", "query"), [
    # a start or a purchase adds a thing as often as it replaces one
    ("i ride a 2015 trek road bike to work", "bought a used vespa for weekend trips",
     "what bike do i ride?"),
    # someone else's change
    ("my laptop is a dell xps 13", "ugh half the office swapped to macbooks this week",
     "what laptop do i have?"),
    ("i take lisinopril for my blood pressure",
     "the doctor switched her to amlodipine, she feels much better", "what bp med do i take?"),
    # the replacement names another thing than the older one's or the question's
    ("our internet is with virgin media, 500mb", "switched electricity to the green tariff",
     "who's our internet provider?"),
])
def test_a_change_of_something_else_is_no_told_update(
        old_text: str, new_text: str, query: str) -> None:
    """From an adversarial review of the told-change path (session 13): each newer statement
    announces a change, but not of the older statement's thing."""
    old, new = mem("a", old_text, 0), mem("b", new_text, 20)
    near = sims({frozenset(("a", "b")): 0.90})
    assert updates_above([old, *chatter(5), new], near, gate, query=query,
                         close=close_weak) == {}


def test_the_speakers_own_replacement_of_the_thing_is_a_told_update() -> None:
    from salience.llm.heuristic.discourse import others_change, replaced_things

    assert not others_change("they bumped it to 1590 starting next month")  # my rent
    assert replaced_things("switched to korean, got a tutor") == ()
    assert replaced_things("moved my savings over to marcus") == (("savings",),)
    old = mem("a", "i keep all my passwords in lastpass", 0)
    new = mem("b", "switched my passwords over to bitwarden, old vault deleted", 20)
    near = sims({frozenset(("a", "b")): 0.90})
    assert updates_above([old, *chatter(5), new], near, gate,
                         query="which password manager do i use?", close=close_weak) == {"a": "b"}


def test_whose_change_reads_each_change_word_against_its_clause_in_linear_time() -> None:
    from salience.llm.heuristic.discourse import others_change

    assert others_change("half the office swapped to macbooks, the doctor switched her to x")
    assert not others_change("half the office swapped to macbooks, and i switched to linux")
    # many change words: no one else's news alone (and no quadratic read of a long text)
    assert not others_change("half the office swapped to macbooks, " * 2500)
