"""The PostgreSQL layout for many minds (issue 21 item 3): one set of tables keyed by mind.

Today each mind is a schema of its own (~110 relations, ~1.25 MB of catalog and empty files per
mind whatever it holds: 100,000 minds would be ~11 M relations). Here every mind's rows live in
one set of tables in schema `salience`, keyed by a `mind_id` (bigint, from `salience.minds`):

- `mind_id` leads every primary key, every unique constraint and every index, so one mind's rows
  are one range of each index (a small mind is read, and searched exactly, through them);
- every statement names its mind (`mind_id = %s`): a statement without the predicate is not one
  of this layout's (`tests/store/test_postgres_shared_layout.py` checks the statements), so
  isolation is structural and does not depend on row-level security (which superusers bypass);
- foreign keys, where kept, include `mind_id` on both sides (co-located);
- the tables may be hash-partitioned by `mind_id` (`layout_ddl(partitions=n)`): n fixed
  partitions, so the catalog stays the same size whatever the number of minds;
- a large mind gets its own partial HNSW index (`CREATE INDEX CONCURRENTLY … WHERE mind_id = n`
  over `embedding::vector(dim)`, dim being the mind's pinned dimension), built when it crosses
  a threshold of vectors and dropped below it; small minds need none;
- the DDL is ready for Citus: distribution column `mind_id` on every table, all co-located
  (`citus_statements()`), checked by `citus_blockers()` against the live catalog.

Only the DDL, the search statements and the checks live here; see docs/architecture.md,
"Issue 21 — PostgreSQL for many minds".
"""

from __future__ import annotations

import re

from ...models import FrameType, Importance, MemoryType, Source

SCHEMA = "salience"


def _in(values: type) -> str:
    return ", ".join(f"'{v.value}'" for v in values)  # enum values are fixed identifiers


