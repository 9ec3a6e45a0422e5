"""HTTP routes of the agent path: conversation turns through triage (`POST …/turns`), the
heartbeat that drains them (`POST …/heartbeat`), file imports (`POST …/import/{kind}`), and the
hard deletes: every memory (`DELETE …/memories`) or the whole mind (`DELETE /v1/minds/{mind}`).
`POST …/memories` is the direct save (no triage, admission or distillation; `Mind.add`'s
contradiction check still runs).

Each route calls one facade method; blocking work runs in FastAPI's thread pool (plain `def`
routes; the import route reads the body on the loop, then hands the work to the pool), never
on the event loop.
"""

import re
import shutil
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import FastAPI, Query, Request, Response
from fastapi import Path as PathParam
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ..errors import InvalidInput

MAX_SPEAKER = 80
ImportKind = Literal["mbox", "ics", "chat", "mem0"]
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


class TurnIn(BaseModel):
    """One conversation turn: what a person said and the assistant's reply (may be empty)."""

    model_config = ConfigDict(
        extra="forbid",
        allow_inf_nan=False,
        json_schema_extra={
            "examples": [
                {
                    "user": "I moved to Lisbon last month.",
                    "assistant": "Noted: you live in Lisbon now.",
                }
            ]
        },
    )

    user: str = Field(min_length=1, description="What the person said.")
    assistant: str = Field("", description="The assistant's reply (may be empty).")
    speaker: str | None = Field(
        None, max_length=MAX_SPEAKER, description="Who spoke (\"User\" when omitted)."
    )
    tool_grounded: bool = Field(
        False, description="The reply rests on a tool's result (a lower save threshold)."
    )
    defer: bool = Field(
        True,
        description="Queue for triage (the heartbeat drains it; 202) or triage now (201).",
    )
    session_id: str | None = Field(None, max_length=200)
    occurred_at: datetime | None = Field(None, description="When the turn happened.")
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="Copied onto every memory the turn produces."
    )


class TurnOut(BaseModel):
    """A queued turn (`queued` = its queue id) or the triage result of an immediate one."""

    queued: int | None = Field(None, description="Queue id (deferred turns).")
    result: dict[str, Any] | None = Field(
        None,
        description="Triage outcome (immediate turns): saved ids, skipped reason, superseded "
        "ids, paradigm_shift.",
    )


def import_upload(m: Any, kind: str, name: str, data: bytes, defer: bool) -> dict[str, Any]:
    """Import an uploaded file: written under `<home>/uploads/<mind>/<name>` (a stable path, so
    re-uploading the same name is incremental like re-importing a file), removed afterwards."""
    folder = Path(m.config.home) / "uploads" / m.name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(data)
    try:
        if kind == "mem0":
            from ..compat.mem0 import import_export

            try:
                return {"kind": "mem0", **import_export(m, path)}
            except ValueError as e:
                raise InvalidInput(str(e)) from None
        return dict(getattr(m, f"import_{kind}")(path, defer=defer).to_dict())
    finally:
        path.unlink(missing_ok=True)


def forget_all(m: Any) -> int:
    """Delete every memory of the mind, superseded ones included (their vectors, full-text
    entries and the graph facts they were the evidence of go with them); returns how many."""
    from ..models import MemoryFilter

    flt = MemoryFilter(include_superseded=True)
    gone = 0
    while True:
        ids = [r.id for r in m.list(flt, limit=1000)]
        if not ids:
            return gone
        gone += m.store.delete(ids)


def drop_served_mind(app: FastAPI, who: Any, name: str, confirm: str) -> dict[str, Any]:
    """Drop mind `name` of a server for caller `who` (write scope on the mind): the pool closes
    it and refuses it meanwhile, `store.catalog.drop_mind` deletes its storage (SQLite file,
    -wal/-shm, HNSW graph; PostgreSQL schema), leftover uploads go, and the registry forgets
    the name and deletes the keys bound to it, so the name is free and carries no old data.

    Raises `Forbidden` (checked first), `InvalidInput` (`confirm` is not `name`),
    `ConflictError` (a request is using the mind), `MindNotFound`."""
    from ..store.catalog import MindNotFound, drop_mind

    pool, db, config = app.state.pool, app.state.server_db, app.state.config
    entry = db.authorize(who, name, "write")
    if confirm != name:
        raise InvalidInput(f"to drop mind {name!r} and everything in it, pass confirm={name}")
    with pool.dropping(name):
        try:
            drop_mind(config, name)
        except MindNotFound:
            if entry is None:  # neither stored nor registered
                raise
        shutil.rmtree(Path(config.home) / "uploads" / name, ignore_errors=True)
        deleted = db.unregister_mind(name) if entry is not None else 0
    return {"dropped": name, "keys_deleted": deleted}


