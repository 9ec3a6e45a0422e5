"""`salience config show` and the layer/recall commands: identity, awareness, context, catch-up,
recall across minds, graph lookups. Thin adapters over the `Mind` facade."""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from ..config import Config
from ..errors import SalienceError
from .cli_common import DsnOpt, JsonOpt, MindOpt, config_for, console, emit, fail, open_mind

config_app = typer.Typer(help="Inspect the effective configuration.", no_args_is_help=True)
awareness_app = typer.Typer(
    help="The mind's working memory (at most 10 items).", no_args_is_help=True
)


def config_sources(cfg: Config) -> list[dict[str, Any]]:
    """Each setting with its effective value (secrets masked) and where it came from."""
    out = []
    for name in type(cfg).model_fields:
        env = f"SALIENCE_{name.upper()}"
        value = getattr(cfg, name)
        secret = hasattr(value, "get_secret_value")
        shown = ("***" if value is not None else None) if secret else value
        source = f"env {env}" if env in os.environ else "default"
        out.append({"name": name, "value": shown, "source": source})
    return out


@config_app.command("show")
def config_show(as_json: JsonOpt = False) -> None:
    """Print every setting, its effective value and where it came from (env or default)."""
    try:
        rows = config_sources(config_for())
    except ValueError as e:  # pydantic's ValidationError: a malformed SALIENCE_* variable
        fail(e)
    if as_json:
        emit(rows)
        return
    table = Table("setting", "value", "source")
    for r in rows:
        table.add_row(r["name"], str(r["value"]), r["source"])
    console.print(table)


@awareness_app.command("list")
def awareness_list(mind: MindOpt = "default", as_json: JsonOpt = False, dsn: DsnOpt = None) -> None:
    """Active awareness items, by priority."""
    try:
        with open_mind(mind, dsn) as m:
            items = m.awareness.get_all()
    except SalienceError as e:
        fail(e)
    rows = [
        {
            "id": i.id,
            "category": i.category.value,
            "priority": i.priority,
            "content": i.content,
            "metadata": i.metadata,
        }
        for i in items
    ]
    if as_json:
        emit(rows)
        return
    table = Table()
    table.add_column("id", no_wrap=True, min_width=32)  # whole ids: `remove`/`complete` take them
    for col in ("category", "priority", "content"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["id"], r["category"], str(r["priority"]), escape(r["content"]))
    console.print(table if rows else "[dim]no active items[/]")


def _awareness_id(m: Any, id_or_prefix: str) -> str:
    """The active item whose id is, or starts with, `id_or_prefix`."""
    return str(m.awareness.resolve_id(id_or_prefix))


ItemArg = Annotated[str, typer.Argument(help="Item id (or a unique prefix) from `awareness list`.")]


@awareness_app.command("remove")
def awareness_remove(
    item_id: ItemArg, mind: MindOpt = "default", as_json: JsonOpt = False, dsn: DsnOpt = None
) -> None:
    """Remove an item from working memory."""
    try:
        with open_mind(mind, dsn) as m:
            item_id = _awareness_id(m, item_id)
            m.awareness.remove(item_id)
    except SalienceError as e:
        fail(e)
    emit({"removed": item_id}) if as_json else console.print(f"removed {item_id}")


@awareness_app.command("complete")
def awareness_complete(
    item_id: ItemArg, mind: MindOpt = "default", as_json: JsonOpt = False, dsn: DsnOpt = None
) -> None:
    """Mark an item done and take it out of working memory."""
    try:
        with open_mind(mind, dsn) as m:
            item = m.awareness.complete(_awareness_id(m, item_id))
    except SalienceError as e:
        fail(e)
    if as_json:
        emit({"completed": item.id, "content": item.content})
    else:
        console.print(f"completed {item.id}: {escape(item.content)}")


