"""The SQLite backend's migrations, in order."""

from __future__ import annotations

from ..migrations import Migration
from . import sql

MIGRATIONS: tuple[Migration, ...] = (
    Migration("0001_core", sql.MIGRATION_0001_CORE),
    Migration("0002_layers", sql.MIGRATION_0002_LAYERS),
    Migration("0003_ingest", sql.MIGRATION_INGEST),
    Migration("0004_maintenance", sql.MIGRATION_MAINTENANCE),
    Migration("0005_vector_changes", sql.MIGRATION_VECTOR_CHANGES),
    Migration("0006_graph_provenance", sql.MIGRATION_GRAPH_PROVENANCE),
    Migration("0007_mention_links", sql.MIGRATION_MENTION_LINKS),
    Migration("0008_agent_records", sql.MIGRATION_AGENT_RECORDS),
    Migration("0009_memory_claims", sql.MIGRATION_MEMORY_CLAIMS),
)
