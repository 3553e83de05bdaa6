"""``lifeline serve``: serve environments to OpenEnv / MCP / LLM-agent clients.

Kept apart from ``lifeline.cli`` so the CLI does not import FastAPI/uvicorn unless serving;
``lifeline.cli`` calls :func:`register` to add the command.
"""

from __future__ import annotations

from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    """Add the ``serve`` command to ``app``."""

    @app.command("serve")
    def serve_command(
        envs: Annotated[list[str] | None, typer.Argument(
            help="Environments to serve (default: all registered). A 'module:ATTR' naming an "
                 "EnvSpec serves an unregistered one, e.g. "
                 "lifeline.testing.counter:COUNTER_SPEC.")] = None,
        host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
        max_sessions: Annotated[int, typer.Option(
            help="Concurrent sessions per environment; more get a capacity error.")] = 64,
        token: Annotated[str | None, typer.Option(
            envvar="LIFELINE_TOKEN", show_envvar=True,
            help="Require 'Authorization: Bearer TOKEN' (health checks stay open).")] = None,
        idle_timeout: Annotated[float, typer.Option(
            help="Close sessions silent for this many seconds (0 = never).")] = 600.0,
        max_message_mb: Annotated[float, typer.Option(
            help="Largest accepted message; larger ones get an error, session intact.")] = 1.0,
        log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
        ws_compression: Annotated[bool, typer.Option(
            help="Offer permessage-deflate (saves bandwidth on slow links, costs CPU).")] = False,
        workers: Annotated[int, typer.Option(
            help="Server processes behind the one port (one per core scales throughput); "
                 "the session cap holds in total.")] = 1,
        watch: Annotated[bool, typer.Option(
            help="Let the live view (/<env>/web) list and read every running session through "
                 "read-only watch handles (off by default: each page sees only its own "
                 "sessions, and no client can read another's episode).")] = False,
        header_timeout: Annotated[float, typer.Option(
            help="Seconds to send a request's complete headers, from connecting or from the "
                 "previous response.")] = 10.0,
        keep_alive: Annotated[int, typer.Option(
            help="Seconds an idle keep-alive HTTP connection is kept.")] = 5,
        send_timeout: Annotated[float, typer.Option(
            help="Seconds a reply may wait for a client that does not read before its "
                 "connection is aborted (a WebSocket's session is freed).")] = 5.0,
        write_buffer_kb: Annotated[int, typer.Option(
            help="KiB of unsent WebSocket replies buffered per connection before sends "
                 "wait.")] = 1024,
        shutdown_timeout: Annotated[float, typer.Option(
            help="Seconds a graceful shutdown waits for connections before cancelling "
                 "them.")] = 5.0,
        max_connections: Annotated[int, typer.Option(
            help="Concurrent connections + requests before new requests get HTTP 503 "
                 "(0 = the file-descriptor limit less 64).")] = 0,
    ) -> None:
        """Serve environments over HTTP/WebSocket/MCP, each under /<name> (e.g. /ed/ws)."""
        from lifeline.core.extras import require

        try:
            require("server", "lifeline serve")
            from lifeline.serve.run import TransportLimits, serve

            limits = TransportLimits(
                header_timeout=header_timeout, keep_alive=keep_alive, send_timeout=send_timeout,
                write_buffer=write_buffer_kb << 10, shutdown_timeout=shutdown_timeout,
                max_connections=max_connections or None)
            serve(envs or None, host=host, port=port, max_sessions=max_sessions, token=token,
                  idle_timeout=idle_timeout or None,
                  max_message_bytes=int(max_message_mb * 1_000_000), log_level=log_level,
                  ws_compression=ws_compression, workers=workers, limits=limits, watch=watch)
        except (ValueError, KeyError, TypeError, ImportError) as exc:  # MissingExtra too
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            typer.echo(f"Error: {message}", err=True)  # the CLI's one error style
            raise typer.Exit(2) from None
