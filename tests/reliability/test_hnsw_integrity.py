"""Issue 17 item 8: a saved HNSW graph whose bytes changed (same size) is rebuilt, not trusted:
every vector still finds itself after 40 % of the graph file is zeroed."""

from __future__ import annotations

from pathlib import Path

from salience.config import Config
from salience.mind import Mind

N = 2_000


def test_a_corrupted_graph_file_is_rebuilt(tmp_path: Path) -> None:
    cfg = Config(home=tmp_path / "home", embedder="hash", sqlite_vector_index="hnsw")
    db = tmp_path / "m.db"
    with Mind.open(db, config=cfg) as m:
        m.add_many(f"record {i}: crate {i * 7919 % 104729} on shelf {i % 311}" for i in range(N))
        m.store.search_vector(m.embedder.embed_queries(["record 1"])[0], limit=1)  # builds, saves
    graphs = list((tmp_path / "m.db.hnsw").glob("graph-*.usearch"))
    assert len(graphs) == 1, list((tmp_path / "m.db.hnsw").iterdir())
    raw = bytearray(graphs[0].read_bytes())
    lo, hi = len(raw) // 10, len(raw) // 2  # inside the int8 vectors of a 2,000-node graph
    raw[lo:hi] = bytes(hi - lo)  # same size, 40 % of the bytes zeroed
    graphs[0].write_bytes(bytes(raw))
    with Mind.open(db, config=cfg) as m:
        rows = m.list(limit=N)
        vecs = m.store.get_vectors([r.id for r in rows])
        lost = [
            r.id for r in rows
            if m.store.search_vector(vecs[r.id], limit=1)[0].id != r.id
        ]
    assert not lost, f"{len(lost)} of {len(rows)} vectors no longer find themselves"