#: table -> (columns and constraints, (index definitions after the table name)). `mind_id` is the
#: first column of every key and index. No per-mind object anywhere.
TABLES: dict[str, tuple[str, tuple[str, ...]]] = {
    # the layout's own migrations (the database's, not a mind's: see SharedPostgresStore)
    "_migrations": (
        """position bigint GENERATED ALWAYS AS IDENTITY,
        name text PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()""",
        (),
    ),
    "minds": (
        """mind_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name text NOT NULL UNIQUE,
        schema_version integer NOT NULL,
        embedding_model text,
        embedding_dim integer,
        vector_index boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now()""",
        (),
    ),
    "meta": (
        """mind_id bigint NOT NULL,
        key text NOT NULL,
        value text NOT NULL,
        PRIMARY KEY (mind_id, key)""",
        (),
    ),
    "memories": (
        f"""mind_id bigint NOT NULL,
        pk bigint GENERATED ALWAYS AS IDENTITY,
        id text NOT NULL,
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
        superseded_at timestamptz,
        related_ids text[] NOT NULL DEFAULT ARRAY[]::text[],
        parent_id text,
        chunk_index bigint NOT NULL DEFAULT 0,
        session_id text,
        t bigint,
        frame_type text NOT NULL DEFAULT 'I' CHECK (frame_type IN ({_in(FrameType)})),
        base_frame_id text,
        pinned boolean NOT NULL DEFAULT false,
        occurred_at timestamptz,
        metadata json NOT NULL DEFAULT '{{}}',
        content_hash text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        embedding vector,
        PRIMARY KEY (mind_id, pk),
        UNIQUE (mind_id, id)""",
        (
            "(mind_id, content_hash)",
            "(mind_id, created_at, pk)",
            "(mind_id, (coalesce(occurred_at, created_at)), pk)",
            "(mind_id, salience, pk)",
            "(mind_id, session_id, t)",
            "(mind_id, superseded_by) WHERE superseded_by IS NOT NULL",
            "USING gin (mind_id, tags)",  # btree_gin: a mind's tag lookups stay in its range
            "USING gin (mind_id, entity_keys)",
        ),
    ),
    # the retrieval counters a search writes, folded into memories by maintenance (item 1);
    # without a foreign key, as on main (its key-share lock deadlocked an upsert and an update)
    "memory_retrievals": (
        """mind_id bigint NOT NULL,
        pk bigint NOT NULL,
        retrievals bigint NOT NULL,
        last_retrieved_at timestamptz NOT NULL,
        salience double precision NOT NULL,
        PRIMARY KEY (mind_id, pk)""",  # no foreign key: see postgres/sql.py FOLD_RETRIEVALS
        (),
    ),
    # stored claims (issue 21), derived rows; no foreign key, as memory_retrievals (postgres/sql.py)
    "memory_claims": (
        """mind_id bigint NOT NULL,
        pk bigint NOT NULL,
        version integer NOT NULL,
        text_key text NOT NULL,
        claims text NOT NULL,
        PRIMARY KEY (mind_id, pk)""",
        (),
    ),
    # Salience's BM25 postings (the same as today's), one range per (mind, term)
    "memory_terms": (
        """mind_id bigint NOT NULL,
        term text NOT NULL,
        pk bigint NOT NULL,
        tf double precision NOT NULL,
        len double precision NOT NULL,
        PRIMARY KEY (mind_id, term, pk),
        FOREIGN KEY (mind_id, pk) REFERENCES {p}memories (mind_id, pk) ON DELETE CASCADE""",
        ("(mind_id, pk)",),
    ),
    "memory_lengths": (
        """mind_id bigint NOT NULL,
        pk bigint NOT NULL,
        len double precision NOT NULL,
        PRIMARY KEY (mind_id, pk),
        FOREIGN KEY (mind_id, pk) REFERENCES {p}memories (mind_id, pk) ON DELETE CASCADE""",
        (),
    ),
    **{
        queue: (
            """mind_id bigint NOT NULL,
            id bigint GENERATED ALWAYS AS IDENTITY,
            kind text NOT NULL,
            payload text NOT NULL,
            attempts integer NOT NULL DEFAULT 0,
            last_error text,
            enqueued_at timestamptz NOT NULL,
            next_attempt_at timestamptz NOT NULL,
            PRIMARY KEY (mind_id, id)""",
            ("(mind_id, next_attempt_at, id)",),
        )
        for queue in ("pending_triage", "pending_distillation")
    },
    "failed_operations": (
        """mind_id bigint NOT NULL,
        id bigint GENERATED ALWAYS AS IDENTITY,
        queue text NOT NULL CHECK (queue IN ('triage', 'distillation')),
        kind text NOT NULL,
        payload text NOT NULL,
        attempts integer NOT NULL,
        error text NOT NULL,
        enqueued_at timestamptz NOT NULL,
        failed_at timestamptz NOT NULL,
        PRIMARY KEY (mind_id, id)""",
        (),
    ),
    "harvest_sources": (
        """mind_id bigint NOT NULL,
        source text NOT NULL,
        kind text NOT NULL,
        last_sync_at timestamptz,
        state text NOT NULL DEFAULT '{}',
        PRIMARY KEY (mind_id, source)""",
        (),
    ),
    "harvest_items": (
        """mind_id bigint NOT NULL,
        kind text NOT NULL,
        item_key text NOT NULL,
        source text NOT NULL,
        status text NOT NULL,
        processed_at timestamptz NOT NULL,
        PRIMARY KEY (mind_id, kind, item_key)""",
        ("(mind_id, source)",),
    ),
    "mind_events": (
        """mind_id bigint NOT NULL,
        id bigint GENERATED ALWAYS AS IDENTITY,
        kind text NOT NULL,
        memory_id text,
        related_id text,
        payload text NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL,
        PRIMARY KEY (mind_id, id)""",
        ("(mind_id, kind, id)",),
    ),
    "ai_interactions": (
        """mind_id bigint NOT NULL,
        id bigint GENERATED ALWAYS AS IDENTITY,
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
        attempts integer NOT NULL DEFAULT 1,
        PRIMARY KEY (mind_id, id)""",
        ("(mind_id, created_at)",),
    ),
    "maintenance_log": (
        """mind_id bigint NOT NULL,
        id bigint GENERATED ALWAYS AS IDENTITY,
        kind text NOT NULL,
        count integer NOT NULL,
        ids text[] NOT NULL DEFAULT '{}',
        details text NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL,
        PRIMARY KEY (mind_id, id)""",
        ("(mind_id, kind, id)",),
    ),
    "leases": (
        """mind_id bigint NOT NULL,
        name text NOT NULL,
        holder text NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (mind_id, name)""",
        (),
    ),
    "identity": (
        """mind_id bigint NOT NULL,
        id integer NOT NULL CHECK (id = 1),
        name text NOT NULL CHECK (length(btrim(name)) > 0),
        role text NOT NULL DEFAULT '',
        department text NOT NULL DEFAULT '',
        personality text NOT NULL DEFAULT '',
        capabilities text NOT NULL DEFAULT '',
        system_prompt text NOT NULL DEFAULT '',
        traits jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (mind_id, id)""",
        (),
    ),
    "awareness": (
        """mind_id bigint NOT NULL,
        id text NOT NULL,
        category text NOT NULL CHECK (category IN ('task', 'action', 'pending', 'flag')),
        content text NOT NULL,
        priority bigint NOT NULL DEFAULT 0,
        metadata jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        expires_at timestamptz,
        PRIMARY KEY (mind_id, id)""",
        ("(mind_id, expires_at)",),
    ),
    "sessions": (
        """mind_id bigint NOT NULL,
        id text NOT NULL,
        project_id text,
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
        summary text NOT NULL DEFAULT '',
        opened_at timestamptz NOT NULL,
        closed_at timestamptz,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (mind_id, id)""",
        ("(mind_id, project_id, opened_at)",),
    ),
    "kg_entities": (
        """mind_id bigint NOT NULL,
        id text NOT NULL,
        entity_type text NOT NULL,
        name text NOT NULL,
        name_key text NOT NULL,
        properties jsonb NOT NULL DEFAULT '{}',
        confidence double precision NOT NULL CHECK (confidence BETWEEN 0 AND 1),
        valid_from timestamptz NOT NULL,
        valid_to timestamptz,
        recorded_at timestamptz NOT NULL,
        CHECK (valid_to IS NULL OR valid_to >= valid_from),
        PRIMARY KEY (mind_id, id)""",
        ("(mind_id, name_key)", "(mind_id, entity_type, name_key)"),
    ),
    "kg_aliases": (
        """mind_id bigint NOT NULL,
        alias_key text NOT NULL,
        entity_id text NOT NULL,
        alias text NOT NULL,
        PRIMARY KEY (mind_id, alias_key, entity_id),
        FOREIGN KEY (mind_id, entity_id) REFERENCES {p}kg_entities (mind_id, id)
            ON DELETE CASCADE""",
        ("(mind_id, entity_id)",),
    ),
    "kg_relations": (
        """mind_id bigint NOT NULL,
        id text NOT NULL,
        source_id text NOT NULL,
        target_id text NOT NULL,
        relation_type text NOT NULL,
        confidence double precision NOT NULL CHECK (confidence BETWEEN 0 AND 1),
        properties jsonb NOT NULL DEFAULT '{}',
        valid_from timestamptz NOT NULL,
        valid_to timestamptz,
        recorded_at timestamptz NOT NULL,
        memory_id text,
        CHECK (valid_to IS NULL OR valid_to >= valid_from),
        PRIMARY KEY (mind_id, id),
        FOREIGN KEY (mind_id, source_id) REFERENCES {p}kg_entities (mind_id, id)
            ON DELETE CASCADE,
        FOREIGN KEY (mind_id, target_id) REFERENCES {p}kg_entities (mind_id, id)
            ON DELETE CASCADE""",
        (
            "(mind_id, source_id)",
            "(mind_id, target_id)",
            "(mind_id, memory_id) WHERE memory_id IS NOT NULL",
            "(mind_id, source_id, relation_type) WHERE valid_to IS NULL",
        ),
    ),
    "memory_entity_links": (
        """mind_id bigint NOT NULL,
        pk bigint NOT NULL,
        entity_id text NOT NULL,
        kind text NOT NULL DEFAULT 'entity',
        PRIMARY KEY (mind_id, entity_id, pk),
        FOREIGN KEY (mind_id, pk) REFERENCES {p}memories (mind_id, pk) ON DELETE CASCADE,
        FOREIGN KEY (mind_id, entity_id) REFERENCES {p}kg_entities (mind_id, id)
            ON DELETE CASCADE""",
        ("(mind_id, pk)",),
    ),
    "procedures": (
        """mind_id bigint NOT NULL,
        id text NOT NULL,
        name text NOT NULL,
        version integer NOT NULL CHECK (version >= 1),
        template text NOT NULL,
        description text NOT NULL DEFAULT '',
        metadata text NOT NULL DEFAULT '{}',
        parent_id text,
        active boolean NOT NULL DEFAULT false,
        runs integer NOT NULL DEFAULT 0,
        successes integer NOT NULL DEFAULT 0,
        success_rate double precision NOT NULL DEFAULT 0,
        avg_cost double precision NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (mind_id, id),
        UNIQUE (mind_id, name, version)""",
        ("(mind_id, name) WHERE active",),  # unique: see UNIQUE_INDEXES
    ),
    "improvement_signals": (
        """mind_id bigint NOT NULL,
        id text NOT NULL,
        category text NOT NULL,
        pattern_key text NOT NULL,
        note text NOT NULL DEFAULT '',
        count integer NOT NULL DEFAULT 1,
        surfaced boolean NOT NULL DEFAULT false,
        surfaced_at timestamptz,
        metadata text NOT NULL DEFAULT '{}',
        first_seen_at timestamptz NOT NULL,
        last_seen_at timestamptz NOT NULL,
        PRIMARY KEY (mind_id, id),
        UNIQUE (mind_id, category, pattern_key)""",
        (),
    ),
    "execution_traces": (
        """mind_id bigint NOT NULL,
        id text NOT NULL,
        task text NOT NULL,
        outcome text NOT NULL,
        trace_json text NOT NULL,
        procedure_id text,
        session_id text,
        cost double precision,
        duration_ms double precision,
        metadata text NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL,
        PRIMARY KEY (mind_id, id)""",
        (
            "(mind_id, created_at, id)",
            "(mind_id, outcome, created_at)",
            "(mind_id, procedure_id, created_at)",
        ),
    ),
    "evolution_runs": (
        """mind_id bigint NOT NULL,
        id text NOT NULL,
        target text NOT NULL,
        kind text NOT NULL,
        status text NOT NULL,
        description text NOT NULL DEFAULT '',
        baseline_id text,
        candidate_id text,
        proposal text NOT NULL DEFAULT '{}',
        baseline_metrics text NOT NULL DEFAULT '{}',
        candidate_metrics text NOT NULL DEFAULT '{}',
        reason text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL,
        decided_at timestamptz,
        PRIMARY KEY (mind_id, id)""",
        ("(mind_id, target, created_at)",),
    ),
    "install_audit": (
        """mind_id bigint NOT NULL,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        id text NOT NULL,
        capability text NOT NULL,
        kind text NOT NULL,
        action text NOT NULL,
        risk text NOT NULL,
        trust_source text NOT NULL,
        approval_class text NOT NULL,
        details text NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL,
        PRIMARY KEY (mind_id, seq),
        UNIQUE (mind_id, id)""",
        ("(mind_id, capability, seq)",),
    ),
}
_KEY_COLUMN = "mind_id bigint NOT NULL"
#: the mind a session works on, set by the store on every connection it borrows (`SET_MIND`);
#: `current_setting` raises when a session never set it, so no statement runs on no mind
MIND_SETTING = "salience.mind_id"
SESSION_MIND = f"(current_setting('{MIND_SETTING}')::bigint)"
#: the schema of one view per table (`VIEWS`), named like a mind's schema cannot be (a mind
#: name starts with a letter or digit)
VIEW_SCHEMA = "salience__mind"

