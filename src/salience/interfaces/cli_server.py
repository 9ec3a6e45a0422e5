"""CLI commands for serving Salience: `serve` (HTTP API), `mcp` (MCP server) and the `keys`
group (API keys and tenants). Registered on the main `salience` app by `register(app)`."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import typer
from rich.table import Table

from ..errors import SalienceError
from .cli_common import JsonOpt, config_for, console, err_console
from .cli_common import emit as _emit
from .cli_common import fail as _fail

LOOPBACK = ("127.0.0.1", "localhost", "::1")

keys_app = typer.Typer(help="API keys and tenants of the HTTP server.", no_args_is_help=True)




def _db() -> Any:
    from .auth import ServerDB

    return ServerDB.for_config(config_for())



def serve(
    host: Annotated[str, typer.Option(help="Bind address.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port.", min=1, max=65535)] = 8080,
    insecure_local: Annotated[
        bool,
        typer.Option("--insecure-local", help="No API keys (binds 127.0.0.1 only)."),
    ] = False,
    max_body_bytes: Annotated[
        int, typer.Option(help="Refuse request bodies over this size (413).", min=1024)
    ] = 4 * 1024 * 1024,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
    heartbeat: Annotated[
        str | None,
        typer.Option("--heartbeat", help="Also tick every mind at this interval, e.g. 5m."),
    ] = None,
) -> None:
    """Run the HTTP API (needs the `server` extra)."""
    if insecure_local and host not in LOOPBACK:
        _fail(ValueError("--insecure-local serves without API keys and binds 127.0.0.1 only"))
    try:
        try:
            import uvicorn  # noqa: F401 - the server extra is installed
        except ImportError as e:
            from ..errors import MissingExtra

            raise MissingExtra("uvicorn", "server") from e
        from .http import create_app

        app = create_app(config_for(), insecure_local=insecure_local, max_body_bytes=max_body_bytes)
    except (ImportError, SalienceError) as e:
        _fail(e)
    if insecure_local:
        err_console.print("[yellow]insecure-local: no API keys; listening on 127.0.0.1 only[/]")
    elif not [k for k in _db_keys(app) if k.revoked_at is None]:
        err_console.print(
            "[yellow]no API keys yet: every request will get 401. Create one with "
            "`salience keys create --mind NAME --scope write` (or run with --insecure-local).[/]",
            soft_wrap=True,
        )
    loop = _heartbeat_loop(heartbeat) if heartbeat else None
    try:
        from .http_server import run

        run(  # with request-header and body read timeouts (issue 17)
            app, host=host, port=port, log_level=log_level,
            header_timeout_s=app.state.config.http_header_timeout_s,
        )
    finally:
        if loop is not None:
            loop.stop(timeout=30)


def _db_keys(app: Any) -> list[Any]:
    """The API keys of the server database `app` serves with."""
    return list(app.state.server_db.keys())


def _heartbeat_loop(interval: str) -> Any:
    """Start the background heartbeat over every mind of the data directory (issue 7)."""
    from ..maintenance.heartbeat import HeartbeatLoop, parse_interval
    from ..mind import Mind
    from .cli_common import mind_names

    try:
        seconds = parse_interval(interval)
    except (ValueError, KeyError):
        _fail(ValueError(f"--heartbeat: not an interval: {interval!r} (e.g. 30s, 5m, 1h)"))
    cfg = config_for()
    loop = HeartbeatLoop(lambda: (Mind.open(n, config=cfg) for n in mind_names(None)), seconds)
    loop.start()
    err_console.print(f"[dim]heartbeat every {seconds:g}s[/]")
    return loop


def mcp(
    mind: Annotated[str, typer.Option("--mind", "-m", help="Mind name.")] = "default",
    transport: Annotated[
        str, typer.Option(help="stdio (for a local client) or http (streamable HTTP at /mcp).")
    ] = "stdio",
    host: Annotated[str, typer.Option(help="HTTP transport: bind address.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="HTTP transport: port.", min=1, max=65535)] = 8765,
    allow_remote: Annotated[
        bool, typer.Option("--allow-remote", help="HTTP: allow a non-loopback host (no auth!).")
    ] = False,
    create: Annotated[
        bool, typer.Option("--create", help="Create the mind if it does not exist.")
    ] = False,
) -> None:
    """Run the MCP server for one mind (needs the `mcp` extra). The mind must exist unless
    --create: a typo is an error naming close minds, not a new empty mind."""
    if transport not in ("stdio", "http"):
        _fail(ValueError("--transport must be 'stdio' or 'http'"))
    try:
        from .mcp import run

        kind: Literal["stdio", "http"] = "http" if transport == "http" else "stdio"
        run(mind, transport=kind, host=host, port=port, allow_remote=allow_remote, create=create)
    except (ImportError, SalienceError) as e:
        _fail(e)


@keys_app.command("create")
def keys_create(
    scope: Annotated[str, typer.Option(help="read or write (write includes read).")],
    mind: Annotated[
        str | None, typer.Option("--mind", "-m", help="The one mind it reaches.")
    ] = None,
    tenant: Annotated[
        str | None, typer.Option(help="Tenant: without --mind, the key reaches all its minds.")
    ] = None,
    label: Annotated[str, typer.Option(help="A note to recognise the key by.")] = "",
    as_json: JsonOpt = False,
) -> None:
    """Create an API key and print it (it is shown only this once)."""
    try:
        db = _db()
        key, rec = db.create_key(scope=scope, mind=mind, tenant=tenant, label=label)
        db.close()
    except SalienceError as e:
        _fail(e)
    if as_json:
        _emit({"key": key, "key_id": rec.key_id, "mind": mind, "tenant": tenant, "scope": scope})
        return
    err_console.print(
        f"[dim]key {rec.key_id} ({scope}) for "
        f"{'mind ' + mind if mind else 'tenant ' + str(tenant)} — store it now; it is not "
        "shown again[/]"
    )
    print(key)


@keys_app.command("list")
def keys_list(as_json: JsonOpt = False) -> None:
    """List keys (ids, reach and scope; never the keys themselves)."""
    try:
        db = _db()
        rows = db.keys()
        db.close()
    except SalienceError as e:
        _fail(e)
    if as_json:
        from dataclasses import asdict

        _emit([asdict(r) for r in rows])
        return
    table = Table("key id", "mind", "tenant", "scope", "label", "created", "revoked")
    for r in rows:
        table.add_row(
            r.key_id,
            r.mind or "*",
            r.tenant or "",
            r.scope,
            r.label,
            r.created_at,
            r.revoked_at or "",
        )
    console.print(table)


@keys_app.command("revoke")
def keys_revoke(
    key_id: Annotated[str, typer.Argument(help="The key id from `keys list`.")],
) -> None:
    """Revoke a key; requests with it get 401 from then on."""
    try:
        db = _db()
        db.revoke_key(key_id)
        db.close()
    except SalienceError as e:
        _fail(e)
    console.print(f"revoked {key_id}")


@keys_app.command("tenant")
def keys_tenant(
    name: Annotated[str, typer.Argument(help="Tenant name.")],
    tier: Annotated[str, typer.Option(help="free, pro or enterprise.")] = "free",
    quota: Annotated[
        int | None, typer.Option(help="Monthly embedded-text quota (default: the tier's).", min=0)
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Create a tenant or change its tier and quota; prints this month's usage."""
    from .quotas import tenant_quota

    try:
        db = _db()
        t = db.set_tenant(name, tier, quota)
        _, effective = tenant_quota(db, name)
        used = db.usage(name)
        db.close()
    except SalienceError as e:
        _fail(e)
    out = {"tenant": t.name, "tier": t.tier, "monthly_quota": effective, "used_this_month": used}
    if as_json:
        _emit(out)
    else:
        console.print(
            f"tenant {t.name}: tier {t.tier}, quota {effective if effective is not None else 'unlimited'}"
            f", used this month {used}"
        )


def register(app: typer.Typer) -> None:
    """Add `serve`, `mcp` and the `keys` group to the main CLI app."""
    app.command()(serve)
    app.command()(mcp)
    app.add_typer(keys_app, name="keys")
