"""Multi-tenant tiers and monthly embedding quotas (design B §10.2–10.3).

- A tier names the embedding providers its tenants may use. An explicitly configured provider
  outside the tier raises `TierError`; in `auto` mode disallowed providers are skipped.
- Each tenant has a monthly quota of embedded texts (the tier's, or a per-tenant override).
  Usage is counted per tenant and month in the server database: checked before each embedding
  call, recorded after it. At 80% a warning is logged (and the HTTP API adds a response
  header); past the quota `QuotaExceeded` carries the tier, quota and current count.
- Nothing here applies when no tenant is involved (local use, per-mind keys without a tenant).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import InvalidInput, ProviderUnavailable, SalienceError

if TYPE_CHECKING:
    from datetime import datetime

    import numpy as np

    from ..config import Config
    from ..embed.base import Embedder, EmbedderStatus

    class _Tenant(Protocol):
        tier: str
        monthly_quota: int | None

    class ServerDB(Protocol):
        """What quotas read and write of the server database (`interfaces.auth.ServerDB`);
        a protocol, so quotas and auth do not import each other."""

        def tenant(self, name: str) -> _Tenant: ...

        def usage(self, tenant: str, when: datetime | None = None) -> int: ...

        def add_usage(self, tenant: str, n: int, when: datetime | None = None) -> int: ...

        def reserve_usage(
            self, tenant: str, n: int, quota: int | None, when: datetime | None = None
        ) -> tuple[int, int] | None: ...

logger = logging.getLogger("salience.quota")

QUOTA_WARNING_FRACTION = 0.8


class TierError(SalienceError):
    """The tenant's tier does not allow the configured embedding provider."""

    code = "tier_forbidden"

    def __init__(self, message: str, *, tier: str, provider: str) -> None:
        super().__init__(message)
        self.tier = tier
        self.provider = provider

    @property
    def details(self) -> dict[str, Any]:
        return {"tier": self.tier, "provider": self.provider}


class QuotaExceeded(SalienceError):
    """The tenant's monthly embedding quota would be exceeded."""

    code = "quota_exceeded"

    def __init__(self, *, tenant: str, tier: str, quota: int, current: int, requested: int) -> None:
        super().__init__(
            f"monthly embedding quota exceeded for tenant {tenant!r} (tier {tier!r}): "
            f"{current:,} of {quota:,} texts used, {requested:,} more requested"
        )
        self.tier = tier
        self.quota = quota
        self.current = current
        self.requested = requested

    @property
    def details(self) -> dict[str, Any]:
        return {
            "tier": self.tier,
            "quota": self.quota,
            "current": self.current,
            "requested": self.requested,
        }


@dataclass(frozen=True, slots=True)
class Tier:
    """What a tier allows: embedding providers and a monthly quota (None: unlimited)."""

    name: str
    providers: frozenset[str]
    monthly_quota: int | None


_LOCAL = frozenset({"onnx", "e5", "minilm", "ollama", "hash"})
TIERS: Mapping[str, Tier] = MappingProxyType(
    {
        "free": Tier("free", _LOCAL, 10_000),
        "pro": Tier("pro", _LOCAL | {"openai"}, 1_000_000),
        "enterprise": Tier("enterprise", _LOCAL | {"openai"}, None),
    }
)
DEFAULT_TIER = "free"


def get_tier(name: str) -> Tier:
    """The tier called `name`. Raises `InvalidInput` listing the tiers."""
    tier = TIERS.get(name)
    if tier is None:
        raise InvalidInput(f"unknown tier {name!r}; expected one of: {', '.join(TIERS)}")
    return tier


