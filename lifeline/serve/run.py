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
from lifeline.serve.transport import PROTOCOL
from lifeline.serve.workers import run_workers

__all__ = ["WS_CEILING", "background_server", "free_port", "make_server", "serve"]

WS_CEILING = 64 << 20
"""Largest WebSocket frame the transport buffers at all (or 4x the message limit if larger).
Frames between the message limit and this get a ``MESSAGE_TOO_LARGE`` error and the session
goes on; a frame beyond it is closed with code 1009 (the WebSocket standard's "message too
big") without being read into memory."""


def _http_protocol() -> str:
    """uvicorn's HTTP/1.1 implementation: ``httptools`` (a C parser; it cut an HTTP MCP call's
    server CPU by 80-150 µs against ``h11``) when installed, else the pure-Python ``h11``."""
    import importlib.util

    return "httptools" if importlib.util.find_spec("httptools") is not None else "h11"


def _uvicorn_options(max_message_bytes: int, log_level: str, ws_compression: bool,
                     ) -> dict[str, Any]:

    return {"log_level": log_level, "ws": PROTOCOL, "lifespan": "on", "http": _http_protocol(),
            "ws_per_message_deflate": ws_compression,
            "ws_max_size": max(WS_CEILING, 4 * max_message_bytes)}


def make_server(app: Guard, host: str = "127.0.0.1", port: int = 8000,
                log_level: str = "warning", ws_compression: bool = False) -> Any:
    """A ``uvicorn.Server`` for ``app`` (not started), with WebSocket limits matched to the app.

    ``ws_compression`` enables permessage-deflate; it is off by default because compressing
    every observation costs more CPU than it saves on a local network (the usual training setup).
    """
    import uvicorn

    config = uvicorn.Config(app, host=host, port=port,
                            **_uvicorn_options(app.max_message_bytes, log_level, ws_compression))
    return uvicorn.Server(config)


def serve(envs: Sequence[str | EnvSpec] | None = None, host: str = "127.0.0.1",
          port: int = 8000, max_sessions: int = DEFAULT_MAX_SESSIONS, token: str | None = None,
          idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
          max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES, log_level: str = "info",
          ws_compression: bool = False, workers: int = 1) -> None:
    """Serve ``envs`` until interrupted (blocking). See the module docstring for the limits.

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
                    max_message_bytes=max_message_bytes)
    base = f"http://{host}:{port}"
    print(f"Lifeline {__version__} serving on {base} (bearer token {'required' if token else 'off'}"
          f", {max_sessions} sessions per env, idle timeout {idle_timeout or 'off'} s"
          f"{f', {workers} worker processes' if workers > 1 else ''})")
    for name in served_envs(app):
        print(f"  {name:<12} {base}/{name}  (episodes: ws://{host}:{port}/{name}/ws)")
    if workers == 1:
        make_server(app, host, port, log_level, ws_compression).run()
        return
    if envs and not all(isinstance(e, str) for e in envs):
        raise ValueError("with workers > 1 give environments by name or as 'module:ATTR' "
                         "(each worker process builds its own app)")
    refs = list(envs) if envs else None
    run_workers({"envs": refs, "max_sessions": max_sessions, "token": token,
                 "idle_timeout": idle_timeout, "max_message_bytes": max_message_bytes},
                host=host, port=port, workers=workers,
                **_uvicorn_options(max_message_bytes, log_level, ws_compression))


@contextmanager
def background_server(app: Guard, host: str = "127.0.0.1") -> Iterator[str]:
    """Run ``app`` on a free port in a daemon thread; yield its base URL; always shut it down.

    Used by the tests, the benchmark and notebooks. The socket is bound before the thread
    starts, so there is no race for the port.
    """
    # proto IPPROTO_TCP: asyncio disables Nagle's algorithm only on sockets that say so.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    server = make_server(app, host, port)
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
