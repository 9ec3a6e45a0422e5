"""Identity: one row per mind, its prompt section, and the identity-memory mirror."""

from __future__ import annotations

import sqlite3

import pytest

from salience import InvalidInput, MemoryFilter, MemoryType, NotFound
from salience.errors import ConflictError, StoreError
from salience.layers.identity import IDENTITY_MEMORY_KEY, render_identity
from salience.models.layers import Identity
from salience.models.tokens import approx_tokens


def identity_memories(mind):
    return mind.list(MemoryFilter(memory_types=[MemoryType.IDENTITY], include_superseded=True))


def test_create_get_update(mind, clock):
    layer = mind.identity
    assert not layer.exists() and layer.get() is None
    assert layer.to_context() == ""
    with pytest.raises(NotFound):
        layer.update(role="x")
    ident = layer.create("Ada", role="research assistant", traits={"curious": 0.9})
    assert layer.exists()
    assert layer.get() == ident
    clock.advance(hours=1)
    new = layer.update(department="R&D")
    assert new.department == "R&D" and new.role == "research assistant"
    assert new.updated_at > ident.updated_at and new.created_at == ident.created_at


def test_second_identity_is_refused(mind):
    mind.identity.create("Ada")
    with pytest.raises(ConflictError, match="already has an identity"):
        mind.identity.create("Grace")
    assert mind.identity.get().name == "Ada"


def test_schema_allows_only_row_one(mind):
    """The single row is enforced by the schema itself (CHECK (id = 1)), not only by code."""
    store = mind.store
    if store.backend == "sqlite":
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            store._db.execute(
                "INSERT INTO identity (id, name, created_at, updated_at) VALUES (2, 'x', '', '')"
            )
    else:
        with pytest.raises(StoreError, match="check"), store._tx() as conn:
            conn.execute(
                store._q(
                    "INSERT INTO {s}.identity (id, name, created_at, updated_at) "
                    "VALUES (2, 'x', now(), now())"
                )
            )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"name": "   "},
        {"name": "A", "traits": ["x"]},
        {"name": "A", "mood": "x"},
        {"name": "A", "role": 5},
        {"name": "A\x00"},
    ],
)
def test_bad_identity_fields(mind, kwargs):
    kwargs = dict(kwargs)
    name = kwargs.pop("name")
    with pytest.raises(InvalidInput):
        mind.identity.create(name, **kwargs)
    assert not mind.identity.exists()


def test_to_context_is_terse_and_within_budget(mind):
    mind.identity.create(
        "Ada",
        role="assistant",
        personality="calm " * 2000,
        capabilities="code, search",
        system_prompt="Answer briefly.",
        traits={"b": 1, "a": 0.5},
    )
    assert len(identity_memories(mind)) == 1  # the mirror stays one memory (one chunk)
    text = mind.identity.to_context()
    assert text.startswith("# Identity\nYou are Ada.\nRole: assistant")
    assert approx_tokens(text) <= 500
    assert approx_tokens(mind.identity.to_context(budget_tokens=40)) <= 40
    short = render_identity(Identity(name="Bo", traits={"b": 1, "a": 0.5}))
    assert short == "# Identity\nYou are Bo.\nTraits: a=0.5, b=1"


def test_row_is_mirrored_into_one_identity_memory(mind, clock):
    mind.identity.create("Ada", role="assistant")
    (mem,) = identity_memories(mind)
    assert mem.salience == 10 and mem.pinned and mem.importance == "critical"
    assert mem.content.startswith("You are Ada.")
    clock.advance(minutes=5)
    mind.identity.update(role="researcher")
    (again,) = identity_memories(mind)
    assert again.id == mem.id and "Role: researcher" in again.content
    mind.delete(mem.id)  # a deleted mirror is recreated on the next change
    mind.identity.update(role="writer")
    (third,) = identity_memories(mind)
    assert third.id == mind.store.get_meta(IDENTITY_MEMORY_KEY) and "writer" in third.content


def test_mirror_adopts_an_identical_memory(mind):
    stray = mind.add("You are Ada.", salience=2.0, memory_type="identity")
    mind.identity.create("Ada")
    (mem,) = identity_memories(mind)
    assert mem.id == stray and mem.salience == 10 and mem.pinned
