"""`IngestService`: the ingestion paths of one mind behind the methods the `Mind` facade exposes
(remember_turn, save_memory, archive_context, drain, queue status, retries, history, imports).

It is given the mind's one `Brain` (built with its `ai_interactions` recorder by
`salience.wiring.MindServices`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..clock import Clock
from ..config import Config
from ..errors import InvalidInput, NotFound
from ..models import Memory, MemoryType, Source, check_text, parse_enum
from . import queue as _queue
from .items import SKIPPED_EVENT, DrainReport, ImportReport, IngestItem, IngestResult
from .pipeline import Embed, Ingestor
from .source import Progress, run_import

if TYPE_CHECKING:
    from ..llm.brain import Brain
    from ..store.base import Store

IMPORT_KINDS = ("mbox", "ics", "chat")


class IngestService:
    """Ingestion of one mind, built once per mind by `salience.wiring.MindServices`."""

    def __init__(
        self, store: Store, *, config: Config, clock: Clock, embed: Embed, brain: Brain,
        batched_log: Callable[[], AbstractContextManager[object]] = nullcontext,
    ) -> None:
        """`brain` is the mind's one brain (`salience.wiring.MindServices.brain`), whose
        recorder logs every model call in `ai_interactions`; `batched_log` (the recorder's
        `batched`) writes a batch's rows together."""
        self.store = store
        self.config = config
        self.clock = clock
        self.brain = brain
        self._embed = embed
        self._batched_log = batched_log
        self._ingestor: Ingestor | None = None

    @property
    def ingestor(self) -> Ingestor:
        if self._ingestor is None:
            self._ingestor = Ingestor(
                self.store, brain=self.brain, embed=self._embed, config=self.config,
                clock=self.clock,
            )
            self._ingestor.batched_log = self._batched_log
        return self._ingestor

    # -- the four paths ---------------------------------------------------------------------------
    def remember_turn(
        self,
        user: str,
        assistant: str = "",
        *,
        speaker: str | None = None,
        tool_grounded: bool = False,
        defer: bool = True,
        session_id: str | None = None,
        occurred_at: datetime | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> int | IngestResult | None:
        """One conversation turn: what a person said (`user`, spoken by `speaker`, "User" by
        default) and the assistant's reply, which may be empty (a message with no reply yet,
        or a chat between people). Stored as "Speaker: text" plus "\nAssistant: reply".

        Deferred (default): queued for triage — no model call — and the queue id returned.
        Otherwise triaged now and the result returned. `metadata` is copied onto every memory
        the turn produces (its chunks, distilled facts), e.g. the id of the source message.

        Raises `InvalidInput`: empty `user`, a bad speaker name, NUL characters, ...
        """
        limit = self.config.max_content_bytes
        u = check_text(user, max_bytes=limit, what="user message").strip()
        a = check_text(assistant, max_bytes=limit, what="assistant message", allow_empty=True)
        label = _speaker(speaker)
        text = f"{label}: {u}" + (f"\nAssistant: {a.strip()}" if a.strip() else "")
        item = IngestItem(
            path="conversation", text=text, user_text=u,
            tool_grounded=bool(tool_grounded), occurred_at=occurred_at, session_id=session_id,
            metadata=dict(metadata or {}),
        )
        if defer:
            return _queue.enqueue(self.ingestor, [item])[0]
        return self.ingestor.triage_and_save(item)

    def save_memory(
        self,
        content: str,
        *,
        memory_type: MemoryType | str = MemoryType.GENERAL,
        salience: float = 5.0,
        tags: Sequence[str] = (),
        entities: Sequence[str] = (),
        source: Source | str = Source.USER_STATED,
        summary: str = "",
        confidence: float = 0.5,
        importance: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        session_id: str | None = None,
        occurred_at: datetime | None = None,
        pinned: bool = False,
    ) -> IngestResult:
        """Design A's `save_memory` tool: saved as given — no triage, quality or contradiction
        check (exact duplicates still return the existing id)."""
        if isinstance(tags, str) or isinstance(entities, str):
            raise InvalidInput("tags and entities must be lists of strings")
        fields: dict[str, Any] = {
            "memory_type": parse_enum(MemoryType, memory_type, "memory_type").value,
            "salience": salience, "entities": list(entities),
            "source": parse_enum(Source, source, "source").value, "summary": summary,
            "confidence": confidence, "pinned": pinned,
        }
        if importance is not None:
            fields["importance"] = importance
        item = IngestItem(
            path="save_memory", text=content if isinstance(content, str) else str(content),
            tags=list(tags), metadata=dict(metadata or {}), session_id=session_id,
            occurred_at=occurred_at, fields=fields,
        )
        result = self.ingestor.triage_and_save(item)
        assert result is not None
        return result

    def archive_context(
        self, messages: Sequence[str | Mapping[str, Any]], *, session_id: str | None = None
    ) -> IngestResult:
        """A context slide leaving the agent's window: the raw slide is kept at the fixed
        archive salience and its distilled facts (>= the fact threshold) are saved; if
        distillation fails, the slide is staged to pending_distillation."""
        lines = []
        for m in messages:
            if isinstance(m, str):
                lines.append(m)
            elif isinstance(m, Mapping):
                from .chat import content_text

                text = content_text(m.get("content"))
                if text.strip():
                    lines.append(f"{str(m.get('role') or 'message').capitalize()}: {text}")
            else:
                raise InvalidInput("messages must be strings or {'role', 'content'} mappings")
        text = check_text("\n".join(lines), max_bytes=self.config.max_content_bytes,
                          what="context slide")
        result = self.ingestor.triage_and_save(
            IngestItem(path="archive", text=text, session_id=session_id)
        )
        assert result is not None
        return result

    # -- queues ---------------------------------------------------------------------------------
    def drain(self, limit: int = 100) -> DrainReport:
        """Process due deferred triage and staged distillations (at most `limit` items)."""
        if limit <= 0:
            raise InvalidInput("limit must be positive")
        return _queue.drain(self.ingestor, limit=limit)

    def queue_status(self, *, failed_limit: int = 20) -> dict[str, Any]:
        """Queue sizes, the latest failed operations and the harvest sources."""
        counts = self.store.queue_counts()
        skips = self.store.events(SKIPPED_EVENT, limit=failed_limit)
        return {
            **counts,
            "recent_skips": [
                {"at": e.created_at.isoformat(), **e.payload} for e in skips
            ],
            "failed": [asdict(f) for f in self.store.failed_operations(limit=failed_limit)],
            "sources": [asdict(s) for s in self.store.harvest_sources()],
        }

    def retry_failed(self, ids: Sequence[int] | None = None) -> int:
        """Move failed operations (all, or `ids`) back to their queue with fresh attempts."""
        return self.store.retry_failed(ids, now=self.clock.now())

    # -- history ----------------------------------------------------------------------------------
    def history(self, memory_id: str) -> list[Memory]:
        """The supersession chain through `memory_id`, oldest first: every memory it replaced
        (transitively) and every memory that replaced it. Raises `NotFound`."""
        start = self.store.get(memory_id)
        if start is None:
            raise NotFound(f"memory {memory_id} not found in mind {self.store.mind!r}")
        chain: dict[str, Memory] = {start.id: start}
        todo = [start.id]
        while todo:  # predecessors, transitively
            for m in self.store.superseded_by_id(todo.pop()):
                if m.id not in chain:
                    chain[m.id] = m
                    todo.append(m.id)
        cur = start
        while cur.superseded_by and cur.superseded_by not in chain:  # successors
            nxt = self.store.get(cur.superseded_by)
            if nxt is None:
                break
            chain[nxt.id] = nxt
            cur = nxt


        def hops_to_newest(m: Memory) -> int:  # how many replacements followed it
            n, seen = 0, {m.id}
            while m.superseded_by in chain and m.superseded_by not in seen:
                m = chain[m.superseded_by]
                seen.add(m.id)
                n += 1
            return n

        # Order by the supersession links themselves (ids and timestamps can tie within a
        # millisecond), then by time.
        return sorted(
            chain.values(),
            key=lambda m: (-hops_to_newest(m), m.created_at or start.created_at, m.id),
        )

    # -- importers --------------------------------------------------------------------------------
    def import_file(
        self,
        kind: str,
        path: str | Path,
        *,
        defer: bool = False,
        progress: Progress | None = None,
    ) -> ImportReport:
        """Import an mbox, ICS or chat-JSONL file (see `salience.ingest.mbox/ics/chat`).

        Raises `InvalidInput` (unknown kind, unreadable file), `MissingExtra` (ICS without
        `icalendar`).
        """
        if kind not in IMPORT_KINDS:
            raise InvalidInput(f"unknown import kind {kind!r}; expected one of: mbox, ics, chat")
        p = Path(path).expanduser()
        if not p.is_file():
            raise InvalidInput(f"{p} is not a file")
        from .sniff import check_kind

        check_kind(kind, p)  # the wrong format (or an empty file) is an error, not 0 items
        source = f"{kind}:{p.resolve()}"
        if kind == "mbox":
            from .mbox import read_mbox

            records = read_mbox(p, source=source, max_body_bytes=self.config.import_max_body_bytes)
        elif kind == "ics":
            from .ics import read_ics

            records = read_ics(p, source=source)
        else:
            from .chat import read_chat

            records = read_chat(p, source=source)
        return run_import(self.ingestor, kind, source, records, defer=defer, progress=progress)


_SPEAKER_MAX = 100


def _speaker(name: str | None) -> str:
    """The speaker label of a turn ("User" when none is given). Raises `InvalidInput`."""
    if name is None:
        return "User"
    if not isinstance(name, str):
        raise InvalidInput("speaker must be a string")
    label = " ".join(name.split())
    if not label or len(label) > _SPEAKER_MAX or ":" in label or "\x00" in label:
        raise InvalidInput(
            f"speaker must be 1-{_SPEAKER_MAX} characters without ':' (got {name[:40]!r})"
        )
    if label.lower() == "assistant":
        raise InvalidInput("speaker 'Assistant' is reserved for the reply; pass it as `assistant`")
    return label


def count_items(kind: str, path: str | Path) -> int | None:
    """How many items an import file holds (for progress bars), if cheap to tell."""
    p = Path(path).expanduser()
    if not p.is_file():  # /dev/zero, a FIFO, a directory: never read for a count
        return None
    if kind == "mbox":
        from .mbox import count_mbox

        return count_mbox(p)
    if kind == "ics":
        from .ics import count_ics

        return count_ics(p)
    return None
