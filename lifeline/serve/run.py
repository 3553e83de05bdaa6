"""Running a served app: uvicorn's settings, :func:`serve` (blocking), :func:`background_server`.

The app itself is built by :func:`lifeline.serve.server.build_app`; several worker processes are
set up by :mod:`lifeline.serve.workers`. This module picks uvicorn's transport settings to match
the app (WebSocket frame ceiling, the HTTP parser) and starts it.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from lifeline import __version__
from lifeline.core.registry import EnvSpec
from lifeline.serve.guard import Guard
from lifeline.serve.server import (
    DEFAULT_IDLE_TIMEOUT,
    DEFAULT_MAX_MESSAGE_BYTES,
    DEFAULT_MAX_SESSIONS,
    build_app,
    served_envs,
)
from lifeline.serve.transport import (
    HEADER_TIMEOUT,
    HTTP_PROTOCOLS,
    PROTOCOL,
    SEND_TIMEOUT,
    SERVER_LOOP,
    WRITE_BUFFER_HIGH,
    LaneWebSocketProtocol,
    log_config,
)
from lifeline.serve.workers import run_workers

__all__ = ["WS_CEILING", "TransportLimits", "background_server", "free_port", "make_server",
           "serve"]

WS_CEILING = 64 << 20
"""Largest WebSocket frame the transport buffers at all (or 4x the message limit if larger).
Frames between the message limit and this get a ``MESSAGE_TOO_LARGE`` error and the session
goes on; a frame beyond it is closed with code 1009 (the WebSocket standard's "message too
big") without being read into memory."""


@dataclass(frozen=True)
class TransportLimits:
    """What one connection may hold, and for how long: uvicorn's own settings where it has
    them, the protocols of :mod:`lifeline.serve.transport` where it has not.

    The defaults hold with several workers too; other values need one process (the worker
    processes load the protocol classes by name, with their default limits).
    """

    header_timeout: float = HEADER_TIMEOUT
    """Seconds to send a request's complete headers, from connecting or from the previous
    response (uvicorn has no such timeout; :class:`~lifeline.serve.transport.H11Protocol`)."""
    keep_alive: int = 5
    """Seconds an idle keep-alive connection is kept (uvicorn's ``timeout_keep_alive``)."""
    send_timeout: float = SEND_TIMEOUT
    """Seconds a send may wait for a client that does not read before the connection is
    aborted: a WebSocket's session is then freed; an HTTP response is dropped."""
    write_buffer: int = WRITE_BUFFER_HIGH
    """Bytes of unsent WebSocket replies buffered per connection before sends wait."""
    shutdown_timeout: float = 5.0
    """Seconds a graceful shutdown waits for connections and tasks before cancelling them
    (uvicorn's ``timeout_graceful_shutdown``)."""
    max_connections: int | None = None
    """Concurrent connections + requests before new requests get HTTP 503 (uvicorn's
    ``limit_concurrency``); ``None``: the process's file-descriptor limit less a reserve of
    :data:`FD_RESERVE`, so the server answers 503 rather than running out of descriptors."""

    def __post_init__(self) -> None:
        for name in ("header_timeout", "send_timeout", "shutdown_timeout"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and 0 < value < float("inf")):
                raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
        if self.keep_alive < 1:
            raise ValueError(f"keep_alive must be at least 1 s, got {self.keep_alive}")
        if self.write_buffer < 1024:
            raise ValueError(f"write_buffer must be at least 1 KiB, got {self.write_buffer} bytes")
        if self.max_connections is not None and self.max_connections < 1:
            raise ValueError(f"max_connections must be at least 1 (or unset), got "
                             f"{self.max_connections}")

    def concurrency(self) -> int:
        """The effective ``limit_concurrency``."""
        if self.max_connections is not None:
            return self.max_connections
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft == resource.RLIM_INFINITY:
            return 1 << 16
        return max(16, int(soft) - FD_RESERVE)

    def is_default(self) -> bool:
        """Whether the protocol classes can be loaded by name (as worker processes do)."""
        return (self.header_timeout, self.send_timeout, self.write_buffer) == (
            HEADER_TIMEOUT, SEND_TIMEOUT, WRITE_BUFFER_HIGH)


FD_RESERVE = 64
"""File descriptors kept free of connections (logs, the ledger, imports, accepted sockets
waiting for their 503)."""


def _http_protocol() -> str:
    """uvicorn's HTTP/1.1 implementation: ``httptools`` (a C parser; it cut an HTTP MCP call's
    server CPU by 80-150 µs against ``h11``) when installed, else the pure-Python ``h11``."""
    return "httptools" if "httptools" in HTTP_PROTOCOLS else "h11"


def _protocols(limits: TransportLimits) -> tuple[Any, Any]:
    """``(http, ws)`` for uvicorn: class paths with the default limits, else subclasses."""
    http: Any = HTTP_PROTOCOLS[_http_protocol()]
    ws: Any = PROTOCOL
    if limits.is_default():
        return http, ws
    import importlib

    def load(path: str) -> Any:
        module, _, name = path.partition(":")
        return getattr(importlib.import_module(module), name)

    http = type("LimitedHttpProtocol", (load(http),), {"header_timeout": limits.header_timeout,
                                                       "send_timeout": limits.send_timeout})
    ws = type("LimitedWebSocketProtocol", (LaneWebSocketProtocol,),
              {"send_timeout": limits.send_timeout, "write_buffer_high": limits.write_buffer})
    return http, ws


def _uvicorn_options(max_message_bytes: int, log_level: str, ws_compression: bool,
                     limits: TransportLimits | None = None) -> dict[str, Any]:
    limits = limits or TransportLimits()
    http, ws = _protocols(limits)
    return {"log_level": log_level, "log_config": log_config(), "ws": ws, "lifespan": "on",
            "http": http,
            "ws_per_message_deflate": ws_compression,
            "ws_max_size": max(WS_CEILING, 4 * max_message_bytes),
            "timeout_keep_alive": limits.keep_alive,
            "timeout_graceful_shutdown": limits.shutdown_timeout,
            "limit_concurrency": limits.concurrency()}


def make_server(app: Guard, host: str = "127.0.0.1", port: int = 8000,
                log_level: str = "warning", ws_compression: bool = False,
                limits: TransportLimits | None = None) -> Any:
    """A ``uvicorn.Server`` for ``app`` (not started), with WebSocket limits matched to the app
    and the connection limits of ``limits`` (default :class:`TransportLimits`).

    ``ws_compression`` enables permessage-deflate; it is off by default because compressing
    every observation costs more CPU than it saves on a local network (the usual training setup).
    """
    import uvicorn

    config = uvicorn.Config(app, host=host, port=port, loop=SERVER_LOOP,
                            **_uvicorn_options(app.max_message_bytes, log_level, ws_compression,
                                               limits))
    return uvicorn.Server(config)


def serve(envs: Sequence[str | EnvSpec] | None = None, host: str = "127.0.0.1",
          port: int = 8000, max_sessions: int = DEFAULT_MAX_SESSIONS, token: str | None = None,
          idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
          max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES, log_level: str = "info",
          ws_compression: bool = False, workers: int = 1,
          limits: TransportLimits | None = None, watch: bool = False) -> None:
    """Serve ``envs`` until interrupted (blocking). See the module docstring for the limits;
    ``limits`` are the connections' (:class:`TransportLimits`).

    ``workers > 1`` runs that many server processes behind the one port (uvicorn's worker
    supervisor; the kernel hands each new connection to one of them, and a WebSocket session
    stays on the process that accepted it). The cap holds in total through a shared ledger,
    and ``/``, ``/health`` and ``/metrics`` report every worker. Environments must then be
    given by name (or ``module:ATTR``), since each worker builds its own app.
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    # Built here in every case: it validates the arguments before any process starts.
    app = build_app(envs, max_sessions=max_sessions, token=token, idle_timeout=idle_timeout,
                    max_message_bytes=max_message_bytes, watch=watch)
    base = f"http://{host}:{port}"
    print(f"Lifeline {__version__} serving on {base} (bearer token {'required' if token else 'off'}"
          f", {max_sessions} sessions per env, idle timeout {idle_timeout or 'off'} s"
          f"{f', {workers} worker processes' if workers > 1 else ''})")
    for name in served_envs(app):
        print(f"  {name:<12} {base}/{name}  (episodes: ws://{host}:{port}/{name}/ws)")
    if workers == 1:
        make_server(app, host, port, log_level, ws_compression, limits).run()
        return
    if limits is not None and not limits.is_default():
        raise ValueError("with workers > 1 the header timeout, send timeout and write buffer "
                         "keep their defaults (each worker loads the protocols by name)")
    if envs and not all(isinstance(e, str) for e in envs):
        raise ValueError("with workers > 1 give environments by name or as 'module:ATTR' "
                         "(each worker process builds its own app)")
    refs = list(envs) if envs else None
    run_workers({"envs": refs, "max_sessions": max_sessions, "token": token,
                 "idle_timeout": idle_timeout, "max_message_bytes": max_message_bytes,
                 "watch": watch},
                host=host, port=port, workers=workers,
                **_uvicorn_options(max_message_bytes, log_level, ws_compression, limits))


@contextmanager
def background_server(app: Guard, host: str = "127.0.0.1",
                      limits: TransportLimits | None = None,
                      log_level: str = "warning") -> Iterator[str]:
    """Run ``app`` on a free port in a daemon thread; yield its base URL; always shut it down.

    Used by the tests, the benchmark and notebooks. The socket is bound before the thread
    starts, so there is no race for the port.
    """
    # proto IPPROTO_TCP: asyncio disables Nagle's algorithm only on sockets that say so.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    server = make_server(app, host, port, log_level=log_level, limits=limits)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True,
                              name=f"lifeline-server-{port}")
    thread.start()
    try:
        deadline = time.monotonic() + 20.0
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the background server did not start")
            time.sleep(0.01)
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15.0)
        sock.close()


def free_port(host: str = "127.0.0.1") -> int:
    """A currently free TCP port on ``host`` (for launching a server in another process)."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port
