"""API keys, the server's mind registry and tenants, stored in the server database
(`salience.store.server`: `<home>/server.db`, or the `salience_server` schema of PostgreSQL
shared by every server process over it).

A key is `sal_<key_id>_<secret>`: `key_id` (public, shown in listings) finds the row, and the
SHA-256 of the whole key is compared with `hmac.compare_digest`. Only the hash is stored; the
key is shown once, when it is created, and never logged.

Isolation: a key names either one mind (it reaches that mind only) or a tenant (it reaches the
minds registered to that tenant). Scope `write` includes `read`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..clock import Clock, SystemClock, format_ts
from ..errors import ConflictError, InvalidInput, NotFound, SalienceError
from ..store import check_mind_name
from ..store.server import SERVER_DB, ServerStore, SQLiteServerStore, Tx, open_server_store

if TYPE_CHECKING:
    from ..config import Config

Scope = Literal["read", "write"]
SCOPES: tuple[Scope, ...] = ("read", "write")
KEY_PREFIX = "sal_"


class Unauthorized(SalienceError):
    """No API key, or an unknown or revoked one."""

    code = "unauthorized"


class Forbidden(SalienceError):
    """The API key is valid but does not reach this mind, or lacks the needed scope."""

    code = "forbidden"


class MindQuotaExceeded(Forbidden):
    """The tenant already has as many minds as the server allows (`tenant_max_minds`)."""

    code = "mind_quota_exceeded"


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A stored API key (never the secret itself)."""

    key_id: str
    mind: str | None
    tenant: str | None
    scope: Scope
    label: str
    created_at: str
    revoked_at: str | None = None


@dataclass(frozen=True, slots=True)
class MindEntry:
    """A mind the server knows, and the tenant that owns it (None: no tenant)."""

    name: str
    tenant: str | None
    created_at: str


@dataclass(frozen=True, slots=True)
class Tenant:
    """A tenant: its tier and an optional per-tenant monthly embedding quota override."""

    name: str
    tier: str
    monthly_quota: int | None
    created_at: str


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: the key's reach and scope. `insecure` is the no-auth local mode."""

    key_id: str | None
    mind: str | None
    tenant: str | None
    scope: Scope
    insecure: bool = False

    def can(self, scope: Scope) -> bool:
        """True if this principal's scope includes `scope` (write includes read)."""
        return self.scope == "write" or scope == "read"


INSECURE_LOCAL = Principal(key_id=None, mind=None, tenant=None, scope="write", insecure=True)