#: partial unique indexes (an index of TABLES made UNIQUE)
UNIQUE_INDEXES = {("procedures", "(mind_id, name) WHERE active")}
#: `minds` is the directory (a Citus reference table); the rest are distributed by mind_id
REFERENCE_TABLES = ("_migrations", "minds")
DISTRIBUTED = tuple(t for t in TABLES if t not in REFERENCE_TABLES)


def layout_ddl(*, partitions: int = 0, schema: str = SCHEMA) -> list[str]:
    """The statements creating the layout in `schema` (idempotent: IF NOT EXISTS), with every
    distributed table hash-partitioned by `mind_id` into `partitions` parts (0: none). A row
    written without its `mind_id` (the store's COPY) takes the session's mind (`MIND_SETTING`:
    an error when the session has none)."""
    p = f"{schema}."
    out = [
        "CREATE EXTENSION IF NOT EXISTS vector",
        "CREATE EXTENSION IF NOT EXISTS btree_gin",
        f"CREATE SCHEMA IF NOT EXISTS {schema}",
    ]
    for table, (columns, indexes) in TABLES.items():
        body = columns.replace("{p}", p)
        if table in DISTRIBUTED:
            body = body.replace(_KEY_COLUMN, f"{_KEY_COLUMN} DEFAULT {SESSION_MIND}", 1)
        part = " PARTITION BY HASH (mind_id)" if partitions and table in DISTRIBUTED else ""
        out.append(f"CREATE TABLE IF NOT EXISTS {p}{table} (\n        {body}\n    ){part}")
        if part:
            for i in range(partitions):
                out.append(
                    f"CREATE TABLE IF NOT EXISTS {p}{table}_p{i} PARTITION OF {p}{table} "
                    f"FOR VALUES WITH (MODULUS {partitions}, REMAINDER {i})"
                )
        for k, definition in enumerate(indexes):
            unique = "UNIQUE " if (table, definition) in UNIQUE_INDEXES else ""
            out.append(f"CREATE {unique}INDEX IF NOT EXISTS {table}_i{k} ON {p}{table} {definition}")
    return out


