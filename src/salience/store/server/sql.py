"""Every SQL statement of the server database — API keys, the mind registry, tenants and
monthly embedding usage — for both backends. `{p}` is the table prefix (SQLite: none;
PostgreSQL: the `salience_server.` schema); `?` placeholders become `%s` on PostgreSQL.
Code elsewhere runs them by name (`ServerStore.run`)."""

from __future__ import annotations

from ..migrations import Migration

SCHEMA = "salience_server"  # PostgreSQL: the schema the server tables live in

PRAGMAS = (
    "PRAGMA journal_mode = WAL",
    "PRAGMA foreign_keys = ON",
    "PRAGMA synchronous = NORMAL",
)
BUSY_TIMEOUT = "PRAGMA busy_timeout = {ms:d}"
CREATE_SCHEMA = f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}"
#: PostgreSQL: every write transaction of the server database takes this advisory lock, the
#: equivalent of SQLite's BEGIN IMMEDIATE (so a quota check and its increment never interleave
#: between two servers)
WRITE_LOCK = "SELECT pg_advisory_xact_lock(hashtext('salience_server'))"

CREATE_MIGRATIONS = """
CREATE TABLE IF NOT EXISTS {p}_migrations (
    name TEXT PRIMARY KEY,
    applied_at TEXT NOT NULL
)"""
APPLIED_MIGRATIONS = "SELECT name FROM {p}_migrations ORDER BY name"
RECORD_MIGRATION = "INSERT INTO {p}_migrations (name, applied_at) VALUES (?, ?)"

MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        "0001_server",
        (
            """CREATE TABLE {p}tenants (
                name TEXT PRIMARY KEY,
                tier TEXT NOT NULL,
                monthly_quota INTEGER,  -- NULL: the tier's quota
                created_at TEXT NOT NULL
            )""",
            """CREATE TABLE {p}minds (
                name TEXT PRIMARY KEY,
                tenant TEXT REFERENCES {p}tenants(name),
                created_at TEXT NOT NULL
            )""",
            """CREATE TABLE {p}api_keys (
                key_id TEXT PRIMARY KEY,          -- public part of the key, shown in listings
                key_hash TEXT NOT NULL,           -- sha256 hex of the whole key; never the key
                mind TEXT REFERENCES {p}minds(name), -- NULL: every mind of `tenant`
                tenant TEXT REFERENCES {p}tenants(name),
                scope TEXT NOT NULL CHECK (scope IN ('read', 'write')),
                label TEXT NOT NULL DEFAULT '',
                created_at TEXT NOT NULL,
                revoked_at TEXT,
                CHECK (mind IS NOT NULL OR tenant IS NOT NULL)
            )""",
            """CREATE TABLE {p}embedding_usage (
                tenant TEXT NOT NULL REFERENCES {p}tenants(name),
                year_month TEXT NOT NULL,         -- 'YYYY-MM' (UTC)
                count INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (tenant, year_month)
            )""",
        ),
    ),
)

# -- keys ------------------------------------------------------------------------------------
INSERT_KEY = """
INSERT INTO {p}api_keys (key_id, key_hash, mind, tenant, scope, label, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?)"""
GET_KEY = """
SELECT key_id, key_hash, mind, tenant, scope, label, created_at, revoked_at
FROM {p}api_keys WHERE key_id = ?"""
LIST_KEYS = """
SELECT key_id, key_hash, mind, tenant, scope, label, created_at, revoked_at
FROM {p}api_keys ORDER BY created_at, key_id"""
REVOKE_KEY = "UPDATE {p}api_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL"
DELETE_MIND_KEYS = "DELETE FROM {p}api_keys WHERE mind = ?"

# -- minds -----------------------------------------------------------------------------------
INSERT_MIND = "INSERT INTO {p}minds (name, tenant, created_at) VALUES (?, ?, ?)"
GET_MIND = "SELECT name, tenant, created_at FROM {p}minds WHERE name = ?"
LIST_MINDS = "SELECT name, tenant, created_at FROM {p}minds ORDER BY name"
LIST_TENANT_MINDS = "SELECT name, tenant, created_at FROM {p}minds WHERE tenant = ? ORDER BY name"
DELETE_MIND = "DELETE FROM {p}minds WHERE name = ?"

# -- tenants ---------------------------------------------------------------------------------
UPSERT_TENANT = """
INSERT INTO {p}tenants (name, tier, monthly_quota, created_at) VALUES (?, ?, ?, ?)
ON CONFLICT (name) DO UPDATE SET tier = excluded.tier, monthly_quota = excluded.monthly_quota"""
INSERT_TENANT_IF_ABSENT = """
INSERT INTO {p}tenants (name, tier, monthly_quota, created_at) VALUES (?, ?, NULL, ?)
ON CONFLICT (name) DO NOTHING"""
GET_TENANT = "SELECT name, tier, monthly_quota, created_at FROM {p}tenants WHERE name = ?"
LIST_TENANTS = "SELECT name, tier, monthly_quota, created_at FROM {p}tenants ORDER BY name"

# -- usage -----------------------------------------------------------------------------------
GET_USAGE = "SELECT count FROM {p}embedding_usage WHERE tenant = ? AND year_month = ?"
ADD_USAGE = """
INSERT INTO {p}embedding_usage AS u (tenant, year_month, count) VALUES (?, ?, ?)
ON CONFLICT (tenant, year_month) DO UPDATE SET count = u.count + excluded.count
RETURNING count"""
