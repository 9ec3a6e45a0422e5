"""A newer memory that announces a change on an older candidate's topic ranks above it
(issue 14: claims-free, for phrasings the claims engine does not read)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from salience.clock import FrozenClock
from salience.config import Config
from salience.embed import HashEmbedder
from salience.llm.heuristic.discourse import announces_update
from salience.mind import Mind
from salience.models import Memory
from salience.search.pipeline import update_first
from salience.search.slots import OLDER, UPDATE, answers_slot, question_slots, updates_above
from salience.search.temporal import about_past

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def mem(mid: str, text: str, days: float, reply: str = "Got it.") -> Memory:
    return Memory(content=f"User: {text}\nAssistant: {reply}", id=mid,
                  created_at=T0 + timedelta(days=days))


def never_close(a: Memory, b: Memory) -> float | None:
    return 0.0


def gate(a: Memory, b: Memory) -> float:
    return 0.9


@pytest.mark.parametrize("text", [
    "gym changed their hours so climbing's now on wednesdays + saturdays",
    "gave up guitar tbh, doing piano lessons now instead",
    "relocated to edinbrugh last month, the commute to the new office is 10 min",
    "lukas and i are done. for real this time",
    "scratch the road trip — we booked flights to Innsbruck after all",
    "k. new number 0157 5559988, old sim died",
    "changed our minds, Leo's starting at the public school on Elm St",
    "baby #2 arrived!! a girl, Ivy",
    "IT swapped my machine for a macbook pro m3, crying about keybindings",
    "signed up for the chicago full marathon. yes i know",
    "we finished porting the api to fastapi over the sprint",
    "ok so we caved. picking up otis on sunday",
    "the raise came through — base is ninety-one thousand effective april 1",
])
def test_change_announcements_are_recognised_in_messy_phrasing(text: str) -> None:
    assert announces_update(f"User: {text}\nAssistant: Thanks for letting me know.")


@pytest.mark.parametrize("text", [
    "climbing is tuesdays and thursdays after work",
    "my neighbour's rooster starts at 5am every day",
    "what should I read next, I liked Project Hail Mary",
    "we didn't swap anything in the end",
    "i never signed up for it",
    "not porting it after all, too risky",
])
def test_plain_statements_announce_nothing(text: str) -> None:
    assert not announces_update(f"User: {text}\nAssistant: Got it.")


def test_the_assistants_words_announce_nothing() -> None:
    assert not announces_update("User: I write my docs in Notion\nAssistant: Noted, you use it now.")


def test_a_newer_announcement_on_the_same_topic_is_placed_above() -> None:
    old = mem("a", "climbing is tuesdays and thursdays after work", 0)
    chat = mem("c", "my neighbour's rooster starts at 5am every day", 20)
    new = mem("b", "gym changed their hours so climbing's now on wednesdays", 30)
    q = "When do I go climbing?"
    assert updates_above([old, chat, new], never_close, gate, query=q) == {"a": "b"}
    # a shared word the question does not ask about and nobody writes as a name is no topic
    assert updates_above([old, chat, new], never_close, gate, query="When?") == {}
    # the chatter shares no word with the old statement and is not close to it
    assert updates_above([old, chat], never_close, gate, query=q) == {}


def test_a_shared_unit_or_verb_is_no_topic() -> None:
    japan = mem("a", "I'm saving for a trip to Japan; the budget is 40,000 kroner.", 0)
    rent = mem("b", "Our landlord raised the rent to 14,500 kroner from July.", 30)
    q = "How much have I budgeted for Japan?"
    assert updates_above([japan, rent], never_close, gate, query=q) == {}
    phone = mem("c", "My phone contract with Telia ends in December and I want to switch.", 0)
    power = mem("d", "I switched my electricity provider to Fjordkraft in March.", 30)
    assert updates_above([phone, power], never_close, gate, query="When does my phone "
                         "contract run out?") == {}


def test_a_shared_name_makes_a_topic() -> None:
    old = mem("a", "my bf Lukas is taking me to Rome for my bday", 0)
    new = mem("b", "lukas and i are done. for real this time", 30)
    assert updates_above([old, new], never_close, gate, query="Who is my boyfriend?") == {
        "a": "b"}


def test_closeness_counts_only_with_a_shared_word() -> None:
    old = mem("a", "I avoid dairy, lactose intolerant unfortunately", 0)
    new = mem("b", "turns out it wasn't lactose after all, I can have milk again", 30)
    q = "Can I have dairy?"
    assert updates_above([old, new], never_close, gate, query=q) == {}
    assert updates_above([old, new], lambda a, b: 0.95, gate, query=q) == {"a": "b"}
    # e5 puts these two inside its gate; they share no word, so they are two topics
    wifi = mem("c", "Our home Wi-Fi network is called Fjordnet.", 0)
    power = mem("d", "I switched my electricity provider to Fjordkraft in March.", 30)
    assert updates_above([wifi, power], lambda a, b: 0.95, gate,
                         query="What's the name of our Wi-Fi?") == {}


def test_an_older_announcement_never_goes_above_a_newer_statement() -> None:
    new = mem("b", "climbing's now on wednesdays", 0)
    later = mem("a", "climbing is tuesdays and thursdays", 30)
    assert updates_above([new, later], never_close, gate) == {}


def test_update_first_reorders_the_window_and_marks_both() -> None:
    old = mem("a", "learning the guitar, 3 months in", 0)
    chat = mem("c", "my neighbour's rooster starts at 5am", 10)
    new = mem("b", "gave up guitar tbh, doing piano lessons now instead", 30)
    memories = {m.id: m for m in (old, chat, new)}
    ranked = [("a", 0.9, {}), ("c", 0.8, {}), ("b", 0.7, {})]
    out = update_first("Am I still learning the guitar?", ranked, memories, never_close, gate, window=10)
    assert [r[0] for r in out] == ["b", "a", "c"]
    assert [r[1] for r in out] == [0.9, 0.8, 0.7]  # scores stay sorted
    assert out[0][2][UPDATE] == 1.0 and out[1][2][OLDER] == 1.0
    # outside the window nothing moves
    assert update_first("Am I still learning the guitar?", ranked, memories, never_close, gate, window=2) == ranked


@pytest.mark.parametrize(("query", "past"), [
    ("Who's my manager?", False), ("where am I based these days?", False),
    ("Is my dad still working?", False), ("When did Caroline go to the support group?", True),
    ("What was my old phone number?", True), ("Where did I live in 2019?", True),
    ("Was she still living there?", False),
])
def test_questions_about_the_past_are_told_apart(query: str, past: bool) -> None:
    assert about_past(query) is past


def test_a_liked_book_does_not_answer_a_question_about_pizza() -> None:
    q = "Do I like pineapple on pizza?"
    book = Memory(content="User: what should I read next, I liked Project Hail Mary")
    pizza = Memory(content="User: I love pineapple on pizza.")
    assert not answers_slot(book, question_slots(q), query=q)
    assert answers_slot(pizza, question_slots(q), query=q)


@pytest.fixture
def mind(config: Config) -> Iterator[Mind]:
    clock = FrozenClock(T0)
    with Mind.open("updates", config=config, embedder=HashEmbedder(), clock=clock) as m:
        m.remember_turn("learning the guitar, 3 months in and my fingertips hurt", "Got it.")
        clock.advance(days=20)
        m.remember_turn("gave up guitar tbh, doing piano lessons now instead",
                        "Thanks for letting me know.")
        m.heartbeat()
        yield m


def test_the_live_loop_puts_the_announced_change_first(mind: Mind) -> None:
    hits = mind.search("What instrument am I learning, the guitar?", limit=5, feedback=False)
    assert "piano" in hits[0].memory.content
    assert any(OLDER in h.explanation for h in hits)
    # a question about the past keeps relevance order
    past = mind.search("Was I learning the guitar before?", limit=5, feedback=False)
    assert not any(UPDATE in h.explanation for h in past)


def test_statements_about_different_relatives_are_not_one_topic() -> None:
    sister = mem("a", "My sister Clara lives in Vienna with her husband", 0)
    brother = mem("b", "my brother moved to Graz now", 30)
    assert updates_above([sister, brother], lambda a, b: 0.99, gate) == {}  # shares "live"
    clara = mem("c", "Clara and Martin moved to Graz, closer to his parents", 30)
    assert updates_above([sister, clara], never_close, gate,
                         query="Where does my sister live?") == {"a": "c"}  # names "Clara"


def test_turns_triaged_in_one_heartbeat_keep_the_time_they_were_said(mind: Mind) -> None:
    times = sorted(m.occurred_at for m in mind.list(limit=10) if m.occurred_at is not None)
    assert len(times) == 2 and times[1] - times[0] == timedelta(days=20)


def test_a_shared_slot_word_does_not_join_two_relatives() -> None:
    sister = mem("a", "My sister lives in Vienna", 0)
    brother = mem("b", "my brother now lives in Graz", 30)
    assert updates_above([sister, brother], never_close, gate) == {}


def test_two_statements_on_the_slot_the_question_asks_about_are_one_topic() -> None:
    old = mem("a", "we've got one kid, Milo, he's 3 and a total menace", 0)
    new = mem("b", "baby #2 arrived!! a girl, Ivy, everyone's fine", 30)
    assert updates_above([old, new], never_close, gate, query="how many kids do we have?") == {
        "a": "b"}
    assert updates_above([old, new], never_close, gate, query="Who is Ivy?") == {}


def test_the_noun_of_a_new_value_is_a_topic_word() -> None:
    old = mem("a", "my number's 0176 5550123 if you need it for the form", 0)
    new = mem("b", "k. new number 0157 5559988, old sim died", 30)
    assert updates_above([old, new], never_close, gate, query="what's my phone number?") == {
        "a": "b"}


@pytest.mark.parametrize("text", [
    "if I moved to Porto I would finally have a sea view",
    "we're not moving to Berlin after all, the flat fell through",
    "thinking about switching jobs, maybe to a startup",
    "should I move to Lisbon now?",
])
def test_hypotheticals_denials_and_questions_announce_nothing(text: str) -> None:
    assert not announces_update(f"User: {text}\nAssistant: Noted.")


def test_another_persons_change_is_no_update_of_the_users_fact() -> None:
    mine = mem("a", "I live in Munich, near the English Garden", 0)
    tom = mem("b", "Tom just moved to Berlin now, crazy", 30)
    brother = mem("c", "my brother moved to Hamburg now", 30)
    q = "Where do I live?"
    assert updates_above([mine, tom], lambda a, b: 0.99, gate, query=q) == {}
    assert updates_above([mine, brother], lambda a, b: 0.99, gate, query=q) == {}
    # the same person's own update still counts
    toms = mem("d", "Tom lives in Munich", 0)
    assert updates_above([toms, tom], lambda a, b: 0.99, gate, query="Where does Tom live?") == {
        "d": "b"}


def test_reported_speech_and_they_can_carry_the_users_own_update() -> None:
    assert announces_update("User: turns out the allergist said I can have milk again")
    old = mem("a", "the grant report is due March 3", 0)
    new = mem("b", "they extended the grant report deadline to march 17", 30)
    assert updates_above([old, new], never_close, gate, query="When is the grant report due?") == {
        "a": "b"}


def test_a_new_child_updates_the_childrens_count() -> None:
    old = mem("a", "I have two daughters, 6 and 9.", 0)
    new = mem("b", "and then there were three — our son Finn was born on Tuesday", 30)
    assert updates_above([old, new], never_close, gate, query="How many children do I have?") == {
        "a": "b"}


def always_close(a: Memory, b: Memory, share: float) -> bool:
    return True


def near(a: Memory, b: Memory) -> float | None:
    return 0.95


def test_a_newer_statement_without_a_change_word_replaces_one_on_the_thing_asked() -> None:
    """No change word ("we've had to stretch …"), but both name what the question asks about
    and the newer one answers it about as well: it goes above."""
    old = mem("a", "The budget for the kitchen renovation is 15k.", 0)
    new = mem("b", "we've had to stretch the kitchen budget to about 22 thousand after the "
                   "plumber's quote", 25)
    q = "What's the kitchen renovation budget?"
    assert updates_above([old, new], near, gate, query=q, close=always_close) == {"a": "b"}
    # embeddings outside the contradiction gate: nothing moves
    assert updates_above([old, new], never_close, gate, query=q, close=always_close) == {}
    # without the relevance test (`close`), a change word is needed
    assert updates_above([old, new], never_close, gate, query=q) == {}
    # not close in relevance: nothing moves
    assert updates_above([old, new], never_close, gate, query=q,
                         close=lambda a, b, share: False) == {}
    # a name both write links them, even when the newer one says none of the question's words
    lumen = mem("c", "We'll name the product Lumen.", 0)
    halo = mem("d", "legal flagged a trademark clash so Lumen is dead, we're calling it Halo", 20)
    assert updates_above([lumen, halo], near, gate, query="What's the product called?",
                         close=always_close) == {"c": "d"}


@pytest.mark.parametrize(("old_text", "new_text", "query"), [
    # someone else's fact on the same slot
    ("My sister lives in Oslo.", "I live in Bergen.", "Where does my sister live?"),
    # another thing's budget: the question's own word ("kitchen") is not in both
    ("The kitchen budget is 15k.", "The bathroom budget is 8k.", "What's the kitchen budget?"),
    # a name both share, but the newer one does not speak the slot asked about
    ("Sam lives in Leeds.", "Sam's birthday is in May.", "Where does Sam live?"),
    # a hypothetical or a question states nothing
    ("I live in Dublin.", "if I ever moved abroad it would be to Japan, Dublin is too rainy",
     "Where do I live, Dublin?"),
    ("The offsite is in Lisbon.", "should we move the offsite from Lisbon to Porto?",
     "Where is the offsite?"),
])
def test_no_change_word_and_no_shared_answer_moves_nothing(
        old_text: str, new_text: str, query: str) -> None:
    old, new = mem("a", old_text, 0), mem("b", new_text, 20)
    assert updates_above([old, new], near, gate, query=query, close=always_close) == {}


def test_answers_as_well_compares_rises_above_the_median() -> None:
    from salience.search.pipeline import answers_as_well

    def row(i: str, rel: float) -> tuple[str, float, dict[str, float]]:
        return (i, 1 - rel, {"relevance": rel, "formula": rel})

    head = [row("old", 0.04), row("new", 0.10), row("c1", 0.19), row("c2", 0.19), row("c3", 0.20)]
    close = answers_as_well(head)
    assert close is not None
    a, b, c = (Memory(content="x", id=i) for i in ("old", "new", "c1"))
    assert close(a, b, 0.5)  # rises 0.09 above the median 0.19, the older one 0.15
    assert not close(a, c, 0.5)  # at the median: chatter
    # a ranking without relevance (RRF) gives no relevance test
    assert answers_as_well([("a", 0.5, {"relevance": 1.0})] * 3) is None


def test_an_episode_retelling_a_change_is_never_the_newer_statement() -> None:
    """An episode quotes statements that carry their own news: one built after "my phone
    contract ends in December" that retells "I've started learning Portuguese" does not go
    above the phone statement; it can itself be outdated by a newer statement."""
    from salience.models import MemoryType

    phone = mem("a", "My phone contract with Telia ends in December.", 0)
    episode = Memory(content="Portuguese & phone: day (2026-03-02)\nI've started learning "
                     "Portuguese. My phone contract with Telia ends in December.", id="e",
                     memory_type=MemoryType.EPISODE, created_at=T0 + timedelta(days=1))
    assert updates_above([phone, episode], lambda a, b: 0.99, gate,
                         query="When does my phone contract run out?", close=always_close) == {}
    newer = mem("n", "switched to a new phone contract with Tele2, it runs until June", 30)
    assert updates_above([episode, newer], lambda a, b: 0.99, gate,
                         query="When does my phone contract run out?") == {"e": "n"}


@pytest.mark.parametrize(("query", "one"), [
    ("What's the kitchen renovation budget?", True), ("Where do I live?", True),
    ("What's the product called?", True), ("What status is the order in?", True),
    ("In what ways is Caroline participating in the LGBTQ community?", False),
    ("What type of individuals does the adoption agency support?", False),
    ("What books has Melanie read?", False), ("Why did she move?", False),
    ("which days am i in the office?", True), ("What hours does the gym open?", True),
])
def test_only_a_question_for_one_value_lets_a_newer_statement_replace_without_a_change_word(
        query: str, one: bool) -> None:
    from salience.search.slots import asks_one_value

    assert asks_one_value(query) is one
    old = mem("a", "Caroline joined an LGBTQ activist group in the city.", 0)
    new = mem("b", "Caroline's art helps the LGBTQ community, she said.", 20)
    many = "In what ways is Caroline participating in the LGBTQ community?"
    assert updates_above([old, new], near, gate, query=many, close=always_close) == {}


def test_a_shared_unit_of_time_is_no_topic() -> None:
    coffee = mem("a", "I'm trying to cut down to one coffee a day.", 0)
    duolingo = mem("b", "I've started learning Portuguese on Duolingo, 15 minutes a day.", 5)
    q = "How many coffees am I allowing myself per day?"
    assert updates_above([coffee, duolingo], near, gate, query=q, close=always_close) == {}


def test_going_somewhere_is_no_change_a_price_going_up_is() -> None:
    assert not announces_update("User: we went up to the lake with the kids on saturday\n"
                                "Assistant: Sounds lovely.")
    assert announces_update("User: the rent went up to 1,650 in january\nAssistant: Ouch.")


def test_of_two_announcements_made_at_once_the_closer_to_the_older_is_its_update() -> None:
    old = mem("a", "We have one daughter, Maya, she's six.", 0)
    trip = mem("t", "the kids went in the lake anyway, and we grilled, it was the first swim "
                    "of the year and everyone changed in the car", 30)
    born = mem("b", "our son Jonah was born on the 3rd, Maya is thrilled to be a big sister", 30)

    def closeness(x: Memory, y: Memory) -> float | None:
        return 0.95 if {x.id, y.id} == {"a", "b"} else 0.85

    q = "How many children do we have?"
    for order in ([old, trip, born], [old, born, trip]):
        assert updates_above(order, closeness, gate, query=q) == {"a": "b"}


def test_a_fact_said_in_passing_moved_above_what_it_replaces_shows_instead_of_its_message() -> None:
    from salience.models import PASSING_TAG, MemoryType
    from salience.search.pipeline import _dedup

    old = mem("a", "Piano lessons are on Tuesdays at 5.", 0)
    chat = mem("c", "the lake was freezing but the kids swam anyway", 10)
    message = mem("m", "Long week at work, the deploy broke twice and the csv export shipped. "
                       "The piano teacher moved my lessons to thursday afternoons from now on. "
                       "Otherwise mostly laundry and a wobbly shelf.", 30)
    fact = Memory(content="User: The piano teacher moved my lessons to thursday afternoons from "
                          "now on.", id="f", memory_type=MemoryType.FACT, tags=[PASSING_TAG],
                  related_ids=["m"], created_at=message.created_at)
    memories = {m.id: m for m in (old, chat, message, fact)}
    ranked = [(i, 1.0 - k / 10, {}) for k, i in enumerate(["a", "m", "c", "f"])]

    def closeness(x: Memory, y: Memory) -> float | None:
        return 0.95 if {x.id, y.id} == {"a", "f"} else 0.5

    moved = update_first("When is my piano lesson?", ranked, memories, closeness, gate, window=10)
    assert [r[0] for r in _dedup(moved, memories)] == ["f", "a", "c"]  # the search's order



@pytest.fixture(scope="module")
def e5():
    from salience.embed import E5Embedder

    emb = E5Embedder(threads=2, batch_size=8)
    emb.load()
    return emb


def test_a_question_about_an_earlier_state_keeps_the_earlier_statement_first(
        config: Config, e5) -> None:
    """"What phone did I have before?" asks for what the newer statement replaced: the update
    stages (newer wins, slot first) leave it where relevance puts it; "what phone do I have
    now?" still gets the newer one first (compat13 p08; p03 and p06 are alike)."""
    clock = FrozenClock(T0)
    with Mind.open("earlier", config=config, embedder=e5, clock=clock) as m:
        m.remember_turn("my old phone was a pixel 4a, loved that thing", "Sounds good.")
        for text in ("any tips for a rainy sunday?", "what's a good soup for a cold day?"):
            clock.advance(days=3)
            m.remember_turn(text, "Happy to help.")
        clock.advance(days=12)
        m.remember_turn("got an iphone 15 now through work", "Right, I've made a note.")
        clock.advance(days=2)
        m.heartbeat()
        before = m.search("what phone did i have before?", limit=5, feedback=False)
        now = m.search("what phone do i have now?", limit=5, feedback=False)
    assert "pixel" in before[0].memory.content, [h.memory.content for h in before]
    assert "iphone" in now[0].memory.content