@awareness_app.command("add")
def awareness_add(
    content: Annotated[str, typer.Argument(help="What the mind is working on or waiting for.")],
    category: Annotated[str, typer.Option(help="task, action, pending or flag.")] = "task",
    priority: Annotated[int, typer.Option(help="Higher comes first.")] = 0,
    mind: MindOpt = "default",
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Add an awareness item (fails clearly when 10 are already active)."""
    try:
        with open_mind(mind, dsn, create=True) as m:
            item = m.awareness.add(content, category=category, priority=priority)
    except SalienceError as e:
        fail(e)
    emit({"id": item.id}) if as_json else console.print(item.id)


def identity(mind: MindOpt = "default", as_json: JsonOpt = False, dsn: DsnOpt = None) -> None:
    """Show the mind's identity row."""
    from ..transfer import record_to_dict

    try:
        with open_mind(mind, dsn) as m:
            ident = m.identity.get()
    except SalienceError as e:
        fail(e)
    data = record_to_dict(ident) if ident is not None else None
    if as_json:
        emit(data)
        return
    if data is None:
        console.print("[dim]no identity yet[/]")
        return
    table = Table("field", "value", show_header=False)
    for k, v in data.items():
        table.add_row(k, str(v))
    console.print(table)


def context(
    query: Annotated[str, typer.Argument(help="The user's message to recall for.")],
    budget: Annotated[
        int, typer.Option("--budget", help="Token budget of the whole prompt.")
    ] = 2000,
    mind: MindOpt = "default",
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """The system-prompt context: identity, self-awareness and recalled memories."""
    try:
        with open_mind(mind, dsn) as m:
            ctx = m.context(query, budget_tokens=budget)
    except SalienceError as e:
        fail(e)
    if as_json:
        emit(
            {
                "text": ctx.text,
                "sections": [
                    {"name": s.name, "tokens": s.tokens, "budget_tokens": s.budget_tokens}
                    for s in ctx.sections
                ],
            }
        )
    else:
        console.print(ctx.text, markup=False, highlight=False)


def catch_up(
    topic: Annotated[
        str | None, typer.Argument(help="Only this topic's decisions and important memories.")
    ] = None,
    mind: MindOpt = "default",
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=100)] = 10,
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Catch me up: important and decision memories, then the most recent ones (about TOPIC
    when given)."""
    try:
        with open_mind(mind, dsn) as m:
            hits = m.catch_up(topic, limit=limit)
    except SalienceError as e:
        fail(e)
    _hits(hits, as_json)


def recall(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    mind: MindOpt = "default",
    other: Annotated[
        list[str] | None, typer.Option("--also", help="Another mind (repeatable).")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=1000)] = 10,
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Search several minds at once (e.g. personal + workspace); each hit names its mind."""
    from contextlib import ExitStack

    try:
        with ExitStack() as stack:
            main = stack.enter_context(open_mind(mind, dsn))
            others = [stack.enter_context(open_mind(o, dsn)) for o in other or []]
            hits = main.recall(query, others=others, limit=limit)
    except SalienceError as e:
        fail(e)
    _hits(hits, as_json)


def about(
    name: Annotated[str, typer.Argument(help="An entity name (aliases resolve).")],
    mind: MindOpt = "default",
    as_json: JsonOpt = False,
    dsn: DsnOpt = None,
) -> None:
    """Everything the mind holds about an entity (memories linked to it and its neighbours)."""
    try:
        with open_mind(mind, dsn) as m:
            mems = m.graph.about(name)
    except SalienceError as e:
        fail(e)
    if as_json:
        emit([x.to_dict() for x in mems])
        return
    for x in mems:
        console.print(f"- {x.text}", markup=False, highlight=False)
    if not mems:
        console.print("[dim]nothing known[/]")


def _hits(hits: list[Any], as_json: bool) -> None:
    if as_json:
        emit([h.to_dict() for h in hits])
        return
    from .cli_common import SCORE_NOTE

    table = Table("#", "mind", "score", "memory", caption=SCORE_NOTE)
    for i, h in enumerate(hits, start=1):
        text = " ".join(h.memory.text.split())
        table.add_row(str(i), h.mind or "", f"{h.score:.4f}", escape(text[:100]))
    console.print(table if hits else "[dim]no results[/]")


def register(app: typer.Typer) -> None:
    app.add_typer(config_app, name="config")
    app.add_typer(awareness_app, name="awareness")
    app.command()(identity)
    app.command()(context)
    app.command("catch-up")(catch_up)
    app.command()(recall)
    app.command()(about)
