"""Store.record_retrievals on every backend: design A's retrieval arithmetic in one atomic
statement, touching no text, side table or index entry, losing no concurrent bump."""

from __future__ import annotations

import threading
from datetime import timedelta

import test_contract

from salience.models import MemoryFilter
from salience.search.feedback import RETRIEVAL_BOOST, boosted_salience

T0, mem = test_contract.T0, test_contract.mem  # the suite's time origin and record factory
store = test_contract.store  # its fixture: a store with the test embedder pinned


def boosted(salience: float, times: int) -> float:
    for _ in range(times):
        salience = boosted_salience(salience)
    return salience


def test_one_retrieval_is_design_a_arithmetic(store):
    a = mem("the ferry leaves at noon", salience=2.0, tags=["travel"], entities=["Oslo"])
    b = mem("tide table for May", salience=9.99)
    store.insert([a, b])
    t1 = T0 + timedelta(hours=1)
    assert store.record_retrievals([a.id, b.id, a.id, "no-such-id"], t1, boost=RETRIEVAL_BOOST) == 2
    got_a, got_b = store.get_many([a.id, b.id])
    assert (got_a.retrieval_count, got_a.last_retrieved_at) == (1, t1)
    assert got_a.salience == boosted_salience(2.0)  # exactly: the same double arithmetic
    assert got_b.salience == boosted_salience(9.99) <= 10.0
    # nothing else moved: not the text, tags, entities, nor updated_at
    assert got_a.copy(retrieval_count=0, last_retrieved_at=None, salience=2.0) == a
    assert got_a.updated_at == T0
    assert [c.id for c in store.search_text(["ferry"], limit=5)] == [a.id]
    assert [c.id for c in store.search_entities(["oslo"], limit=5)] == [a.id]
    assert store.count(MemoryFilter(tags=["travel"])) == 1


def test_repeated_retrievals_compound_and_stop_at_ten(store):
    a = mem("a memory retrieved often", salience=5.0)
    top = mem("already at the ceiling", salience=10.0)
    store.insert([a, top])
    for i in range(20):
        store.record_retrievals([a.id, top.id], T0 + timedelta(minutes=i), boost=RETRIEVAL_BOOST)
    got_a, got_top = store.get_many([a.id, top.id])
    assert got_a.retrieval_count == 20 and got_a.last_retrieved_at == T0 + timedelta(minutes=19)
    assert got_a.salience == boosted(5.0, 20)
    assert got_top.salience == 10.0 and got_top.retrieval_count == 20


def test_nothing_to_record(store):
    assert store.record_retrievals([], T0, boost=RETRIEVAL_BOOST) == 0
    assert store.record_retrievals(["unknown"], T0, boost=RETRIEVAL_BOOST) == 0


def test_concurrent_retrievals_lose_no_bump(store, make_store):
    """6 threads over two store objects (two connections / pools) bump the same memories."""
    ms = [mem(f"shared memory {i}", salience=1.0 + i) for i in range(5)]
    store.insert(ms)
    other = make_store()  # the same mind, opened a second time
    threads_n, rounds = 6, 15
    errors: list[BaseException] = []

    def work(k: int) -> None:
        s = store if k % 2 else other
        ids = [m.id for m in ms]
        ids = ids[k % 5:] + ids[: k % 5]  # overlapping sets in different orders
        try:
            for r in range(rounds):
                s.record_retrievals(ids, T0 + timedelta(seconds=r), boost=RETRIEVAL_BOOST)
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(threads_n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for m, got in zip(ms, store.get_many([m.id for m in ms]), strict=True):
        assert got.retrieval_count == threads_n * rounds
        assert got.salience == boosted(m.salience, threads_n * rounds)