def test_my_own_news_is_no_update_of_what_a_relative_the_question_asks_about_did() -> None:
    """"which city does my sister live in?": "i live in lisbon btw, been here six years now"
    is the speaker's own fact, no update of the sister's move (compat13 o01)."""
    sister = mem("a", "my sister just moved to porto, she's obsessed with it already lol", 0)
    mine = mem("b", "i live in lisbon btw, been here like six years now", 9)
    close = lambda a, b: 0.95  # noqa: E731
    assert updates_above([sister, mine], close, gate,
                         query="which city does my sister live in?") == {}
    # her own news, said of her, still is
    hers = mem("c", "she moved again now, to braga this time", 20)
    assert updates_above([sister, hers], close, gate,
                         query="which city does my sister live in?") == {"a": "c"}


@pytest.mark.parametrize("text", [
    "hmm let me think about it", "haha ok that's enough for today", "ok cool, thanks!",
])
def test_a_remark_with_nothing_in_it_replaces_nothing(text: str) -> None:
    """A reply that says nothing ("hmm let me think about it") is no newer statement of a
    fact, however close its embedding sits to the older one (compat13 q06)."""
    from salience.search.slots import replaces_nothing

    assert replaces_nothing(mem("a", text, 0))
    assert not replaces_nothing(mem("b", "i'm on the 8:05 train to manchester every day", 0))


