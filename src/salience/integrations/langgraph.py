"""`SalienceStore`: a LangGraph `BaseStore` backed by one Salience mind.

    from langgraph.graph import StateGraph
    from salience import Mind
    from salience.integrations.langgraph import SalienceStore

    store = SalienceStore(Mind.open("assistant"), index={"fields": ["content"]})
    graph = builder.compile(store=store)     # nodes get it as `store` / `runtime.store`

How LangGraph's model maps onto the mind (docs/integrations.md):

- The store is one mind; a namespace is a folder path inside it (`("memories", user_id)`).
  For isolation between users, give each user a mind and a store of their own.
- An item is one memory, `pinned` (maintenance never prunes it; it lives until deleted or its
  TTL expires). Its value is kept as JSON in the memory's metadata; its text — the `index`
  fields (`["$"]`, the whole value as JSON, by default) joined by new lines — is the memory's
  content, embedded by the mind's embedder (`index["embed"]` and `index["dims"]` are not used:
  a mind's vectors come from the embedder it is pinned to) and full-text indexed.
  `index=False` on a put keeps the item out of query ranking (it is still listed).
- `search(query=...)` is the mind's hybrid search (full text + vectors, the mind's ranking
  preset) restricted to the namespace prefix; `score` is the hybrid score (higher is better).
  Without a query, items come newest-updated first. `filter` matches values exactly or with
  `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, like LangGraph's own stores.
- The mind's other paths see the items: `mind.search`, the prompt context, the knowledge graph
  (names and facts in the text are extracted unless `graph=False`).
- TTL (minutes, `ttl_config` as in LangGraph): an expired item is never returned and is
  deleted by `sweep_ttl()` (or the sweeper thread `start_ttl_sweeper()` runs).

Requires the `langgraph` extra (`pip install 'salience[langgraph]'`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from ..errors import MissingExtra
from ..mind import Mind
from ..models import (
    Memory,
    MemoryFilter,
    Source,
    content_hash,
    new_id,
    validate_memory,
)

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        IndexConfig,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        TTLConfig,
        get_text_at_path,
        tokenize_path,
    )
    from langgraph.store.base import validate_op_namespace as _validate_op
except ImportError as e:  # pragma: no cover - depends on the installed extras
    raise MissingExtra("langgraph", "langgraph") from e

TAG = "langgraph"  # every row of the store
META = "langgraph"  # metadata key: {"namespace", "key", "value", "indexed", "ttl", "expires_at"}
_PAGE = 1000
_KEY_SEP = "\x1f"  # namespace labels and the key, apart (a label may equal a key)


# -- pure helpers ---------------------------------------------------------------------------------
def _digest(parts: Sequence[str]) -> str:
    return hashlib.sha256(json.dumps(list(parts), ensure_ascii=False).encode()).hexdigest()[:40]


def prefix_tag(prefix: Sequence[str]) -> str:
    """The tag every item under namespace `prefix` carries (case-sensitive via the digest)."""
    return f"lgn:{_digest(prefix)}" if prefix else TAG


def item_tag(namespace: Sequence[str], key: str) -> str:
    """The tag of the one item at (`namespace`, `key`)."""
    return "lgk:" + _digest([*namespace, _KEY_SEP, key])


def item_tags(namespace: Sequence[str], key: str) -> list[str]:
    return [TAG, item_tag(namespace, key)] + [
        prefix_tag(namespace[:i]) for i in range(1, len(namespace) + 1)
    ]


def index_text(value: Mapping[str, Any], paths: Sequence[str]) -> str:
    """The text of `value` at the index `paths` (LangGraph's path syntax), one per line."""
    texts: list[str] = []
    for p in paths:
        for t in get_text_at_path(value, p if p == "$" else tokenize_path(p)):
            if t and t.strip() and t not in texts:
                texts.append(t)
    return "\n".join(texts)


_ORDER = {
    "$gt": lambda a, b: a > b,
    "$gte": lambda a, b: a >= b,
    "$lt": lambda a, b: a < b,
    "$lte": lambda a, b: a <= b,
}


def _compare(op: str, actual: Any, expected: Any) -> bool:
    if op == "$eq":
        return bool(actual == expected)
    if op == "$ne":
        return bool(actual != expected)
    if op not in _ORDER:
        raise ValueError(f"unsupported filter operator {op!r}")
    try:
        return bool(_ORDER[op](float(actual), float(expected)))
    except (TypeError, ValueError):
        return False


def matches(value: Any, flt: Any) -> bool:
    """Whether `value` satisfies the LangGraph filter `flt` (exact values, nested objects,
    lists compared element-wise, operators `$eq $ne $gt $gte $lt $lte`)."""
    if isinstance(flt, Mapping):
        if any(str(k).startswith("$") for k in flt):
            return all(_compare(op, value, v) for op, v in flt.items())
        if not isinstance(value, Mapping):
            return False
        return all(matches(value.get(k), v) for k, v in flt.items())
    if isinstance(flt, list | tuple):
        return (
            isinstance(value, list | tuple)
            and len(value) == len(flt)
            and all(matches(a, b) for a, b in zip(value, flt, strict=True))
        )
    return bool(value == flt)


def namespace_matches(ns: tuple[str, ...], cond: MatchCondition) -> bool:
    """LangGraph's prefix/suffix match with `*` wildcards."""
    path = tuple(cond.path)
    if len(ns) < len(path):
        return False
    pairs = zip(ns, path, strict=False) if cond.match_type == "prefix" else zip(
        reversed(ns), reversed(path), strict=False
    )
    return all(p == "*" or a == p for a, p in pairs)


# -- the store ------------------------------------------------------------------------------------
class SalienceStore(BaseStore):
    """A LangGraph store on `mind` (see the module docstring for the mapping)."""

    supports_ttl = True

    def __init__(
        self,
        mind: Mind,
        *,
        index: IndexConfig | Mapping[str, Any] | None = None,
        ttl: TTLConfig | None = None,
        graph: bool = True,
        source: Source | str = Source.AGENT_INFERRED,
        salience: float = 5.0,
    ) -> None:
        self.mind = mind
        self.index_config = dict(index) if index is not None else None
        self.fields: list[str] = list((self.index_config or {}).get("fields") or ["$"])
        self.ttl_config = ttl
        self.graph = graph
        self.source = Source(source)
        self.salience = salience
        self._write_lock = threading.Lock()
        self._sweeper: threading.Thread | None = None
        self._stop = threading.Event()

    # -- BaseStore ------------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run `ops` in order; consecutive puts are embedded and written together."""
        ops = list(ops)
        results: list[Result] = [None] * len(ops)
        pending: list[PutOp] = []
        for i, op in enumerate(ops):
            _validate_op(op)
            if isinstance(op, PutOp):
                pending.append(op)
                continue
            if pending:
                self._apply_puts(pending)
                pending = []
            if isinstance(op, GetOp):
                results[i] = self._get(op)
            elif isinstance(op, SearchOp):
                results[i] = self._search(op)
            elif isinstance(op, ListNamespacesOp):
                results[i] = self._list_namespaces(op)
            else:
                raise ValueError(f"unknown operation type: {type(op).__name__}")
        if pending:
            self._apply_puts(pending)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """`batch` in a worker thread: the event loop never waits on the mind."""
        return await asyncio.to_thread(self.batch, list(ops))

    # -- reads ----------------------------------------------------------------------------------
    def _rows(self, flt: MemoryFilter) -> list[Memory]:
        out: list[Memory] = []
        while True:
            page = self.mind.store.list(flt, limit=_PAGE, offset=len(out), order="created_asc")
            out.extend(page)
            if len(page) < _PAGE:
                return [m for m in out if isinstance(m.metadata.get(META), dict)]

    def _live(self, rows: Iterable[Memory], now: datetime) -> list[Memory]:
        keep = []
        for m in rows:
            exp = m.metadata[META].get("expires_at")
            if exp is None or datetime.fromisoformat(exp) > now:
                keep.append(m)
        return keep

    def _current(self, namespace: Sequence[str], key: str) -> list[Memory]:
        """The rows of one item, newest first (more than one only after an interrupted put)."""
        rows = self._rows(MemoryFilter(tags=[item_tag(namespace, key)]))
        return sorted(rows, key=lambda m: m.id, reverse=True)

    @staticmethod
    def _item(m: Memory, score: float | None = None, *, search: bool = False) -> Item:
        meta = m.metadata[META]
        kw = dict(
            namespace=tuple(meta["namespace"]), key=meta["key"], value=meta["value"],
            created_at=m.created_at, updated_at=m.updated_at or m.created_at,
        )
        return SearchItem(**kw, score=score) if search else Item(**kw)  # type: ignore[arg-type]

    def _refresh(self, rows: Sequence[Memory], now: datetime) -> None:
        """Move the expiry of items with a TTL (read with `refresh_ttl`)."""
        changed = []
        for m in rows:
            meta = m.metadata[META]
            if meta.get("ttl") is None:
                continue
            new_meta = {**meta, "expires_at": (now + timedelta(minutes=meta["ttl"])).isoformat()}
            changed.append(m.copy(metadata={**m.metadata, META: new_meta}))
        if changed:
            self.mind.store.update(changed)

    def _get(self, op: GetOp) -> Item | None:
        now = self.mind.clock.now()
        rows = self._live(self._current(op.namespace, op.key)[:1], now)
        if not rows:
            return None
        if op.refresh_ttl:
            self._refresh(rows, now)
        return self._item(rows[0])

    def _search(self, op: SearchOp) -> list[SearchItem]:
        now = self.mind.clock.now()
        flt = MemoryFilter(tags=[prefix_tag(op.namespace_prefix)])
        want = op.offset + op.limit
        if op.query and op.query.strip():
            ranked = self._ranked(op, flt, want, now)
        else:
            rows = [m for m in self._live(self._rows(flt), now) if self._ok(m, op.filter)]
            rows.sort(key=lambda m: (m.updated_at or m.created_at, m.id), reverse=True)
            ranked = [(m, None) for m in rows]
        page = ranked[op.offset : want]
        if op.refresh_ttl:
            self._refresh([m for m, _ in page], now)
        return [self._item(m, s, search=True) for m, s in page]  # type: ignore[misc]

    @staticmethod
    def _ok(m: Memory, flt: Mapping[str, Any] | None) -> bool:
        return not flt or matches(m.metadata[META]["value"], flt)

    def _ranked(
        self, op: SearchOp, flt: MemoryFilter, want: int, now: datetime
    ) -> list[tuple[Memory, float | None]]:
        """Hybrid search under the prefix, widened until `want` items pass the filter; items
        stored with `index=False` follow, unscored, when there is room (as in LangGraph)."""
        from ..search.config import get_preset

        tag = prefix_tag(op.namespace_prefix)
        total = self.mind.store.count(flt)
        pool = max(50, want * (4 if op.filter else 2))
        while True:
            cfg = dataclasses.replace(
                get_preset(self.mind.config.search_preset), pool=pool, newer_wins=False,
                slot_first=False, entity_hops=0,
            )
            hits = self.mind.search(
                op.query or "", limit=min(pool, max(total, 1)), flt=flt, preset=cfg,
                distances={}, feedback=False,
            )
            # a catch-up phrase may route the search past the filter: keep the prefix's items
            mine = [h for h in hits if tag in h.memory.tags and h.memory.metadata.get(META)]
            alive = {m.id for m in self._live([h.memory for h in mine], now)}
            scored = [
                (h.memory, float(h.score)) for h in mine
                if h.memory.id in alive and h.memory.metadata[META].get("indexed", True)
                and self._ok(h.memory, op.filter)
            ]
            if len(scored) >= want or pool >= total:
                break
            pool *= 4
        if len(scored) < want:
            seen = {m.id for m, _ in scored}
            rest = [
                m for m in self._live(self._rows(flt), now)
                if m.id not in seen and not m.metadata[META].get("indexed", True)
                and self._ok(m, op.filter)
            ]
            scored += [(m, None) for m in rest]
        return scored

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        now = self.mind.clock.now()
        found = {tuple(m.metadata[META]["namespace"]) for m in self._live(self._rows(
            MemoryFilter(tags=[TAG])), now)}
        conds = op.match_conditions or ()
        names = [ns for ns in found if all(namespace_matches(ns, c) for c in conds)]
        if op.max_depth is not None:
            names = list({ns[: op.max_depth] for ns in names})
        return sorted(names)[op.offset : op.offset + op.limit]

    # -- writes ---------------------------------------------------------------------------------
    def _record(self, op: PutOp, now: datetime, created: datetime | None) -> tuple[Memory, bool]:
        value = dict(op.value or {})
        paths = self.fields if op.index is None else (op.index or [])
        text = index_text(value, paths)
        indexed = bool(text.strip()) and op.index is not False
        content = text if indexed else json.dumps(value, sort_keys=True, ensure_ascii=False)
        if not content.strip():
            content = "{}"
        meta: dict[str, Any] = {
            "namespace": list(op.namespace), "key": op.key, "value": value, "indexed": indexed,
        }
        if op.ttl is not None:
            meta["ttl"] = float(op.ttl)
            meta["expires_at"] = (now + timedelta(minutes=float(op.ttl))).isoformat()
        m = Memory(
            content=content, id=new_id(), tags=item_tags(op.namespace, op.key),
            source=self.source, salience=self.salience, pinned=True, metadata={META: meta},
            created_at=created or now, updated_at=now,
        )
        validate_memory(m, max_bytes=self.mind.config.max_content_bytes)
        # an item's identity is its namespace and key: equal texts are still two items
        m.content_hash = content_hash(json.dumps([list(op.namespace), op.key, content]))
        return m, indexed

    def _apply_puts(self, ops: Sequence[PutOp]) -> None:
        last: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for op in ops:
            last[(tuple(op.namespace), op.key)] = op
        with self._write_lock:  # one writer per store: a put's delete never races another put
            now = self.mind.clock.now()
            old_ids: list[str] = []
            indexed: list[Memory] = []
            plain: list[Memory] = []
            for (ns, key), op in last.items():
                old = self._current(ns, key)
                old_ids += [m.id for m in old]
                if op.value is None:
                    continue
                created = old[0].created_at if old else None
                rec, is_indexed = self._record(op, now, created)
                (indexed if is_indexed else plain).append(rec)
            if indexed:
                vectors = self.mind._embed_passages([m.content for m in indexed])
                self.mind.store.insert(indexed, vectors)
            if plain:
                self.mind.store.insert(plain)
            if old_ids:  # after the insert: an interrupted put leaves both, the newest wins
                self.mind.store.delete(old_ids)
            if indexed and self.graph:
                from ..graph.extract import prepare as graph_records

                graphs = graph_records(indexed)
                if graphs:
                    self.mind.store.write_graph(graphs, now=now)

    # -- TTL ------------------------------------------------------------------------------------
    def sweep_ttl(self) -> int:
        """Delete every expired item now; returns how many."""
        now = self.mind.clock.now()
        with self._write_lock:
            rows = self._rows(MemoryFilter(tags=[TAG]))
            live = {m.id for m in self._live(rows, now)}
            gone = [m.id for m in rows if m.id not in live]
            return self.mind.store.delete(gone) if gone else 0

    def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None) -> threading.Thread:
        """Sweep expired items every `sweep_interval_minutes` (default: `ttl_config`'s, else
        5) in a daemon thread until `stop_ttl_sweeper()`."""
        interval = sweep_interval_minutes or (self.ttl_config or {}).get(
            "sweep_interval_minutes"
        ) or 5
        if self._sweeper is not None and self._sweeper.is_alive():
            return self._sweeper
        self._stop.clear()

        def loop() -> None:
            while not self._stop.wait(float(interval) * 60):
                self.sweep_ttl()

        self._sweeper = threading.Thread(target=loop, name="salience-ttl-sweeper", daemon=True)
        self._sweeper.start()
        return self._sweeper

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper thread; True when it has ended."""
        self._stop.set()
        if self._sweeper is None:
            return True
        self._sweeper.join(timeout)
        return not self._sweeper.is_alive()

    def __repr__(self) -> str:
        return f"SalienceStore({self.mind!r}, fields={self.fields!r})"


__all__ = ["SalienceStore", "index_text", "item_tag", "matches", "namespace_matches", "prefix_tag"]
