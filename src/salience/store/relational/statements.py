"""The statements SQLite and PostgreSQL share, written once over the dialect's atoms.

`statements(d)` renders every one of them for one backend; each backend's `sql.py` adds them
to its own names (`globals().update(...)`), next to what only it has (DDL and frozen
migrations, full text, vectors, locks, the few statements whose SQL really differs).
`tests/store/test_relational_golden.py` renders both dialects and compares every statement
with the text the backends ran before the shared core existed.
"""

from __future__ import annotations

from ...models.agent_rows import (
    AUDIT_COLUMNS,
    EVOLUTION_COLUMNS,
    PROCEDURE_COLUMNS,
    SIGNAL_COLUMNS,
    TRACE_COLUMNS,
)
from .columns import (
    AWARENESS_COLUMNS,
    IDENTITY_COLUMNS,
    INTERACTION_COLUMNS,
    MEMORY_FIELDS,
    SESSION_COLUMNS,
)
from .dialect import Dialect


def statements(d: Dialect, *, aliases: str) -> dict[str, str]:
    """Every shared statement of dialect `d`, by name. `aliases` is the backend's expression
    of an entity's alias list (JSON), the one fragment of the entity columns that differs."""
    t, any_, typed = d.t, d.any, d.typed
    s: dict[str, str] = {}

    def marks(n: int) -> str:
        return ", ".join("?" for _ in range(n))

    # -- meta -----------------------------------------------------------------------------
    s["GET_META"] = f"SELECT value FROM {t('meta')} WHERE key = ?"
    s["SET_META"] = (
        f"INSERT INTO {t('meta')} (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
    )

    # -- memories ---------------------------------------------------------------------------
    cols = ", ".join(d.col(c) for c in MEMORY_FIELDS)
    select = f"SELECT m.pk, {cols} FROM {t('memories')} m"
    s["SELECT_MEMORY"] = select
    s["GET_BY_ID"] = select + " WHERE m.id = ?"
    s["GET_BY_ID_FOR_UPDATE"] = s["GET_BY_ID"] + d.for_update
    s["GET_BY_IDS"] = select + f" WHERE {any_('m.id')}"
    s["PREDECESSORS"] = select + " WHERE m.superseded_by = ? ORDER BY m.created_at, m.pk"
    s["SESSION_FRAMES"] = (
        select + f" WHERE m.session_id = ? AND ({typed('text')} IS NULL OR m.frame_type = ?) "
        f"AND ({typed('text')} IS NULL OR m.base_frame_id = ?) ORDER BY m.t, m.pk"
    )
    #: a window of a session's turns (neighbouring-turn context, issue 15)
    s["SESSION_TURNS"] = select + " WHERE m.session_id = ? AND m.t BETWEEN ? AND ? ORDER BY m.t, m.pk"
    s["LIST_MEMORIES"] = (
        select + f" WHERE {d.true} {{where}} ORDER BY {{order}} LIMIT ? OFFSET ?"
    )
    s["COUNT_MATCHING"] = f"SELECT count(*) FROM {t('memories')} m WHERE {d.true} {{where}}"
    s["PK_BY_ID"] = f"SELECT pk FROM {t('memories')} WHERE id = ?"
    s["FIND_BY_HASH"] = (
        f"SELECT id FROM {t('memories')} WHERE content_hash = ? ORDER BY pk LIMIT 1"
    )
    s["FIND_BY_HASHES"] = (
        f"SELECT content_hash, id FROM {t('memories')} WHERE {any_('content_hash', None)} "
        "ORDER BY pk DESC"
    )
    s["DELETE_BY_IDS"] = f"DELETE FROM {t('memories')} WHERE {any_('id')} RETURNING pk"
    #: a deleted memory takes the graph facts it was the evidence of with it
    s["DELETE_RELATIONS_OF"] = f"DELETE FROM {t('kg_relations')} WHERE {any_('memory_id')}"
    # filter fragments over alias `m` (relational/filters.py; tags, entities and an id prefix
    # are the backend's own)
    s["F_NOT_SUPERSEDED"] = "m.superseded_by IS NULL"
    for name, column in (("TYPES", "memory_type"), ("SOURCES", "source"),
                         ("IMPORTANCE", "importance"), ("IDS", "id")):
        s[f"F_{name}"] = any_(f"m.{column}")
    s["F_SESSION"] = "m.session_id = ?"
    s["F_SINCE"] = "m.created_at >= ?"
    s["F_UNTIL"] = "m.created_at < ?"
    s["F_MIN_SALIENCE"] = f"{d.col('salience')} >= ?"
    # -- stored claims (issue 21; relational/claims.py): derived rows keyed by the memory row --
    key = "m.memory_type || ':' || m.content_hash"  # what `claims.text_key` computes
    s["CLAIMS_OF"] = (
        f"SELECT m.id, c.version, c.text_key, c.claims FROM {t('memories')} m "
        f"JOIN {t('memory_claims')} c ON c.pk = m.pk WHERE {any_('m.id')}"
    )
    s["UPSERT_CLAIMS"] = (
        f"INSERT INTO {t('memory_claims')} (pk, version, text_key, claims) "
        f"SELECT m.pk, {typed('integer')}, {typed('text')}, {typed('text')} FROM {t('memories')} m "
        f"WHERE m.id = ? AND {key} = ? "
        "ON CONFLICT (pk) DO UPDATE SET version = excluded.version, "
        "text_key = excluded.text_key, claims = excluded.claims"
    )
    s["DELETE_CLAIMS_CHANGED"] = (
        f"DELETE FROM {t('memory_claims')} WHERE pk IN "
        f"(SELECT m.pk FROM {t('memories')} m WHERE m.id = ?) AND text_key <> ?"
    )
    s["DELETE_CLAIMS_OF"] = (
        f"DELETE FROM {t('memory_claims')} WHERE pk IN "
        f"(SELECT m.pk FROM {t('memories')} m WHERE {any_('m.id')})"
    )
    s["CLAIMS_MISSING"] = (
        select + f" LEFT JOIN {t('memory_claims')} c ON c.pk = m.pk "
        f"WHERE c.pk IS NULL OR c.version <> ? OR c.text_key <> {key} ORDER BY m.pk LIMIT ?"
    )
    s["CLAIMS_COUNTS"] = (
        f"SELECT count(*), coalesce(sum(CASE WHEN c.version = ? THEN 1 ELSE 0 END), 0) "
        f"FROM {t('memory_claims')} c JOIN {t('memories')} m ON m.pk = c.pk"
    )
    s["STATS_BY_TYPE"] = f"SELECT memory_type, count(*) FROM {t('memories')} GROUP BY memory_type"
    s["STATS_SUPERSEDED"] = (
        f"SELECT count(*) FROM {t('memories')} WHERE superseded_by IS NOT NULL"
    )

    # -- BM25 postings (the tables; their writes stay per backend) ----------------------------
    s["TEXT_IDS"] = (
        f"SELECT m.pk, m.id FROM {t('memories')} m WHERE {any_('m.pk', None)} {{where}}"
    )
    s["TERMS_SOURCE"] = (
        f"SELECT pk, content, summary, entities FROM {t('memories')} WHERE pk > ? "
        "ORDER BY pk LIMIT ?"
    )
    s["TERM_POSTINGS"] = f"SELECT pk, tf, len FROM {t('memory_terms')} WHERE term = ?"
    s["TERM_POSTINGS_FOR"] = (
        f"SELECT pk, tf, len FROM {t('memory_terms')} WHERE term = ? AND {any_('pk', None)}"
    )
    s["TEXT_TOTALS"] = f"SELECT count(*), coalesce(sum(len), 0) FROM {t('memory_lengths')}"
    s["POSTINGS_COVER"] = (
        f"SELECT (SELECT count(*) FROM {t('memories')}) = "
        f"(SELECT count(*) FROM {t('memory_lengths')})"
    )

    # -- ingestion: queues (`{q}`: the queue's table), failed operations, harvest, events ------
    qcols = "id, kind, payload, attempts, last_error, enqueued_at, next_attempt_at"
    q = t("{q}")
    s["QUEUE_INSERT"] = (
        f"INSERT INTO {q} (kind, payload, attempts, last_error, enqueued_at, next_attempt_at) "
        f"VALUES (?, ?, ?, ?, ?, ?){d.returning_id}"
    )
    s["QUEUE_DUE"] = f"SELECT {qcols} FROM {q} WHERE next_attempt_at <= ? ORDER BY id LIMIT ?"
    s["QUEUE_ALL"] = f"SELECT {qcols} FROM {q} ORDER BY id LIMIT ?"
    s["QUEUE_LOCK"] = f"SELECT {qcols} FROM {q} WHERE id = ?{d.for_update}"
    s["QUEUE_DELETE"] = f"DELETE FROM {q} WHERE id = ?{d.returning_id}"
    s["QUEUE_RESCHEDULE"] = (
        f"UPDATE {q} SET attempts = ?, last_error = ?, next_attempt_at = ? WHERE id = ?"
    )
    s["QUEUE_COUNT"] = f"SELECT count(*) FROM {q}"
    fcols = "id, queue, kind, payload, attempts, error, enqueued_at, failed_at"
    s["FAILED_INSERT"] = (
        f"INSERT INTO {t('failed_operations')} "
        "(queue, kind, payload, attempts, error, enqueued_at, failed_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)"
    )
    s["FAILED_LIST"] = f"SELECT {fcols} FROM {t('failed_operations')} ORDER BY id DESC LIMIT ?"
    s["FAILED_ALL_ASC"] = f"SELECT {fcols} FROM {t('failed_operations')} ORDER BY id{d.for_update}"
    s["FAILED_BY_IDS"] = (
        f"SELECT {fcols} FROM {t('failed_operations')} WHERE {any_('id', 'bigint')} "
        f"ORDER BY id{d.for_update}"
    )
    s["FAILED_DELETE"] = f"DELETE FROM {t('failed_operations')} WHERE id = ?"
    s["FAILED_COUNT"] = f"SELECT count(*) FROM {t('failed_operations')}"
    s["HARVEST_MARK"] = (
        f"INSERT INTO {t('harvest_items')} (kind, item_key, source, status, processed_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (kind, item_key) DO UPDATE SET "
        "status = excluded.status, processed_at = excluded.processed_at"
    )
    s["HARVEST_SEEN"] = (
        f"SELECT item_key FROM {t('harvest_items')} WHERE kind = ? AND {any_('item_key')}"
    )
    s["HARVEST_SOURCE_UPSERT"] = (
        f"INSERT INTO {t('harvest_sources')} (source, kind, last_sync_at, state) "
        "VALUES (?, ?, ?, ?) ON CONFLICT (source) DO UPDATE SET kind = excluded.kind, "
        "last_sync_at = excluded.last_sync_at, state = excluded.state"
    )
    s["HARVEST_SOURCES"] = (
        "SELECT s.source, s.kind, s.last_sync_at, s.state, "
        f"(SELECT count(*) FROM {t('harvest_items')} i WHERE i.source = s.source) "
        f"FROM {t('harvest_sources')} s ORDER BY s.source"
    )
    s["EVENT_INSERT"] = (
        f"INSERT INTO {t('mind_events')} (kind, memory_id, related_id, payload, created_at) "
        "VALUES (?, ?, ?, ?, ?)"
    )
    ecols = "id, kind, memory_id, related_id, payload, created_at"
    s["EVENTS_ALL"] = f"SELECT {ecols} FROM {t('mind_events')} ORDER BY id DESC LIMIT ?"
    s["EVENTS_OF_KIND"] = (
        f"SELECT {ecols} FROM {t('mind_events')} WHERE kind = ? ORDER BY id DESC LIMIT ?"
    )
    icols = ", ".join(INTERACTION_COLUMNS)
    s["INTERACTION_INSERT"] = (
        f"INSERT INTO {t('ai_interactions')} ({icols}) "
        f"VALUES ({marks(len(INTERACTION_COLUMNS))})"
    )
    s["INTERACTIONS_LIST"] = (
        f"SELECT id, {icols} FROM {t('ai_interactions')} ORDER BY id DESC LIMIT ?"
    )
    s["INTERACTIONS_PURGE"] = f"DELETE FROM {t('ai_interactions')} WHERE created_at < ?"

    # -- maintenance ------------------------------------------------------------------------
    s["MAINTENANCE_LOG_INSERT"] = (
        f"INSERT INTO {t('maintenance_log')} (kind, count, ids, details, created_at) "
        f"VALUES (?, ?, ?, ?, ?){d.returning_id}"
    )
    s["MAINTENANCE_LOG_LIST"] = (
        f"SELECT id, kind, count, ids, details, created_at FROM {t('maintenance_log')} "
        f"WHERE ({typed('text')} IS NULL OR kind = {typed('text')}) ORDER BY id DESC LIMIT ?"
    )
    s["LEASE_RELEASE"] = f"DELETE FROM {t('leases')} WHERE name = ? AND holder = ?"

    # -- layers: identity, awareness, sessions, time travel -----------------------------------
    s["GET_IDENTITY"] = f"SELECT {IDENTITY_COLUMNS} FROM {t('identity')} WHERE id = 1"
    s["INSERT_IDENTITY"] = (
        f"INSERT INTO {t('identity')} (id, {IDENTITY_COLUMNS}) "
        f"VALUES (1, {marks(9)}) ON CONFLICT (id) DO NOTHING"
    )
    s["UPDATE_IDENTITY"] = (
        f"UPDATE {t('identity')} SET name = ?, role = ?, department = ?, personality = ?, "
        "capabilities = ?, system_prompt = ?, traits = ?, created_at = ?, updated_at = ? "
        "WHERE id = 1"
    )
    active = "(expires_at IS NULL OR expires_at > ?)"
    s["INSERT_AWARENESS"] = (
        f"INSERT INTO {t('awareness')} ({AWARENESS_COLUMNS}) VALUES ({marks(8)})"
    )
    s["COUNT_ACTIVE_AWARENESS"] = f"SELECT count(*) FROM {t('awareness')} WHERE {active}"
    s["GET_AWARENESS"] = f"SELECT {AWARENESS_COLUMNS} FROM {t('awareness')} WHERE id = ?"
    s["LIST_AWARENESS"] = (
        f"SELECT {AWARENESS_COLUMNS} FROM {t('awareness')} "
        f"WHERE {active} AND ({typed('text')} IS NULL OR category = ?) "
        "ORDER BY priority DESC, created_at, id LIMIT ?"
    )
    s["UPDATE_AWARENESS"] = (
        f"UPDATE {t('awareness')} SET category = ?, content = ?, priority = ?, metadata = ?, "
        "created_at = ?, updated_at = ?, expires_at = ? WHERE id = ?"
    )
    s["DELETE_AWARENESS"] = f"DELETE FROM {t('awareness')} WHERE id = ?"
    s["PURGE_AWARENESS"] = (
        f"DELETE FROM {t('awareness')} WHERE expires_at IS NOT NULL AND expires_at <= ?"
    )
    s["INSERT_SESSION"] = (
        f"INSERT INTO {t('sessions')} ({SESSION_COLUMNS}) VALUES ({marks(7)}) "
        "ON CONFLICT (id) DO NOTHING"
    )
    s["REGISTER_SESSION"] = (
        f"INSERT INTO {t('sessions')} (id, status, opened_at, updated_at) "
        "VALUES (?, 'open', ?, ?) ON CONFLICT (id) DO NOTHING"
    )
    s["GET_SESSION"] = f"SELECT {SESSION_COLUMNS} FROM {t('sessions')} WHERE id = ?"
    s["UPDATE_SESSION"] = (
        f"UPDATE {t('sessions')} SET project_id = ?, status = ?, summary = ?, opened_at = ?, "
        "closed_at = ?, updated_at = ? WHERE id = ?"
    )
    s["LIST_SESSIONS"] = (
        f"SELECT {SESSION_COLUMNS} FROM {t('sessions')} "
        f"WHERE ({typed('text')} IS NULL OR project_id = ?) "
        f"AND ({typed('text')} IS NULL OR status = ?) ORDER BY opened_at DESC, id DESC LIMIT ?"
    )
    s["NEXT_T"] = f"SELECT coalesce(max(t), 0) + 1 FROM {t('memories')} WHERE session_id = ?"
    # rows of another item at (session, t): the chunks of one item share its `t`
    s["COUNT_T"] = (
        f"SELECT count(*) FROM {t('memories')} WHERE session_id = ? AND t = ? "
        "AND coalesce(parent_id, id) <> ?"
    )
    s["SET_T"] = f"UPDATE {t('memories')} SET t = ? WHERE pk = ?"
    s["FRAME_BASE"] = f"SELECT frame_type, session_id FROM {t('memories')} WHERE id = ?"
    s["SET_SUPERSEDED_AT"] = (
        f"UPDATE {t('memories')} SET superseded_at = CASE WHEN superseded_by IS NULL THEN NULL "
        "ELSE coalesce(superseded_at, ?) END WHERE pk = ?"
    )
    s["VISIBLE_AS_OF"] = (
        f"SELECT id FROM {t('memories')} WHERE {any_('id')} AND created_at <= ? "
        "AND (superseded_at IS NULL OR superseded_at > ?)"
    )

    # -- knowledge graph ----------------------------------------------------------------------
    ecols_ = (
        "e.id, e.entity_type, e.name, e.properties, e.confidence, e.valid_from, e.valid_to, "
        f"e.recorded_at, {aliases}"
    )
    s["ENTITY_COLUMNS"] = ecols_

    def visible(a: str) -> str:  # as-of visibility: params (t, t, t, t), NULL = any time
        return (
            f"({typed('timestamptz')} IS NULL OR ({a}.recorded_at <= ? AND {a}.valid_from <= ? "
            f"AND ({a}.valid_to IS NULL OR {a}.valid_to > ?)))"
        )

    s["INSERT_ENTITY_ROW"] = (
        f"INSERT INTO {t('kg_entities')} (id, entity_type, name, name_key, properties, "
        f"confidence, valid_from, valid_to, recorded_at) VALUES ({marks(9)})"
    )
    s["UPDATE_ENTITY_ROW"] = (
        f"UPDATE {t('kg_entities')} SET entity_type = ?, name = ?, name_key = ?, "
        "properties = ?, confidence = ?, valid_from = ?, valid_to = ?, recorded_at = ? "
        "WHERE id = ?"
    )
    s["INSERT_ALIAS"] = d.insert_ignore(
        "kg_aliases", "(alias_key, entity_id, alias) VALUES (?, ?, ?)"
    )
    s["DELETE_ALIASES"] = f"DELETE FROM {t('kg_aliases')} WHERE entity_id = ?"
    s["GET_ENTITIES"] = f"SELECT {ecols_} FROM {t('kg_entities')} e WHERE {any_('e.id')}"
    s["FIND_ENTITIES"] = (
        f"SELECT {ecols_}, ({any_('e.name_key')}) AS by_name FROM {t('kg_entities')} e "
        f"WHERE {any_('e.name_key')} OR e.id IN "
        f"(SELECT entity_id FROM {t('kg_aliases')} WHERE {any_('alias_key')}) "
        "ORDER BY by_name DESC, (e.valid_to IS NULL) DESC, e.recorded_at, e.id"
    )
    s["LIST_ENTITIES"] = (
        f"SELECT {ecols_} FROM {t('kg_entities')} e WHERE {visible('e')} "
        f"AND ({typed('text')} IS NULL OR e.entity_type = ?) "
        "ORDER BY e.name_key, e.id LIMIT ? OFFSET ?"
    )
    rcols = (
        "r.id, r.source_id, r.target_id, r.relation_type, r.confidence, r.properties, "
        "r.valid_from, r.valid_to, r.recorded_at, r.memory_id"
    )
    s["RELATION_COLUMNS"] = rcols
    s["INSERT_RELATION_ROW"] = (
        f"INSERT INTO {t('kg_relations')} (id, source_id, target_id, relation_type, "
        f"confidence, properties, valid_from, valid_to, recorded_at, memory_id) "
        f"VALUES ({marks(10)})"
    )
    s["UPDATE_RELATION_ROW"] = (
        f"UPDATE {t('kg_relations')} SET source_id = ?, target_id = ?, relation_type = ?, "
        "confidence = ?, properties = ?, valid_from = ?, valid_to = ?, recorded_at = ?, "
        "memory_id = ? WHERE id = ?"
    )
    # the write path of memory-derived facts: open relations of a slot, all of a memory
    s["OPEN_RELATIONS_FROM"] = (
        f"SELECT {rcols} FROM {t('kg_relations')} r WHERE r.source_id = ? "
        f"AND ({typed('text')} IS NULL OR r.relation_type = ?) AND r.valid_to IS NULL "
        "ORDER BY r.valid_from, r.id"
    )
    s["RELATIONS_OF_MEMORY"] = (
        f"SELECT {rcols} FROM {t('kg_relations')} r WHERE r.memory_id = ? "
        "ORDER BY r.valid_from, r.id"
    )
    s["END_RELATION"] = (
        f"UPDATE {t('kg_relations')} SET valid_to = ?, properties = ? WHERE id = ?"
    )
    s["SET_ENTITY_TYPE"] = f"UPDATE {t('kg_entities')} SET entity_type = ? WHERE id = ?"
    s["GET_RELATION"] = f"SELECT {rcols} FROM {t('kg_relations')} r WHERE r.id = ?"
    s["ENTITY_EXISTS"] = f"SELECT id FROM {t('kg_entities')} WHERE {any_('id')}"
    s["RELATIONS_OF"] = (  # the list twice: source ids, then target ids (same values)
        f"SELECT {rcols} FROM {t('kg_relations')} r "
        f"WHERE ({any_('r.source_id')} OR {any_('r.target_id')}) AND {visible('r')} "
        f"AND ({typed('text')} IS NULL OR r.relation_type = ?) ORDER BY r.recorded_at, r.id"
    )
    links = f"{t('memory_entity_links')} l JOIN {t('memories')} m ON m.pk = l.pk"
    s["ENTITY_MEMORY_LINKS"] = (
        f"SELECT m.id, l.entity_id FROM {links} WHERE {any_('l.entity_id')} ORDER BY m.pk"
    )
    s["MEMORY_ENTITY_IDS"] = (
        f"SELECT m.id, l.entity_id FROM {links} WHERE {any_('m.id')} "
        "ORDER BY m.pk, l.entity_id"
    )
    s["INSERT_LINK"] = d.insert_ignore(
        "memory_entity_links", "(pk, entity_id) VALUES (?, ?)"
    )
    # links from `Memory.entities` (kind 'entity') are rebuilt on every update; links the
    # graph write path adds for names a memory mentions (kind 'mention') stay
    s["DELETE_LINKS"] = f"DELETE FROM {t('memory_entity_links')} WHERE pk = ? AND kind = 'entity'"
    s["INSERT_MENTION_LINK"] = (
        f"INSERT INTO {t('memory_entity_links')} (pk, entity_id, kind) "
        f"SELECT pk, ?, 'mention' FROM {t('memories')} WHERE id = ? "
        "ON CONFLICT (entity_id, pk) DO UPDATE SET kind = 'mention'"
    )
    s["GRAPH_COUNTS"] = "SELECT " + ", ".join(
        f"(SELECT count(*) FROM {t(x)})"
        for x in ("kg_entities", "kg_relations", "memory_entity_links", "sessions", "awareness")
    )
    s.update(_agent_statements(d))
    return {name: d.render(text) for name, text in s.items()}


