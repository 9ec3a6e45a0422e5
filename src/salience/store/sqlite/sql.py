"""Every SQL statement of the SQLite backend, by name. Code elsewhere runs them by name."""

from __future__ import annotations

from ...models import FrameType, Importance, MemoryType, Source
from ..relational.columns import MEMORY_FIELDS
from ..relational.dialect import SQLITE
from ..relational.statements import statements


def _in(values: type) -> str:
    return ", ".join(f"'{v.value}'" for v in values)  # enum values are fixed identifiers


PRAGMAS = (
    "PRAGMA journal_mode = WAL",
    "PRAGMA foreign_keys = ON",
    "PRAGMA synchronous = NORMAL",
    "PRAGMA temp_store = MEMORY",
)
BUSY_TIMEOUT = "PRAGMA busy_timeout = {ms:d}"
DATA_VERSION = "PRAGMA data_version"
INTEGRITY_CHECK = "PRAGMA integrity_check"
PAGE_COUNT = "PRAGMA page_count"
PAGE_SIZE = "PRAGMA page_size"

BEGIN_WRITE = "BEGIN IMMEDIATE"
BEGIN_READ = "BEGIN"
COMMIT = "COMMIT"
ROLLBACK = "ROLLBACK"

# -- migrations ----------------------------------------------------------------------------
CREATE_MIGRATIONS = """
CREATE TABLE IF NOT EXISTS _migrations (
    name TEXT PRIMARY KEY,
    applied_at TEXT NOT NULL
)"""
APPLIED_MIGRATIONS = "SELECT name FROM _migrations ORDER BY rowid"
RECORD_MIGRATION = "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)"

