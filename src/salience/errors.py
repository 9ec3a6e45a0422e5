"""Exception hierarchy. Every error Salience raises on purpose is a `SalienceError`."""

from __future__ import annotations

import re


class SalienceError(Exception):
    """Base class of every error Salience raises deliberately.

    `code` is a stable, machine-readable identifier (used by the HTTP API and MCP server).
    """

    code = "salience_error"


class InvalidInput(SalienceError, ValueError):
    """The caller passed something Salience cannot accept (empty content, bad enum, NaN...)."""

    code = "invalid_input"


class ContentTooLarge(InvalidInput):
    """Content exceeds the configured maximum size."""

    code = "content_too_large"


class InvalidMindName(InvalidInput):
    """A mind name that is not a plain identifier (path separators, '..', control chars)."""

    code = "invalid_mind_name"


class AmbiguousId(InvalidInput):
    """An id prefix matches more than one record; the message lists the matches."""

    code = "ambiguous_id"


class NotFound(SalienceError, KeyError):
    """A memory, mind, entity or other object does not exist."""

    code = "not_found"

    def __str__(self) -> str:  # KeyError quotes its message; we don't want that
        return str(self.args[0]) if self.args else self.code


class EmbeddingError(SalienceError):
    """An embedder failed or returned unusable vectors (wrong dimension, NaN, inf)."""

    code = "embedding_error"


class EmbedderMismatch(EmbeddingError):
    """A mind was built with a different embedding model or dimension than the one offered."""

    code = "embedder_mismatch"


class ProviderUnavailable(SalienceError):
    """An optional provider (model, server, extra) is not installed or not reachable."""

    code = "provider_unavailable"


class MissingExtra(ProviderUnavailable, ImportError):
    """An optional dependency is missing; the message names the extra to install."""

    code = "missing_extra"

    def __init__(self, package: str, extra: str) -> None:
        super().__init__(
            f"{package} is not installed; install it with: pip install 'salience[{extra}]'"
        )
        self.package = package
        self.extra = extra


class StoreError(SalienceError):
    """The storage backend failed (I/O, corruption, connection, schema)."""

    code = "store_error"


class ReadOnlyMind(StoreError):
    """A write was refused because the mind's storage is read-only (a file or directory without
    write permission, read-only media, a read-only PostgreSQL transaction or standby)."""

    code = "read_only_mind"


class SchemaVersionError(StoreError):
    """The database was written by a newer Salience than this one."""

    code = "schema_version"


class LLMError(SalienceError):
    """An LLM call failed after retries, or returned output that could not be repaired."""

    code = "llm_error"


class ConflictError(SalienceError):
    """The operation conflicts with existing state (e.g. a second identity row)."""

    code = "conflict"


def require_extra(module: str, extra: str) -> None:
    """Raise `MissingExtra` unless `module` can be imported."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise MissingExtra(module, extra)


_ABS_PATH = re.compile(r"(?<![\w.~:/])/(?:[^\s:'\"()/]+/)+([^\s:'\"()/]*)")


def public_message(error: BaseException) -> str:
    """The error's message for a remote client: absolute paths reduced to their last part
    (`/srv/data/minds/m.db: database is locked` → `m.db: database is locked`), so a server
    never tells callers where it keeps its files."""
    return _ABS_PATH.sub(lambda m: m.group(1) or "…", str(error))