def views_ddl(schema: str = SCHEMA, views: str = VIEW_SCHEMA) -> list[str]:
    """The mind's view of each distributed table: its rows only (`mind_id` = the session's
    mind), WITH CHECK OPTION so no write through it lands in another mind. The store's
    statements (postgres/sql.py) name these views through their `{s}` slot, as they name a
    mind's own schema in the schema-per-mind layout; simple views are inlined by the planner
    (the mind predicate becomes an index condition) and updatable (INSERT … ON CONFLICT,
    UPDATE … FROM, DELETE … USING, RETURNING). install_audit refuses UPDATE and DELETE
    through its view (INSTEAD OF triggers: no trigger on a distributed table)."""
    out = [f"CREATE SCHEMA IF NOT EXISTS {views}"]
    out += [
        f"CREATE OR REPLACE VIEW {views}.{t} AS SELECT * FROM {schema}.{t} "
        f"WHERE mind_id = {SESSION_MIND} WITH LOCAL CHECK OPTION"
        for t in DISTRIBUTED
    ]
    out += [
        f"""CREATE OR REPLACE FUNCTION {views}.install_audit_append_only() RETURNS trigger
        LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'install_audit is append-only'; END $$""",
        f"""CREATE OR REPLACE TRIGGER install_audit_no_change INSTEAD OF UPDATE OR DELETE
        ON {views}.install_audit FOR EACH ROW
        EXECUTE FUNCTION {views}.install_audit_append_only()""",
    ]
    return out


