"""A mem0-compatible `Memory` on a Salience mind: switching is one import.

    # from mem0 import Memory
    from salience.compat.mem0 import Memory

    m = Memory()                                   # the mind "mem0" in the data directory
    m.add([{"role": "user", "content": "I moved to Lisbon."}], user_id="alice")
    m.search("where does alice live?", filters={"user_id": "alice"})   # or user_id="alice"
    m.get_all(filters={"user_id": "alice"})

Result shapes are mem0's (`{"results": [{"id", "memory", "hash", "metadata", "score",
"created_at", "updated_at", "user_id", ...}]}`, `{"message": ...}`). What differs
(docs/integrations.md):

- `add(infer=True)` is Salience's agent path (`remember_turn`, triaged now): each user message
  with the assistant reply after it is one turn, spoken by the message's `name`, else the
  `user_id` (the memory reads "Alice: I moved to Lisbon."), so one user's statements never
  supersede another's; small talk is not kept; a statement that
  replaces an older one supersedes it (reported as event `UPDATE` with `previous_memory`; the
  old memory leaves search and `get_all` but stays in `history`). No LLM call is needed (the
  mind's configured LLM, else its offline heuristics). `infer=False` saves each message as is.
- Scores are Salience's hybrid scores, not cosine similarities: `threshold` applies to them
  and is off unless given.
- `update` edits the memory in place (same id); `history` lists ADD, each UPDATE and the
  supersession that replaced it.
- `reset()` deletes every memory of the mind.
- ids are Salience ids (32 hex characters), not UUIDs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..config import Config
from ..errors import NotFound
from ..mind import Mind
from ..models import Memory as Record
from ..models import MemoryFilter

SCOPES = ("user_id", "agent_id", "run_id")
HISTORY_KEY = "mem0_history"
_PAGE = 1000


def scope_tag(key: str, value: str) -> str:
    """The tag that scopes a memory to a user, agent or run (`user:alice`)."""
    return f"{key.removesuffix('_id')}:{value}"


def speaker_label(user_id: str | None) -> str | None:
    """A speaker label for `user_id` that the claim engine reads as a person ("alice" →
    "Alice", "8f3a…" → "U8f3a…"), or None (then "User") when none can be made (pure)."""
    if not user_id:
        return None
    from ..llm.heuristic.discourse import speaker_of

    word = "".join(ch for ch in str(user_id) if ch.isalnum() or ch in "_-")[:24]
    if not word:
        return None
    label = (word if word[0].isalpha() else "U" + word)[:24]
    label = label[0].upper() + label[1:]
    is_person, key = speaker_of(label)
    return label if is_person and key not in (None, "user") else None


def _scope(kw: Mapping[str, Any], filters: Mapping[str, Any] | None) -> dict[str, str]:
    out = {k: str(v).strip() for k, v in (filters or {}).items() if k in SCOPES and v}
    out.update({k: str(v).strip() for k, v in kw.items() if k in SCOPES and v})
    return out


def _op(actual: Any, op: str, want: Any) -> bool:
    if op == "eq":
        return bool(actual == want)
    if op == "ne":
        return bool(actual != want)
    if op == "in":
        return actual in want
    if op == "nin":
        return actual not in want
    if op in ("contains", "icontains"):
        a, w = str(actual or ""), str(want)
        return w.lower() in a.lower() if op == "icontains" else w in a
    try:
        a, w = float(actual), float(want)
    except (TypeError, ValueError):
        return False
    return {"gt": a > w, "gte": a >= w, "lt": a < w, "lte": a <= w}[op]


def matches(meta: Mapping[str, Any], flt: Mapping[str, Any]) -> bool:
    """mem0's metadata filter: exact values, `"*"` (any value), operators `eq ne in nin gt gte
    lt lte contains icontains`, and `AND` / `OR` / `NOT` lists (pure)."""
    for key, want in flt.items():
        if key == "AND":
            ok = all(matches(meta, f) for f in want)
        elif key == "OR":
            ok = any(matches(meta, f) for f in want)
        elif key == "NOT":
            ok = not any(matches(meta, f) for f in want)
        elif want == "*":
            ok = key in meta
        elif isinstance(want, Mapping):
            ok = all(_op(meta.get(key), op, v) for op, v in want.items())
        else:
            ok = meta.get(key) == want
        if not ok:
            return False
    return True


class Memory:
    """mem0's `Memory` API on one Salience mind (see the module docstring)."""

    def __init__(self, mind: Mind | None = None, *, name: str = "mem0",
                 config: Config | None = None) -> None:
        self._owns = mind is None
        self.mind = mind if mind is not None else Mind.open(name, config=config)

    @classmethod
    def from_config(cls, config_dict: Mapping[str, Any] | None = None) -> Memory:
        """mem0's constructor from a dict: `{"mind": name, "home": dir}` are read; mem0's
        provider settings (llm, embedder, vector_store) do not apply and are ignored."""
        cfg = dict(config_dict or {})
        config = Config(home=Path(cfg["home"])) if cfg.get("home") else None
        return cls(name=str(cfg.get("mind", "mem0")), config=config)

    def close(self) -> None:
        if self._owns:
            self.mind.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- rendering ------------------------------------------------------------------------------
    @staticmethod
    def _out(m: Record, score: float | None = None) -> dict[str, Any]:
        meta = dict(m.metadata)
        meta.pop(HISTORY_KEY, None)
        scope = {k: meta.pop(k) for k in SCOPES if k in meta}
        out: dict[str, Any] = {
            "id": m.id,
            "memory": m.content,
            "hash": hashlib.md5(m.content.encode()).hexdigest(),
            "metadata": meta or None,
            "created_at": m.created_at.isoformat() if m.created_at else None,
            "updated_at": m.updated_at.isoformat() if m.updated_at else None,
            **scope,
        }
        if score is not None:
            out["score"] = score
        return out

    def _flt(self, scope: Mapping[str, str]) -> MemoryFilter:
        key = next((k for k in ("run_id", "agent_id", "user_id") if k in scope), None)
        return MemoryFilter(tags=[scope_tag(key, scope[key])] if key else None)

    @staticmethod
    def _keep(m: Record, scope: Mapping[str, str], flt: Mapping[str, Any] | None) -> bool:
        if any(m.metadata.get(k) != v for k, v in scope.items()):
            return False
        rest = {k: v for k, v in (flt or {}).items() if k not in SCOPES}
        return matches(m.metadata, rest) if rest else True

    # -- writes ---------------------------------------------------------------------------------
    def add(
        self, messages: str | Mapping[str, Any] | Sequence[Mapping[str, Any]], *,
        user_id: str | None = None, agent_id: str | None = None, run_id: str | None = None,
        metadata: Mapping[str, Any] | None = None, infer: bool = True, **_: Any,
    ) -> dict[str, Any]:
        """Remember `messages` (a string, one message or a list) for the given scope; returns
        `{"results": [{"id", "memory", "event"}, ...]}`. Raises `ValueError` without a scope."""
        scope = _scope({"user_id": user_id, "agent_id": agent_id, "run_id": run_id}, None)
        if not scope:
            raise ValueError("one of user_id, agent_id or run_id is required")
        if isinstance(messages, str):
            messages = [{"role": "user", "content": messages}]
        elif isinstance(messages, Mapping):
            messages = [messages]
        meta = {**dict(metadata or {}), **scope}
        tags = [scope_tag(k, v) for k, v in scope.items()]
        if not infer:
            return {"results": self._raw(messages, meta, tags)}
        # the user's id speaks: what alice says is about alice, never superseded by bob's words
        return {"results": self._infer(messages, meta, tags, speaker_label(user_id))}

    def _raw(self, messages: Sequence[Mapping[str, Any]], meta: dict[str, Any],
             tags: list[str]) -> list[dict[str, Any]]:
        out = []
        for msg in messages:
            if msg.get("role") == "system" or not str(msg.get("content") or "").strip():
                continue
            text = str(msg["content"])
            before = self.mind.find_duplicate(text)
            mid = self.mind.add(text, tags=tags, metadata={**meta, "role": msg.get("role")},
                                check_contradictions=False)
            out.append({"id": mid, "memory": text, "event": "NONE" if before else "ADD"})
        return out

    def _infer(self, messages: Sequence[Mapping[str, Any]], meta: dict[str, Any],
               tags: list[str], speaker: str | None) -> list[dict[str, Any]]:
        turns: list[tuple[str, str, str | None]] = []
        for msg in messages:
            role, text = msg.get("role"), str(msg.get("content") or "")
            if role == "assistant" and turns and not turns[-1][1]:
                turns[-1] = (turns[-1][0], text, turns[-1][2])
            elif role == "user" and text.strip():
                turns.append((text, "", msg.get("name") or speaker))
        out: list[dict[str, Any]] = []
        for user, reply, speaker in turns:
            res = self.mind.remember_turn(user, reply, speaker=speaker, defer=False, metadata=meta)
            for mid in res.saved:
                m = self.mind.update(mid, tags=[*self.mind.get(mid).tags, *tags])
                item: dict[str, Any] = {"id": mid, "memory": m.content, "event": "ADD"}
                if res.superseded:
                    old = self.mind.store.get_many(res.superseded)
                    item.update(event="UPDATE", previous_memory=old[0].content if old else None)
                out.append(item)
        return out

    def update(self, memory_id: str, text: str | None = None, metadata: Mapping[str, Any] |
               None = None, data: str | None = None, **_: Any) -> dict[str, str]:
        """Change a memory's text (and metadata) in place. Raises `ValueError` if missing."""
        old = self._must(memory_id)
        new_text = text if text is not None else data
        meta = dict(old.metadata)
        if metadata:
            meta.update({k: v for k, v in metadata.items() if k not in SCOPES})
        if new_text is not None and new_text != old.content:
            now = self.mind.clock.now().isoformat()
            log = [*meta.get(HISTORY_KEY, []), {"old": old.content, "new": new_text, "at": now}]
            meta[HISTORY_KEY] = log
            self.mind.update(memory_id, content=new_text, metadata=meta)
        else:
            self.mind.update(memory_id, metadata=meta)
        return {"message": "Memory updated successfully!"}

    def delete(self, memory_id: str) -> dict[str, str]:
        self._must(memory_id)
        self.mind.delete(memory_id)
        return {"message": "Memory deleted successfully!"}

    def delete_all(self, user_id: str | None = None, agent_id: str | None = None,
                   run_id: str | None = None) -> dict[str, str]:
        """Delete every memory of the scope (superseded ones too). Raises `ValueError`
        without a scope (`reset()` deletes everything)."""
        scope = _scope({"user_id": user_id, "agent_id": agent_id, "run_id": run_id}, None)
        if not scope:
            raise ValueError("At least one filter is required to delete all memories. "
                             "If you want to delete all memories, use the `reset()` method.")
        flt = self._flt(scope)
        flt.include_superseded = True
        ids = [m.id for m in self._rows(flt) if self._keep(m, scope, None)]
        if ids:
            self.mind.store.delete(ids)
        return {"message": "Memories deleted successfully!"}

    def reset(self) -> None:
        """Delete every memory of the mind."""
        ids = [m.id for m in self._rows(MemoryFilter(include_superseded=True))]
        if ids:
            self.mind.store.delete(ids)

    # -- reads ----------------------------------------------------------------------------------
    def _must(self, memory_id: str) -> Record:
        try:
            return self.mind.get(memory_id)
        except NotFound:
            raise ValueError(f"Memory with id {memory_id} not found") from None

    def _rows(self, flt: MemoryFilter) -> list[Record]:
        out: list[Record] = []
        while True:
            page = self.mind.list(flt, limit=_PAGE, offset=len(out), order="created_desc")
            out.extend(page)
            if len(page) < _PAGE:
                return out

    def get(self, memory_id: str) -> dict[str, Any] | None:
        m = self.mind.store.get(memory_id)
        return self._out(m) if m is not None else None

    def get_all(self, *, filters: Mapping[str, Any] | None = None, top_k: int = 20,
                limit: int | None = None, **kw: Any) -> dict[str, Any]:
        """Memories of a scope (`filters={"user_id": ...}` or `user_id=...`), newest first."""
        scope = _scope(kw, filters)
        n = limit or top_k
        rows = [m for m in self._rows(self._flt(scope)) if self._keep(m, scope, filters)]
        return {"results": [self._out(m) for m in rows[:n]]}

    def search(self, query: str, *, filters: Mapping[str, Any] | None = None, top_k: int = 20,
               limit: int | None = None, threshold: float | None = None,
               **kw: Any) -> dict[str, Any]:
        """Hybrid search within a scope; `{"results": [... with "score"]}`, best first."""
        scope = _scope(kw, filters)
        if not scope:
            raise ValueError("filters must contain at least one of: user_id, agent_id, run_id")
        n = limit or top_k
        hits = self.mind.search(query, limit=max(n * 3, 20), flt=self._flt(scope))
        out = [
            self._out(h.memory, h.score) for h in hits
            if self._keep(h.memory, scope, filters) and (threshold is None or h.score >= threshold)
        ]
        return {"results": out[:n]}

    def history(self, memory_id: str) -> list[dict[str, Any]]:
        """mem0's change log of a memory: ADD, each UPDATE, and the supersession that replaced
        it (event `UPDATE`, `new_memory` the replacing memory)."""
        m = self.mind.store.get(memory_id)
        if m is None:
            return []
        ts = m.created_at.isoformat() if m.created_at else None
        first = m.metadata.get(HISTORY_KEY, [{}])[0].get("old", m.content)
        events = [self._event(m.id, None, first, "ADD", ts)]
        for change in m.metadata.get(HISTORY_KEY, []):
            events.append(self._event(m.id, change["old"], change["new"], "UPDATE", change["at"]))
        if m.superseded_by:
            newer = self.mind.store.get(m.superseded_by)
            at = newer.created_at.isoformat() if newer and newer.created_at else None
            events.append(self._event(m.id, m.content, newer.content if newer else None,
                                      "UPDATE", at))
        return events

    @staticmethod
    def _event(mid: str, old: str | None, new: str | None, event: str,
               at: str | None) -> dict[str, Any]:
        return {"id": hashlib.md5(f"{mid}{event}{at}{new}".encode()).hexdigest(),
                "memory_id": mid, "old_memory": old, "new_memory": new, "event": event,
                "created_at": at, "updated_at": at, "is_deleted": False}


def read_export(text: str) -> list[dict[str, Any]]:
    """The memory records of a mem0 export: `get_all`'s `{"results": [...]}`, a
    `{"memories": [...]}` object, a JSON list, or JSON lines (pure). Raises `ValueError`."""
    import json

    text = text.strip()
    if not text:
        return []
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError:
        try:
            data = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError as e:
            raise ValueError(f"not a mem0 export (JSON or JSON lines): {e}") from None
    if isinstance(data, dict):
        data = data.get("results", data.get("memories", [data]))
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise ValueError("not a mem0 export: expected a list of memory objects")
    return data


def import_export(mind: Mind, path: str | Path) -> dict[str, int]:
    """Load a mem0 export into `mind` as mem0 `add(infer=False)` would have stored it: each
    record's text, scoped by its user/agent/run ids, its metadata and mem0 id kept, the time it
    was created as `occurred_at`. Idempotent: a record already imported is skipped. Returns
    counts `{"records", "imported", "already_imported", "invalid"}`."""
    from ..clock import parse_ts

    records = read_export(Path(path).read_text(encoding="utf-8"))
    items: list[dict[str, Any]] = []
    invalid = 0
    for r in records:
        text = r.get("memory") or r.get("text") or r.get("data")
        if not isinstance(text, str) or not text.strip():
            invalid += 1
            continue
        scope = {k: str(r[k]) for k in SCOPES if r.get(k)}
        meta = {**(r.get("metadata") or {}), **scope}
        if r.get("id"):
            meta["mem0_id"] = str(r["id"])
        try:
            when = parse_ts(r.get("created_at"))
        except (TypeError, ValueError):
            when = None
        items.append({"content": text, "tags": [scope_tag(k, v) for k, v in scope.items()],
                      "metadata": meta, "occurred_at": when, "source": "user_stated"})
    from ..models import content_hash

    before = mind.store.find_by_hashes([content_hash(i["content"]) for i in items])
    if items:
        mind.add_many(items)
    seen = sum(1 for i in items if content_hash(i["content"]) in before)
    return {"records": len(records), "imported": len(items) - seen, "already_imported": seen,
            "invalid": invalid}


__all__ = ["Memory", "import_export", "matches", "read_export", "scope_tag"]
