"""Moving a whole mind: export to JSONL, restore from it, re-embed with another model.

The export is one JSON object per line. The first line is a header; then come the identity,
sessions, knowledge-graph entities and relations, awareness items, memories (in insertion
order, each with its embedding as base64 little-endian float32 when `embeddings=True`) and the
pending queue items. Restore is idempotent: records whose id already exists are skipped, so a
mind moves between SQLite and PostgreSQL (and back) without re-embedding, and an interrupted
restore is resumed by running it again.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

from .clock import ensure_utc
from .errors import ConflictError, InvalidInput, NotFound, SalienceError
from .models import EmbeddingInfo, Memory
from .protocols import MindView

if TYPE_CHECKING:
    import numpy as np

    from .embed.base import Embedder


class Mind(MindView, Protocol):
    """What export and restore use of a mind (the `Mind` facade is one)."""

    @property
    def embedder(self) -> Embedder: ...


FORMAT = "salience-export"
VERSION = 1
_BATCH = 256
_EMBED_SLICE = 8  # memories embedded per progress step (e5 on 2 cores: about a second)

Progress = Callable[[int], None]  # called with the number of memories just written/restored


@dataclass(slots=True)
class TransferSummary:
    """Counts per record kind; `skipped` counts records that already existed on restore."""

    counts: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    reembedded: int = 0
    notes: list[str] = field(default_factory=list)

    def add(self, kind: str, n: int = 1, *, skipped: bool = False) -> None:
        target = self.skipped if skipped else self.counts
        target[kind] = target.get(kind, 0) + n


# -- generic (de)serialisation of the record dataclasses -------------------------------------
def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def record_to_dict(record: Any) -> dict[str, Any]:
    """A JSON-ready dict of any Salience record dataclass."""
    return {f.name: _plain(getattr(record, f.name)) for f in dataclasses.fields(record)}


def record_from_dict(cls: type, data: dict[str, Any]) -> Any:
    """Inverse of `record_to_dict`: ISO strings become aware datetimes, values become enums."""
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = set(data) - names
    if unknown:
        raise InvalidInput(f"unknown {cls.__name__} fields: {', '.join(sorted(unknown))}")
    kw: dict[str, Any] = {}
    for key, value in data.items():
        hint = hints.get(key)
        args = typing.get_args(hint) or (hint,)
        if value is not None and datetime in args:
            value = ensure_utc(datetime.fromisoformat(value))
        else:
            enum = next((a for a in args if isinstance(a, type) and issubclass(a, StrEnum)), None)
            if enum is not None and value is not None:
                value = enum(value)
        kw[key] = value
    return cls(**kw)


def _vector_to_b64(vector: np.ndarray) -> str:
    import numpy as np

    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def _vector_from_b64(text: str, dim: int) -> np.ndarray:
    import numpy as np

    arr = np.frombuffer(base64.b64decode(text), dtype="<f4")
    if arr.shape[0] != dim:
        raise InvalidInput(f"embedding has {arr.shape[0]} dimensions; the header says {dim}")
    return arr


# -- export -----------------------------------------------------------------------------------
def iter_export(mind: Mind, *, embeddings: bool = True) -> Iterator[dict[str, Any]]:
    """The export as a stream of JSON-ready objects (header first)."""
    store = mind.store
    info = store.embedding_info()
    yield {
        "kind": "header",
        "format": FORMAT,
        "version": VERSION,
        "mind": mind.name,
        "backend": store.backend,
        "schema_version": store.schema_version(),
        "exported_at": mind.clock.now().isoformat(),
        "embedding": {"model": info.model, "dim": info.dim} if info and embeddings else None,
    }
    identity = store.get_identity()
    if identity is not None:
        yield {"kind": "identity", "record": record_to_dict(identity)}
    for session in store.list_sessions(limit=1_000_000):
        yield {"kind": "session", "record": record_to_dict(session)}
    entities = _all_entities(mind)
    for entity in entities:
        yield {"kind": "entity", "record": record_to_dict(entity)}
    if entities:
        seen: set[str] = set()
        ids = [e.id for e in entities]
        for start in range(0, len(ids), 500):
            for rel in store.relations_of(ids[start : start + 500]):
                if rel.id not in seen:
                    seen.add(rel.id)
                    yield {"kind": "relation", "record": record_to_dict(rel)}
    for item in store.list_awareness(now=mind.clock.now(), limit=1_000):
        yield {"kind": "awareness", "record": record_to_dict(item)}
    for memory, vector in store.iter_memories(batch_size=1000):
        out: dict[str, Any] = {"kind": "memory", "record": memory.to_dict()}
        if embeddings and vector is not None:
            out["embedding"] = _vector_to_b64(vector)
        yield out
    for queue in ("triage", "distillation"):
        for item in store.due_items(queue, now=None, limit=1_000_000):
            yield {
                "kind": "queue",
                "queue": queue,
                "record": {
                    "kind": item.kind,
                    "payload": item.payload,
                    "enqueued_at": item.enqueued_at.isoformat(),
                },
            }
    from .agent.transfer import iter_agent_records  # design B's agent records (issue 20)

    for kind, record in iter_agent_records(store):
        yield {"kind": kind, "record": record_to_dict(record)}


def count_export_memories(path: str | Path) -> int | None:
    """How many memory records an export file holds (a progress bar's total), counted from
    the lines' first bytes without parsing them; None if the file cannot be read."""
    marker = b'{"kind": "memory"'
    try:
        with Path(path).open("rb") as fh:
            return sum(1 for line in fh if line.startswith(marker))
    except OSError:
        return None


def _all_entities(mind: Mind) -> list[Any]:
    out: list[Any] = []
    offset = 0
    while True:
        page = mind.store.list_entities(limit=1000, offset=offset)
        out.extend(page)
        if len(page) < 1000:
            return out
        offset += 1000


def export_mind(
    mind: Mind,
    dest: str | Path | IO[str],
    *,
    embeddings: bool = True,
    progress: Progress | None = None,
) -> TransferSummary:
    """Write the whole mind as JSONL to `dest` (a path or a text stream).

    A path is written to a temporary sibling and renamed when complete, so an interrupted
    export never leaves a truncated file under the final name.
    """
    summary = TransferSummary()
    if isinstance(dest, str | Path):
        path = Path(dest)
        tmp = path.with_name(path.name + ".partial")
        with tmp.open("w", encoding="utf-8") as fh:
            _write(mind, fh, embeddings, summary, progress)
        tmp.replace(path)
    else:
        _write(mind, dest, embeddings, summary, progress)
    return summary


def _write(
    mind: Mind, fh: IO[str], embeddings: bool, summary: TransferSummary, progress: Progress | None
) -> None:
    for obj in iter_export(mind, embeddings=embeddings):
        fh.write(json.dumps(obj, ensure_ascii=False, allow_nan=False) + "\n")
        if obj["kind"] != "header":
            summary.add(obj["kind"])
            if progress is not None and obj["kind"] == "memory":  # progress counts memories
                progress(1)


# -- restore ----------------------------------------------------------------------------------
def read_export(src: str | Path | IO[str]) -> Iterator[dict[str, Any]]:
    """Parse and check an export stream; raises `InvalidInput` naming the bad line."""
    if isinstance(src, str | Path):
        with Path(src).open(encoding="utf-8") as fh:
            yield from _parse(fh)
    else:
        yield from _parse(src)


def _parse(fh: IO[str]) -> Iterator[dict[str, Any]]:
    for n, line in enumerate(fh, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise InvalidInput(f"line {n} of the export is not JSON: {e.msg}") from None
        except RecursionError:
            raise InvalidInput(f"line {n} of the export is nested too deeply") from None
        if not isinstance(obj, dict) or "kind" not in obj:
            raise InvalidInput(f"line {n} of the export is not a record")
        if n == 1 and (obj.get("kind") != "header" or obj.get("format") != FORMAT):
            raise InvalidInput("not a Salience export (the first line must be its header)")
        version = obj.get("version", 0) if obj.get("kind") == "header" else 0
        if not isinstance(version, int) or isinstance(version, bool):
            raise InvalidInput(f"line {n}: the export's version must be an integer")
        if version > VERSION:
            raise InvalidInput(f"export version {obj['version']} is newer than this Salience")
        yield obj


def restore_mind(
    mind: Mind,
    src: str | Path | IO[str] | Iterator[dict[str, Any]],
    *,
    progress: Progress | None = None,
) -> TransferSummary:
    """Load an export into `mind` (new or existing). Idempotent: existing ids are skipped.

    Embeddings are reused when the export's model equals the mind's embedder; otherwise the
    memories are re-embedded with the mind's embedder (counted in `reembedded`). Queue items
    are restored only into a mind whose queues are empty (they carry no stable id).
    """
    from .agent.transfer import KINDS as AGENT_KINDS
    from .agent.transfer import restore_agent_record
    from .models.graph import Entity, Relation
    from .models.layers import AwarenessItem, Identity, Session

    summary = TransferSummary()
    header: dict[str, Any] | None = None
    pending: list[tuple[Memory, str | None]] = []
    queues_empty = not any(mind.store.queue_counts().get(q, 0) for q in ("triage", "distillation"))
    reuse = False

    def flush() -> None:
        nonlocal pending
        if pending:
            _restore_memories(mind, pending, reuse, header, summary, progress)
            pending = []

    is_file = isinstance(src, str | Path) or hasattr(src, "read")
    records = read_export(src) if is_file else src  # type: ignore[arg-type]
    n, kind = 0, None
    try:
        for n, obj in enumerate(records, start=1):  # noqa: B007 - names a bad record
            kind = obj["kind"]
            if kind == "header":
                header = obj
                emb = obj.get("embedding")
                if emb:
                    exported = EmbeddingInfo(emb["model"], int(emb["dim"]))
                    current = EmbeddingInfo(mind.embedder.model, mind.embedder.dim)
                    reuse = exported == current
                continue
            rec = obj.get("record")
            if not isinstance(rec, dict):
                raise InvalidInput(f"a {kind!r} line of the export has no record")
            if kind == "memory":
                pending.append((Memory.from_dict(rec), obj.get("embedding")))
                if len(pending) >= _BATCH:
                    flush()
            elif kind == "identity":
                _restore_identity(mind, record_from_dict(Identity, rec), summary)
            elif kind == "session":
                _insert_once(
                    lambda r: mind.store.create_session(r),
                    record_from_dict(Session, rec),
                    "session",
                    summary,
                    exists=lambda r: mind.store.get_session(r.id),
                )
            elif kind == "entity":
                _insert_once(
                    lambda r: mind.store.insert_entity(r),
                    record_from_dict(Entity, rec),
                    "entity",
                    summary,
                    exists=lambda r: mind.store.get_entity(r.id),
                )
            elif kind == "relation":
                _insert_once(
                    lambda r: mind.store.insert_relation(r),
                    record_from_dict(Relation, rec),
                    "relation",
                    summary,
                    exists=lambda r: mind.store.get_relation(r.id),
                )
            elif kind == "awareness":
                item = record_from_dict(AwarenessItem, rec)
                if mind.store.get_awareness(item.id) is not None:
                    summary.add("awareness", skipped=True)
                else:
                    try:
                        mind.store.add_awareness(item, now=mind.clock.now(), cap=mind.awareness.cap)
                        summary.add("awareness")
                    except ConflictError as e:  # AwarenessFull: the target mind is already busy
                        summary.notes.append(f"awareness item {item.id} skipped: {e}")
            elif kind == "queue":
                if not queues_empty:
                    summary.add("queue", skipped=True)
                    continue
                from .store.ingest import QueueItem

                mind.store.enqueue(
                    obj.get("queue", "triage"),
                    [
                        QueueItem(
                            kind=rec["kind"],
                            payload=rec["payload"],
                            enqueued_at=ensure_utc(datetime.fromisoformat(rec["enqueued_at"])),
                        )
                    ],
                )
                summary.add("queue")
            elif kind in AGENT_KINDS:  # design B's agent records (issue 20)
                record = record_from_dict(AGENT_KINDS[kind], rec)
                summary.add(kind, skipped=not restore_agent_record(mind.store, kind, record))
            else:
                summary.notes.append(f"unknown record kind {kind!r} ignored")
        kind = "memory"
        flush()
    except SalienceError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError, OverflowError) as e:
        # a hand-edited or truncated export: one typed error naming the record, no traceback
        raise InvalidInput(
            f"record {n} ({str(kind)[:20]!r}) of the export is malformed: "
            f"{type(e).__name__}: {str(e)[:200]}"
        ) from None
    if header is None:
        raise InvalidInput("the export is empty (no header line)")
    return summary


def _insert_once(
    insert: Callable[[Any], None],
    record: Any,
    kind: str,
    summary: TransferSummary,
    *,
    exists: Callable[[Any], Any],
) -> None:
    if exists(record) is not None:
        summary.add(kind, skipped=True)
        return
    try:
        insert(record)
        summary.add(kind)
    except ConflictError:
        summary.add(kind, skipped=True)
    except NotFound as e:  # e.g. a relation whose endpoint was not exported
        summary.notes.append(f"{kind} {getattr(record, 'id', '?')} skipped: {e}")


def _restore_identity(mind: Mind, identity: Any, summary: TransferSummary) -> None:
    if mind.store.get_identity() is None:
        mind.store.create_identity(identity)
        summary.add("identity")
    else:
        summary.add("identity", skipped=True)


def _restore_memories(
    mind: Mind,
    batch: list[tuple[Memory, str | None]],
    reuse: bool,
    header: dict[str, Any] | None,
    summary: TransferSummary,
    progress: Progress | None = None,
) -> None:
    """Insert the memories of `batch` that `mind` lacks; `progress` advances per memory, as the
    embedder gets through each slice of `_EMBED_SLICE` (a bar that moves while it works)."""
    import numpy as np

    def advance(n: int) -> None:
        if progress is not None and n:
            progress(n)

    existing = {m.id for m in mind.store.get_many([m.id for m, _ in batch])}
    fresh = [(m, e) for m, e in batch if m.id not in existing]
    summary.add("memory", len(batch) - len(fresh), skipped=True)
    advance(len(batch) - len(fresh))
    if not fresh:
        return
    memories = [m for m, _ in fresh]
    emb = mind.embedder
    mind.store.pin_embedding(EmbeddingInfo(emb.model, emb.dim))
    dim = emb.dim
    if reuse and header is not None and all(e is not None for _, e in fresh):
        vectors = np.stack([_vector_from_b64(e, dim) for _, e in fresh])  # type: ignore[arg-type]
        reused = len(memories)
    else:
        parts = []
        for start in range(0, len(memories), _EMBED_SLICE):
            part = memories[start : start + _EMBED_SLICE]
            parts.append(emb.embed_passages([m.content for m in part]))
            advance(len(part))
        vectors = np.concatenate(parts)
        summary.reembedded += len(memories)
        reused = 0
    mind.store.insert(memories, vectors)
    advance(reused)
    summary.add("memory", len(memories))


def reembed_mind(
    source: Mind, target: Mind, *, progress: Progress | None = None
) -> TransferSummary:
    """Copy `source` into `target` (built with another embedder), re-embedding every memory.

    The source is left untouched. Resumable: running it again skips what `target` already
    holds, so only the remaining memories are embedded.
    """
    if source.name == target.name and source.store.backend == target.store.backend:
        raise InvalidInput("re-embed into a different mind (the source stays as it is)")
    return restore_mind(target, iter_export(source, embeddings=False), progress=progress)
