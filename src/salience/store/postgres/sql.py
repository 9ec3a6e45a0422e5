"""Every SQL statement of the PostgreSQL backend, by name. Code elsewhere runs them by name.

Statements are `psycopg.sql.SQL` templates: `{s}` is the mind's schema (an identifier),
`{cfg}` the qualified name of the mind's text-search configuration (a literal), and the other
`{…}` slots are fragments from this module chosen by the store. Values are always bound as
`%s`/`%b` parameters, never formatted in. Literal braces are doubled (`{{}}`).
"""

from __future__ import annotations

from ...models import FrameType, Importance, MemoryType, Source
from ..relational.columns import MEMORY, MEMORY_FIELDS
from ..relational.dialect import POSTGRES
from ..relational.statements import statements


def _in(values: type) -> str:
    return ", ".join(f"'{v.value}'" for v in values)  # enum values are fixed identifiers


# -- server setup (once per connection pool) -----------------------------------------------------
INSTALLED_EXTENSIONS = (
    "SELECT extname, extversion FROM pg_catalog.pg_extension "
    "WHERE extname IN ('vector', 'unaccent')"
)
AVAILABLE_EXTENSIONS = (
    "SELECT name FROM pg_catalog.pg_available_extensions WHERE name IN ('vector', 'unaccent')"
)
CREATE_EXTENSION_VECTOR = "CREATE EXTENSION IF NOT EXISTS vector"
CREATE_EXTENSION_UNACCENT = "CREATE EXTENSION IF NOT EXISTS unaccent"

# Transaction-scoped advisory lock on a text key (hashed to 64 bits by the server).
ADVISORY_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))"
SET_LOCAL = "SELECT set_config(%s, %s, true)"

# -- mind schema and migrations ------------------------------------------------------------------
TABLE_EXISTS = "SELECT to_regclass(%s) IS NOT NULL"
SCHEMA_EXISTS = "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = %s)"
CREATE_SCHEMA = "CREATE SCHEMA IF NOT EXISTS {s}"
DROP_SCHEMA = "DROP SCHEMA IF EXISTS {s} CASCADE"
CREATE_MIGRATIONS = """
CREATE TABLE IF NOT EXISTS {s}._migrations (
    position integer GENERATED ALWAYS AS IDENTITY,
    name text PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
)"""
APPLIED_MIGRATIONS = "SELECT name FROM {s}._migrations ORDER BY position"
RECORD_MIGRATION = "INSERT INTO {s}._migrations (name) VALUES (%s)"

# Folding diacritics needs the `unaccent` dictionary; a mind created while the extension is
# missing keeps plain English stemming for good (its stored tsvectors were built that way), and
# says so in meta `fts_unaccent`.
_FTS_UNACCENT = """
DO $do$
DECLARE ns name;
BEGIN
    SELECT n.nspname INTO ns
    FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'unaccent';
    IF ns IS NOT NULL THEN
        EXECUTE format(
            'ALTER TEXT SEARCH CONFIGURATION %s ALTER MAPPING FOR hword, hword_part, word '
            'WITH %I.unaccent, pg_catalog.english_stem', {cfg}, ns);
    END IF;
    INSERT INTO {s}.meta (key, value)
    VALUES ('fts_unaccent', CASE WHEN ns IS NULL THEN 'false' ELSE 'true' END);
END
$do$"""