def for_mind(template: str, mind_id: int, schema: str = SCHEMA) -> str:
    """A statement of postgres/sql.py as it runs on one mind of the layout:

    - every table it *reads* (after FROM, JOIN, USING or a comma) becomes that mind's rows,
      `(SELECT * FROM salience.<t> WHERE mind_id = <mind_id>) <alias>`: a literal the planner
      matches to a partial index and prunes partitions with, and no session state;
    - a table it *writes* (INSERT INTO, UPDATE, DELETE FROM) stays `{s}.<t>`, the view of the
      transaction's mind (`views_ddl`; the store sets the mind in every write transaction);
    - a conflict target gains `mind_id` (every unique key leads with it);
    - COPY writes the table itself (COPY cannot write through a view; its rows take the
      transaction's mind by the column default).

    Raises `ValueError` for a table named anywhere else, so no statement reaches a table
    without its mind."""
    mid = int(mind_id)

    def read(m: re.Match[str]) -> str:
        table, alias = m.group("t"), m.group("alias") or m.group("t")
        rows = f"(SELECT * FROM {schema}.{table} WHERE mind_id = {mid})"
        return f"{m.group('kw')} {rows} {alias}"

    text = _CONFLICT.sub("ON CONFLICT (mind_id, ", template)
    text = text.replace("COPY {s}.", f"COPY {schema}.")
    text = _READ.sub(read, text)
    for m in re.finditer(r"\{s\}\.", text):
        if not _WRITE.search(text[: m.start()]):
            raise ValueError(f"a table outside FROM/JOIN/USING/INSERT/UPDATE/DELETE: {template}")
    return text