MIGRATION_0001_CORE = (
    """CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    )""",
    f"""CREATE TABLE memories (
        pk INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        content TEXT NOT NULL,
        summary TEXT NOT NULL DEFAULT '',
        memory_type TEXT NOT NULL CHECK (memory_type IN ({_in(MemoryType)})),
        importance TEXT NOT NULL CHECK (importance IN ({_in(Importance)})),
        source TEXT NOT NULL CHECK (source IN ({_in(Source)})),
        salience REAL NOT NULL CHECK (salience BETWEEN 1 AND 10),
        confidence REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
        usefulness REAL NOT NULL CHECK (usefulness BETWEEN 0 AND 1),
        retrieval_count INTEGER NOT NULL DEFAULT 0 CHECK (retrieval_count >= 0),
        last_retrieved_at TEXT,
        tags TEXT NOT NULL DEFAULT '[]',
        entities TEXT NOT NULL DEFAULT '[]',
        superseded_by TEXT,
        related_ids TEXT NOT NULL DEFAULT '[]',
        parent_id TEXT,
        chunk_index INTEGER NOT NULL DEFAULT 0,
        session_id TEXT,
        t INTEGER,
        frame_type TEXT NOT NULL DEFAULT 'I' CHECK (frame_type IN ({_in(FrameType)})),
        base_frame_id TEXT,
        pinned INTEGER NOT NULL DEFAULT 0,
        occurred_at TEXT,
        metadata TEXT NOT NULL DEFAULT '{{}}',
        content_hash TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
    "CREATE INDEX memories_hash ON memories (content_hash)",
    "CREATE INDEX memories_created ON memories (created_at)",
    "CREATE INDEX memories_occurred ON memories (occurred_at)",
    "CREATE INDEX memories_session ON memories (session_id, t)",
    "CREATE INDEX memories_type ON memories (memory_type)",
    "CREATE INDEX memories_superseded ON memories (superseded_by) WHERE superseded_by IS NOT NULL",
    """CREATE TABLE memory_vectors (
        pk INTEGER PRIMARY KEY REFERENCES memories (pk) ON DELETE CASCADE,
        embedding BLOB NOT NULL
    )""",
    """CREATE TABLE memory_tags (
        pk INTEGER NOT NULL REFERENCES memories (pk) ON DELETE CASCADE,
        tag TEXT NOT NULL,
        PRIMARY KEY (tag, pk)
    ) WITHOUT ROWID""",
    "CREATE INDEX memory_tags_pk ON memory_tags (pk)",
    """CREATE TABLE memory_entities (
        pk INTEGER NOT NULL REFERENCES memories (pk) ON DELETE CASCADE,
        entity TEXT NOT NULL,
        PRIMARY KEY (entity, pk)
    ) WITHOUT ROWID""",
    "CREATE INDEX memory_entities_pk ON memory_entities (pk)",
    """CREATE VIRTUAL TABLE memories_fts USING fts5 (
        content, summary, entities,
        content = 'memories', content_rowid = 'pk',
        tokenize = 'porter unicode61 remove_diacritics 2'
    )""",
    """CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
        INSERT INTO memories_fts (rowid, content, summary, entities)
        VALUES (new.pk, new.content, new.summary, new.entities);
    END""",
    """CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, content, summary, entities)
        VALUES ('delete', old.pk, old.content, old.summary, old.entities);
    END""",
    """CREATE TRIGGER memories_fts_update AFTER UPDATE OF content, summary, entities ON memories
    BEGIN
        INSERT INTO memories_fts (memories_fts, rowid, content, summary, entities)
        VALUES ('delete', old.pk, old.content, old.summary, old.entities);
        INSERT INTO memories_fts (rowid, content, summary, entities)
        VALUES (new.pk, new.content, new.summary, new.entities);
    END""",
)

# -- the statements both backends share (relational/statements.py), by name ------------------
#: an entity's aliases as a JSON array (the one part of the entity columns that differs)
_ALIASES = (
    "(SELECT json_group_array(alias) FROM "
    "(SELECT alias FROM kg_aliases a WHERE a.entity_id = e.id ORDER BY alias_key))"
)
SHARED = statements(SQLITE, aliases=_ALIASES)
globals().update(SHARED)

# -- memories ----------------------------------------------------------------------------------
MEMORY_COLUMNS = MEMORY_FIELDS
_COLS = ", ".join(MEMORY_FIELDS)
INSERT_MEMORY = f"INSERT INTO memories ({_COLS}) VALUES ({', '.join('?' for _ in MEMORY_FIELDS)})"
UPDATE_MEMORY = (
    "UPDATE memories SET "
    + ", ".join(f"{c} = ?" for c in MEMORY_FIELDS if c != "id")
    + " WHERE id = ?"
)
# One retrieval per listed memory (Store.record_retrievals): counters and the dampened salience
# boost from the stored value. Sets no text column, so the FTS trigger does not fire.
# Parameters: now, boost, ceiling, ceiling, *ids.
RECORD_RETRIEVALS = (
    "UPDATE memories SET retrieval_count = retrieval_count + 1, last_retrieved_at = ?, "
    "salience = min(salience + ? * (1.0 - salience / ?), ?) WHERE id IN ({marks})"
)
ITER_MEMORIES = SHARED["SELECT_MEMORY"] + " WHERE m.pk > ? ORDER BY m.pk LIMIT ?"
COUNT_MEMORIES = "SELECT count(*) FROM memories"

INSERT_TAG = "INSERT OR IGNORE INTO memory_tags (pk, tag) VALUES (?, ?)"
INSERT_ENTITY = "INSERT OR IGNORE INTO memory_entities (pk, entity) VALUES (?, ?)"
DELETE_TAGS = "DELETE FROM memory_tags WHERE pk = ?"
DELETE_ENTITIES = "DELETE FROM memory_entities WHERE pk = ?"

# -- vectors -----------------------------------------------------------------------------------
UPSERT_VECTOR = (
    "INSERT INTO memory_vectors (pk, embedding) VALUES (?, ?) "
    "ON CONFLICT (pk) DO UPDATE SET embedding = excluded.embedding"
)
VECTORS_AFTER = "SELECT pk, embedding FROM memory_vectors WHERE pk > ? ORDER BY pk"
VECTORS_BY_IDS = (
    "SELECT m.id, v.embedding FROM memory_vectors v JOIN memories m ON m.pk = v.pk "
    "WHERE m.id IN ({marks})"
)
VECTOR_BY_PK = "SELECT embedding FROM memory_vectors WHERE pk = ?"
VECTORS_BY_PKS = "SELECT pk, embedding FROM memory_vectors WHERE pk IN ({marks})"
VECTOR_COUNT = "SELECT count(*) FROM memory_vectors"

# The vector change log: every replaced or deleted vector (and an insert below the highest pk)
# leaves its pk here, so a cached index in any process catches up by replaying the
# pks after the last sequence number it saw instead of reloading every vector.
MIGRATION_VECTOR_CHANGES = (
    """CREATE TABLE vector_changes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        pk INTEGER NOT NULL
    )""",
    "CREATE INDEX vector_changes_pk ON vector_changes (pk)",
    """CREATE TRIGGER vector_changes_delete AFTER DELETE ON memory_vectors BEGIN
        INSERT INTO vector_changes (pk) VALUES (old.pk);
    END""",
    """CREATE TRIGGER vector_changes_update AFTER UPDATE ON memory_vectors BEGIN
        INSERT INTO vector_changes (pk) VALUES (old.pk);
    END""",
    # an insert below the tail: a memory's first vector given by an update, or a pk reused
    # after the row with the highest pk was deleted (caches load only rows past their tail)
    """CREATE TRIGGER vector_changes_insert AFTER INSERT ON memory_vectors
    WHEN new.pk < (SELECT max(pk) FROM memory_vectors)
        OR new.pk <= (SELECT max(pk) FROM vector_changes) BEGIN
        INSERT INTO vector_changes (pk) VALUES (new.pk);
    END""",
    # names this database, so a saved HNSW graph is never applied to another one
    "INSERT OR IGNORE INTO meta (key, value) VALUES ('mind_uid', lower(hex(randomblob(16))))",
)
VECTOR_LOG_LAST = "SELECT coalesce(max(seq), 0) FROM vector_changes"
VECTOR_LOG_FIRST = "SELECT coalesce(min(seq), 0) FROM vector_changes"
VECTOR_LOG_AFTER = "SELECT DISTINCT pk FROM vector_changes WHERE seq > ? AND pk <= ?"
# Keep the row with the highest pk: the reuse trigger compares new pks against it.
VECTOR_LOG_TRIM = (
    "DELETE FROM vector_changes WHERE seq <= ? "
    "AND pk < (SELECT max(pk) FROM vector_changes)"
)

# -- candidates --------------------------------------------------------------------------------
# bm25() weights: content, summary, entities. Lower (more negative) is better.
TEXT_SEARCH = (
    "SELECT m.id, -bm25(memories_fts, 1.0, 0.5, 0.5) AS score "
    "FROM memories_fts JOIN memories m ON m.pk = memories_fts.rowid "
    "WHERE memories_fts MATCH ? {where} ORDER BY score DESC, m.pk LIMIT ?"
)
# The FTS5 top-k alone (rowid, score), ties by rowid; `fulltext.py` explains the split form:
# rows of the rare phrases, and rows of rare AND frequent ones (scored on every phrase), best
# score per row (the second is never below the first: bm25 terms are non-negative).
_FTS_SCORED = (
    "SELECT rowid, -bm25(memories_fts, 1.0, 0.5, 0.5) AS score FROM memories_fts "
    "WHERE memories_fts MATCH ?"
)
TEXT_TOP = _FTS_SCORED + " ORDER BY score DESC, rowid LIMIT ?"
TEXT_TOP_SPLIT = (
    f"SELECT rowid, max(score) AS score FROM ({_FTS_SCORED} UNION ALL {_FTS_SCORED}) "
    "GROUP BY rowid ORDER BY score DESC, rowid LIMIT ?"
)
TEXT_UNSCORED = (
    "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid DESC LIMIT ?"
)
TEXT_HITS = "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?"

# -- BM25 postings (issue 15): Salience's own terms per row, scored by store/bm25.py -------------
# a derived index (rebuilt from the memories when missing or stale), created on open
CREATE_POSTINGS = (
    """CREATE TABLE IF NOT EXISTS memory_terms (
        term TEXT NOT NULL,
        pk INTEGER NOT NULL REFERENCES memories (pk) ON DELETE CASCADE,
        tf REAL NOT NULL,
        len REAL NOT NULL,
        PRIMARY KEY (term, pk)
    ) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS memory_terms_pk ON memory_terms (pk)",
    """CREATE TABLE IF NOT EXISTS memory_lengths (
        pk INTEGER PRIMARY KEY REFERENCES memories (pk) ON DELETE CASCADE,
        len REAL NOT NULL
    )""",
)
INSERT_TERMS = "INSERT INTO memory_terms (term, pk, tf, len) VALUES (?, ?, ?, ?)"
UPSERT_LENGTH = "INSERT OR REPLACE INTO memory_lengths (pk, len) VALUES (?, ?)"
DELETE_TERMS = "DELETE FROM memory_terms WHERE pk = ?"
CLEAR_TERMS = ("DELETE FROM memory_terms", "DELETE FROM memory_lengths")
TERM_DF = "SELECT count(*) FROM memory_terms WHERE term = ?"

