"""HTTP routes of the agent path: conversation turns through triage (`POST …/turns`) and the
heartbeat that drains them (`POST …/heartbeat`). `POST …/memories` is the direct save (no
triage, admission or distillation; `Mind.add`'s contradiction check still runs).

Each route calls one facade method; blocking work runs in FastAPI's thread pool (the routes
are plain `def`), never on the event loop.
"""

from datetime import datetime
from typing import Any

from fastapi import FastAPI, Response
from pydantic import BaseModel, ConfigDict, Field

MAX_SPEAKER = 80


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


def register_agent_routes(app: FastAPI, Writer: Any) -> None:
    """Add `POST /v1/minds/{mind}/turns` and `POST /v1/minds/{mind}/heartbeat`."""

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