def hash_key(key: str) -> str:
    """SHA-256 hex of a key (keys are 256-bit random, so a plain hash is enough)."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _check_scope(scope: str) -> Scope:
    if scope not in SCOPES:
        raise InvalidInput(f"unknown scope {scope!r}; expected 'read' or 'write'")
    return scope  # type: ignore[return-value]


def _check_tenant(name: str) -> str:
    try:
        return check_mind_name(name)
    except InvalidInput:
        raise InvalidInput(
            f"invalid tenant name {name!r}: use 1-64 letters, digits, '_', '-' or '.'"
        ) from None


class ServerDB:
    """The server database: keys, minds, tenants and embedding usage. Thread-safe; on
    PostgreSQL shared by every server process over the same database."""

    def __init__(self, store: ServerStore | str | Path, *, clock: Clock | None = None) -> None:
        """`store`: an open `ServerStore`, or the path of an SQLite server database."""
        self.store: ServerStore = (
            SQLiteServerStore(store) if isinstance(store, str | Path) else store
        )
        self.clock: Clock = clock or SystemClock()

    @classmethod
    def at_home(cls, home: Path, *, clock: Clock | None = None) -> ServerDB:
        """The SQLite server database of a data directory: `<home>/server.db`."""
        return cls(Path(home) / SERVER_DB, clock=clock)

    @classmethod
    def for_config(cls, config: Config, *, clock: Clock | None = None) -> ServerDB:
        """The server database `config` selects (`store.server.open_server_store`)."""
        return cls(open_server_store(config), clock=clock)

    @property
    def path(self) -> Path | None:
        """The SQLite file (None on PostgreSQL)."""
        return getattr(self.store, "path", None)

    def close(self) -> None:
        self.store.close()

    def _now(self) -> str:
        return format_ts(self.clock.now())

    # -- tenants -------------------------------------------------------------------------------
    def set_tenant(self, name: str, tier: str, monthly_quota: int | None = None) -> Tenant:
        """Create or change a tenant's tier (and optional quota override)."""
        from .quotas import get_tier

        get_tier(tier)
        if monthly_quota is not None and monthly_quota < 0:
            raise InvalidInput("monthly_quota must be >= 0")
        with self.store.tx() as tx:
            tx.run("UPSERT_TENANT", (_check_tenant(name), tier, monthly_quota, self._now()))
        return self.tenant(name)

    def _ensure_tenant(self, tx: Tx, name: str) -> None:
        from .quotas import DEFAULT_TIER

        tx.run("INSERT_TENANT_IF_ABSENT", (_check_tenant(name), DEFAULT_TIER, self._now()))

    def tenant(self, name: str) -> Tenant:
        """A tenant by name. Raises `NotFound`."""
        row = self.store.run("GET_TENANT", (name,)).one()
        if row is None:
            raise NotFound(f"tenant {name!r} not found")
        return Tenant(*row)

    def tenants(self) -> list[Tenant]:
        return [Tenant(*r) for r in self.store.run("LIST_TENANTS").rows]

    # -- minds ---------------------------------------------------------------------------------
    def register_mind(self, name: str, tenant: str | None = None) -> MindEntry:
        """Record that `name` belongs to `tenant` (None: no tenant). Idempotent for the same
        owner; raises `ConflictError` if another owner (or no-tenant) already holds the name."""
        check_mind_name(name)
        with self.store.tx() as tx:
            row = tx.run("GET_MIND", (name,)).one()
            if row is not None:
                if row[1] != tenant:
                    raise ConflictError(f"mind name {name!r} is already taken")
                return MindEntry(*row)
            if tenant is not None:
                self._ensure_tenant(tx, tenant)
            tx.run("INSERT_MIND", (name, tenant, self._now()))
        return self.mind(name)

    def create_mind(
        self,
        principal: Principal,
        name: str,
        *,
        exists: Callable[[str], bool],
        max_minds: int | None = None,
    ) -> MindEntry:
        """Register a new mind for `principal` (its tenant owns it).

        `exists(name)` asks the backend that would hold the mind whether it already does (a
        file on SQLite, a schema on PostgreSQL): an unregistered mind that exists belongs to
        whoever made it locally and cannot be claimed over the API.

        Raises `Forbidden` for a read-only key or a key bound to one mind, `ConflictError` when
        the name is registered to someone else or is an existing unregistered mind,
        `MindQuotaExceeded` when the tenant already holds `max_minds` minds.
        """
        check_mind_name(name)
        if not principal.can("write"):
            raise Forbidden("this API key is read-only; 'write' scope is needed")
        if not principal.insecure and principal.mind is not None:
            raise Forbidden("a key bound to one mind cannot create minds; use a tenant key")
        existing = self.find_mind(name)
        if existing is None and not principal.insecure and exists(name):
            raise ConflictError(f"mind name {name!r} is already taken")
        if existing is None and max_minds is not None and principal.tenant is not None:
            held = len(self.minds(principal.tenant))
            if held >= max_minds:
                raise MindQuotaExceeded(
                    f"tenant {principal.tenant!r} already has {held} minds (the limit is "
                    f"{max_minds}, config tenant_max_minds)"
                )
        return self.register_mind(name, principal.tenant)

    def unregister_mind(self, name: str) -> int:
        """Forget mind `name` (after it was dropped): its registry entry goes, so the name is
        free again, and so does every key bound to it (revoked or not), so no old key reaches
        a new mind of that name. Returns how many keys were deleted. Idempotent."""
        with self.store.tx() as tx:
            gone = tx.run("DELETE_MIND_KEYS", (name,)).rowcount
            tx.run("DELETE_MIND", (name,))
        return gone

    def mind(self, name: str) -> MindEntry:
        """A registered mind. Raises `NotFound`."""
        row = self.store.run("GET_MIND", (name,)).one()
        if row is None:
            raise NotFound(f"mind {name!r} is not registered on this server")
        return MindEntry(*row)

    def find_mind(self, name: str) -> MindEntry | None:
        row = self.store.run("GET_MIND", (name,)).one()
        return MindEntry(*row) if row is not None else None

    def minds(self, tenant: str | None = None) -> list[MindEntry]:
        """Registered minds: all of them, or those of one tenant."""
        res = (
            self.store.run("LIST_MINDS")
            if tenant is None
            else self.store.run("LIST_TENANT_MINDS", (tenant,))
        )
        return [MindEntry(*r) for r in res.rows]

    # -- keys ----------------------------------------------------------------------------------
    def create_key(
        self,
        *,
        scope: str,
        mind: str | None = None,
        tenant: str | None = None,
        label: str = "",
    ) -> tuple[str, ApiKey]:
        """Create a key for one mind or for a tenant; returns (the key, its record).

        The key is returned once and only its hash is stored. A mind named here is registered
        (to `tenant` when given). Raises `InvalidInput`, `ConflictError`.
        """
        scope = _check_scope(scope)
        if mind is None and tenant is None:
            raise InvalidInput("a key needs a mind, a tenant, or both")
        if tenant is not None:
            _check_tenant(tenant)
            with self.store.tx() as tx:
                self._ensure_tenant(tx, tenant)
        if mind is not None:
            self.register_mind(mind, tenant)
        key_id = secrets.token_hex(6)
        key = f"{KEY_PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
        with self.store.tx() as tx:
            tx.run("INSERT_KEY", (key_id, hash_key(key), mind, tenant, scope, label, self._now()))
        return key, self.key(key_id)

    def key(self, key_id: str) -> ApiKey:
        """A stored key by its public id. Raises `NotFound`."""
        row = self.store.run("GET_KEY", (key_id,)).one()
        if row is None:
            raise NotFound(f"API key {key_id!r} not found")
        return ApiKey(row[0], *row[2:])

    def keys(self) -> list[ApiKey]:
        return [ApiKey(r[0], *r[2:]) for r in self.store.run("LIST_KEYS").rows]

    def revoke_key(self, key_id: str) -> None:
        """Revoke a key. Raises `NotFound` if no active key has this id."""
        with self.store.tx() as tx:
            if tx.run("REVOKE_KEY", (self._now(), key_id)).rowcount == 0:
                raise NotFound(f"no active API key {key_id!r}")

    def authenticate(self, key: str | None) -> Principal:
        """The principal of a presented key. Raises `Unauthorized` (never says why in detail,
        and never echoes the key)."""
        if not key:
            raise Unauthorized("missing API key: send 'Authorization: Bearer <key>'")
        parts = key.split("_", 2)
        if len(parts) != 3 or f"{parts[0]}_" != KEY_PREFIX:
            raise Unauthorized("invalid API key")
        row = self.store.run("GET_KEY", (parts[1],)).one()
        # compare even when the id is unknown, so timing does not reveal which ids exist
        stored = row[1] if row is not None else "0" * 64
        if not hmac.compare_digest(stored, hash_key(key)) or row is None or row[7] is not None:
            raise Unauthorized("invalid API key")
        return Principal(key_id=row[0], mind=row[2], tenant=row[3], scope=row[4])

    def authorize(self, principal: Principal, mind: str, scope: Scope) -> MindEntry | None:
        """Check that `principal` may use `mind` with `scope`; returns the mind's registry entry
        (None for an unregistered mind in insecure-local mode). Raises `Forbidden`."""
        entry = self.find_mind(mind)
        if not principal.insecure:
            reach = (
                entry is not None
                and (principal.mind is None or principal.mind == mind)
                and (principal.tenant is None or principal.tenant == entry.tenant)
            )
            if not reach:
                raise Forbidden(f"this API key has no access to mind {mind!r}")
        if not principal.can(scope):
            raise Forbidden(f"this API key is read-only; {scope!r} scope is needed")
        return entry

    # -- usage ---------------------------------------------------------------------------------
    def usage(self, tenant: str, when: datetime | None = None) -> int:
        """Embedded texts counted for `tenant` in the month of `when` (default: now)."""
        row = self.store.run("GET_USAGE", (tenant, _month(when or self.clock.now()))).one()
        return int(row[0]) if row else 0

    def add_usage(self, tenant: str, n: int, when: datetime | None = None) -> int:
        """Add `n` embedded texts to this month's count; returns the new count."""
        with self.store.tx() as tx:
            row = tx.run("ADD_USAGE", (tenant, _month(when or self.clock.now()), n)).one()
        return int(row[0]) if row else 0


    def reserve_usage(
        self, tenant: str, n: int, quota: int | None, when: datetime | None = None
    ) -> tuple[int, int] | None:
        """Atomically add `n` to this month's count if it stays within `quota` (None:
        unlimited): one exclusive write transaction (SQLite `BEGIN IMMEDIATE`, PostgreSQL an
        advisory lock), so concurrent requests (threads, processes, servers) never both pass
        the check. Returns (count before, count after), or None
        (nothing recorded) when `n` more would exceed the quota."""
        month = _month(when or self.clock.now())
        with self.store.tx() as tx:
            row = tx.run("GET_USAGE", (tenant, month)).one()
            before = int(row[0]) if row else 0
            if quota is not None and before + n > quota:
                return None
            added = tx.run("ADD_USAGE", (tenant, month, n)).one()
            after = int(added[0]) if added else before + n
        return before, after


def _month(when: datetime) -> str:
    return f"{when.year:04d}-{when.month:02d}"