_CONFLICT = re.compile(r"ON CONFLICT \((?!mind_id\b)")
_NOT_ALIAS = (
    "WHERE|ORDER|GROUP|LIMIT|OFFSET|ON|JOIN|LEFT|RIGHT|INNER|CROSS|FULL|USING|SET|RETURNING|FOR|"
    "UNION|HAVING|WINDOW|AS|WITH"
)
_READ = re.compile(
    r"(?P<kw>(?<!DELETE )\bFROM|\bJOIN|\bUSING|,)\s+\{s\}\.(?P<t>\w+|\{q\})"
    rf"(?:\s+(?:AS\s+)?(?!(?:{_NOT_ALIAS})\b)(?P<alias>[a-z_]\w*)\b)?"
)
_WRITE = re.compile(r"(?:INSERT INTO|UPDATE|DELETE FROM)\s+$")


def citus_statements(schema: str = SCHEMA) -> list[str]:
    """What makes the layout a Citus cluster: `minds` a reference table, every other table
    distributed by `mind_id` and co-located with `memories`."""
    out = [f"SELECT create_reference_table('{schema}.{t}')" for t in REFERENCE_TABLES]
    out.append(f"SELECT create_distributed_table('{schema}.memories', 'mind_id')")
    out += [
        f"SELECT create_distributed_table('{schema}.{t}', 'mind_id', "
        f"colocate_with => '{schema}.memories')"
        for t in DISTRIBUTED
        if t != "memories"
    ]
    return out


# -- a large mind's own HNSW index (partial, on its pinned dimension) ----------------------------
def mind_index_name(mind_id: int) -> str:
    return f"memories_hnsw_m{int(mind_id)}"


def create_mind_index(
    mind_id: int,
    dim: int,
    *,
    m: int = 24,
    ef_construction: int = 200,
    table: str = "",
    name: str | None = None,
) -> str:
    """`CREATE INDEX CONCURRENTLY` of mind `mind_id`'s HNSW index (on the partition holding the
    mind when partitioned: pass it as `table`; `name`: another name, for a rebuild)."""
    mid, d = int(mind_id), int(dim)
    typ = index_type(d)
    return (
        f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name or mind_index_name(mid)} "
        f"ON {table or SCHEMA + '.memories'} "
        f"USING hnsw ((embedding::{typ}({d})) {typ}_cosine_ops) "
        f"WITH (m = {int(m)}, ef_construction = {int(ef_construction)}) WHERE mind_id = {mid}"
    )


def index_type(dim: int) -> str:
    """The type a mind's HNSW index holds: `vector` up to 2000 dimensions, `halfvec` up to 4000
    (pgvector's limits; the column keeps float32)."""
    return "vector" if int(dim) <= 2000 else "halfvec"


def drop_mind_index(mind_id: int, schema: str = SCHEMA, suffix: str = "") -> str:
    return f"DROP INDEX CONCURRENTLY IF EXISTS {schema}.{mind_index_name(mind_id)}{suffix}"


def rename_mind_index(mind_id: int, schema: str = SCHEMA) -> str:
    """A rebuild's index (`…_build`) into the mind's index's name."""
    name = mind_index_name(mind_id)
    return f"ALTER INDEX {schema}.{name}_build RENAME TO {name}"