# `embedding` is typed `vector` without a dimension until the mind pins its embedder
# (PIN_VECTOR_TYPE). Content weighs 'A', summary and entities 'B' (SQLite's bm25 weights
# 1.0 / 0.5 / 0.5, see TS_WEIGHTS).
MIGRATION_0001_CORE = (
    """CREATE TABLE {s}.meta (
        key text PRIMARY KEY,
        value text NOT NULL
    )""",
    "CREATE TEXT SEARCH CONFIGURATION {s}.fts (COPY = pg_catalog.english)",
    _FTS_UNACCENT,
    f"""CREATE TABLE {{s}}.memories (
        pk bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text NOT NULL UNIQUE,
        content text NOT NULL,
        summary text NOT NULL DEFAULT '',
        memory_type text NOT NULL CHECK (memory_type IN ({_in(MemoryType)})),
        importance text NOT NULL CHECK (importance IN ({_in(Importance)})),
        source text NOT NULL CHECK (source IN ({_in(Source)})),
        salience double precision NOT NULL CHECK (salience BETWEEN 1 AND 10),
        confidence double precision NOT NULL CHECK (confidence BETWEEN 0 AND 1),
        usefulness double precision NOT NULL CHECK (usefulness BETWEEN 0 AND 1),
        retrieval_count bigint NOT NULL DEFAULT 0 CHECK (retrieval_count >= 0),
        last_retrieved_at timestamptz,
        tags text[] NOT NULL DEFAULT ARRAY[]::text[],
        entities text[] NOT NULL DEFAULT ARRAY[]::text[],
        entity_keys text[] NOT NULL DEFAULT ARRAY[]::text[],
        entities_text text NOT NULL DEFAULT '',
        superseded_by text,
        related_ids text[] NOT NULL DEFAULT ARRAY[]::text[],
        parent_id text,
        chunk_index bigint NOT NULL DEFAULT 0,
        session_id text,
        t bigint,
        frame_type text NOT NULL DEFAULT 'I' CHECK (frame_type IN ({_in(FrameType)})),
        base_frame_id text,
        pinned boolean NOT NULL DEFAULT false,
        occurred_at timestamptz,
        metadata json NOT NULL DEFAULT '{{{{}}}}',
        content_hash text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        embedding vector,
        fts tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector({{cfg}}::regconfig, content), 'A')
            || setweight(to_tsvector({{cfg}}::regconfig, summary), 'B')
            || setweight(to_tsvector({{cfg}}::regconfig, entities_text), 'B')
        ) STORED
    )""",
    "CREATE INDEX memories_hash ON {s}.memories (content_hash)",
    "CREATE INDEX memories_created ON {s}.memories (created_at, pk)",
    "CREATE INDEX memories_occurred ON {s}.memories ((coalesce(occurred_at, created_at)), pk)",
    "CREATE INDEX memories_salience ON {s}.memories (salience, pk)",
    "CREATE INDEX memories_session ON {s}.memories (session_id, t)",
    "CREATE INDEX memories_type ON {s}.memories (memory_type)",
    "CREATE INDEX memories_superseded ON {s}.memories (superseded_by) "
    "WHERE superseded_by IS NOT NULL",
    "CREATE INDEX memories_tags ON {s}.memories USING gin (tags)",
    "CREATE INDEX memories_entities ON {s}.memories USING gin (entity_keys)",
    "CREATE INDEX memories_fts ON {s}.memories USING gin (fts)",
)

# -- the statements both backends share (relational/statements.py), by name ----------------------
#: an entity's aliases as a JSON array (the one part of the entity columns that differs)
_ALIASES = (
    "coalesce((SELECT json_agg(a.alias ORDER BY a.alias_key) "
    "FROM {s}.kg_aliases a WHERE a.entity_id = e.id), '[]'::json)"
)
SHARED = statements(POSTGRES, aliases=_ALIASES)
globals().update(SHARED)

# -- meta ----------------------------------------------------------------------------------------
CLAIM_META = "INSERT INTO {s}.meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO NOTHING"

# -- the pinned embedder: vector column type and HNSW index ---------------------------------------
PIN_VECTOR_TYPE = "ALTER TABLE {s}.memories ALTER COLUMN embedding TYPE vector({dim})"
HNSW_INDEX_NAME = "memories_embedding_hnsw"
HNSW_BUILD_NAME = "memories_embedding_hnsw_build"  # a rebuild's index until it replaces the old
# `{how}` is "INDEX" (inside the pin's transaction, on a mind without rows) or
# "INDEX CONCURRENTLY" (a rebuild: outside any transaction, so reads and writes go on; see
# VectorSearchMixin.build_vector_index). `{name}` is HNSW_INDEX_NAME or HNSW_BUILD_NAME.
# d <= 2000: HNSW over the stored float32 vectors.
CREATE_HNSW_VECTOR = (
    "CREATE {how} {name} ON {s}.memories "
    "USING hnsw (embedding vector_cosine_ops) WITH (m = {m}, ef_construction = {efc})"
)
# 2000 < d <= 4000: the column keeps float32 (lossless export, exact search at full precision);
# the index holds half-precision copies (pgvector's HNSW limit is 4000 dims for halfvec).
CREATE_HNSW_HALFVEC = (
    "CREATE {how} {name} ON {s}.memories "
    "USING hnsw ((embedding::halfvec({dim})) halfvec_cosine_ops) "
    "WITH (m = {m}, ef_construction = {efc})"
)
DROP_HNSW = "DROP INDEX IF EXISTS {s}.memories_embedding_hnsw"
# A rebuild, each outside a transaction: drop a build a crash left behind (invalid), build the
# new index beside the old, drop the old without blocking reads, rename the new into place.
DROP_HNSW_CONCURRENTLY = "DROP INDEX CONCURRENTLY IF EXISTS {s}.{name}"
RENAME_HNSW_BUILD = (
    "ALTER INDEX {s}.memories_embedding_hnsw_build RENAME TO memories_embedding_hnsw"
)
# Session-scoped advisory locks (a concurrent build cannot run in a transaction).
ADVISORY_SESSION_LOCK = "SELECT pg_advisory_lock(hashtextextended(%s, 0))"
ADVISORY_SESSION_UNLOCK = "SELECT pg_advisory_unlock(hashtextextended(%s, 0))"
SET_SESSION = "SELECT set_config(%s, %s, false)"
RESET_SETTING = "RESET {name}"
VECTOR_INDEX_DEF = (
    "SELECT indexdef FROM pg_catalog.pg_indexes "
    "WHERE schemaname = %s AND tablename = 'memories' AND indexname = 'memories_embedding_hnsw'"
)

