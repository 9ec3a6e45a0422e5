"""The HTTP API (FastAPI): thin routes over the `Mind` facade, one facade call per route.

Build it with `create_app(config)`; `salience serve` runs it with uvicorn. Every route except
`/v1/health` needs `Authorization: Bearer <key>` (keys: `salience keys create`) unless the app
was built with `insecure_local=True`, which `salience serve` only allows on 127.0.0.1.
Errors are `{"error": {"code", "message", "details"}}`; see `http_errors.STATUS`.
"""

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from ..errors import MissingExtra

try:
    from fastapi import BackgroundTasks, Depends, FastAPI, Path, Query, Request, Response
    from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
except ImportError as e:  # pragma: no cover - depends on the installed extras
    raise MissingExtra("fastapi", "server") from e

from .. import __version__
from ..clock import Clock
from ..config import Config
from ..mind import Mind
from ..models import MemoryFilter, MemoryType
from ..search.feedback import feedback_suppressed, record_retrievals
from ..store import mind_exists
from . import http_schemas as S
from .auth import INSECURE_LOCAL, Principal, Scope, ServerDB
from .http_agent import register_agent_routes
from .http_docs import install_offline_docs
from .http_errors import (
    TENANT_STATE,
    BodyLimitMiddleware,
    QuotaHeaderMiddleware,
    install_error_handlers,
)
from .http_layers import register_layer_routes
from .http_pool import MindPool, read_only
from .http_records import register_record_routes
from .quotas import quota_warning

DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024

_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": S.ErrorOut, "description": text}
    for code, text in {
        400: "Malformed JSON or unreadable request body",
        401: "Missing or invalid API key",
        403: "The key does not reach this mind, lacks write scope, or the tier forbids it",
        404: "Not found",
        409: "Conflict: the mind was built with another embedder, or the name is taken",
        413: "Request body or content too large",
        422: "Invalid request",
        429: "Monthly embedding quota exceeded",
        502: "The embedding or LLM provider failed",
        503: "Storage or embedding backend unavailable",
    }.items()
}
MindName = Annotated[
    str,
    Path(
        description="Mind name (1-64 letters, digits, '_', '-', '.').",
        examples=["assistant"],
        max_length=64,
    ),
]
MemoryIdPath = Annotated[
    str,
    Path(
        description="Memory id (32 hex characters), or a unique prefix of it such as the 12 "
        "characters the CLI shows (ambiguous: 409 `ambiguous_id` listing the matches).",
        examples=["0192f7c1a3b4c5d6e7f8091a2b3c4d5e"],
        max_length=64,
    ),
]


