"""Layer 0 — identity: who this mind is (design B §4), one row per mind.

**The agent's persona, written only by the developer** (SDK `mind.identity.create/update`,
the CLI, the HTTP API). Nothing Salience does on its own changes it: consolidation learns
about the *user* and writes the user profile (`layers.profile`), never this row — when it
wrote here, a persona created as "personal assistant, friendly, concise" became the user's
occupation and address (docs/architecture.md, "Identity: one source of truth").

**One source of truth.** The row is authoritative. After every change the layer calls its
`on_change` hook, which the `Mind` wires to `mirror_identity` — it keeps exactly one
identity-typed memory (salience 10, importance critical, source system, pinned, tag
`identity`) whose content is `render_identity(...)`, so recall can find the persona. Its id is
kept in the meta key `identity_memory_id`; the mirror is rewritten on every change and
recreated if deleted, and edits made directly to it are overwritten. Read the identity from
the row, never from the mirror.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from ..clock import Clock
from ..errors import InvalidInput, NotFound
from ..models.layers import IDENTITY_TEXT_FIELDS, Identity, check_json_object, check_plain_text
from ..models.tokens import fit_lines

if TYPE_CHECKING:
    from ..config import Config
    from ..models import Memory
    from ..store.base import Store

    class Mind(Protocol):
        """What `mirror_identity` uses of a mind (the `Mind` facade is one)."""

        @property
        def config(self) -> Config: ...

        @property
        def store(self) -> Store: ...

        def add(self, content: str, **fields: Any) -> str: ...

        def get(self, memory_id: str) -> Memory: ...

        def update(self, memory_id: str, **changes: Any) -> Memory: ...

IDENTITY_BUDGET_TOKENS = 500
IDENTITY_MEMORY_KEY = "identity_memory_id"
_MAX_FIELD_CHARS = 20_000
_LABELS = {
    "role": "Role",
    "department": "Department",
    "personality": "Personality",
    "capabilities": "Capabilities",
}


def check_identity(identity: Identity) -> Identity:
    """Validate the fields of an identity in place (name required, text fields, traits)."""
    for name in IDENTITY_TEXT_FIELDS:
        value = check_plain_text(getattr(identity, name), name, max_chars=_MAX_FIELD_CHARS)
        setattr(identity, name, value.strip())
    if not identity.name:
        raise InvalidInput("identity name is empty")
    identity.traits = check_json_object(identity.traits, "traits")
    return identity


def render_identity(identity: Identity, budget_tokens: int = IDENTITY_BUDGET_TOKENS) -> str:
    """The `# Identity` section: terse, fixed field order, within `budget_tokens`."""
    lines = ["# Identity", f"You are {identity.name}."]
    for key, label in _LABELS.items():
        value = getattr(identity, key)
        if value:
            lines.append(f"{label}: {' '.join(value.split())}")
    if identity.traits:
        traits = ", ".join(f"{k}={_fmt(v)}" for k, v in sorted(identity.traits.items()))
        lines.append(f"Traits: {traits}")
    if identity.system_prompt:
        lines.append(identity.system_prompt.strip())
    return fit_lines(lines, budget_tokens)


def _fmt(v: Any) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


class IdentityLayer:
    """create / get / exists / update / to_context over the single identity row."""

    def __init__(
        self,
        store: Store,
        clock: Clock,
        *,
        on_change: Callable[[Identity], None] | None = None,
    ) -> None:
        self._store = store
        self._clock = clock
        self._on_change = on_change

    def exists(self) -> bool:
        return self._store.get_identity() is not None

    def get(self) -> Identity | None:
        """The identity, or None when the mind has none yet."""
        return self._store.get_identity()

    def require(self) -> Identity:
        """The identity. Raises `NotFound` when there is none."""
        ident = self.get()
        if ident is None:
            raise NotFound(f"mind {self._store.mind!r} has no identity yet")
        return ident

    def create(self, name: str, **fields: Any) -> Identity:
        """Create the identity (only `name` is required). Raises `ConflictError` if one exists,
        `InvalidInput` for bad fields."""
        _check_names(fields)
        now = self._clock.now()
        ident = check_identity(Identity(name=name, created_at=now, updated_at=now, **fields))
        self._store.create_identity(ident)
        self._changed(ident)
        return ident

    def update(self, **changes: Any) -> Identity:
        """Change fields of the identity. Raises `NotFound` when there is none."""
        _check_names(changes)
        old = self.require()
        new = check_identity(replace(old, **changes, updated_at=self._clock.now()))
        self._store.update_identity(new)
        self._changed(new)
        return new

    def to_context(self, budget_tokens: int = IDENTITY_BUDGET_TOKENS) -> str:
        """The `# Identity` prompt section ("" when there is no identity)."""
        ident = self.get()
        return render_identity(ident, budget_tokens) if ident else ""

    def _changed(self, ident: Identity) -> None:
        if self._on_change is not None:
            self._on_change(ident)


def _check_names(fields: dict[str, Any]) -> None:
    allowed = set(IDENTITY_TEXT_FIELDS) - {"name"} | {"traits"}
    unknown = set(fields) - allowed
    if unknown:
        raise InvalidInput(f"unknown identity fields: {', '.join(sorted(unknown))}")


_MIRROR_FIELDS: dict[str, Any] = {
    "memory_type": "identity",
    "salience": 10.0,
    "importance": "critical",
    "source": "system",
    "pinned": True,
}


def mirror_identity(mind: Mind) -> Callable[[Identity], None]:
    """The `on_change` hook that keeps the one identity-typed memory in step with the row."""

    def mirror(ident: Identity) -> None:
        # fit one chunk: ≈ 4 characters per token, ≤ 2 UTF-8 bytes per character assumed
        budget = max(16, mind.config.chunk_bytes // 8)
        text = render_identity(ident, budget_tokens=budget).removeprefix("# Identity\n")
        mid = mind.store.get_meta(IDENTITY_MEMORY_KEY)
        current = mind.store.get(mid) if mid is not None else None
        if current is None:
            # content already stored verbatim returns the existing memory (deduplication)
            mid = mind.add(text, tags=["identity"], **_MIRROR_FIELDS)
            mind.store.set_meta(IDENTITY_MEMORY_KEY, mid)
            current = mind.get(mid)
        changes = {k: v for k, v in _MIRROR_FIELDS.items() if getattr(current, k) != v}
        if current.content != text:
            changes["content"] = text
        if changes:
            mind.update(current.id, **changes)

    return mirror