# -- memories ------------------------------------------------------------------------------------
MEMORY_COLUMNS = MEMORY_FIELDS
_COLS = ", ".join(POSTGRES.col(c) for c in MEMORY_FIELDS)  # with pending retrievals
# Written with every record, derived from `entities`: normalised keys (exact match, GIN) and the
# text the full-text column indexes.
DERIVED_COLUMNS = ("entity_keys", "entities_text")
_WRITE = (*MEMORY_FIELDS, *DERIVED_COLUMNS)

# Inserts stream through binary COPY (fast bulk loads; a duplicate id still fails the batch).
COPY_MEMORIES = f"COPY {{s}}.memories ({', '.join(_WRITE)}) FROM STDIN (FORMAT BINARY)"
COPY_MEMORIES_VEC = (
    f"COPY {{s}}.memories ({', '.join(_WRITE)}, embedding) FROM STDIN (FORMAT BINARY)"
)
# The PostgreSQL type of each column of COPY_MEMORIES, in order (binary COPY needs them).
COPY_TYPES = (*(c.pg_type for c in MEMORY), "text[]", "text")
_SET = ", ".join(f"{c} = %s" for c in _WRITE if c != "id")
UPDATE_MEMORY = f"UPDATE {{s}}.memories SET {_SET} WHERE id = %s"
UPDATE_MEMORY_VEC = f"UPDATE {{s}}.memories SET {_SET}, embedding = %b WHERE id = %s"
LOCK_IDS = "SELECT id FROM {s}.memories WHERE id = ANY(%s::text[]) FOR UPDATE"
# One retrieval per listed memory (Store.record_retrievals), written to the side table
# `memory_retrievals` (issue 21): an UPDATE of the memory row itself adds an entry to every
# index of the row (HNSW, GIN, salience: ~10 ms and ~4,000 buffers per memory measured at 1M);
# an upsert into the side table touches none of them. The first retrieval since the last fold
# starts from the memory's salience, the next ones from the side row's — design A's dampened
# boost, the same double arithmetic. Rows are taken in pk order, so two searches bumping
# overlapping memories wait for each other instead of deadlocking; the waiting upsert re-reads
# the row the other committed (no bump is lost). Reads add the pending values
# (`Dialect.col`); maintenance folds them into the memory row (FOLD_RETRIEVALS).
# Parameters: now, boost, ceiling, ceiling, ids, boost, ceiling, ceiling.
RECORD_RETRIEVALS = (
    "INSERT INTO {s}.memory_retrievals AS r (pk, retrievals, last_retrieved_at, salience) "
    "SELECT m.pk, 1, %s, least(m.salience + %s * (1.0::float8 - m.salience / %s), %s) "
    "FROM {s}.memories m WHERE m.id = ANY(%s::text[]) ORDER BY m.pk "
    "ON CONFLICT (pk) DO UPDATE SET retrievals = r.retrievals + 1, "
    "last_retrieved_at = excluded.last_retrieved_at, "
    "salience = least(r.salience + %s * (1.0::float8 - r.salience / %s), %s)"
)
# The pending counters into the memory rows, then the side table emptied (maintenance: before
# scores are set, which start from the folded salience). Searches' upserts hold the shared side
# of the mind's `:retrievals` advisory lock, a fold the exclusive side, so no bump lands between
# the two statements nor is computed from a salience the fold is replacing. Locks are taken
# memory rows first, side rows second, as an update does (no deadlock between them); an upsert
# locks side rows only (the side table has no foreign key: a key-share lock on the memory row
# would wait on an update holding it while that update waits on the upsert's side row). Side
# rows of deleted memories are left to the next fold (reads never reach them).
FOLD_RETRIEVALS = (
    "UPDATE {s}.memories m SET retrieval_count = m.retrieval_count + r.retrievals, "
    "last_retrieved_at = r.last_retrieved_at, salience = r.salience "
    "FROM {s}.memory_retrievals r WHERE m.pk = r.pk"
)
CLEAR_RETRIEVALS = "DELETE FROM {s}.memory_retrievals"
# An update writes the whole record, counters included (read with the pending values): the
# side rows of those memories go.
DROP_RETRIEVALS_OF = (
    "DELETE FROM {s}.memory_retrievals r USING {s}.memories m "
    "WHERE r.pk = m.pk AND m.id = ANY(%s::text[])"
)
ADVISORY_LOCK_SHARED = "SELECT pg_advisory_xact_lock_shared(hashtextextended(%s, 0))"
PENDING_RETRIEVALS = (
    "SELECT count(*) FROM {s}.memory_retrievals r JOIN {s}.memories m ON m.pk = r.pk"
)
ITER_MEMORIES = (
    f"SELECT m.pk, {_COLS}, m.embedding::vector FROM {{s}}.memories m "
    "WHERE m.pk > %s ORDER BY m.pk LIMIT %s"
)
# `::vector` keeps the result type free of the pinned dimension, so statements prepared before
# the pin stay valid after it.
VECTORS_BY_IDS = (
    "SELECT id, embedding::vector FROM {s}.memories "
    "WHERE id = ANY(%s::text[]) AND embedding IS NOT NULL"
)