def create_app(
    config: Config | None = None,
    *,
    insecure_local: bool = False,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    server_db: ServerDB | None = None,
    clock: Clock | None = None,
) -> FastAPI:
    """The Salience HTTP API.

    Args:
        config: settings (data directory, backend, embedder); `Config()` by default.
        insecure_local: serve without API keys (only for a server bound to 127.0.0.1).
        max_body_bytes: request bodies over this size are refused with 413 before parsing.
        server_db: the key/tenant database; `ServerDB.for_config(config)` by default
            (`<home>/server.db`, or PostgreSQL shared by every replica with backend=postgres).
        clock: time source of the server database (quota months).
    """
    config = config or Config()
    db = server_db or ServerDB.for_config(config, clock=clock)
    pool = MindPool(config, db)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        pool.close()
        if server_db is None:
            db.close()

    app = FastAPI(
        title="Salience",
        version=__version__,
        description="Long-term memory for AI agents. Authenticate with `Authorization: Bearer <key>`.",
        lifespan=lifespan,
        responses=_ERRORS,
        docs_url=None,  # /docs and /redoc from packaged assets (http_docs): they work offline
        redoc_url=None,
    )
    install_offline_docs(app)
    app.state.pool = pool
    app.state.config = config
    app.state.server_db = db
    install_error_handlers(app)
    app.add_middleware(QuotaHeaderMiddleware, warning=lambda t: quota_warning(db, t))
    app.add_middleware(
        BodyLimitMiddleware, max_bytes=max_body_bytes, timeout_s=config.http_body_timeout_s
    )

    bearer = HTTPBearer(auto_error=False, description="An API key from `salience keys create`.")

    def principal(
        creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    ) -> Principal:
        if insecure_local:
            return INSECURE_LOCAL
        return db.authenticate(creds.credentials if creds else None)

    Caller = Annotated[Principal, Depends(principal)]

    def _mind(scope: Scope) -> Any:
        def dependency(mind: MindName, request: Request, who: Caller) -> Iterator[Mind]:
            entry = db.authorize(who, mind, scope)
            tenant = entry.tenant if entry is not None else None
            if tenant is not None:
                setattr(request.state, TENANT_STATE, tenant)
            # a lease: the pool never closes a mind a request is using (LRU eviction)
            with pool.lease(mind, tenant, create=scope == "write") as m:  # reads never create
                yield m if who.can("write") else read_only(m)

        return Depends(dependency)

    Reader = Annotated[Mind, _mind("read")]
    Writer = Annotated[Mind, _mind("write")]

    # -- service -------------------------------------------------------------------------------
    @app.get("/v1/health", response_model=S.HealthOut, tags=["service"])
    def health() -> dict[str, Any]:
        """Liveness check (no authentication)."""
        return {"status": "ok", "version": __version__}

    @app.get("/v1/minds", response_model=S.MindsOut, tags=["minds"])
    def list_minds(who: Caller) -> dict[str, Any]:
        """The minds this key reaches."""
        entries = db.minds(who.tenant) if who.tenant or who.insecure else [db.mind(who.mind or "")]
        visible = [e for e in entries if who.mind is None or e.name == who.mind]
        return {"minds": [{"name": e.name, "tenant": e.tenant} for e in visible]}

    @app.post("/v1/minds", response_model=S.MindOut, status_code=201, tags=["minds"])
    def create_mind(body: S.MindIn, who: Caller) -> dict[str, Any]:
        """Create a mind owned by the key's tenant (needs a tenant key with write scope)."""
        entry = db.create_mind(
            who,
            body.name,
            exists=lambda n: mind_exists(config, n),
            max_minds=config.tenant_max_minds,
        )
        pool.get(entry.name, entry.tenant)
        return {"name": entry.name, "tenant": entry.tenant}

    @app.get("/v1/minds/{mind}/stats", tags=["minds"])
    def stats(m: Reader) -> dict[str, Any]:
        """Counts, sizes, the pinned embedder and the salience histogram."""
        return {k: v for k, v in m.stats().items() if k != "path"}  # no server paths to clients

    # -- memories ------------------------------------------------------------------------------
    @app.post(
        "/v1/minds/{mind}/memories", response_model=S.AddOut, status_code=201, tags=["memories"]
    )
    def add_memory(body: S.MemoryIn, m: Writer) -> dict[str, Any]:
        """Store a memory as given: a direct save (no triage or admission; what it contradicts
        is superseded). Conversation turns go to `POST …/turns`. Identical content is stored
        once (its existing id is returned)."""
        return {"id": m.add(**body.model_dump())}

    @app.post(
        "/v1/minds/{mind}/memories/batch",
        response_model=S.BatchOut,
        status_code=201,
        tags=["memories"],
    )
    def add_memories(body: S.BatchIn, m: Writer) -> dict[str, Any]:
        """Store many memories with batched embedding, in one transaction."""
        return {"ids": m.add_many([item.model_dump() for item in body.items])}

    @app.get("/v1/minds/{mind}/memories", response_model=S.MemoryPage, tags=["memories"])
    def list_memories(
        m: Reader,
        limit: Annotated[int, Query(ge=1, le=S.MAX_PAGE)] = 20,
        offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
        order: S.Order = "created_desc",
        memory_type: Annotated[list[MemoryType] | None, Query(max_length=10)] = None,
        tag: Annotated[list[str] | None, Query(max_length=S.MAX_LIST_ITEMS)] = None,
        include_superseded: bool = False,
    ) -> dict[str, Any]:
        """A page of memories; `next_offset` is null on the last page."""
        flt = MemoryFilter(
            memory_types=memory_type, tags=tag, include_superseded=include_superseded
        )
        rows = m.list(flt, limit=limit + 1, offset=offset, order=order)
        more = len(rows) > limit
        return {
            "items": [r.to_dict() for r in rows[:limit]],
            "limit": limit,
            "offset": offset,
            "next_offset": offset + limit if more else None,
        }

    @app.get("/v1/minds/{mind}/memories/{memory_id}", response_model=S.MemoryOut, tags=["memories"])
    def get_memory(memory_id: MemoryIdPath, m: Reader) -> dict[str, Any]:
        """One memory by id or unique id prefix."""
        return m.get(m.resolve_id(memory_id)).to_dict()

    @app.patch(
        "/v1/minds/{mind}/memories/{memory_id}", response_model=S.MemoryOut, tags=["memories"]
    )
    def update_memory(memory_id: MemoryIdPath, body: S.MemoryPatch, m: Writer) -> dict[str, Any]:
        """Change fields of a memory (id or unique id prefix); changing `content` re-embeds it."""
        return m.update(m.resolve_id(memory_id), **body.changes()).to_dict()

    @app.delete("/v1/minds/{mind}/memories/{memory_id}", status_code=204, tags=["memories"])
    def delete_memory(memory_id: MemoryIdPath, m: Writer) -> Response:
        """Delete a memory (id or unique id prefix)."""
        m.delete(m.resolve_id(memory_id))
        return Response(status_code=204)

    # -- recall --------------------------------------------------------------------------------
    @app.post("/v1/minds/{mind}/search", response_model=S.HitsOut, tags=["recall"])
    def search(
        body: S.SearchIn, mind: MindName, m: Reader, who: Caller, later: BackgroundTasks
    ) -> dict[str, Any]:
        """Hybrid search: hits best first, each with the explanation of its score. The hits
        are recorded as retrieved (`feedback`, write keys only) after the response is sent."""
        flt = body.filter.to_filter() if body.filter is not None else None
        hits = m.search(body.query, limit=body.limit, flt=flt, preset=body.preset, feedback=False)
        if body.feedback and who.can("write"):
            _after(later, pool, mind, m, hits)  # the bump `Mind.search` records, after the response
        return {"hits": [h.to_dict() for h in hits]}

    _register_recall_routes(app, Caller, Reader, Writer, pool, db)
    register_layer_routes(app, Reader, Writer)
    register_record_routes(app, Reader, Writer)
    register_agent_routes(app, Writer, Caller)
    return app


