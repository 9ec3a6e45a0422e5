"""Approximate vector index for large SQLite minds: usearch HNSW, persisted beside the database.

The exact numpy index (`vectors.py`) keeps every float32 vector in memory: 1.5 GB at a million
384-d memories. This index keeps int8 (or float16) copies in an HNSW graph instead, about 0.8 KB
per memory, and answers a top-k query in well under a millisecond; the store then re-scores the
candidates on the float32 vectors from the database, so the scores it returns are exact cosines
and only the candidate set is approximate (bench/scale.py reports recall@10 against exact search).

The database stays the source of truth. The graph is saved to `<db>.hnsw/` when it was built or
grew by a tenth since it was loaded, with a small JSON manifest naming the database generation
it reflects (mind uid, vector-change sequence number, highest pk); a process that opens the mind
loads it and replays only what changed since. A manifest that does not match is ignored and the
graph is rebuilt from the database.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import StoreError

FORMAT = 1
SCAN_BELOW = 20_000  # graphs this small are scanned instead of traversed
STALE_S = 3600.0  # unreferenced graph files older than this are leftovers of killed processes


@dataclass(frozen=True)
class HnswParams:
    dtype: str = "i8"
    connectivity: int = 16
    ef_construction: int = 200
    ef_search: int = 256

    def graph(self) -> dict[str, Any]:
        """What a saved graph must have been built with (ef_search is only a search setting)."""
        return {
            "dtype": self.dtype,
            "connectivity": self.connectivity,
            "ef_construction": self.ef_construction,
        }


def _usearch_index() -> Any:
    try:
        from usearch.index import Index
    except ImportError as e:
        raise StoreError(
            "the HNSW vector index needs usearch (a dependency of salience): reinstall salience, "
            "or set sqlite_vector_index=exact"
        ) from e
    return Index


class HnswIndex:
    """usearch HNSW keyed by memory pk, with the same interface as `VectorIndex`.

    Searches and writes are serialised by the index's own lock (a search takes ~1 ms), so the
    store may search a snapshot outside its lock as it does with the exact index.
    """

    exact = False  # scores are approximate: the store re-scores candidates on float32

    def __init__(self, dim: int, params: HnswParams, index: Any = None, *, max_pk: int = 0) -> None:
        self.dim = dim
        self.params = params
        if index is None:
            index = _usearch_index()(
                ndim=dim,
                metric="cos",
                dtype=params.dtype,
                connectivity=params.connectivity,
                expansion_add=params.ef_construction,
                expansion_search=params.ef_search,
            )
        self._index = index
        self._lock = threading.Lock()
        self._max_pk = (
            max_pk  # highest pk ever added (deleted ones included): the tail starts after
        )
        self.changed = 0  # rows added or removed since built / loaded / saved
        self._saved_file: str | None = None  # the graph file this object wrote last

    def __len__(self) -> int:
        return len(self._index)

    @property
    def max_pk(self) -> int:
        return self._max_pk

    def nbytes(self) -> int:
        return int(self._index.memory_usage)

    def append(self, pks: np.ndarray, vectors: np.ndarray) -> None:
        if len(pks) == 0:
            return
        keys = np.asarray(pks, dtype=np.uint64)
        with self._lock:
            self._index.add(
                keys, np.asarray(vectors, dtype=np.float32), threads=os.cpu_count() or 1
            )
            self._max_pk = max(self._max_pk, int(keys.max()))
            self.changed += len(keys)

    def replace(self, pk: int, vector: np.ndarray) -> bool:
        with self._lock:
            if pk not in self._index:
                return False
            self._index.remove(pk)
            self._index.add(pk, np.asarray(vector, dtype=np.float32))
            self.changed += 1
        return True

    def remove(self, pks: list[int]) -> None:
        if not pks:
            return
        with self._lock:
            present = [pk for pk in pks if pk in self._index]
            if present:
                self._index.remove(np.asarray(present, dtype=np.uint64))
                self.changed += len(present)

    def snapshot(self) -> HnswIndex:
        return self

    def search(
        self, query: np.ndarray, k: int, allowed: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Approximate top-k (pks, cosine similarities), best first. `allowed`: sorted pks; the
        graph is searched with a widening k and filtered (the store sends small allowed sets to
        an exact scan instead)."""
        empty = np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
        with self._lock:
            n = len(self._index)
            if n == 0 or k <= 0:
                return empty
            if allowed is not None and len(allowed) == 0:
                return empty
            want = min(k, n if allowed is None else len(allowed))
            frac = 1.0 if allowed is None else max(len(allowed) / n, 1e-6)
            kk = min(n, max(k, int(k / frac * 2)))
            while True:
                # a small graph, or much of it asked for: a pass over every int8 vector is
                # about as fast (0.8 ms at 20,000 x 384) and cannot miss a node the graph
                # links poorly (HNSW leaves ~0.2 % of nodes hard to reach on clustered data)
                exact = kk * 4 >= n or n <= SCAN_BELOW
                m = self._index.search(np.asarray(query, dtype=np.float32), kk, exact=exact)
                pks = np.asarray(m.keys, dtype=np.int64)
                sims = 1.0 - np.asarray(m.distances, dtype=np.float32)
                if allowed is not None:
                    keep = np.isin(pks, allowed)
                    pks, sims = pks[keep], sims[keep]
                if len(pks) >= want or kk >= n:
                    return pks[:k], sims[:k]
                kk = min(n, kk * 4)

    # -- persistence ---------------------------------------------------------------------------
    def save(self, directory: Path, manifest: dict[str, Any]) -> None:
        """Write the graph, then its manifest, each atomically (`manifest["token"]` names this
        save; the store records it in the database). Removes the graph this object saved
        before and graphs no manifest has named for an hour (left by killed processes); never
        a file another process may have just named."""
        directory.mkdir(parents=True, exist_ok=True)
        name = f"graph-{manifest['token']}.usearch"
        tmp = directory / f".{name}.tmp"
        with self._lock:
            self._index.save(str(tmp))
            count = len(self._index)
            self.changed = 0
        size = tmp.stat().st_size
        digest = file_digest(tmp)
        os.replace(tmp, directory / name)
        body = {
            **manifest,
            "format": FORMAT,
            "file": name,
            "bytes": size,
            "sha256": digest,
            "count": count,
            "max_pk": self._max_pk,
            "dim": self.dim,
            "params": self.params.graph(),
        }
        mtmp = directory / f".manifest-{manifest['token']}.tmp"
        mtmp.write_text(json.dumps(body))
        os.replace(mtmp, directory / "manifest.json")
        previous, self._saved_file = self._saved_file, name
        now = time.time()
        for old in directory.glob("*graph-*"):
            with contextlib.suppress(OSError):
                if old.name == name:
                    continue
                if old.name == previous or now - old.stat().st_mtime > STALE_S:
                    old.unlink()

    @classmethod
    def load(cls, directory: Path, dim: int, params: HnswParams) -> tuple[HnswIndex, dict] | None:
        """The saved graph and its manifest, or None when absent, partial or of other settings."""
        try:
            body = json.loads((directory / "manifest.json").read_text())
            path = directory / str(body["file"])
            if (
                body.get("format") != FORMAT
                or body.get("dim") != dim
                or body.get("params") != params.graph()
                or path.stat().st_size != body.get("bytes")
                # same size, other bytes (a disk or copy fault): rebuild rather than trust it;
                # manifests written before checksums have none to compare
                or ("sha256" in body and file_digest(path) != body["sha256"])
            ):
                return None
            index = _usearch_index().restore(str(path))
            max_pk = int(body["max_pk"])
        except (OSError, ValueError, KeyError, TypeError, RuntimeError):
            return None
        if index is None or len(index) != body.get("count") or index.ndim != dim:
            return None
        index.expansion_search = params.ef_search
        loaded = cls(dim, params, index, max_pk=max_pk)
        loaded._saved_file = path.name
        return loaded, body


def file_digest(path: Path) -> str:
    """SHA-256 hex digest of a file, read in 1 MiB blocks (SHA-256 rather than BLAKE2b: CPUs
    with SHA extensions hash it about twice as fast, measured 75 vs 35 MB/s on a loaded box)."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def sidecar_dir(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".hnsw")