def _agent_statements(d: Dialect) -> dict[str, str]:
    """The agent records' statements (run by name from `store/agent_core.py`)."""
    t, typed = d.t, d.typed
    s: dict[str, str] = {}

    def insert(table: str, cols: tuple[str, ...]) -> str:
        marks = ", ".join("?" for _ in cols)
        return (
            f"INSERT INTO {t(table)} ({', '.join(cols)}) VALUES ({marks}) "
            "ON CONFLICT DO NOTHING RETURNING id"
        )

    proc = ", ".join(PROCEDURE_COLUMNS)
    s["PROC_INSERT"] = insert("procedures", PROCEDURE_COLUMNS)
    s["PROC_GET"] = f"SELECT {proc} FROM {t('procedures')} WHERE id = ?"
    s["PROC_GET_FOR_UPDATE"] = s["PROC_GET"] + d.for_update
    s["PROC_VERSIONS"] = f"SELECT {proc} FROM {t('procedures')} WHERE name = ? ORDER BY version"
    s["PROC_LIST"] = f"SELECT {proc} FROM {t('procedures')} ORDER BY name, version LIMIT ?"
    s["PROC_SET_STATS"] = (
        f"UPDATE {t('procedures')} SET runs = ?, successes = ?, success_rate = ?, "
        "avg_cost = ?, updated_at = ? WHERE id = ?"
    )
    s["PROC_LOCK_NAME"] = (
        f"SELECT id FROM {t('procedures')} WHERE name = ? ORDER BY id{d.for_update}"
    )
    s["PROC_DEACTIVATE"] = (
        f"UPDATE {t('procedures')} SET active = ?, updated_at = ? "
        "WHERE name = ? AND active AND id <> ?"
    )
    s["PROC_ACTIVATE"] = f"UPDATE {t('procedures')} SET active = ?, updated_at = ? WHERE id = ?"
    sig = ", ".join(SIGNAL_COLUMNS)
    s["SIGNAL_RESTORE"] = insert("improvement_signals", SIGNAL_COLUMNS)
    s["SIGNAL_GET"] = (
        f"SELECT {sig} FROM {t('improvement_signals')} WHERE category = ? AND pattern_key = ?"
    )
    s["SIGNAL_LIST"] = (
        f"SELECT {sig} FROM {t('improvement_signals')} "
        f"WHERE ({typed('text')} IS NULL OR category = ?) "
        f"AND ({typed('boolean')} IS NULL OR surfaced = ?) AND count >= ? "
        "ORDER BY count DESC, last_seen_at DESC, id LIMIT ?"
    )
    s["SIGNAL_SURFACE"] = (
        f"UPDATE {t('improvement_signals')} SET surfaced = ?, surfaced_at = ? "
        "WHERE id = ? AND NOT surfaced RETURNING id"
    )
    trace = ", ".join(TRACE_COLUMNS)
    s["TRACE_INSERT"] = insert("execution_traces", TRACE_COLUMNS)
    s["TRACE_GET"] = f"SELECT {trace} FROM {t('execution_traces')} WHERE id = ?"
    s["TRACE_LIST"] = (
        f"SELECT {trace} FROM {t('execution_traces')} "
        f"WHERE ({typed('text')} IS NULL OR outcome = ?) "
        f"AND ({typed('timestamptz')} IS NULL OR created_at >= ?) "
        f"AND ({typed('timestamptz')} IS NULL OR created_at < ?) "
        f"AND ({typed('text')} IS NULL OR procedure_id = ?) "
        "ORDER BY created_at DESC, id DESC LIMIT ?"
    )
    s["TRACE_COUNTS"] = (
        f"SELECT outcome, count(*) FROM {t('execution_traces')} GROUP BY outcome ORDER BY outcome"
    )
    doomed = (  # older than a cutoff, or past the newest `keep` rows
        f"({typed('timestamptz')} IS NOT NULL AND created_at < ?) OR id IN (SELECT id FROM "
        f"{t('execution_traces')} ORDER BY created_at DESC, id DESC {d.offset_all})"
    )
    s["TRACE_PRUNABLE"] = f"SELECT count(*) FROM {t('execution_traces')} WHERE {doomed}"
    s["TRACE_PRUNE"] = f"DELETE FROM {t('execution_traces')} WHERE {doomed}"
    calls = (
        f"({typed('timestamptz')} IS NOT NULL AND created_at < ?) OR id IN (SELECT id FROM "
        f"{t('ai_interactions')} ORDER BY id DESC {d.offset_all})"
    )
    s["INTERACTIONS_EXCESS"] = f"SELECT count(*) FROM {t('ai_interactions')} WHERE {calls}"
    s["INTERACTIONS_TRIM"] = f"DELETE FROM {t('ai_interactions')} WHERE {calls}"
    evo = ", ".join(EVOLUTION_COLUMNS)
    s["EVO_INSERT"] = insert("evolution_runs", EVOLUTION_COLUMNS)
    s["EVO_GET"] = f"SELECT {evo} FROM {t('evolution_runs')} WHERE id = ?"
    s["EVO_DECIDE"] = (
        f"UPDATE {t('evolution_runs')} SET status = ?, baseline_metrics = ?, "
        "candidate_metrics = ?, reason = ?, decided_at = ? "
        "WHERE id = ? AND status = 'proposed' RETURNING id"
    )
    s["EVO_LIST"] = (
        f"SELECT {evo} FROM {t('evolution_runs')} WHERE ({typed('text')} IS NULL OR target = ?) "
        f"AND ({typed('text')} IS NULL OR status = ?) ORDER BY created_at DESC, id DESC LIMIT ?"
    )
    audit = ", ".join(AUDIT_COLUMNS)
    s["AUDIT_INSERT"] = insert("install_audit", AUDIT_COLUMNS)
    s["AUDIT_LIST"] = (
        f"SELECT {audit} FROM {t('install_audit')} "
        f"WHERE ({typed('text')} IS NULL OR capability = ?) "
        f"AND ({typed('text')} IS NULL OR kind = ?) ORDER BY seq DESC LIMIT ?"
    )
    s["AGENT_COUNTS"] = "SELECT " + ", ".join(
        f"(SELECT count(*) FROM {t(x)})"
        for x in (
            "procedures", "improvement_signals", "execution_traces", "evolution_runs",
            "install_audit",
        )
    )
    return s