# Filter fragments of PostgreSQL's own (the others are shared), combined by relational/filters.py.
F_TAGS = "m.tags && %s::text[]"
F_ENTITIES = "m.entity_keys && %s::text[]"
F_ID_PREFIX = "starts_with(m.id, %s)"

# -- candidates ----------------------------------------------------------------------------------
# One literal term: a phrase of its words (like SQLite's double-quoted FTS5 strings). Operators,
# quotes and parentheses in the text are never parsed as tsquery syntax.
TSQUERY_TERM = "phraseto_tsquery({cfg}::regconfig, %s)"
TSQUERY_OR = " || "
TSQUERY_AND = " && "
# Rows matching `{match}`, ranked by `{tsquery}` (every term; see fulltext.py). ts_rank weights
# {D, C, B, A}; normalisation 1 divides by 1 + log(document length).
TEXT_SEARCH = (
    "SELECT m.id, ts_rank(ARRAY[0.1, 0.2, 0.5, 1.0]::float4[], m.fts, q.q, 1) AS score "
    "FROM {s}.memories m, (SELECT {tsquery} AS q, {match} AS mq) q "
    "WHERE m.fts @@ q.mq {where} ORDER BY score DESC, m.pk LIMIT %s"
)
# -- BM25 postings (issue 15): Salience's own terms per row, scored by store/bm25.py -------------
# a derived index (rebuilt from the memories when missing or stale), created on open
CREATE_POSTINGS = (
    """CREATE TABLE IF NOT EXISTS {s}.memory_terms (
        term text NOT NULL,
        pk bigint NOT NULL REFERENCES {s}.memories (pk) ON DELETE CASCADE,
        tf double precision NOT NULL,
        len double precision NOT NULL,
        PRIMARY KEY (term, pk)
    )""",
    "CREATE INDEX IF NOT EXISTS memory_terms_pk ON {s}.memory_terms (pk)",
    """CREATE TABLE IF NOT EXISTS {s}.memory_lengths (
        pk bigint PRIMARY KEY REFERENCES {s}.memories (pk) ON DELETE CASCADE,
        len double precision NOT NULL
    )""",
)
COPY_TERMS = "COPY {s}.memory_terms (term, pk, tf, len) FROM STDIN"
COPY_LENGTHS = "COPY {s}.memory_lengths (pk, len) FROM STDIN"
DELETE_TERMS_OF = "DELETE FROM {s}.memory_terms WHERE pk = ANY(%s)"
DELETE_LENGTHS_OF = "DELETE FROM {s}.memory_lengths WHERE pk = ANY(%s)"
CLEAR_TERMS = ("DELETE FROM {s}.memory_terms", "DELETE FROM {s}.memory_lengths")
TERMS_OF_IDS = "SELECT pk, content, summary, entities FROM {s}.memories WHERE id = ANY(%s)"
TERM_DFS = "SELECT term, count(*) FROM {s}.memory_terms WHERE term = ANY(%s) GROUP BY term"
# The mind's totals (term NULL: rows, summed length) and the terms' document frequencies in one
# round trip, when the cached statistics are stale (TEXT_TOTALS then TERM_DFS).
TEXT_STATS = (
    "SELECT NULL::text, count(*), coalesce(sum(len), 0) FROM {s}.memory_lengths "
    "UNION ALL SELECT term, count(*), 0 FROM {s}.memory_terms WHERE term = ANY(%s) GROUP BY term"
)
# The lexemes of each term, as the mind's text-search configuration makes them.
TEXT_LEXEMES = (
    "SELECT t, tsvector_to_array(to_tsvector({cfg}::regconfig, t)) FROM unnest(%s::text[]) t"
)
# What ANALYZE keeps on the `fts` column: rows, the most common lexemes and the fraction of rows
# holding each (the fractions list ends with min, max and the null fraction). No stats: NULLs.
FTS_STATS = (
    "SELECT c.reltuples, s.most_common_elems::text::text[], s.most_common_elem_freqs "
    "FROM pg_catalog.pg_class c "
    "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
    "LEFT JOIN pg_catalog.pg_stats s ON s.schemaname = n.nspname AND s.tablename = c.relname "
    "AND s.attname = 'fts' AND NOT s.inherited "
    "WHERE n.nspname = %s AND c.relname = 'memories'"
)
ANALYZE_MEMORIES = "ANALYZE {s}.memories"
ENTITY_SEARCH = (
    "SELECT m.id, (SELECT count(*) FROM unnest(m.entity_keys) k WHERE k = ANY(%s::text[])) "
    "AS hits FROM {s}.memories m WHERE m.entity_keys && %s::text[] {where} "
    f"ORDER BY hits DESC, {POSTGRES.col('salience')} DESC, m.pk DESC LIMIT %s"
)

