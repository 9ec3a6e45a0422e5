"""SQLite's cached vector index: the change log across handles, HNSW persistence, auto mode.

The conformance suite already runs every store behaviour with `sqlite_vector_index=hnsw`; these
tests cover what only the SQLite cache has: catching up from `vector_changes` instead of a
rebuild, reuse of a deleted pk, trimming the log, the saved graph, and the switch in auto mode.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from salience.models import EmbeddingInfo, Memory, MemoryFilter, MemoryType, validate_memory
from salience.store.sqlite import SQLiteStore, vector_search
from salience.store.sqlite.hnsw import HnswIndex, HnswParams, sidecar_dir

DIM = 16
T0 = datetime(2026, 3, 1, tzinfo=UTC)


def vecs(n: int, seed: int = 0) -> np.ndarray:
    """Unit vectors around 8 fixed centres (as embeddings cluster by topic), deterministic."""
    centres = np.random.default_rng(12345).normal(size=(8, DIM))
    rng = np.random.default_rng(seed)
    v = centres[rng.integers(0, 8, n)] + 0.35 * rng.normal(size=(n, DIM))
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def mems(n: int, start: int = 0, **kw) -> list[Memory]:
    return [
        validate_memory(
            Memory(
                content=f"memory number {start + i}",
                created_at=T0 + timedelta(seconds=start + i),
                updated_at=T0 + timedelta(seconds=start + i),
                **kw,
            )
        )
        for i in range(n)
    ]


def open_store(path: Path, mode: str = "hnsw", **kw) -> SQLiteStore:
    s = SQLiteStore(path, mind="m", vector_index=mode, **kw)  # type: ignore[arg-type]
    s.pin_embedding(EmbeddingInfo("test", DIM))
    return s


def top(store: SQLiteStore, q: np.ndarray, k: int = 10, **kw) -> list[str]:
    return [c.id for c in store.search_vector(q, limit=k, **kw)]


def exact_top(ids: list[str], mat: np.ndarray, q: np.ndarray, k: int = 10) -> list[str]:
    order = np.argsort(-(mat @ q), kind="stable")[:k]
    return [ids[i] for i in order]


@pytest.mark.parametrize("mode", ["exact", "hnsw"])
def test_other_handles_changes_replay_from_the_log(tmp_path: Path, mode: str):
    a = open_store(tmp_path / "m.db", mode)
    b = open_store(tmp_path / "m.db", mode)
    ms, vs = mems(50), vecs(50)
    a.insert(ms, vs)
    assert top(a, vs[3], 1) == [ms[3].id]
    cache = a._index
    # b deletes one row, moves another's vector, adds a new one
    b.delete([ms[3].id])
    b.update([ms[7]], vs[3:4])
    new = mems(1, start=100)
    b.insert(new, vecs(1, seed=9))
    assert top(a, vs[3], 1) == [ms[7].id]  # 3 is gone, 7 now has 3's vector
    assert a.search_vector(vs[3], limit=1)[0].score == pytest.approx(1.0, abs=1e-5)
    assert top(a, vecs(1, seed=9)[0], 1) == [new[0].id]
    assert a._index is cache  # caught up in place, no rebuild
    a.close()
    b.close()


@pytest.mark.parametrize("mode", ["exact", "hnsw"])
def test_reused_pk_of_a_deleted_row_is_seen(tmp_path: Path, mode: str):
    """SQLite gives a new row the pk of a deleted last row; a cache that already dropped that pk
    must still load the new row's vector."""
    a = open_store(tmp_path / "m.db", mode)
    b = open_store(tmp_path / "m.db", mode)
    ms, vs = mems(20), vecs(20)
    a.insert(ms, vs)
    top(a, vs[0])
    b.delete([ms[-1].id])  # the row with the highest pk
    assert ms[-1].id not in top(a, vs[-1], 20)
    new = mems(1, start=50)
    b.insert(new, vs[-1:])  # reuses that pk
    assert top(a, vs[-1], 1) == [new[0].id]
    a.close()
    b.close()