def test_a_goal_announces_no_new_value() -> None:
    """"goal is to get down to 75kg by summer" is no update of "about 82 kilos at the moment"
    (compat13 h04): a goal, like a hope, states no current value."""
    from salience.llm.heuristic.discourse import states_fact

    for text in ("goal is to get down to 75kg by summer", "my target is 70 kg by june",
                 "aiming for a sub-2 hour half marathon"):
        assert not states_fact(f"User: {text}"), text
    assert states_fact("User: down to 75kg now, finally")


def test_a_question_about_someone_by_name_puts_the_users_statements_naming_them_first() -> None:
    """"what diet is jake on?": the user's profile ("Diet: pescatarian") ranked above "my
    roommate jake is doing keto" (heldout dev dc08); a chat's turns with named speakers and a
    question naming nobody keep their order."""
    from salience.models import PROFILE_TAG, MemoryType
    from salience.search.pipeline import name_first

    profile = Memory(content="About the user (profile revision 1, 2026-03-03):\nDiet: pescatarian.",
                     id="p", memory_type=MemoryType.IDENTITY, tags=[PROFILE_TAG], created_at=T0)
    memories = {"p": profile, "j": mem("j", "my roommate jake is doing keto so no pasta", 3),
                "c": Memory(content="Caroline: I went hiking on Sunday.", id="c", created_at=T0),
                "o": mem("o", "i'm pescatarian, fish is fine but no meat", 1)}
    ranked = [("p", 0.9, {}), ("c", 0.85, {}), ("j", 0.8, {}), ("o", 0.7, {})]
    out = name_first("what diet is jake on?", ranked, memories, window=10)
    assert [r[0] for r in out] == ["c", "j", "p", "o"]
    assert [r[1] for r in out] == [0.9, 0.85, 0.8, 0.7]
    assert name_first("what's my diet?", ranked, memories, window=10) == ranked
    assert name_first("what diet is sam on?", ranked, memories, window=10) == ranked  # nobody
    # an episode retells a conversation: it keeps its place
    memories["e"] = Memory(content="Episode: dinner plans\n\nwe talked about pasta night",
                           id="e", memory_type=MemoryType.EPISODE, created_at=T0)
    ranked = [("e", 0.95, {}), *ranked]
    out = name_first("what diet is jake on?", ranked, memories, window=10)
    assert [r[0] for r in out] == ["e", "c", "j", "p", "o"]


