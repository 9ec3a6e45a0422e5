"""Layer 1 — awareness: the mind's working memory (design B §5).

At most `cap` (default 10) *active* items — not expired at the clock's now. The cap is a hard
limit enforced by the store on write, inside one serialised transaction: adding an item when
`cap` are active raises `AwarenessFull` (a `ConflictError`) naming the cap. We chose a clear
error over silently evicting the lowest-priority item: working memory holds what the agent is
doing right now, and dropping an item behind its back loses work; the agent removes, completes
(`complete` → status "done" and removed) or lets items expire instead. Expired items do not
count and are never returned; `purge_expired` deletes them.

Every read filters `expires_at > now` with `now` from the injected clock (never SQL `now()`).
Items come back by priority (higher first), then age, then id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..clock import Clock, ensure_utc
from ..errors import InvalidInput, NotFound
from ..models import parse_enum
from ..models.layers import AwarenessCategory, AwarenessItem, check_json_object, check_plain_text
from ..models.tokens import fit_lines

if TYPE_CHECKING:
    from ..store.base import Store

MAX_ITEMS = 10
_MAX_CHARS = 2_000
HEADINGS: dict[AwarenessCategory, str] = {
    AwarenessCategory.TASK: "Active Tasks",
    AwarenessCategory.ACTION: "Recent Actions",
    AwarenessCategory.PENDING: "Pending Items",
    AwarenessCategory.FLAG: "Context Flags",
}


def render_awareness(items: Sequence[AwarenessItem], budget_tokens: int) -> str:
    """Items grouped by category (fixed category order, items in the given order), one line
    each with its status when set; "" when there are none."""
    lines: list[str] = []
    for cat, heading in HEADINGS.items():
        group = [i for i in items if i.category is cat]
        if not group:
            continue
        lines.append(f"## {heading}")
        for i in group:
            status = f" [{i.status}]" if i.status else ""
            lines.append(f"- {' '.join(i.content.split())}{status}")
    return fit_lines(lines, budget_tokens) if lines else ""


def same_item(active: Sequence[AwarenessItem], item: AwarenessItem) -> AwarenessItem | None:
    """The active item `item` repeats (same category, same text up to whitespace), if any."""
    text = " ".join(item.content.split())
    for a in active:
        if a.category is item.category and " ".join(a.content.split()) == text:
            return a
    return None


class AwarenessLayer:
    """add / get_all / get_by_category / get_by_status / update / remove / to_context."""

    def __init__(self, store: Store, clock: Clock, *, cap: int = MAX_ITEMS) -> None:
        if cap <= 0:
            raise InvalidInput("the awareness cap must be positive")
        self._store = store
        self._clock = clock
        self.cap = cap

    def add(
        self,
        content: str,
        *,
        category: AwarenessCategory | str = AwarenessCategory.TASK,
        priority: int = 0,
        metadata: Mapping[str, Any] | None = None,
        status: str | None = None,
        expires_at: datetime | None = None,
        ttl: timedelta | None = None,
    ) -> AwarenessItem:
        """Add an active item. `status` is stored as `metadata["status"]`; `ttl` sets
        `expires_at = now + ttl`. Raises `AwarenessFull` when `cap` items are active,
        `InvalidInput` for bad values.

        Idempotent: when an active item of the same category has the same text (whitespace
        aside), that item is updated instead — new priority, metadata merged, the new expiry
        if one is given — and returned, so an agent that declares its items at every start
        does not fill its working memory with copies."""
        now = self._clock.now()
        meta = check_json_object(dict(metadata or {}), "metadata")
        if status is not None:
            meta["status"] = check_plain_text(status, "status", max_chars=100)
        if ttl is not None:
            if expires_at is not None:
                raise InvalidInput("give expires_at or ttl, not both")
            expires_at = now + ttl
        item = AwarenessItem(
            content=check_plain_text(content, "content", max_chars=_MAX_CHARS, allow_empty=False),
            category=parse_enum(AwarenessCategory, category, "awareness category"),
            priority=_check_priority(priority),
            metadata=meta,
            created_at=now,
            updated_at=now,
            expires_at=_check_expiry(expires_at, now),
        )
        twin = same_item(self.get_all(), item)
        if twin is not None:
            new = replace(
                twin,
                priority=item.priority,
                metadata={**twin.metadata, **item.metadata},
                updated_at=now,
                expires_at=item.expires_at or twin.expires_at,
            )
            self._store.update_awareness(new)
            return new
        self._store.add_awareness(item, now=now, cap=self.cap)
        return item

    def get(self, item_id: str) -> AwarenessItem:
        """An active item by id. Raises `NotFound` (also for expired items)."""
        item = self._store.get_awareness(item_id)
        if item is None or not item.active_at(self._clock.now()):
            raise NotFound(f"awareness item {item_id} not found (or expired)")
        return item

    def get_all(self) -> list[AwarenessItem]:
        """Active items, highest priority first (at most `cap`)."""
        return self._store.list_awareness(now=self._clock.now(), limit=self.cap)

    def resolve_id(self, id_or_prefix: str) -> str:
        """The id of the one active item whose id is, or starts with, `id_or_prefix`
        (case-insensitive) — what the CLI, HTTP and MCP accept wherever they take an item id.
        Raises `NotFound`, `AmbiguousId` (listing the matches)."""
        from ..models import pick_id

        text = id_or_prefix.strip().lower()
        found = [i.id for i in self.get_all() if i.id.startswith(text)]
        return pick_id(id_or_prefix, found, what="active awareness item")

    def get_by_category(self, category: AwarenessCategory | str) -> list[AwarenessItem]:
        cat = parse_enum(AwarenessCategory, category, "awareness category")
        return self._store.list_awareness(now=self._clock.now(), category=cat, limit=self.cap)

    def get_by_status(self, status: str) -> list[AwarenessItem]:
        """Active items whose `metadata["status"]` equals `status` (in-memory filter: the
        layer never holds more than `cap` items)."""
        return [i for i in self.get_all() if i.status == status]

    def update(self, item_id: str, **changes: Any) -> AwarenessItem:
        """Change content, category, priority, metadata, status or expires_at of an item."""
        allowed = {"content", "category", "priority", "metadata", "status", "expires_at"}
        unknown = set(changes) - allowed
        if unknown:
            raise InvalidInput(f"cannot update awareness fields: {', '.join(sorted(unknown))}")
        item = self.get(item_id)
        now = self._clock.now()
        meta = dict(item.metadata)
        if "metadata" in changes:
            meta = check_json_object(dict(changes["metadata"] or {}), "metadata")
        if "status" in changes:
            meta["status"] = check_plain_text(changes["status"], "status", max_chars=100)
        new = replace(
            item,
            content=check_plain_text(
                changes.get("content", item.content),
                "content",
                max_chars=_MAX_CHARS,
                allow_empty=False,
            ),
            category=parse_enum(
                AwarenessCategory, changes.get("category", item.category), "awareness category"
            ),
            priority=_check_priority(changes.get("priority", item.priority)),
            metadata=meta,
            updated_at=now,
            expires_at=_check_expiry(changes["expires_at"], now)
            if "expires_at" in changes
            else item.expires_at,
        )
        self._store.update_awareness(new)
        return new

    def remove(self, item_id: str) -> None:
        """Delete an item. Raises `NotFound`."""
        if not self._store.delete_awareness(item_id):
            raise NotFound(f"awareness item {item_id} not found")

    def complete(self, item_id: str) -> AwarenessItem:
        """Mark an item done and remove it from working memory; returns the final item."""
        item = self.get(item_id)
        item.metadata["status"] = "done"
        self.remove(item_id)
        return item

    def purge_expired(self) -> int:
        """Delete expired items; returns how many."""
        return self._store.purge_awareness(self._clock.now())

    def to_context(self, budget_tokens: int = 300) -> str:
        """Active items grouped by category (design B's self-awareness block)."""
        return render_awareness(self.get_all(), budget_tokens)


def _check_priority(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"priority must be an integer, got {value!r}")
    if not -1_000_000 <= value <= 1_000_000:
        raise InvalidInput("priority must be within ±1,000,000")
    return value


def _check_expiry(expires_at: datetime | None, now: datetime) -> datetime | None:
    if expires_at is None:
        return None
    if not isinstance(expires_at, datetime):
        raise InvalidInput("expires_at must be a datetime")
    expires_at = ensure_utc(expires_at)
    if expires_at <= now:
        raise InvalidInput("expires_at must be in the future")
    return expires_at