def tier_embedder(config: Config, tier: Tier) -> Embedder:
    """The embedder `config` asks for, restricted to the providers `tier` allows.

    An explicitly named provider outside the tier raises `TierError`. For `auto`, the chain
    runs with disallowed providers skipped; the hash fallback is used only if the tier allows
    it (else `ProviderUnavailable`).
    """
    from ..embed import factory

    if config.embedder != "auto":
        if config.embedder not in tier.providers:
            raise TierError(
                f"embedding provider {config.embedder!r} is not allowed for tier {tier.name!r} "
                f"(allowed: {', '.join(sorted(tier.providers))})",
                tier=tier.name,
                provider=config.embedder,
            )
        return factory.make_embedder(config)
    if all(p in tier.providers for p in (*factory.PROVIDER_NAMES, "onnx")):
        return factory.make_embedder(config)
    return _restricted_auto(config, tier)


def _restricted_auto(config: Config, tier: Tier) -> Embedder:
    from ..embed import factory

    try:
        return factory.resolve_auto(
            config,
            allowed=lambda name: name in tier.providers,
            not_allowed_reason=f"not allowed for tier {tier.name!r}",
        )
    except ProviderUnavailable as e:
        raise ProviderUnavailable(
            f"no embedding provider allowed for tier {tier.name!r} is available ({e})"
        ) from None


class QuotaEmbedder:
    """Wraps a tenant's embedder: reserves the texts against the monthly quota before each
    call (atomically, in the server database) and gives them back if the call fails."""

    def __init__(self, inner: Embedder, db: ServerDB, tenant: str) -> None:
        self.inner = inner
        self.db = db
        self.tenant = tenant

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def dim(self) -> int:
        return self.inner.dim

    def status(self) -> EmbedderStatus:
        return self.inner.status()

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed memories, counting them against the tenant's quota."""
        return self._metered(self.inner.embed_passages, texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed queries, counting them against the tenant's quota."""
        return self._metered(self.inner.embed_queries, texts)

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if callable(close):
            close()

    def _metered(self, embed: Any, texts: Sequence[str]) -> np.ndarray:
        n = len(texts)
        self._reserve(n)
        try:
            return embed(texts)
        except BaseException:
            self.db.add_usage(self.tenant, -n)  # refund: nothing was embedded
            raise

    def _reserve(self, n: int) -> None:
        """Reserve `n` texts or raise `QuotaExceeded` (nothing reserved)."""
        tier, quota = tenant_quota(self.db, self.tenant)
        got = self.db.reserve_usage(self.tenant, n, quota)
        if got is None:
            raise QuotaExceeded(
                tenant=self.tenant, tier=tier.name, quota=quota or 0,
                current=self.db.usage(self.tenant), requested=n,
            )
        before, after = got
        if quota and before < QUOTA_WARNING_FRACTION * quota <= after:
            logger.warning(
                "tenant %r used %d of %d monthly embeddings (tier %r): over %d%%",
                self.tenant,
                after,
                quota,
                tier.name,
                int(QUOTA_WARNING_FRACTION * 100),
            )


def tenant_quota(db: ServerDB, tenant: str) -> tuple[Tier, int | None]:
    """The tenant's tier and effective monthly quota (None: unlimited)."""
    t = db.tenant(tenant)
    tier = get_tier(t.tier)
    return tier, t.monthly_quota if t.monthly_quota is not None else tier.monthly_quota


def check_quota(db: ServerDB, tenant: str, n: int) -> None:
    """Raise `QuotaExceeded` if embedding `n` more texts would pass the tenant's quota."""
    tier, quota = tenant_quota(db, tenant)
    if quota is None:
        return
    current = db.usage(tenant)
    if current + n > quota:
        raise QuotaExceeded(
            tenant=tenant, tier=tier.name, quota=quota, current=current, requested=n
        )


def quota_warning(db: ServerDB, tenant: str) -> str | None:
    """A short warning when the tenant has used at least 80% of its quota, else None."""
    tier, quota = tenant_quota(db, tenant)
    if not quota:
        return None
    current = db.usage(tenant)
    if current < QUOTA_WARNING_FRACTION * quota:
        return None
    return f"{current}/{quota} monthly embeddings used (tier {tier.name})"