ENTITY_FREQUENCIES = (
    "SELECT k, count(*) FROM {s}.memories m CROSS JOIN LATERAL unnest(m.entity_keys) k "
    "WHERE m.entity_keys && %s::text[] AND k = ANY(%s::text[]) GROUP BY k"
)

# Vector candidates: cosine distance, best first, ties to the newer row (as SQLite).
# Exact: `cosine_distance()` is a function, not the `<=>` operator, so no index can serve it —
# a full scan of the rows that pass the filter.
VECTOR_EXACT = (
    "SELECT m.id, cosine_distance(m.embedding, %b::vector) AS dist FROM {s}.memories m "
    "WHERE m.embedding IS NOT NULL {where} ORDER BY dist, m.pk DESC LIMIT %s"
)
# Approximate: the HNSW index walks `{index_order}`; with iterative scans on, it keeps walking
# until LIMIT rows pass the filter. Relaxed order is re-sorted by the exact distance outside.
VECTOR_HNSW = (
    "WITH c AS MATERIALIZED ("
    "SELECT m.pk, m.id, m.embedding <=> %b::vector AS dist FROM {s}.memories m "
    "WHERE m.embedding IS NOT NULL {where} ORDER BY {index_order} LIMIT %s"
    ") SELECT id, dist FROM c ORDER BY dist, pk DESC"
)
INDEX_ORDER_VECTOR = "m.embedding <=> %b::vector"
INDEX_ORDER_HALFVEC = "m.embedding::halfvec({dim}) <=> %b::halfvec({dim})"
# How many vectors, counting no further than %s (cheap on a large mind).
VECTOR_COUNT_UPTO = (
    "SELECT count(*) FROM (SELECT 1 FROM {s}.memories WHERE embedding IS NOT NULL LIMIT %s) v"
)

# -- stats ---------------------------------------------------------------------------------------
STATS_VECTORS = "SELECT count(*) FROM {s}.memories WHERE embedding IS NOT NULL"
STATS_SALIENCE_HIST = (
    "SELECT least(trunc(coalesce(r.salience, m.salience))::int, 9) AS b, count(*) "
    "FROM {s}.memories m LEFT JOIN {s}.memory_retrievals r ON r.pk = m.pk GROUP BY b ORDER BY b"
)
STATS_BYTES = (
    "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_catalog.pg_class c "
    "WHERE c.relnamespace = %s::regnamespace AND c.relkind = 'r'"
)

# -- ingestion: durable queues, failed operations, harvest state, events, model-call log ---------
_QUEUE_TABLE = """CREATE TABLE {{s}}.{table} (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        kind text NOT NULL,
        payload text NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        last_error text,
        enqueued_at timestamptz NOT NULL,
        next_attempt_at timestamptz NOT NULL
    )"""
MIGRATION_INGEST = (
    _QUEUE_TABLE.format(table="pending_triage"),
    "CREATE INDEX pending_triage_due ON {s}.pending_triage (next_attempt_at, id)",
    _QUEUE_TABLE.format(table="pending_distillation"),
    "CREATE INDEX pending_distillation_due ON {s}.pending_distillation (next_attempt_at, id)",
    """CREATE TABLE {s}.failed_operations (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        queue text NOT NULL CHECK (queue IN ('triage', 'distillation')),
        kind text NOT NULL,
        payload text NOT NULL,
        attempts integer NOT NULL,
        error text NOT NULL,
        enqueued_at timestamptz NOT NULL,
        failed_at timestamptz NOT NULL
    )""",
    """CREATE TABLE {s}.harvest_sources (
        source text PRIMARY KEY,
        kind text NOT NULL,
        last_sync_at timestamptz,
        state text NOT NULL DEFAULT '{{}}'
    )""",
    """CREATE TABLE {s}.harvest_items (
        kind text NOT NULL,
        item_key text NOT NULL,
        source text NOT NULL,
        status text NOT NULL,
        processed_at timestamptz NOT NULL,
        PRIMARY KEY (kind, item_key)
    )""",
    "CREATE INDEX harvest_items_source ON {s}.harvest_items (source)",
    """CREATE TABLE {s}.mind_events (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        kind text NOT NULL,
        memory_id text,
        related_id text,
        payload text NOT NULL DEFAULT '{{}}',
        created_at timestamptz NOT NULL
    )""",
    "CREATE INDEX mind_events_kind ON {s}.mind_events (kind, id)",
    """CREATE TABLE {s}.ai_interactions (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        created_at timestamptz NOT NULL,
        call_site text NOT NULL,
        provider text NOT NULL,
        model text NOT NULL,
        prompt_chars bigint NOT NULL,
        output_chars bigint NOT NULL,
        prompt_tokens bigint,
        completion_tokens bigint,
        total_tokens bigint,
        latency_ms double precision NOT NULL,
        outcome text NOT NULL,
        error text,
        thinking boolean NOT NULL DEFAULT false,
        attempts integer NOT NULL DEFAULT 1
    )""",
    "CREATE INDEX ai_interactions_created ON {s}.ai_interactions (created_at)",
)