def test_for_a_question_about_the_user_their_news_of_others_follows_their_own_statement(
) -> None:
    """"which team am i on?": the coworker's move ranked first by recency; it follows the
    user's own statement now. News that involves the user ("my boss moved me …") keeps its
    place, and a question about someone else is left alone."""
    from salience.search.pipeline import self_first
    from salience.search.slots import asks_about_user, tells_of_someone_else

    memories = {"l": mem("l", "my coworker lucia moved over to the search team last week", 20),
                "c": mem("c", "translate 'see you tomorrow' into german", 15),
                "o": mem("o", "i'm on the payments team", 0),
                "x": mem("x", "what's a quick weeknight dinner", 18)}
    ranked = [("l", 0.95, {}), ("c", 0.9, {}), ("o", 0.85, {}), ("x", 0.8, {})]
    out = self_first("which team am i on?", ranked, memories, window=10)
    assert [r[0] for r in out] == ["c", "o", "l", "x"]
    assert [r[1] for r in out] == [0.95, 0.9, 0.85, 0.8]
    assert self_first("which team is lucia on?", ranked, memories, window=10) == ranked
    # the someone the question names: "my manager is elena" answers "who's my manager?"
    memories["m"] = mem("m", "my manager is elena, she's great", 2)
    boss = [("m", 0.95, {}), ("c", 0.9, {}), ("o", 0.85, {})]
    assert self_first("who's my manager?", boss, memories, window=10) == boss
    assert not asks_about_user("what car does my wife drive?")
    assert asks_about_user("what's my diet?")
    assert not tells_of_someone_else(mem("b", "my boss moved me to the search team", 1))
    assert tells_of_someone_else(memories["l"])
    assert tells_of_someone_else(mem("i", "my in-laws moved into a retirement place", 1))
    # news that says the user's own asked thing is the user's ("my new manager is Tom"); a
    # remark of the user's on something else is no own answer to follow
    memories["p"] = mem("p", "Priya left, so my new manager is Tom.", 25)
    memories["r"] = mem("r", "Skipped my run, it was too muggy.", 19)
    mgr = [("p", 0.95, {}), ("r", 0.9, {}), ("m", 0.85, {})]
    assert self_first("who is my manager?", mgr, memories, window=10) == mgr
    chat = [("l", 0.95, {}), ("r", 0.9, {}), ("x", 0.8, {})]
    assert self_first("which team am i on?", chat, memories, window=10) == chat
    from salience.search.slots import others_news_for

    assert others_news_for(mem("f", "my flatmate works nights at the hospital", 1),
                           "what are my working hours?")  # "works" is no thing of mine
    assert not others_news_for(memories["p"], "who is my manager?")
    assert others_news_for(mem("b", "my boss chris supports arsenal", 1),
                           "which team does chris support?")  # a name is no thing of mine
    # design B's relevance (the RRF presets) is no distance: it is not read as one
    rrf = [("l", 0.95, {"relevance": 0.8}), ("x", 0.9, {"relevance": 0.6}),
           ("c", 0.85, {"relevance": 0.6}), ("r", 0.8, {"relevance": 0.1})]
    assert self_first("which team am i on?", rrf, memories, window=10) == rrf
    # no own statement in the window: nothing to follow
    del memories["o"]
    ranked = [r for r in ranked if r[0] != "o"]
    assert self_first("which team am i on?", ranked, memories, window=10) == ranked