def test_cache_older_than_the_trimmed_log_is_rebuilt(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(vector_search, "LOG_TRIM_AT", 5)
    monkeypatch.setattr(vector_search, "LOG_KEEP", 2)
    a = open_store(tmp_path / "m.db", "exact")
    b = open_store(tmp_path / "m.db", "exact")
    ms, vs = mems(30), vecs(30)
    a.insert(ms, vs)
    top(a, vs[0])
    cache = a._index
    for m in ms[:12]:  # twelve deletes: the log is trimmed past what `a` saw
        b.delete([m.id])
    assert int(b.get_meta(vector_search.LOG_TRIMMED_KEY) or 0) > 0
    got = top(a, vs[0], 30)
    assert a._index is not cache
    assert sorted(got) == sorted(m.id for m in ms[12:])
    a.close()
    b.close()


def test_hnsw_graph_is_saved_and_reused_by_the_next_process(tmp_path: Path, monkeypatch):
    path = tmp_path / "m.db"
    ms, vs = mems(1500), vecs(1500)
    a = open_store(path)
    a.insert(ms, vs)
    first = top(a, vs[5])
    assert (sidecar_dir(path) / "manifest.json").exists()  # saved after the build
    a.close()

    loads: list[int] = []
    real = HnswIndex.append

    def counting(self, pks, vectors):
        loads.append(len(pks))
        return real(self, pks, vectors)

    monkeypatch.setattr(HnswIndex, "append", counting)
    b = open_store(path)
    assert top(b, vs[5]) == first
    assert loads == []  # nothing re-added: the graph came from disk
    # a change made while no process held the graph is replayed from the log
    c = open_store(path, "exact")
    c.delete([ms[5].id])
    c.close()
    b.close()
    d = open_store(path)
    assert ms[5].id not in top(d, vs[5])
    assert len(d._index) == 1499
    d.close()


def test_saved_graph_of_another_database_is_ignored(tmp_path: Path):
    one, two = tmp_path / "one.db", tmp_path / "two.db"
    a = open_store(one)
    a.insert(mems(1200), vecs(1200))
    top(a, vecs(1)[0])
    a.close()
    b = open_store(two)
    ms = mems(1100, start=5000)
    b.insert(ms, vecs(1100, seed=3))
    b.close()
    sidecar_dir(one).rename(sidecar_dir(two))  # a graph that belongs to one.db
    b = open_store(two)
    q = vecs(1100, seed=3)[7]
    assert top(b, q, 1) == [ms[7].id]
    assert len(b._index) == 1100
    b.close()


def test_corrupt_saved_graph_is_rebuilt(tmp_path: Path):
    path = tmp_path / "m.db"
    ms, vs = mems(1200), vecs(1200)
    a = open_store(path)
    a.insert(ms, vs)
    top(a, vs[0])
    a.close()
    for f in sidecar_dir(path).glob("graph-*.usearch"):
        f.write_bytes(b"\x00" * f.stat().st_size)  # same size, garbage content
    b = open_store(path)
    assert top(b, vs[9], 1) == [ms[9].id]
    b.close()


def test_auto_mode_switches_to_hnsw_at_the_threshold(tmp_path: Path):
    s = open_store(tmp_path / "m.db", "auto", hnsw_min_rows=100)
    s.insert(mems(60), vecs(60))
    top(s, vecs(1)[0])
    assert s.stats()["vector_index"] == "exact"
    s.insert(mems(60, start=60), vecs(60, seed=1))
    top(s, vecs(1)[0])
    assert s.stats()["vector_index"] == "hnsw"
    s.close()


def test_hnsw_recall_and_exact_scores(tmp_path: Path, monkeypatch):
    """The graph itself (small graphs are scanned by default: force traversal)."""
    from salience.store.sqlite import hnsw

    monkeypatch.setattr(hnsw, "SCAN_BELOW", 0)
    n = 4000
    ms, vs = mems(n), vecs(n)
    s = open_store(tmp_path / "m.db", hnsw=HnswParams(dtype="i8"))
    s.insert(ms, vs)
    ids = [m.id for m in ms]
    qs = vecs(50, seed=7)
    recall = np.mean([len(set(top(s, q)) & set(exact_top(ids, vs, q))) / 10 for q in qs])
    assert recall >= 0.95
    hit = s.search_vector(qs[0], limit=1)[0]
    i = ids.index(hit.id)
    assert hit.score == pytest.approx(float(vs[i] @ qs[0]), abs=1e-6)  # re-scored on float32
    s.close()


@pytest.mark.parametrize("small", [0, 100_000])
def test_hnsw_filtered_search_matches_exact(tmp_path: Path, monkeypatch, small: int):
    """Filters go to an exact scan when few rows pass and to a widening graph search when many
    do; both must return what the exact index returns."""
    monkeypatch.setattr(vector_search, "SMALL_ALLOWED", small)
    n = 1500
    ms = mems(n // 2, memory_type=MemoryType.FACT) + mems(
        n // 2, start=n, memory_type=MemoryType.EVENT
    )
    vs = vecs(n)
    h = open_store(tmp_path / "h.db", "hnsw")
    e = open_store(tmp_path / "e.db", "exact")
    h.insert(ms, vs)
    e.insert(ms, vs)
    flt = MemoryFilter(memory_types=[MemoryType.EVENT])
    for q in vecs(20, seed=4):
        got, want = top(h, q, flt=flt), top(e, q, flt=flt)
        assert len(set(got) & set(want)) >= 9
    h.close()
    e.close()


@pytest.mark.parametrize("mode", ["exact", "hnsw"])
def test_first_vector_given_by_an_update_is_seen_by_other_handles(tmp_path: Path, mode: str):
    a = open_store(tmp_path / "m.db", mode)
    b = open_store(tmp_path / "m.db", mode)
    ms, vs = mems(10), vecs(10)
    b.insert(ms[:2])  # no vectors yet
    b.insert(ms[2:], vs[2:])
    top(a, vs[5])  # a's cache now ends past the two vectorless rows
    b.update([ms[0]], vs[0:1])  # below a's tail
    assert top(a, vs[0], 1) == [ms[0].id]
    a.close()
    b.close()


@pytest.mark.parametrize("mode", ["exact", "hnsw"])
def test_threads_writing_and_searching_one_store_keep_the_cache_exact(tmp_path: Path, mode: str):
    """Writers on two handles and readers on one, at once: no errors, no duplicate results, and
    afterwards every stored vector finds its own memory with its true score."""
    import random
    import threading

    s = open_store(tmp_path / "m.db", mode)
    t = open_store(tmp_path / "m.db", mode)
    s.insert(mems(100), vecs(100))
    errors: list[BaseException] = []
    dupes: list[list[str]] = []
    start = [1000]
    guard = threading.Lock()

    def fresh(n: int) -> list[Memory]:
        with guard:
            k, start[0] = start[0], start[0] + n
        return mems(n, start=k)

    def next_seed() -> int:  # distinct vectors for every write, so a top hit is never a tie
        with guard:
            start[0] += 1
            return start[0]

    def writer(h: SQLiteStore, seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(200):
            try:
                op = rng.random()
                if op < 0.5:
                    h.insert(fresh(2), vecs(2, seed=next_seed()))
                else:
                    recent = h.list(limit=20, order="created_desc")
                    if not recent:
                        continue
                    m = rng.choice(recent)
                    if op < 0.75:
                        h.delete([m.id])
                    else:
                        h.update([m], vecs(1, seed=next_seed()))
            except Exception as e:
                if type(e).__name__ != "NotFound":  # updating what another thread deleted
                    errors.append(e)

    def reader(seed: int) -> None:
        for i in range(400):
            try:
                ids = top(s, vecs(1, seed=seed * 1000 + i)[0])
                if len(ids) != len(set(ids)):
                    dupes.append(ids)
            except Exception as e:
                errors.append(e)

    threads = [
        threading.Thread(target=writer, args=(s, 1)),
        threading.Thread(target=writer, args=(s, 2)),
        threading.Thread(target=writer, args=(t, 3)),
        threading.Thread(target=reader, args=(4,)),
        threading.Thread(target=reader, args=(5,)),
    ]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == [] and dupes == []
    stored = s.get_vectors([m.id for m in s.list(limit=10_000)])
    assert len(s._synced_index()) == len(stored)
    index = s._synced_index()
    if mode == "exact":
        for mid, v in stored.items():
            hit = s.search_vector(v, limit=1)[0]
            assert hit.id == mid and hit.score == pytest.approx(1.0, abs=1e-5)
    else:  # the graph holds exactly the stored vectors (its search is approximate by design)
        pk_of = {mid: pk for pk, mid in s._db.execute("SELECT pk, id FROM memories")}
        graph = index._index
        for mid, v in stored.items():
            got = graph.get(pk_of[mid], dtype=np.float32)
            assert got is not None and float(got @ v / np.linalg.norm(got)) > 0.999
    s.close()
    t.close()


def test_graph_saved_after_the_database_was_copied_is_not_used_with_the_old_copy(
    tmp_path: Path,
):
    """Restoring an older copy of the file keeps its uid; the newer graph beside it must not be
    applied to it."""
    import shutil

    path = tmp_path / "m.db"
    a = open_store(path)
    ms, vs = mems(1200), vecs(1200)
    a.insert(ms, vs)
    top(a, vs[0])
    a.close()
    shutil.copy(path, tmp_path / "old.db")
    b = open_store(path)
    b.insert(mems(300, start=5000), vecs(300, seed=2))
    top(b, vs[0])
    b._save_hnsw(b._index)  # the graph now holds rows the old copy lacks
    b.close()
    shutil.copy(tmp_path / "old.db", path)
    for suffix in ("-wal", "-shm"):
        (tmp_path / f"m.db{suffix}").unlink(missing_ok=True)
    c = open_store(path)
    again = mems(300, start=9000)  # reuses the pks the newer graph holds for other rows
    c.insert(again, vecs(300, seed=3))
    d = open_store(path)
    found = sum(top(d, v, 1) == [m.id] for m, v in zip(again, vecs(300, seed=3), strict=True))
    assert found == 300
    assert len(d._index) == 1500
    c.close()
    d.close()


def test_graph_saved_after_deleting_the_newest_memory_is_reused(tmp_path: Path, monkeypatch):
    path = tmp_path / "m.db"
    a = open_store(path)
    ms, vs = mems(1200), vecs(1200)
    a.insert(ms, vs)
    top(a, vs[0])
    a.delete([ms[-1].id])
    a._save_hnsw(a._index)
    a.close()
    built: list[int] = []
    real = HnswIndex.append
    monkeypatch.setattr(
        HnswIndex, "append", lambda self, p, v: (built.append(len(p)), real(self, p, v))
    )
    b = open_store(path)
    assert top(b, vs[3], 1) == [ms[3].id]
    assert built == []
    b.close()


def test_the_change_log_is_not_trimmed_on_every_write(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(vector_search, "LOG_TRIM_AT", 6)
    monkeypatch.setattr(vector_search, "LOG_KEEP", 3)
    s = open_store(tmp_path / "m.db", "exact")
    ms = mems(40)
    s.insert(ms, vecs(40))
    s.delete([ms[-1].id])  # the highest pk: its log row is kept by every trim
    marks = []
    for m in ms[:20]:
        s.delete([m.id])
        marks.append(int(s.get_meta(vector_search.LOG_TRIMMED_KEY) or 0))
    trims = len(set(marks) - {0})
    assert 2 <= trims <= 5  # one trim per ~4 deletes, not one per delete
    s.close()


def test_saved_graph_survives_an_ef_search_change_but_not_a_build_change(
    tmp_path: Path, monkeypatch
):
    path = tmp_path / "m.db"
    ms, vs = mems(1200), vecs(1200)
    a = open_store(path, hnsw=HnswParams(ef_search=64))
    a.insert(ms, vs)
    top(a, vs[0])
    a.close()
    added: list[int] = []
    real = HnswIndex.append
    monkeypatch.setattr(
        HnswIndex, "append", lambda self, p, v: (added.append(len(p)), real(self, p, v))
    )
    b = open_store(path, hnsw=HnswParams(ef_search=300))
    assert top(b, vs[1], 1) == [ms[1].id] and added == []  # loaded, searched with ef 300
    assert b._index._index.expansion_search == 300
    b.close()
    c = open_store(path, hnsw=HnswParams(ef_construction=100))
    assert top(c, vs[2], 1) == [ms[2].id] and added == [1200]  # other graph settings: rebuilt
    c.close()



@pytest.mark.parametrize("mode", ["exact", "hnsw"])
def test_superseded_neighbours_are_skipped_with_one_statement_per_round(
    tmp_path: Path, mode: str
):
    """Hiding superseded rows (the default filter) drops them after the index search, in the
    one statement that also gives the candidates' ids (and, for HNSW, the float32 vectors they
    are re-scored on): when the query's 60 nearest rows are all superseded the search widens
    until enough live rows pass and returns the exact top 10 of the live rows with exact
    cosines; a search whose first round suffices issues nothing after the index search but
    that statement."""
    n = 400
    ms, vs = mems(n), vecs(n, seed=3)
    q = vecs(1, seed=9)[0]
    nearest = np.argsort(-(vs @ q), kind="stable")
    live_id = ms[int(nearest[-1])].id
    hidden = {int(i) for i in nearest[:60]}
    ms = [m.copy(superseded_by=live_id) if i in hidden else m for i, m in enumerate(ms)]
    s = open_store(tmp_path / "m.db", mode)
    s.insert(ms, vs)
    live = [i for i in range(n) if i not in hidden]
    want = exact_top([ms[i].id for i in live], vs[live], q)
    top(s, q)  # loads the index
    got = s.search_vector(q, limit=10)
    assert [c.id for c in got] == want
    by_id = {m.id: i for i, m in enumerate(ms)}
    assert [c.score for c in got] == pytest.approx([float(vs[by_id[c.id]] @ q) for c in got],
                                                   abs=1e-6)
    statements: list[str] = []
    s._db.set_trace_callback(statements.append)
    try:
        far = top(s, -q)  # its nearest rows are live: one round
    finally:
        s._db.set_trace_callback(None)
    assert len(far) == 10 and not {by_id[i] for i in far} & hidden
    assert statements[0] == "PRAGMA data_version" and len(statements) == 2, statements
    assert ("JOIN memory_vectors" in statements[1]) == (mode == "hnsw")  # re-scored on float32
    s.close()