# -- maintenance (issue 7): targeted score updates, maintenance log, leases ----------------------
MIGRATION_MAINTENANCE = (
    """CREATE TABLE {s}.maintenance_log (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        kind text NOT NULL,
        count integer NOT NULL,
        ids text[] NOT NULL DEFAULT '{{}}',
        details text NOT NULL DEFAULT '{{}}',
        created_at timestamptz NOT NULL
    )""",
    "CREATE INDEX maintenance_log_kind ON {s}.maintenance_log (kind, id)",
    """CREATE TABLE {s}.leases (
        name text PRIMARY KEY,
        holder text NOT NULL,
        expires_at timestamptz NOT NULL
    )""",
)
SET_SCORES = (
    "UPDATE {s}.memories m SET salience = u.salience, usefulness = u.usefulness "
    "FROM unnest(%s::text[], %s::float8[], %s::float8[]) AS u(id, salience, usefulness) "
    "WHERE m.id = u.id"
)
# Take the lease when free, expired, or ours; the WHERE makes the upsert a no-op otherwise.
LEASE_ACQUIRE = (
    "INSERT INTO {s}.leases AS l (name, holder, expires_at) VALUES (%s, %s, %s) "
    "ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at "
    "WHERE l.holder = excluded.holder OR l.expires_at <= %s RETURNING holder"
)

# -- layers (issue 6): identity, awareness, sessions/frames, knowledge graph, time travel --------
# Values are bound; `%s::type IS NULL OR …` makes an optional filter (the cast types the param).
MIGRATION_0002_LAYERS = (
    "ALTER TABLE {s}.memories ADD COLUMN superseded_at timestamptz",
    "UPDATE {s}.memories SET superseded_at = updated_at WHERE superseded_by IS NOT NULL",
    """CREATE TABLE {s}.identity (
        id integer PRIMARY KEY CHECK (id = 1),
        name text NOT NULL CHECK (length(btrim(name)) > 0),
        role text NOT NULL DEFAULT '',
        department text NOT NULL DEFAULT '',
        personality text NOT NULL DEFAULT '',
        capabilities text NOT NULL DEFAULT '',
        system_prompt text NOT NULL DEFAULT '',
        traits jsonb NOT NULL DEFAULT '{{}}',
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
    )""",
    """CREATE TABLE {s}.awareness (
        id text PRIMARY KEY,
        category text NOT NULL CHECK (category IN ('task', 'action', 'pending', 'flag')),
        content text NOT NULL,
        priority bigint NOT NULL DEFAULT 0,
        metadata jsonb NOT NULL DEFAULT '{{}}',
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        expires_at timestamptz
    )""",
    "CREATE INDEX awareness_expires ON {s}.awareness (expires_at)",
    """CREATE TABLE {s}.sessions (
        id text PRIMARY KEY,
        project_id text,
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
        summary text NOT NULL DEFAULT '',
        opened_at timestamptz NOT NULL,
        closed_at timestamptz,
        updated_at timestamptz NOT NULL
    )""",
    "CREATE INDEX sessions_project ON {s}.sessions (project_id, opened_at)",
    """INSERT INTO {s}.sessions (id, status, opened_at, updated_at)
        SELECT session_id, 'open', min(created_at), max(created_at) FROM {s}.memories
        WHERE session_id IS NOT NULL GROUP BY session_id ON CONFLICT DO NOTHING""",
    """CREATE TABLE {s}.kg_entities (
        id text PRIMARY KEY,
        entity_type text NOT NULL,
        name text NOT NULL,
        name_key text NOT NULL,
        properties jsonb NOT NULL DEFAULT '{{}}',
        confidence double precision NOT NULL CHECK (confidence BETWEEN 0 AND 1),
        valid_from timestamptz NOT NULL,
        valid_to timestamptz,
        recorded_at timestamptz NOT NULL,
        CHECK (valid_to IS NULL OR valid_to >= valid_from)
    )""",
    "CREATE INDEX kg_entities_key ON {s}.kg_entities (name_key)",
    "CREATE INDEX kg_entities_type ON {s}.kg_entities (entity_type, name_key)",
    """CREATE TABLE {s}.kg_aliases (
        alias_key text NOT NULL,
        entity_id text NOT NULL REFERENCES {s}.kg_entities (id) ON DELETE CASCADE,
        alias text NOT NULL,
        PRIMARY KEY (alias_key, entity_id)
    )""",
    "CREATE INDEX kg_aliases_entity ON {s}.kg_aliases (entity_id)",
    """CREATE TABLE {s}.kg_relations (
        id text PRIMARY KEY,
        source_id text NOT NULL REFERENCES {s}.kg_entities (id) ON DELETE CASCADE,
        target_id text NOT NULL REFERENCES {s}.kg_entities (id) ON DELETE CASCADE,
        relation_type text NOT NULL,
        confidence double precision NOT NULL CHECK (confidence BETWEEN 0 AND 1),
        properties jsonb NOT NULL DEFAULT '{{}}',
        valid_from timestamptz NOT NULL,
        valid_to timestamptz,
        recorded_at timestamptz NOT NULL,
        CHECK (valid_to IS NULL OR valid_to >= valid_from)
    )""",
    "CREATE INDEX kg_relations_source ON {s}.kg_relations (source_id)",
    "CREATE INDEX kg_relations_target ON {s}.kg_relations (target_id)",
    """CREATE TABLE {s}.memory_entity_links (
        pk bigint NOT NULL REFERENCES {s}.memories (pk) ON DELETE CASCADE,
        entity_id text NOT NULL REFERENCES {s}.kg_entities (id) ON DELETE CASCADE,
        PRIMARY KEY (entity_id, pk)
    )""",
    "CREATE INDEX memory_entity_links_pk ON {s}.memory_entity_links (pk)",
)
# -- knowledge graph provenance (issue 14): the memory a relation was stated in ----------------
MIGRATION_GRAPH_PROVENANCE = (
    "ALTER TABLE {s}.kg_relations ADD COLUMN memory_id text",
    "CREATE INDEX kg_relations_memory ON {s}.kg_relations (memory_id) "
    "WHERE memory_id IS NOT NULL",
    "CREATE INDEX kg_relations_open ON {s}.kg_relations (source_id, relation_type) "
    "WHERE valid_to IS NULL",
)
MIGRATION_MENTION_LINKS = (
    "ALTER TABLE {s}.memory_entity_links ADD COLUMN kind text NOT NULL DEFAULT 'entity'",
)
# -- retrieval counters off the indexed row (issue 21): see RECORD_RETRIEVALS --------------------
# fillfactor 50: an upsert of an existing side row changes no indexed column and finds room on
# its page, so it is a HOT update (no index entry at all).
MIGRATION_RETRIEVAL_COUNTERS = (
    """CREATE TABLE {s}.memory_retrievals (
        pk bigint PRIMARY KEY,
        retrievals bigint NOT NULL CHECK (retrievals > 0),
        last_retrieved_at timestamptz NOT NULL,
        salience double precision NOT NULL CHECK (salience BETWEEN 1 AND 10)
    ) WITH (fillfactor = 50)""",
)


