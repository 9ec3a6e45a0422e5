"""Stored claims on every backend (issue 21; store/relational/claims.py): a derived row per
memory, written in the memory's own transaction, deleted with it, invalidated by an update that
changes its text, opaque to the store."""

from __future__ import annotations

import pytest
import test_contract

from salience.errors import InvalidInput
from salience.models import validate_memory
from salience.store.ingest import IngestBatch
from salience.store.relational.claims import text_key

T0, mem = test_contract.T0, test_contract.mem
store = test_contract.store


def fake(memory):
    """A deriver whose payload says which text it was derived from (the store never reads it)."""
    return 7, f'["{memory.content}"]'


def test_insert_writes_the_row_in_its_transaction(store):
    store.derive_claims_with(fake)
    a, b = mem("I live in Leeds"), mem("I work at Canva", 1)
    store.insert([a, b])
    assert store.stored_claims([a.id, b.id, "nope"]) == {
        a.id: (7, text_key(a), '["I live in Leeds"]'),
        b.id: (7, text_key(b), '["I work at Canva"]'),
    }
    assert store.claims_counts(7) == (2, 2)
    # a failed insert writes no claims either: all or none
    c = mem("I have two cats", 2)
    with pytest.raises(InvalidInput):
        store.insert([c, a])  # a's id exists
    assert store.get(c.id) is None and store.stored_claims([c.id]) == {}


def test_without_a_deriver_no_rows_and_maintenance_fills_them(store):
    a = mem("I live in Leeds")
    store.insert([a])
    assert store.stored_claims([a.id]) == {}
    assert [m.id for m in store.claims_missing(7)] == [a.id]
    assert store.write_claims([(a, 7, '["x"]')]) == 1
    assert store.claims_missing(7) == []
    assert [m.id for m in store.claims_missing(8)] == [a.id]  # another engine version: a miss
    assert store.write_claims([(a, 8, '["y"]')]) == 1  # rewritten in place
    assert store.stored_claims([a.id]) == {a.id: (8, text_key(a), '["y"]')}


def test_commit_ingest_writes_rows_with_the_memories(store):
    store.derive_claims_with(fake)
    old, new = mem("I live in Leeds"), mem("I now live in Lisbon", 1)
    store.insert([old])
    store.commit_ingest(IngestBatch(memories=[new], supersede=[(old.id, new.id)], now=T0))
    got = store.stored_claims([old.id, new.id])
    assert got[new.id] == (7, text_key(new), '["I now live in Lisbon"]')
    assert got[old.id] == (7, text_key(old), '["I live in Leeds"]')  # same text: kept


def test_update_of_the_text_rewrites_the_row_and_other_updates_keep_it(store):
    calls = []

    def counting(m):
        calls.append(m.id)
        return fake(m)

    store.derive_claims_with(counting)
    a = mem("I live in Leeds")
    store.insert([a])
    store.update([a.copy(salience=9.0, tags=["home"])])  # text unchanged: row kept, no derive
    assert calls == [a.id]
    assert store.stored_claims([a.id])[a.id][2] == '["I live in Leeds"]'
    edited = validate_memory(a.copy(content="I live in York"))  # re-hashed, as Mind.update does
    store.update([edited])
    assert calls == [a.id, a.id]
    assert store.stored_claims([a.id]) == {a.id: (7, text_key(edited), '["I live in York"]')}
    # without a deriver an edit deletes the row in the update's transaction: a miss, not a lie
    store.derive_claims_with(None)
    again = validate_memory(edited.copy(content="I live in Bath"))
    store.update([again])
    assert store.stored_claims([a.id]) == {}
    assert [m.id for m in store.claims_missing(7)] == [a.id]


def test_an_edit_without_a_new_hash_is_a_miss_not_stale_claims(store):
    store.derive_claims_with(fake)
    a = mem("I live in Leeds")
    store.insert([a])
    store.update([a.copy(content="I live in York")])  # content_hash left at Leeds's
    assert store.stored_claims([a.id]) == {}  # the Leeds row went, no row of a wrong key came


def test_a_row_derived_from_an_older_text_never_lands(store):
    a = mem("I live in Leeds")
    store.insert([a])
    read = store.claims_missing(7)[0]
    store.update([validate_memory(a.copy(content="I live in York"))])  # edited after maintenance read it
    assert store.write_claims([(read, 7, '["leeds"]')]) == 0
    assert store.stored_claims([a.id]) == {}
    assert store.write_claims([(mem("never stored", 3), 7, "[]")]) == 0


def test_delete_deletes_the_row(store):
    store.derive_claims_with(fake)
    a, b = mem("I live in Leeds"), mem("I work at Canva", 1)
    store.insert([a, b])
    assert store.delete([a.id]) == 1
    assert store.stored_claims([a.id, b.id]) == {b.id: (7, text_key(b), '["I work at Canva"]')}
    assert store.claims_counts(7) == (1, 1)


def test_a_failing_deriver_never_fails_the_write(store):
    def broken(m):
        raise RuntimeError("parser bug")

    store.derive_claims_with(broken)
    a = mem("I live in Leeds")
    store.insert([a])
    assert store.get(a.id) is not None and store.stored_claims([a.id]) == {}
