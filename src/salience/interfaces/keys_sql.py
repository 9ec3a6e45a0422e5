"""Every SQL statement of the server database (`<home>/server.db`): API keys, the mind
registry, tenants and monthly embedding usage. Code elsewhere runs them by name."""

from __future__ import annotations

PRAGMAS = (
    "PRAGMA journal_mode = WAL",
    "PRAGMA foreign_keys = ON",
    "PRAGMA synchronous = NORMAL",
)
BUSY_TIMEOUT = "PRAGMA busy_timeout = {ms:d}"

CREATE_MIGRATIONS = """
CREATE TABLE IF NOT EXISTS _migrations (
    name TEXT PRIMARY KEY,
    applied_at TEXT NOT NULL
)"""
APPLIED_MIGRATIONS = "SELECT name FROM _migrations ORDER BY rowid"
RECORD_MIGRATION = "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)"

MIGRATION_0001_SERVER = (
    """CREATE TABLE tenants (
        name TEXT PRIMARY KEY,
        tier TEXT NOT NULL,
        monthly_quota INTEGER,  -- NULL: the tier's quota
        created_at TEXT NOT NULL
    )""",
    """CREATE TABLE minds (
        name TEXT PRIMARY KEY,
        tenant TEXT REFERENCES tenants(name),
        created_at TEXT NOT NULL
    )""",
    """CREATE TABLE api_keys (
        key_id TEXT PRIMARY KEY,          -- public part of the key, shown in listings
        key_hash TEXT NOT NULL,           -- sha256 hex of the whole key; the key is never stored
        mind TEXT REFERENCES minds(name), -- NULL: every mind of `tenant`
        tenant TEXT REFERENCES tenants(name),
        scope TEXT NOT NULL CHECK (scope IN ('read', 'write')),
        label TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL,
        revoked_at TEXT,
        CHECK (mind IS NOT NULL OR tenant IS NOT NULL)
    )""",
    """CREATE TABLE embedding_usage (
        tenant TEXT NOT NULL REFERENCES tenants(name),
        year_month TEXT NOT NULL,         -- 'YYYY-MM' (UTC)
        count INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (tenant, year_month)
    )""",
)
MIGRATIONS: tuple[tuple[str, tuple[str, ...]], ...] = (("0001_server", MIGRATION_0001_SERVER),)

# -- keys ------------------------------------------------------------------------------------
INSERT_KEY = """
INSERT INTO api_keys (key_id, key_hash, mind, tenant, scope, label, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?)"""
GET_KEY = """
SELECT key_id, key_hash, mind, tenant, scope, label, created_at, revoked_at
FROM api_keys WHERE key_id = ?"""
LIST_KEYS = """
SELECT key_id, key_hash, mind, tenant, scope, label, created_at, revoked_at
FROM api_keys ORDER BY created_at, key_id"""
REVOKE_KEY = "UPDATE api_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL"
DELETE_MIND_KEYS = "DELETE FROM api_keys WHERE mind = ?"

# -- minds -----------------------------------------------------------------------------------
INSERT_MIND = "INSERT INTO minds (name, tenant, created_at) VALUES (?, ?, ?)"
GET_MIND = "SELECT name, tenant, created_at FROM minds WHERE name = ?"
LIST_MINDS = "SELECT name, tenant, created_at FROM minds ORDER BY name"
LIST_TENANT_MINDS = "SELECT name, tenant, created_at FROM minds WHERE tenant = ? ORDER BY name"
DELETE_MIND = "DELETE FROM minds WHERE name = ?"

# -- tenants ---------------------------------------------------------------------------------
UPSERT_TENANT = """
INSERT INTO tenants (name, tier, monthly_quota, created_at) VALUES (?, ?, ?, ?)
ON CONFLICT (name) DO UPDATE SET tier = excluded.tier, monthly_quota = excluded.monthly_quota"""
INSERT_TENANT_IF_ABSENT = """
INSERT INTO tenants (name, tier, monthly_quota, created_at) VALUES (?, ?, NULL, ?)
ON CONFLICT (name) DO NOTHING"""
GET_TENANT = "SELECT name, tier, monthly_quota, created_at FROM tenants WHERE name = ?"
LIST_TENANTS = "SELECT name, tier, monthly_quota, created_at FROM tenants ORDER BY name"

# -- usage -----------------------------------------------------------------------------------
GET_USAGE = "SELECT count FROM embedding_usage WHERE tenant = ? AND year_month = ?"
ADD_USAGE = """
INSERT INTO embedding_usage (tenant, year_month, count) VALUES (?, ?, ?)
ON CONFLICT (tenant, year_month) DO UPDATE SET count = count + excluded.count
RETURNING count"""
