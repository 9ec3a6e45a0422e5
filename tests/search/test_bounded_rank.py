"""Relevance first, priors bounded (issue 13): the default preset's ranking. Pure values, then
the cases the 0.1 `formula` default got wrong, end to end on the packaged e5 model."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from salience.clock import FrozenClock
from salience.config import Config
from salience.mind import Mind
from salience.models import Memory
from salience.search import rank as R
from salience.search.config import DEFAULT_PRESET, get_preset

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def mem(mid: str, **kw) -> Memory:
    kw.setdefault("created_at", NOW - timedelta(days=1))
    return Memory(content=kw.pop("content", mid), id=mid, **kw)


def test_prior_signal_is_bounded_and_keeps_design_a_proportions():
    low = mem("a" * 32, salience=1.0, usefulness=0.0, confidence=0.0,
              created_at=NOW - timedelta(days=3650))
    high = mem("b" * 32, salience=10.0, usefulness=1.0, confidence=1.0, retrieval_count=10_000,
               created_at=NOW)
    assert R.prior_signal(low, NOW)[0] == pytest.approx(0.0, abs=1e-6)
    assert R.prior_signal(high, NOW)[0] == pytest.approx(1.0)
    shares = R.PRIOR_SHARES
    assert shares["salience"] / shares["usefulness"] == pytest.approx(0.9 / 0.15)


def test_priors_never_lift_an_unrelated_memory_over_a_relevant_one():
    relevant = mem("r" * 32, salience=1.0, usefulness=0.0, confidence=0.0)
    loud = mem("l" * 32, salience=10.0, usefulness=1.0, confidence=1.0, retrieval_count=500)
    mems = {m.id: m for m in (relevant, loud)}
    cos = {relevant.id: 0.86, loud.id: 0.80}  # e5: a relevant vs an unrelated memory
    bounded = R.bounded_rank(mems, cosine=cos, bm25={}, entity_ids=set(), now=NOW,
                             prior_weight=0.03)
    assert [r[0] for r in bounded] == [relevant.id, loud.id]
    formula = R.formula_rank(mems, cosine=cos, bm25={}, entity_ids=set(), now=NOW)
    assert [r[0] for r in formula] == [loud.id, relevant.id]  # design A's formula inverts them


def test_priors_reorder_close_candidates():
    a = mem("a" * 32, salience=3.0)
    b = mem("b" * 32, salience=9.0)
    mems = {a.id: a, b.id: b}
    cos = {a.id: 0.861, b.id: 0.855}
    ranked = R.bounded_rank(mems, cosine=cos, bm25={}, entity_ids=set(), now=NOW,
                            prior_weight=0.03)
    assert ranked[0][0] == b.id and ranked[0][2]["prior"] > ranked[1][2]["prior"]


@pytest.fixture(scope="module")
def e5():
    from salience.embed import E5Embedder

    emb = E5Embedder(threads=2, batch_size=8)
    emb.load()
    return emb


@pytest.fixture
def ada(tmp_path, e5):
    clock = FrozenClock(NOW)
    mind = Mind.open("ada", config=Config(home=tmp_path), embedder=e5, clock=clock)
    mind.identity.create("Ada", role="personal assistant", personality="friendly, concise")
    mind.add("I'm allergic to penicillin.", salience=10, importance="critical",
             memory_type="fact")
    mind.add("My sister Lena lives in Graz.", salience=6)
    mind.add("The team offsite is in Porto on March 3.", salience=6)
    mind.add("I prefer window seats on long flights.", salience=5, memory_type="preference")
    mind.add("Our wifi password at the cabin is on the fridge.", salience=4)
    yield mind, clock
    mind.close()


def test_the_default_preset_ranks_relevance_first():
    assert DEFAULT_PRESET == "relevance" and Config().search_preset == "relevance"


@pytest.mark.parametrize(("question", "expected"), [
    ("where does Lena live?", "My sister Lena lives in Graz."),
    ("when is the offsite?", "The team offsite is in Porto on March 3."),
    ("which seat should I book on the flight to Tokyo?", "I prefer window seats"),
    ("what's the cabin wifi password?", "Our wifi password"),
])
def test_a_loud_memory_does_not_win_every_prefetch(ada, question, expected):
    mind, clock = ada
    for day in range(10):  # the allergy keeps being retrieved: salience and popularity grow
        clock.set(NOW + timedelta(days=day))
        mind.prefetch([], "penicillin again?")
    hits = mind.prefetch(["hi"], question)
    assert hits[0].memory.content.startswith(expected)


def test_the_identity_memory_is_found_when_the_question_is_about_the_agent(ada):
    mind, _ = ada
    assert mind.search("penicillin", limit=1)[0].memory.content == "I'm allergic to penicillin."
    for q in ("What's your name?", "Who are you?", "Tell me a bit about yourself.",
              "What kind of assistant are you?", "Ada, what do you do?"):
        top = mind.prefetch(["hi"], q)
        assert top[0].memory.memory_type.value == "identity", q
    hits = mind.prefetch([], "Can you remind me where Lena lives?")
    assert hits[0].memory.content.startswith("My sister Lena")


def test_about_agent():
    from salience.search.query import about_agent

    for q in ("who are you?", "What’s your name", "describe yourself", "what can you do"):
        assert about_agent(q), q
    for q in ("can you remind me about the dentist?", "what is your sister's name?",
              "did you book the table?", "where is Adam?"):
        assert not about_agent(q, "Ada"), q
    assert about_agent("Ada, any news?", "Ada")


def test_an_entity_named_by_most_memories_tells_none_apart():
    from salience.search.candidates import selective_entities

    freqs = {"maya": 300, "lena": 4, "graz": 30}
    assert selective_entities(["Maya", "Lena", "Graz", "Oslo"], freqs, 300) == ["Lena", "Graz"]
    # a small mind keeps every entity (below the minimum count)
    assert selective_entities(["Maya"], {"maya": 12}, 12) == ["Maya"]


def test_the_speaker_of_every_turn_does_not_decide_the_ranking(tmp_path, e5):
    """Every turn names its speaker; matching the speaker must not lift the turns the store
    happens to list first (the entity list is capped and ordered by salience)."""
    clock = FrozenClock(NOW)
    mind = Mind.open("chat", config=Config(home=tmp_path), embedder=e5, clock=clock)
    filler = [f"Maya: Day {i}: I watered the plants and answered some emails." for i in range(60)]
    mind.add_many([{"content": t, "salience": 9.0, "entities": ["Maya"]} for t in filler])
    target = mind.add("Maya: My sister Lena lives in Graz.", salience=2.0, entities=["Maya", "Lena"])
    hits = mind.search("Where does the sister of Maya live?", limit=3, feedback=False)
    assert hits[0].memory.id == target
    mind.close()


def test_newer_wins_among_the_same_slot_without_a_recorded_supersession(tmp_path):
    clock = FrozenClock(NOW)
    with Mind.open("slots", config=Config(home=tmp_path, embedder="hash"), clock=clock) as mind:
        old = mind.add("I live in Leeds, in Headingley.", check_contradictions=False,
                       occurred_at=NOW - timedelta(days=90))
        new = mind.add("I moved to Lisbon last month.", check_contradictions=False,
                       occurred_at=NOW - timedelta(days=5))
        mind.add("Leeds has a lovely canal towpath.", check_contradictions=False)
        hits = mind.search("do I still live in Leeds, Headingley?", limit=3, feedback=False)
        ids = [h.memory.id for h in hits]
        assert ids.index(new) < ids.index(old)
        stale = next(h for h in hits if h.memory.id == old)
        assert stale.explanation["stale"] == 1.0
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        plain = replace(get_preset("relevance"), newer_wins=False)
        off = mind.search("do I still live in Leeds, Headingley?", limit=3, feedback=False,
                          preset=plain)
        assert off[0].memory.id == old  # without the lever the stale value ranks first


def test_the_memory_that_answers_the_questions_slot_comes_first(tmp_path, e5):
    """The knowledge suite's commonest miss: chatter sharing the question's word ("work")
    outranked the statement that answers it ("Which company do I work for?")."""
    clock = FrozenClock(NOW)
    with Mind.open("slot1", config=Config(home=tmp_path), embedder=e5, clock=clock) as mind:
        for i, genre in enumerate(("baroque", "jazz", "ambient")):
            mind.add(f"User: Made a {genre} playlist for work.\nAssistant: Sounds lovely!",
                     check_contradictions=False, occurred_at=NOW - timedelta(days=9 - i))
        canva = mind.add("User: I took a full-time job at Canva.\nAssistant: Congratulations!",
                         occurred_at=NOW - timedelta(days=2))
        question = "Which company do I work for?"
        off = mind.search(question, limit=5, feedback=False,
                          preset=replace(get_preset("relevance"), slot_first=False,
                                         update_first=False))
        assert off[0].memory.id != canva  # without the levers the chatter wins ("took a job"
        # also announces a change, so update_first alone lifts it too)
        hits = mind.search(question, limit=5, feedback=False)
        assert hits[0].memory.id == canva and hits[0].explanation["slot"] == 1.0
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        weather = mind.search("Any playlist tips for the weekend?", limit=5, feedback=False)
        assert all("slot" not in h.explanation for h in weather)


def test_term_coverage_weights_bm25_for_every_candidate_alike():
    """Each memory's BM25 is weighted by its own coverage of the query's terms, whatever the
    order of the candidates (a local variable once shadowed the terms after the first one)."""
    mems = {m.id: m for m in (mem("a" * 32, content="allergic to penicillin, must avoid it"),
                              mem("b" * 32, content="a concert I must see"),
                              mem("c" * 32, content="nothing in common"))}
    bm = {"a" * 32: 0.1, "b" * 32: 0.1}
    cos = {"a" * 32: 0.8, "b" * 32: 0.8, "c" * 32: 0.8}
    for order in (list(mems), list(reversed(list(mems)))):
        ranked = R.bounded_rank({k: mems[k] for k in order}, cosine=cos, bm25=bm,
                                entity_ids=set(), now=NOW, prior_weight=0.0,
                                terms=["penicillin", "must", "avoid"])
        got = {i: e["bm25"] for i, _, e in ranked}
        assert got == {"a" * 32: pytest.approx(0.1), "b" * 32: pytest.approx(0.1 / 3),
                       "c" * 32: 0.0}
    untouched = R.bounded_rank(mems, cosine=cos, bm25=bm, entity_ids=set(), now=NOW,
                               prior_weight=0.0)
    assert {i: e["bm25"] for i, _, e in untouched}["b" * 32] == pytest.approx(0.1)


@pytest.mark.parametrize("text", [
    "Caroline’s PARTIES were running late; she's Moving to İstanbul — Straße 42, rock'n'roll!",
    "the_underscored words, emails like a.b@c.de and 3.5 kg of Apples’",
    "",
])
def test_stemmed_words_are_the_stems_of_the_words(text):
    """The cached per-token path (`stemmed_words`) gives exactly the light stems of `words`."""
    from salience.llm.heuristic.text import stem
    from salience.models.text import words

    assert R.stemmed_words(text) == frozenset(stem(w) for w in words(text))
