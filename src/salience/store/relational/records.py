"""Memory records and meta written once: meta keys, the pinned embedder, reads by id, hash and
filter, and deletes (see `store.base.Store`). Inserts, updates, vectors, full text and stats
stay per backend; two hooks: `_filter(flt)` (a `MemoryFilter` as the backend's SQL) and
`_rows_deleted(run, pks)` (cache upkeep after a delete)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import EmbedderMismatch, InvalidInput
from ...models import EmbeddingInfo, Memory, MemoryFilter
from ..base import EMBEDDING_DIM_KEY, EMBEDDING_MODEL_KEY, SCHEMA_VERSION_KEY
from .core import RelationalCore, Run

#: `Store.list` orders; ties broken by the row key
ORDERS = {
    "created_desc": "m.created_at DESC, m.pk DESC",
    "created_asc": "m.created_at ASC, m.pk ASC",
    "salience_desc": "m.salience DESC, m.pk DESC",
    "occurred_desc": "coalesce(m.occurred_at, m.created_at) DESC, m.pk DESC",
    "occurred_asc": "coalesce(m.occurred_at, m.created_at) ASC, m.pk ASC",
}


class RecordsCore(RelationalCore):
    """Meta and memory reads/deletes shared by the SQL backends."""

    # -- hooks ------------------------------------------------------------------------------
    def _filter(self, flt: MemoryFilter | None) -> tuple[Any, list[Any]]:
        """(" AND …" over alias `m`, params) of a filter, as the backend's `filters.py` makes."""
        raise NotImplementedError

    def _rows_deleted(self, run: Run, pks: list[int]) -> None:
        """Inside the delete's transaction: what a backend caches about the deleted rows."""
        raise NotImplementedError

    # -- meta -------------------------------------------------------------------------------
    def schema_version(self) -> int:
        v = self.get_meta(SCHEMA_VERSION_KEY)
        return int(v) if v else 0

    def get_meta(self, key: str) -> str | None:
        row = self._first("GET_META", (key,))
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self._write() as run:
            run("SET_META", (key, value))

    def embedding_info(self) -> EmbeddingInfo | None:
        model = self.get_meta(EMBEDDING_MODEL_KEY)
        dim = self.get_meta(EMBEDDING_DIM_KEY)
        if model is None or dim is None:
            return None
        return EmbeddingInfo(model=model, dim=int(dim))

    def _pinned(self, run: Run, info: EmbeddingInfo) -> EmbeddingInfo | None:
        """Inside a write: the embedder the mind pins (None if none yet). Raises
        `EmbedderMismatch` if it is not `info`."""
        row = run("GET_META", (EMBEDDING_MODEL_KEY,)).fetchone()
        if row is None:
            return None
        (dim,) = run("GET_META", (EMBEDDING_DIM_KEY,)).fetchone()
        pinned = EmbeddingInfo(model=row[0], dim=int(dim))
        if pinned != info:
            raise EmbedderMismatch(
                f"mind {self._mind!r} was built with embedder {pinned.model} "
                f"({pinned.dim} dims); refusing {info.model} ({info.dim} dims). "
                "Open it with the same embedder, or migrate it with `salience reembed`."
            )
        return pinned

    def _checked_vectors(
        self, vectors: np.ndarray | None, n: int, dim: int | None
    ) -> np.ndarray | None:
        """`vectors` as float32 (n, dim) with finite values, else `InvalidInput` /
        `EmbedderMismatch` (`dim`: the pinned dimension, None if none yet)."""
        if vectors is None:
            return None
        arr = np.asarray(vectors, dtype=np.float32)
        if arr.ndim != 2 or arr.shape[0] != n:
            raise InvalidInput(f"expected {n} vectors, got an array of shape {arr.shape}")
        if dim is None:
            raise EmbedderMismatch(
                f"mind {self._mind!r} has no pinned embedder yet; pin one before storing vectors"
            )
        if arr.shape[1] != dim:
            raise EmbedderMismatch(
                f"vectors have {arr.shape[1]} dimensions; mind {self._mind!r} pins {dim}"
            )
        if not np.isfinite(arr).all():
            raise InvalidInput("vectors contain NaN or infinite values")
        return arr

    # -- reads --------------------------------------------------------------------------------
    def get(self, id: str) -> Memory | None:
        row = self._first("GET_BY_ID", (id,))
        return self._memory(row) if row else None

    def get_many(self, ids: Sequence[str]) -> list[Memory]:
        found = {m.id: m for m in map(self._memory, self._all_in("GET_BY_IDS", ids))}
        return [found[i] for i in ids if i in found]

    def find_by_hash(self, content_hash: str) -> str | None:
        row = self._first("FIND_BY_HASH", (content_hash,))
        return row[0] if row else None

    def find_by_hashes(self, content_hashes: Sequence[str]) -> dict[str, str]:
        # rows come newest first within a chunk (a hash is in one chunk): the oldest id wins
        return dict(self._all_in("FIND_BY_HASHES", content_hashes))

    def list(
        self,
        flt: MemoryFilter | None = None,
        *,
        limit: int = 100,
        offset: int = 0,
        order: str = "created_desc",
    ) -> list[Memory]:
        if order not in ORDERS:
            raise InvalidInput(f"unknown order {order!r}; expected one of: {', '.join(ORDERS)}")
        if limit < 0 or offset < 0:
            raise InvalidInput("limit and offset must be non-negative")
        where, params = self._filter(flt)
        params = [*params, limit, offset]
        by = ORDERS[order].replace("m.salience", self._dialect.col("salience"))
        rows = self._all("LIST_MEMORIES", params, where=where, order=by)
        return [self._memory(r) for r in rows]

    def count(self, flt: MemoryFilter | None = None) -> int:
        where, params = self._filter(
            flt if flt is not None else MemoryFilter(include_superseded=True)
        )
        return int(self._first("COUNT_MATCHING", params, where=where)[0])

    # -- deletes ------------------------------------------------------------------------------
    def delete(self, ids: Sequence[str]) -> int:
        if not ids:
            return 0
        d = self._dialect
        with self._write() as run:
            removed: list[int] = []
            for chunk in d.chunks(ids):
                params = d.bind(chunk)
                run("DELETE_CLAIMS_OF", params, n=len(chunk))  # derived rows (relational/claims.py)
                removed.extend(int(r[0]) for r in run("DELETE_BY_IDS", params, n=len(chunk)))
                run("DELETE_RELATIONS_OF", params, n=len(chunk))
            if removed:
                self._rows_deleted(run, removed)
        return len(removed)