# -- the text change log (issue 21): pks whose postings were written or deleted, for the
# tantivy index beside the database (textindex.py); derived like the postings, created on open
CREATE_TEXT_LOG = (
    """CREATE TABLE IF NOT EXISTS text_changes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        pk INTEGER NOT NULL
    )""",
    # INSERT OR REPLACE of a length fires the insert trigger only (no recursive triggers)
    """CREATE TRIGGER IF NOT EXISTS text_changes_insert AFTER INSERT ON memory_lengths BEGIN
        INSERT INTO text_changes (pk) VALUES (new.pk);
    END""",
    """CREATE TRIGGER IF NOT EXISTS text_changes_update AFTER UPDATE ON memory_lengths BEGIN
        INSERT INTO text_changes (pk) VALUES (new.pk);
    END""",
    """CREATE TRIGGER IF NOT EXISTS text_changes_delete AFTER DELETE ON memory_lengths BEGIN
        INSERT INTO text_changes (pk) VALUES (old.pk);
    END""",
)
TEXT_LOG_LAST = "SELECT coalesce(max(seq), 0) FROM text_changes"
TEXT_LOG_FIRST = "SELECT coalesce(min(seq), 0) FROM text_changes"
TEXT_LOG_AFTER = "SELECT seq, pk FROM text_changes WHERE seq > ? ORDER BY seq"
TEXT_LOG_TRIM = "DELETE FROM text_changes WHERE seq <= ?"
CLEAR_TEXT_LOG = "DELETE FROM text_changes"
HAS_TEXT_LOG = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'text_changes'"
LENGTHS_AFTER = "SELECT pk, len FROM memory_lengths WHERE pk > ? ORDER BY pk LIMIT ?"
LENGTHS_OF_PKS = "SELECT pk, len FROM memory_lengths WHERE pk IN ({marks})"
TERMS_BETWEEN = "SELECT pk, term, tf FROM memory_terms WHERE pk BETWEEN ? AND ?"
TERMS_OF_PKS = "SELECT pk, term, tf FROM memory_terms WHERE pk IN ({marks})"
ENTITY_SEARCH = (
    "SELECT m.id, count(DISTINCT e.entity) AS hits "
    "FROM memory_entities e JOIN memories m ON m.pk = e.pk "
    "WHERE e.entity IN ({marks}) {where} "
    "GROUP BY m.pk ORDER BY hits DESC, m.salience DESC, m.pk DESC LIMIT ?"
)
ENTITY_FREQUENCIES = (
    "SELECT entity, count(*) FROM memory_entities WHERE entity IN ({marks}) GROUP BY entity"
)
PKS_MATCHING = "SELECT m.pk FROM memories m WHERE 1 = 1 {where}"
# a vector search's candidates: ids of those passing the filter (exact index), with their
# float32 vectors to re-score on (HNSW) — one statement after the index search
IDS_PASSING = "SELECT m.pk, m.id FROM memories m WHERE m.pk IN ({marks}) {where}"
VECTOR_HITS = (
    "SELECT m.pk, m.id, v.embedding FROM memories m JOIN memory_vectors v ON v.pk = m.pk "
    "WHERE m.pk IN ({marks}) {where}"
)