LOCK_SESSION = "SELECT id FROM {s}.sessions WHERE id = %s FOR UPDATE"
# rows of another item at (session, t): the chunks of one item share its `t`

# as-of visibility: params (t, t, t, t) — NULL means "any time"
# the write path of memory-derived facts (graph.writer): open relations of a slot, all of a memory
# links from `Memory.entities` (kind 'entity') are rebuilt on every update; links the graph
# write path adds for names a memory mentions (kind 'mention') stay

# -- catalog (store/postgres/catalog.py): the minds a server holds ------------------------------
# schemas named like a mind's that hold a meta table; each one's meta `mind` is its name
MIND_SCHEMAS = (
    "SELECT n.nspname FROM pg_catalog.pg_namespace n "
    "WHERE n.nspname LIKE 'salience\\_%' AND n.nspname NOT LIKE 'salience\\_\\_%' "
    "AND to_regclass(quote_ident(n.nspname) || '.meta') IS NOT NULL ORDER BY n.nspname"
)

# -- agent records (issue 20, design B §3/§11): procedures, improvement signals, execution
# traces, evolution runs, install audit. Columns in the order of `salience.models.agent_rows`; JSON as
# text (like the queue payloads); the statements are run by name from `store/agent_core.py`.
from ...models import agent as _agent  # noqa: E402
from ...models.agent_rows import (  # noqa: E402
    SIGNAL_COLUMNS,
)

