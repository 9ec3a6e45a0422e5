"""The embedded default backend: one SQLite file per mind."""

from .store import SQLiteStore

__all__ = ["SQLiteStore"]