#: exact search of a small mind: its rows through the (mind_id, pk) key, sorted by distance.
#: `{p}` is the layout's schema + "." (`stmt()`). params: query vector, mind_id, limit
VECTOR_EXACT = (
    "SELECT id, cosine_distance(embedding, %b::vector) AS dist FROM {p}memories "
    "WHERE mind_id = %s AND embedding IS NOT NULL AND superseded_by IS NULL "
    "ORDER BY dist, pk DESC LIMIT %s"
)
#: a large mind through its own partial index: the mind predicate is a literal (the planner
#: matches a partial index only on a constant), the vector cast to the mind's dimension.
#: params: query vector, query vector, limit
VECTOR_HNSW = (
    "SELECT id, embedding::vector({dim}) <=> %b::vector({dim}) AS dist FROM {p}memories "
    "WHERE mind_id = {mind_id} AND embedding IS NOT NULL AND superseded_by IS NULL "
    "ORDER BY embedding::vector({dim}) <=> %b::vector({dim}) LIMIT %s"
)
#: open a mind: its row in the directory (one index probe)
OPEN_MIND = (
    "SELECT mind_id, schema_version, embedding_dim, vector_index FROM {p}minds WHERE name = %s"
)
CREATE_MIND = (
    "INSERT INTO {p}minds (name, schema_version) VALUES (%s, %s) "
    "ON CONFLICT (name) DO NOTHING RETURNING mind_id"
)
GET_META = "SELECT value FROM {p}meta WHERE mind_id = %s AND key = %s"
#: BM25 postings of one term in one mind (the same scorer as today's, store/bm25.py)
TERM_POSTINGS = "SELECT pk, tf, len FROM {p}memory_terms WHERE mind_id = %s AND term = %s"
TEXT_TOTALS = "SELECT count(*), coalesce(sum(len), 0) FROM {p}memory_lengths WHERE mind_id = %s"
#: the hits' rows (vector hits by id, text hits by pk)
HITS = (
    "SELECT id, content, salience FROM {p}memories WHERE mind_id = %s "
    "AND (id = ANY(%s::text[]) OR pk = ANY(%s::bigint[]))"
)
#: how many vectors a mind holds, counting no further than %s (the index threshold)
VECTOR_COUNT_UPTO = (
    "SELECT count(*) FROM (SELECT 1 FROM {p}memories WHERE mind_id = %s "
    "AND embedding IS NOT NULL LIMIT %s) v"
)
#: the statements a store of this layout runs on one mind's rows (each names its mind)
MIND_STATEMENTS = (
    VECTOR_EXACT, VECTOR_HNSW, GET_META, TERM_POSTINGS, TEXT_TOTALS, HITS, VECTOR_COUNT_UPTO,
)


def stmt(template: str, schema: str = SCHEMA, **parts: object) -> str:
    """`template` on the layout in `schema` (and its other `{…}` slots filled)."""
    return template.format(p=f"{schema}.", **parts)


# -- the catalog the layout checks read (shared_layout.py) ---------------------------------------
# top-level tables of a schema and the type of their mind_id (NULL: none)
CATALOG_TABLES = (
    "SELECT c.relname, format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_class c "
    "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
    "LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attname = %s "
    "AND NOT a.attisdropped "
    "WHERE n.nspname = %s AND c.relkind IN ('r', 'p') AND NOT c.relispartition"
)
_COLS_OF = (
    "ARRAY(SELECT a.attname::text FROM unnest({keys}) WITH ORDINALITY k(num, i) "
    "JOIN pg_catalog.pg_attribute a ON a.attrelid = {rel} AND a.attnum = k.num ORDER BY k.i)"
)
CATALOG_CONSTRAINTS = (
    "SELECT c.relname, con.conname, con.contype, "
    + _COLS_OF.format(keys="con.conkey", rel="con.conrelid")
    + ", f.relname, "
    + "coalesce(" + _COLS_OF.format(keys="con.confkey", rel="con.confrelid") + ", '{}') "
    "FROM pg_catalog.pg_constraint con JOIN pg_catalog.pg_class c ON c.oid = con.conrelid "
    "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
    "LEFT JOIN pg_catalog.pg_class f ON f.oid = con.confrelid "
    "WHERE n.nspname = %s AND NOT c.relispartition AND con.contype IN ('p', 'u', 'f', 'x') "
    "AND con.conparentid = 0"
)
CATALOG_INDEXES = (
    "SELECT t.relname, i.relname, ix.indisunique, "
    "coalesce((SELECT a.attname::text FROM pg_catalog.pg_attribute a "
    "WHERE a.attrelid = t.oid AND a.attnum = ix.indkey[0]), ''), "
    "pg_catalog.pg_get_indexdef(ix.indexrelid) "
    "FROM pg_catalog.pg_index ix JOIN pg_catalog.pg_class i ON i.oid = ix.indexrelid "
    "JOIN pg_catalog.pg_class t ON t.oid = ix.indrelid "
    "JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace "
    "WHERE n.nspname = %s AND NOT t.relispartition"
)
CATALOG_TRIGGERS = (
    "SELECT c.relname, g.tgname FROM pg_catalog.pg_trigger g "
    "JOIN pg_catalog.pg_class c ON c.oid = g.tgrelid "
    "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
    "WHERE n.nspname = %s AND NOT g.tgisinternal AND NOT c.relispartition"
)
CATALOG_IDENTITIES = (
    "SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) "
    "FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid "
    "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
    "WHERE n.nspname = %s AND a.attidentity <> '' AND c.relkind IN ('r', 'p') "
    "AND NOT c.relispartition"
)