def _register_recall_routes(
    app: FastAPI, Caller: Any, Reader: Any, Writer: Any, pool: MindPool, db: ServerDB
) -> None:
    """Routes for the facade's recall paths that exist in this version (prefetch, catch-up,
    multi-mind recall, usefulness feedback). Each is registered only if the facade has it."""
    if hasattr(Mind, "prefetch"):

        @app.post("/v1/minds/{mind}/prefetch", response_model=S.HitsOut, tags=["recall"])
        def prefetch(
            body: S.PrefetchIn, mind: MindName, m: Reader, who: Caller, later: BackgroundTasks
        ) -> dict[str, Any]:
            """Memories relevant to an incoming message, given the recent conversation. The
            hits are recorded as retrieved (write keys only) after the response is sent."""
            with feedback_suppressed():  # the bump `Mind.prefetch` records: after the response
                hits = m.prefetch(body.messages, body.current, limit=body.limit)
            if who.can("write"):
                _after(later, pool, mind, m, hits)
            return {"hits": [h.to_dict() for h in hits]}

    if hasattr(Mind, "catch_up"):

        @app.get("/v1/minds/{mind}/catch-up", response_model=S.HitsOut, tags=["recall"])
        def catch_up(
            m: Reader,
            limit: Annotated[int, Query(ge=1, le=S.MAX_PAGE)] = 10,
            topic: Annotated[str | None, Query(min_length=1, max_length=500)] = None,
        ) -> dict[str, Any]:
            """Important memories and decisions, then the most recent ones; with `topic`,
            that topic's decisions and important memories."""
            return {"hits": [h.to_dict() for h in m.catch_up(topic, limit=limit)]}

    if hasattr(Mind, "recall"):

        @app.post("/v1/minds/{mind}/recall", response_model=S.HitsOut, tags=["recall"])
        def recall(
            body: S.RecallIn, mind: MindName, m: Reader, who: Caller, later: BackgroundTasks
        ) -> dict[str, Any]:
            """Search this mind and `minds` as one list (the key must reach every one). Each
            mind's hits are recorded as retrieved (write keys only) after the response."""
            others = [
                (n, pool.get(n, _entry_tenant(db.authorize(who, n, "read")), create=False))
                for n in body.minds
                if n != m.name
            ]
            # `Mind.recall`'s searches, each mind's feedback written after the response
            found = [(n, x, x.search(body.query, limit=body.limit, feedback=False))
                     for n, x in [(mind, m), *others]]
            if who.can("write"):
                for n, x, hits in found:
                    _after(later, pool, n, x, hits)
            hits = Mind.fuse([h for _, _, h in found], body.limit)
            return {"hits": [h.to_dict() for h in hits]}

    if hasattr(Mind, "mark_useful"):

        @app.post("/v1/minds/{mind}/feedback", response_model=S.MemoriesOut, tags=["recall"])
        def feedback(body: S.FeedbackIn, m: Writer) -> dict[str, Any]:
            """Tell the mind whether recalled memories helped (moves their usefulness)."""
            return {"items": [r.to_dict() for r in m.mark_useful(body.ids, body.useful)]}


def _after(later: BackgroundTasks, pool: MindPool, name: str, m: Mind, hits: list[Any]) -> None:
    """Record `hits` of mind `name` as retrieved once the response is out (the search's time):
    off the hot path; a crash in between loses the bump, never a memory (see http_pool)."""
    if hits:
        later.add_task(pool.after_response(name, m, _retrieval([h.memory.id for h in hits], m)))


def _retrieval(ids: list[str], m: Mind) -> Any:
    """The write recording `ids` as retrieved now (the search's time, not the write's)."""
    now = m.clock.now()
    return lambda mind: record_retrievals(mind.store, ids, now)


def _entry_tenant(entry: Any) -> str | None:
    return entry.tenant if entry is not None else None