# Filter fragments of SQLite's own (the others are shared), combined by relational/filters.py.
F_TAGS = "m.pk IN (SELECT pk FROM memory_tags WHERE tag IN ({marks}))"
F_ENTITIES = "m.pk IN (SELECT pk FROM memory_entities WHERE entity IN ({marks}))"
F_ID_PREFIX = "m.id >= ? AND m.id < ?"  # [prefix, prefix + '\x7f'): ids are hex

# -- stats -------------------------------------------------------------------------------------
STATS_VECTORS = "SELECT count(*) FROM memory_vectors"
STATS_SALIENCE_HIST = (
    "SELECT min(CAST(salience AS INTEGER), 9), count(*) FROM memories GROUP BY 1 ORDER BY 1"
)

# -- ingestion: durable queues, failed operations, harvest state, events, model-call log -------
MIGRATION_INGEST = (
    """CREATE TABLE pending_triage (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        enqueued_at TEXT NOT NULL,
        next_attempt_at TEXT NOT NULL
    )""",
    "CREATE INDEX pending_triage_due ON pending_triage (next_attempt_at, id)",
    """CREATE TABLE pending_distillation (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        enqueued_at TEXT NOT NULL,
        next_attempt_at TEXT NOT NULL
    )""",
    "CREATE INDEX pending_distillation_due ON pending_distillation (next_attempt_at, id)",
    """CREATE TABLE failed_operations (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        queue TEXT NOT NULL CHECK (queue IN ('triage', 'distillation')),
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        error TEXT NOT NULL,
        enqueued_at TEXT NOT NULL,
        failed_at TEXT NOT NULL
    )""",
    """CREATE TABLE harvest_sources (
        source TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        last_sync_at TEXT,
        state TEXT NOT NULL DEFAULT '{}'
    )""",
    """CREATE TABLE harvest_items (
        kind TEXT NOT NULL,
        item_key TEXT NOT NULL,
        source TEXT NOT NULL,
        status TEXT NOT NULL,
        processed_at TEXT NOT NULL,
        PRIMARY KEY (kind, item_key)
    ) WITHOUT ROWID""",
    "CREATE INDEX harvest_items_source ON harvest_items (source)",
    """CREATE TABLE mind_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        memory_id TEXT,
        related_id TEXT,
        payload TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL
    )""",
    "CREATE INDEX mind_events_kind ON mind_events (kind, id)",
    """CREATE TABLE ai_interactions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at TEXT NOT NULL,
        call_site TEXT NOT NULL,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        prompt_chars INTEGER NOT NULL,
        output_chars INTEGER NOT NULL,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        total_tokens INTEGER,
        latency_ms REAL NOT NULL,
        outcome TEXT NOT NULL,
        error TEXT,
        thinking INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 1
    )""",
    "CREATE INDEX ai_interactions_created ON ai_interactions (created_at)",
)



