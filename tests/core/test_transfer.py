"""Export / restore / re-embed of whole minds, across backends."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zlib
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from salience import Config, FrozenClock, InvalidInput, Mind
from salience.embed import HashEmbedder
from salience.transfer import reembed_mind

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def populate(m: Mind) -> list[str]:
    m.identity.create("Ada", role="assistant", traits={"warm": True})
    m.awareness.add("Draft the launch plan", priority=3)
    bob = m.graph.add_entity("Bob", entity_type="person")
    apollo = m.graph.add_entity("Apollo", entity_type="project")
    m.graph.add_relation(bob.id, "works_on", apollo.id)
    ids = m.add_many(
        [
            {
                "content": "Bob owns the Apollo budget.",
                "entities": ["Bob", "Apollo"],
                "tags": ["work"],
            },
            {"content": "Maya moved to Lisbon.", "memory_type": "fact", "salience": 8},
            {"content": "Olá José — São Bento 東京", "metadata": {"lang": "pt"}},
        ]
    )
    s = m.sessions.open(project_id="p1")
    first = m.sessions.add_frame(s.id, "Plan v1: launch in May")
    m.sessions.add_frame(s.id, "Moved to June", frame_type="P", base_frame_id=first)
    return ids


def snapshot(m: Mind) -> tuple[dict, dict]:
    mems = {x.id: x.to_dict() for x, _ in m.store.iter_memories()}
    vecs = m.store.get_vectors(list(mems))
    return mems, vecs


@pytest.fixture
def source(backend_config: Config, request: pytest.FixtureRequest):
    name = f"src{zlib.crc32(request.node.nodeid.encode())}"
    with Mind.open(name, config=backend_config, clock=FrozenClock(T0)) as m:
        populate(m)
        yield m
        if hasattr(m.store, "drop_mind"):
            m.store.drop_mind()


def test_roundtrip_through_both_backends(source: Mind, config: Config, tmp_path: Path):
    dump = tmp_path / "mind.jsonl"
    summary = source.export(dump)
    assert summary.counts["memory"] == source.count()
    # relations: Bob -works_on-> Apollo, and Maya -lives_in-> Lisbon stated by a memory
    assert summary.counts["identity"] == 1 and summary.counts["relation"] == 2
    with Mind.open("copy", config=config, clock=FrozenClock(T0)) as dst:
        restored = dst.restore(dump)
        assert restored.reembedded == 0  # same embedder: vectors reused
        a_mems, a_vecs = snapshot(source)
        b_mems, b_vecs = snapshot(dst)
        assert a_mems == b_mems
        assert set(a_vecs) == set(b_vecs)
        for k in a_vecs:
            assert np.array_equal(a_vecs[k], b_vecs[k])
        assert dst.identity.get().traits == {"warm": True}
        assert [i.content for i in dst.awareness.get_all()] == ["Draft the launch plan"]
        bob = dst.graph.resolve("Bob")
        assert [r.relation_type for r in dst.graph.relations(bob.id)] == ["works_on"]
        again = dst.restore(dump)  # idempotent
        assert again.counts.get("memory", 0) == 0
        assert again.skipped["memory"] == len(a_mems)
        assert snapshot(dst)[0] == b_mems


def test_export_without_embeddings_reembeds(source: Mind, config: Config):
    buf = io.StringIO()
    source.export(buf, embeddings=False)
    assert '"embedding": null' in buf.getvalue().splitlines()[0]
    with Mind.open("noemb", config=config) as dst:
        s = dst.restore(io.StringIO(buf.getvalue()))
        assert s.reembedded == source.count()
        assert (
            dst.search("Apollo budget", limit=1)[0].memory.content == "Bob owns the Apollo budget."
        )


def test_reembed_into_another_model(config: Config):
    with Mind.open("old", config=config, embedder=HashEmbedder(32)) as src:
        src.add_many([f"note number {i} about topic {i % 3}" for i in range(20)])
        with Mind.open("new", config=config, embedder=HashEmbedder(64)) as dst:
            s = reembed_mind(src, dst)
            assert s.reembedded == 20 and dst.store.embedding_info().dim == 64
            assert reembed_mind(src, dst).reembedded == 0  # resumable: nothing left to do
            with pytest.raises(InvalidInput):
                reembed_mind(src, src)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty"),
        ("not json\n", "not JSON"),
        ('{"kind": "memory", "record": {}}\n', "header"),
        ('{"kind": "header", "format": "salience-export", "version": 99}\n', "newer"),
        (
            '{"kind": "header", "format": "salience-export", "version": 1}\n{"kind": "memory"}\n',
            "no record",
        ),
    ],
)
def test_bad_exports_are_clear_errors(config: Config, text: str, message: str):
    with Mind.open("target", config=config) as dst:
        dst.add("kept")
        with pytest.raises(InvalidInput, match=message):
            dst.restore(io.StringIO(text))
        assert dst.count() == 1


def test_cli_export_restore(tmp_path: Path):
    env = {**os.environ, "SALIENCE_HOME": str(tmp_path / "home"), "SALIENCE_EMBEDDER": "hash"}
    cli = [sys.executable, "-m", "salience.interfaces.cli"]

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*cli, *args], capture_output=True, text=True, env=env, timeout=300)

    assert run("add", "exported via the CLI", "--mind", "a").returncode == 0
    dump = tmp_path / "a.jsonl"
    r = run("export", str(dump), "--mind", "a", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["counts"]["memory"] == 1
    r = run("restore", str(dump), "--mind", "b", "--json")
    assert r.returncode == 0, r.stderr
    r = run("list", "--mind", "b", "--json")
    assert [m["content"] for m in json.loads(r.stdout)] == ["exported via the CLI"]
    r = run("restore", str(tmp_path / "missing.jsonl"), "--mind", "b")
    assert r.returncode == 2 and "Traceback" not in r.stderr