MIGRATION_AGENT_RECORDS = (
    """CREATE TABLE {s}.procedures (
        id text PRIMARY KEY,
        name text NOT NULL,
        version integer NOT NULL CHECK (version >= 1),
        template text NOT NULL,
        description text NOT NULL DEFAULT '',
        metadata text NOT NULL DEFAULT '{{}}',
        parent_id text REFERENCES {s}.procedures (id) ON DELETE SET NULL,
        active boolean NOT NULL DEFAULT false,
        runs integer NOT NULL DEFAULT 0,
        successes integer NOT NULL DEFAULT 0,
        success_rate double precision NOT NULL DEFAULT 0,
        avg_cost double precision NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (name, version)
    )""",
    "CREATE UNIQUE INDEX procedures_one_active ON {s}.procedures (name) WHERE active",
    f"""CREATE TABLE {{s}}.improvement_signals (
        id text PRIMARY KEY,
        category text NOT NULL CHECK (category IN ({_in(_agent.SignalCategory)})),
        pattern_key text NOT NULL,
        note text NOT NULL DEFAULT '',
        count integer NOT NULL DEFAULT 1,
        surfaced boolean NOT NULL DEFAULT false,
        surfaced_at timestamptz,
        metadata text NOT NULL DEFAULT '{{{{}}}}',
        first_seen_at timestamptz NOT NULL,
        last_seen_at timestamptz NOT NULL,
        UNIQUE (category, pattern_key)
    )""",
    f"""CREATE TABLE {{s}}.execution_traces (
        id text PRIMARY KEY,
        task text NOT NULL,
        outcome text NOT NULL CHECK (outcome IN ({_in(_agent.TraceOutcome)})),
        trace_json text NOT NULL,
        procedure_id text,
        session_id text,
        cost double precision,
        duration_ms double precision,
        metadata text NOT NULL DEFAULT '{{{{}}}}',
        created_at timestamptz NOT NULL
    )""",
    "CREATE INDEX execution_traces_created ON {s}.execution_traces (created_at, id)",
    "CREATE INDEX execution_traces_outcome ON {s}.execution_traces (outcome, created_at)",
    "CREATE INDEX execution_traces_procedure ON {s}.execution_traces (procedure_id, created_at)",
    f"""CREATE TABLE {{s}}.evolution_runs (
        id text PRIMARY KEY,
        target text NOT NULL,
        kind text NOT NULL CHECK (kind IN ({_in(_agent.EvolutionKind)})),
        status text NOT NULL CHECK (status IN ({_in(_agent.EvolutionStatus)})),
        description text NOT NULL DEFAULT '',
        baseline_id text,
        candidate_id text,
        proposal text NOT NULL DEFAULT '{{{{}}}}',
        baseline_metrics text NOT NULL DEFAULT '{{{{}}}}',
        candidate_metrics text NOT NULL DEFAULT '{{{{}}}}',
        reason text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL,
        decided_at timestamptz
    )""",
    "CREATE INDEX evolution_runs_target ON {s}.evolution_runs (target, created_at)",
    f"""CREATE TABLE {{s}}.install_audit (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text NOT NULL UNIQUE,
        capability text NOT NULL,
        kind text NOT NULL CHECK (kind IN ({_in(_agent.InstallKind)})),
        action text NOT NULL CHECK (action IN ({_in(_agent.InstallAction)})),
        risk text NOT NULL CHECK (risk IN ({_in(_agent.InstallRisk)})),
        trust_source text NOT NULL,
        approval_class text NOT NULL,
        details text NOT NULL DEFAULT '{{{{}}}}',
        created_at timestamptz NOT NULL
    )""",
    "CREATE INDEX install_audit_capability ON {s}.install_audit (capability, seq)",
    """CREATE FUNCTION {s}.install_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS
    $$ BEGIN RAISE EXCEPTION 'install_audit is append-only'; END $$""",
    """CREATE TRIGGER install_audit_no_change BEFORE UPDATE OR DELETE ON {s}.install_audit
    FOR EACH ROW EXECUTE FUNCTION {s}.install_audit_append_only()""",
    """CREATE TRIGGER install_audit_no_truncate BEFORE TRUNCATE ON {s}.install_audit
    FOR EACH STATEMENT EXECUTE FUNCTION {s}.install_audit_append_only()""",
)


SIGNAL_UPSERT = (
    "INSERT INTO {s}.improvement_signals AS g (id, category, pattern_key, note, count, "
    "surfaced, metadata, first_seen_at, last_seen_at) VALUES (%s, %s, %s, %s, 1, %s, %s, %s, %s) "
    "ON CONFLICT (category, pattern_key) DO UPDATE SET "
    "count = g.count + 1, last_seen_at = excluded.last_seen_at, "
    "note = CASE WHEN excluded.note <> '' THEN excluded.note ELSE g.note END, "
    "metadata = (g.metadata::jsonb || excluded.metadata::jsonb)::text "
    f"RETURNING {', '.join(SIGNAL_COLUMNS)}"
)



# -- stored claims (issue 21): derived rows, one per memory (see sqlite/sql.py). No foreign key,
# as memory_retrievals: an upsert's key-share lock on the memory row would wait on an update
# holding it while that update deletes the claims row the upsert holds. Deletes are explicit
# (DELETE_CLAIMS_OF before DELETE_BY_IDS); reads join the memory row.
MIGRATION_MEMORY_CLAIMS = (
    """CREATE TABLE {s}.memory_claims (
        pk bigint PRIMARY KEY,
        version integer NOT NULL,
        text_key text NOT NULL,
        claims text NOT NULL
    )""",
)