def register_agent_routes(app: FastAPI, Writer: Any, Caller: Any) -> None:
    """Add `POST /v1/minds/{mind}/turns`, `…/heartbeat`, `…/import/{kind}`,
    `DELETE /v1/minds/{mind}/memories` and `DELETE /v1/minds/{mind}`."""

    @app.post(
        "/v1/minds/{mind}/turns",
        response_model=TurnOut,
        status_code=202,
        responses={201: {"model": TurnOut, "description": "Triaged now (`defer: false`)"}},
        tags=["ingestion"],
    )
    def remember_turn(body: TurnIn, m: Writer, response: Response) -> dict[str, Any]:
        """The agent path: a turn goes through triage (admission, the save threshold of the
        reply, distillation, the contradiction check). Deferred by default: 202 with its queue
        id, triaged by the next heartbeat; `defer: false` triages now (201 with the result)."""
        out = m.remember_turn(
            body.user,
            body.assistant,
            speaker=body.speaker,
            tool_grounded=body.tool_grounded,
            defer=body.defer,
            session_id=body.session_id,
            occurred_at=body.occurred_at,
            metadata=body.metadata,
        )
        if body.defer:
            return {"queued": out}
        response.status_code = 201
        return {"result": out.to_dict()}

    @app.post("/v1/minds/{mind}/heartbeat", tags=["ingestion"])
    def heartbeat(m: Writer) -> dict[str, Any]:
        """One heartbeat tick now: drain queued turns, prefetch, maintenance when due, a
        cognitive run when triggered (skipped while another tick of the mind runs)."""
        return m.heartbeat().to_dict()

    @app.post("/v1/minds/{mind}/import/{kind}", tags=["ingestion"])
    async def import_file(
        kind: ImportKind,
        request: Request,
        m: Writer,
        filename: Annotated[
            str | None,
            Query(max_length=100, description="The file's name (re-uploads of one name are "
                  "incremental); letters, digits, '.', '_', '-'."),
        ] = None,
        defer: Annotated[bool, Query(description="Only queue the items for triage.")] = False,
    ) -> dict[str, Any]:
        """Import the request body — an mbox, an ICS calendar, chat JSONL or a mem0 export —
        as `salience import` does (the body limit of the server applies)."""
        name = filename or f"upload.{kind}"
        if not _SAFE_NAME.match(name):
            raise InvalidInput("filename: letters, digits, '.', '_', '-' (1-100), not starting "
                               "with '.'")
        data = await request.body()
        if not data.strip():
            raise InvalidInput("empty upload")
        return await run_in_threadpool(import_upload, m, kind, name, data, defer)

    @app.delete("/v1/minds/{mind}/memories", tags=["memories"])
    def delete_all_memories(
        mind: str,
        m: Writer,
        confirm: Annotated[
            str, Query(max_length=64, description="The mind's name again, to confirm.")
        ],
    ) -> dict[str, Any]:
        """Delete every memory of the mind (hard delete across every index). Identity,
        awareness, sessions and the graph's own entities stay. Needs `?confirm=<mind>`."""
        if confirm != mind:
            raise InvalidInput(f"to delete every memory of {mind!r}, pass confirm={mind}")
        return {"deleted": forget_all(m)}


    @app.delete("/v1/minds/{mind}", tags=["minds"])
    def drop_mind(
        mind: Annotated[str, PathParam(max_length=64, description="Mind name.")],
        who: Caller,
        confirm: Annotated[
            str, Query(max_length=64, description="The mind's name again, to confirm.")
        ],
    ) -> dict[str, Any]:
        """Drop the mind: every memory, index, vector, file (the SQLite database, its WAL and
        the HNSW graph) or its PostgreSQL schema. The name is then free (keys bound to it are
        deleted; the owner may create it again, empty). Needs write scope and
        `?confirm=<mind>`; 409 while another request is using the mind."""
        return drop_served_mind(app, who, mind, confirm)