# -- the store on the layout (SharedPostgresStore) -----------------------------------------------
#: the statements of postgres/sql.py only the schema-per-mind layout runs (its migrations)
SCHEMA_LAYOUT_ONLY = ("APPLIED_MIGRATIONS", "RECORD_MIGRATION")
LAYOUT_EXISTS = f"SELECT to_regclass('{SCHEMA}._migrations') IS NOT NULL"
LAYOUT_APPLIED = f"SELECT name FROM {SCHEMA}._migrations ORDER BY position"
RECORD_LAYOUT_MIGRATION = f"INSERT INTO {SCHEMA}._migrations (name) VALUES (%s)"
FIND_MIND = f"SELECT mind_id FROM {SCHEMA}.minds WHERE name = %s"
LIST_MINDS = f"SELECT name FROM {SCHEMA}.minds ORDER BY name"
CREATE_MIND_ROW = (
    f"INSERT INTO {SCHEMA}.minds (name, schema_version) VALUES (%s, %s) RETURNING mind_id"
)
INIT_META = (
    f"INSERT INTO {SCHEMA}.meta (mind_id, key, value) VALUES (%s, %s, %s) "
    "ON CONFLICT (mind_id, key) DO NOTHING"
)
#: the mind of a write transaction (its views' rows; transaction-local: a session outside a
#: write transaction has no mind, and a statement on a view fails there)
SET_MIND_LOCAL = f"SELECT set_config('{MIND_SETTING}', %s, true)"
#: open a mind: its id with the meta it opens with, and whether its own HNSW index is built
#: (params: text_index key, dim key, name)
OPEN_MIND_ROW = (
    f"SELECT m.mind_id, t.value, d.value, coalesce((SELECT i.indisvalid "
    f"FROM pg_catalog.pg_index i WHERE i.indexrelid = "
    f"to_regclass('{SCHEMA}.memories_hnsw_m' || m.mind_id)), false) FROM {SCHEMA}.minds m "
    f"LEFT JOIN {SCHEMA}.meta t ON t.mind_id = m.mind_id AND t.key = %s "
    f"LEFT JOIN {SCHEMA}.meta d ON d.mind_id = m.mind_id AND d.key = %s WHERE m.name = %s"
)
#: a mind's rows, children before parents (the cascades would follow; explicit is cheaper)
DROP_MIND_ROWS = (
    *(
        f"DELETE FROM {SCHEMA}.{t} WHERE mind_id = %s"
        for t in sorted(DISTRIBUTED, key=lambda t: ("{p}" not in TABLES[t][0], t))
    ),
    f"DELETE FROM {SCHEMA}.minds WHERE mind_id = %s",
)
#: a mind's own HNSW index: valid (built), by its qualified name; its definition
MIND_INDEX = (
    "SELECT i.indisvalid, pg_catalog.pg_get_indexdef(i.indexrelid) FROM pg_catalog.pg_index i "
    "WHERE i.indexrelid = to_regclass(%s)"
)
#: an approximate size of a mind: its rows in the two largest tables
MIND_BYTES = (
    "SELECT (SELECT coalesce(sum(pg_column_size(m.*)), 0) FROM {s}.memories m) "
    "+ (SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM {s}.memory_terms t)"
)
ANALYZE_TABLES = f"ANALYZE {SCHEMA}.memories, {SCHEMA}.memory_terms, {SCHEMA}.memory_lengths"
#: the HNSW order over a mind's own index (its expression: the column cast to the mind's
#: dimension) and the literal predicate the planner needs to match the partial index
MIND_INDEX_ORDER = "m.embedding::{typ}({dim}) <=> %b::{typ}({dim})"
MIND_PREDICATE = " AND m.mind_id = {mind_id}"