# -- layers (issue 6): identity, awareness, sessions/frames, knowledge graph, time travel ------
# Timestamps are ISO-8601 UTC text (clock.format_ts), so text comparison is time order.
MIGRATION_0002_LAYERS = (
    "ALTER TABLE memories ADD COLUMN superseded_at TEXT",
    "UPDATE memories SET superseded_at = updated_at WHERE superseded_by IS NOT NULL",
    """CREATE TABLE identity (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        name TEXT NOT NULL CHECK (length(trim(name)) > 0),
        role TEXT NOT NULL DEFAULT '',
        department TEXT NOT NULL DEFAULT '',
        personality TEXT NOT NULL DEFAULT '',
        capabilities TEXT NOT NULL DEFAULT '',
        system_prompt TEXT NOT NULL DEFAULT '',
        traits TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
    """CREATE TABLE awareness (
        id TEXT PRIMARY KEY,
        category TEXT NOT NULL CHECK (category IN ('task', 'action', 'pending', 'flag')),
        content TEXT NOT NULL,
        priority INTEGER NOT NULL DEFAULT 0,
        metadata TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        expires_at TEXT
    )""",
    "CREATE INDEX awareness_expires ON awareness (expires_at)",
    """CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        project_id TEXT,
        status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
        summary TEXT NOT NULL DEFAULT '',
        opened_at TEXT NOT NULL,
        closed_at TEXT,
        updated_at TEXT NOT NULL
    )""",
    "CREATE INDEX sessions_project ON sessions (project_id, opened_at)",
    """INSERT OR IGNORE INTO sessions (id, status, opened_at, updated_at)
        SELECT session_id, 'open', min(created_at), max(created_at) FROM memories
        WHERE session_id IS NOT NULL GROUP BY session_id""",
    """CREATE TABLE kg_entities (
        id TEXT PRIMARY KEY,
        entity_type TEXT NOT NULL,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL,
        properties TEXT NOT NULL DEFAULT '{}',
        confidence REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
        valid_from TEXT NOT NULL,
        valid_to TEXT,
        recorded_at TEXT NOT NULL,
        CHECK (valid_to IS NULL OR valid_to >= valid_from)
    )""",
    "CREATE INDEX kg_entities_key ON kg_entities (name_key)",
    "CREATE INDEX kg_entities_type ON kg_entities (entity_type, name_key)",
    """CREATE TABLE kg_aliases (
        alias_key TEXT NOT NULL,
        entity_id TEXT NOT NULL REFERENCES kg_entities (id) ON DELETE CASCADE,
        alias TEXT NOT NULL,
        PRIMARY KEY (alias_key, entity_id)
    ) WITHOUT ROWID""",
    "CREATE INDEX kg_aliases_entity ON kg_aliases (entity_id)",
    """CREATE TABLE kg_relations (
        id TEXT PRIMARY KEY,
        source_id TEXT NOT NULL REFERENCES kg_entities (id) ON DELETE CASCADE,
        target_id TEXT NOT NULL REFERENCES kg_entities (id) ON DELETE CASCADE,
        relation_type TEXT NOT NULL,
        confidence REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
        properties TEXT NOT NULL DEFAULT '{}',
        valid_from TEXT NOT NULL,
        valid_to TEXT,
        recorded_at TEXT NOT NULL,
        CHECK (valid_to IS NULL OR valid_to >= valid_from)
    )""",
    "CREATE INDEX kg_relations_source ON kg_relations (source_id)",
    "CREATE INDEX kg_relations_target ON kg_relations (target_id)",
    """CREATE TABLE memory_entity_links (
        pk INTEGER NOT NULL REFERENCES memories (pk) ON DELETE CASCADE,
        entity_id TEXT NOT NULL REFERENCES kg_entities (id) ON DELETE CASCADE,
        PRIMARY KEY (entity_id, pk)
    ) WITHOUT ROWID""",
    "CREATE INDEX memory_entity_links_pk ON memory_entity_links (pk)",
)


# -- knowledge graph provenance (issue 14): the memory a relation was stated in ----------------
MIGRATION_GRAPH_PROVENANCE = (
    "ALTER TABLE kg_relations ADD COLUMN memory_id TEXT",
    "CREATE INDEX kg_relations_memory ON kg_relations (memory_id) WHERE memory_id IS NOT NULL",
    "CREATE INDEX kg_relations_open ON kg_relations (source_id, relation_type) "
    "WHERE valid_to IS NULL",
)

MIGRATION_MENTION_LINKS = (
    "ALTER TABLE memory_entity_links ADD COLUMN kind TEXT NOT NULL DEFAULT 'entity'",
)

# -- maintenance (issue 7): targeted score updates, maintenance log, leases -------------------
MIGRATION_MAINTENANCE = (
    """CREATE TABLE maintenance_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        count INTEGER NOT NULL,
        ids TEXT NOT NULL DEFAULT '[]',
        details TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL
    )""",
    "CREATE INDEX maintenance_log_kind ON maintenance_log (kind, id)",
    """CREATE TABLE leases (
        name TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        expires_at TEXT NOT NULL
    )""",
)
SET_SCORES = "UPDATE memories SET salience = ?, usefulness = ? WHERE id = ?"
# Take the lease when free, expired, or ours; the WHERE makes the upsert a no-op otherwise.
LEASE_ACQUIRE = (
    "INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?) "
    "ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at "
    "WHERE leases.holder = excluded.holder OR leases.expires_at <= ? RETURNING holder"
)

# -- agent records (issue 20, design B §3/§11): procedures, improvement signals, execution
# traces, evolution runs, install audit. Columns in the order of `salience.models.agent_rows`; the
# statements are run by name from `store/agent_core.py`.
from ...models import agent as _agent  # noqa: E402
from ...models.agent_rows import (  # noqa: E402
    SIGNAL_COLUMNS,
)

MIGRATION_AGENT_RECORDS = (
    """CREATE TABLE procedures (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        version INTEGER NOT NULL CHECK (version >= 1),
        template TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        metadata TEXT NOT NULL DEFAULT '{}',
        parent_id TEXT REFERENCES procedures (id) ON DELETE SET NULL,
        active INTEGER NOT NULL DEFAULT 0,
        runs INTEGER NOT NULL DEFAULT 0,
        successes INTEGER NOT NULL DEFAULT 0,
        success_rate REAL NOT NULL DEFAULT 0,
        avg_cost REAL NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (name, version)
    )""",
    "CREATE UNIQUE INDEX procedures_one_active ON procedures (name) WHERE active",
    f"""CREATE TABLE improvement_signals (
        id TEXT PRIMARY KEY,
        category TEXT NOT NULL CHECK (category IN ({_in(_agent.SignalCategory)})),
        pattern_key TEXT NOT NULL,
        note TEXT NOT NULL DEFAULT '',
        count INTEGER NOT NULL DEFAULT 1,
        surfaced INTEGER NOT NULL DEFAULT 0,
        surfaced_at TEXT,
        metadata TEXT NOT NULL DEFAULT '{{}}',
        first_seen_at TEXT NOT NULL,
        last_seen_at TEXT NOT NULL,
        UNIQUE (category, pattern_key)
    )""",
    f"""CREATE TABLE execution_traces (
        id TEXT PRIMARY KEY,
        task TEXT NOT NULL,
        outcome TEXT NOT NULL CHECK (outcome IN ({_in(_agent.TraceOutcome)})),
        trace_json TEXT NOT NULL,
        procedure_id TEXT,
        session_id TEXT,
        cost REAL,
        duration_ms REAL,
        metadata TEXT NOT NULL DEFAULT '{{}}',
        created_at TEXT NOT NULL
    )""",
    "CREATE INDEX execution_traces_created ON execution_traces (created_at, id)",
    "CREATE INDEX execution_traces_outcome ON execution_traces (outcome, created_at)",
    "CREATE INDEX execution_traces_procedure ON execution_traces (procedure_id, created_at)",
    f"""CREATE TABLE evolution_runs (
        id TEXT PRIMARY KEY,
        target TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ({_in(_agent.EvolutionKind)})),
        status TEXT NOT NULL CHECK (status IN ({_in(_agent.EvolutionStatus)})),
        description TEXT NOT NULL DEFAULT '',
        baseline_id TEXT,
        candidate_id TEXT,
        proposal TEXT NOT NULL DEFAULT '{{}}',
        baseline_metrics TEXT NOT NULL DEFAULT '{{}}',
        candidate_metrics TEXT NOT NULL DEFAULT '{{}}',
        reason TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL,
        decided_at TEXT
    )""",
    "CREATE INDEX evolution_runs_target ON evolution_runs (target, created_at)",
    f"""CREATE TABLE install_audit (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        capability TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ({_in(_agent.InstallKind)})),
        action TEXT NOT NULL CHECK (action IN ({_in(_agent.InstallAction)})),
        risk TEXT NOT NULL CHECK (risk IN ({_in(_agent.InstallRisk)})),
        trust_source TEXT NOT NULL,
        approval_class TEXT NOT NULL,
        details TEXT NOT NULL DEFAULT '{{}}',
        created_at TEXT NOT NULL
    )""",
    "CREATE INDEX install_audit_capability ON install_audit (capability, seq)",
    """CREATE TRIGGER install_audit_no_update BEFORE UPDATE ON install_audit
    BEGIN SELECT RAISE(ABORT, 'install_audit is append-only'); END""",
    """CREATE TRIGGER install_audit_no_delete BEFORE DELETE ON install_audit
    BEGIN SELECT RAISE(ABORT, 'install_audit is append-only'); END""",
)

SIGNAL_UPSERT = (
    "INSERT INTO improvement_signals (id, category, pattern_key, note, count, surfaced, "
    "metadata, first_seen_at, last_seen_at) VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?) "
    "ON CONFLICT (category, pattern_key) DO UPDATE SET "
    "count = improvement_signals.count + 1, last_seen_at = excluded.last_seen_at, "
    "note = CASE WHEN excluded.note <> '' THEN excluded.note ELSE improvement_signals.note END, "
    "metadata = json_patch(improvement_signals.metadata, excluded.metadata) "
    f"RETURNING {', '.join(SIGNAL_COLUMNS)}"
)



# -- stored claims (issue 21): derived rows, one per memory, keyed by the memory's row ----------
# `text_key` is the memory's "type:content_hash" the claims were derived from (an update that
# changes it deletes the row in its transaction); `version` the claims engine's.
MIGRATION_MEMORY_CLAIMS = (
    """CREATE TABLE memory_claims (
        pk INTEGER PRIMARY KEY REFERENCES memories (pk) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        text_key TEXT NOT NULL,
        claims TEXT NOT NULL
    )""",
)
