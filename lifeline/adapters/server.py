"""One process serving several environments to OpenEnv clients, each under its own path prefix.

``build_app(["ed", ...])`` mounts, for every environment, a complete OpenEnv application (built by
``openenv``'s own :class:`HTTPEnvServer`, so the standard clients and ``openenv validate`` work
unchanged) at ``/<name>``: ``/<name>/ws`` for episodes, ``/<name>/health``, ``/<name>/schema``,
``/<name>/metadata``, ``/<name>/mcp`` (HTTP and WebSocket). The root answers ``/health`` and
``/`` (the list of environments with their live session counts).

Everything runs on one event loop; the simulation steps run inline (they are short and
CPU-bound, so threads would only add hand-off cost under the GIL). Limits:

* ``max_sessions`` — concurrent sessions *per environment*; the next one gets OpenEnv's
  ``CAPACITY_REACHED`` error frame (WebSocket) or JSON-RPC error (MCP).
* ``idle_timeout`` — a WebSocket silent for that long is closed and its session freed; HTTP MCP
  sessions are reaped by OpenEnv's reaper after the same time.
* ``token`` — bearer token required everywhere except the health checks.
* ``max_message_bytes`` — larger messages are refused with an error frame, session intact.

WebSocket permessage-deflate is off unless asked for (``ws_compression``): compressing every
observation tripled the per-step cost on a local network. See ``docs/serving.md``.
"""

from __future__ import annotations

import importlib
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from openenv.core.env_server.http_server import HTTPEnvServer
from openenv.core.env_server.types import ConcurrencyConfig, ServerMode

from lifeline import __version__
from lifeline.adapters.guard import Guard
from lifeline.adapters.openenv import (
    LifelineState,
    NoEpisodeError,
    openenv_env_class,
    resolve_spec,
)
from lifeline.adapters.wire import check_session_message
from lifeline.core.registry import EnvSpec, all_specs

DEFAULT_MAX_SESSIONS = 64
DEFAULT_IDLE_TIMEOUT = 600.0
"""Seconds a session may stay silent before it is closed."""
DEFAULT_MAX_MESSAGE_BYTES = 1 << 20


def load_spec(ref: str | EnvSpec) -> EnvSpec:
    """A registered name / Gymnasium id, an :class:`EnvSpec`, or ``"module:ATTR"`` naming one.

    The ``module:ATTR`` form serves environments that are not registered (e.g. the reference
    ``lifeline.testing.counter:COUNTER_SPEC``) without touching the registry.
    """
    if isinstance(ref, str) and ":" in ref and "/" not in ref:
        module, _, attr = ref.partition(":")
        found = getattr(importlib.import_module(module), attr)
        if not isinstance(found, EnvSpec):
            raise TypeError(f"{ref} is a {type(found).__name__}, not an EnvSpec")
        return found
    return resolve_spec(ref)


@dataclass
class ServedEnv:
    """One mounted environment: its spec, its OpenEnv server and its sub-application."""

    spec: EnvSpec
    server: HTTPEnvServer
    app: FastAPI = field(repr=False)

    def describe(self) -> dict[str, Any]:
        return {"path": f"/{self.spec.name}", "gym_id": self.spec.gym_id,
                "scenarios": list(self.spec.scenarios), "tags": list(self.spec.tags),
                "active_sessions": self.server.active_sessions,
                "max_sessions": self.server.max_concurrent_envs}


def _env_app(env_spec: EnvSpec, max_sessions: int, idle_timeout: float | None) -> ServedEnv:
    """A full OpenEnv app for one environment (routes registered by ``HTTPEnvServer``)."""
    app = FastAPI(title=f"Lifeline {env_spec.name}", version=__version__,
                  description=env_spec.description)
    env_cls = openenv_env_class(env_spec)
    server = HTTPEnvServer(
        env_cls, env_cls.action_model, env_cls.observation_model,
        concurrency_config=ConcurrencyConfig(max_concurrent_envs=max_sessions,
                                             session_timeout=idle_timeout),
        env_name=env_spec.name, state_cls=LifelineState)
    server.register_routes(app, mode=ServerMode.SIMULATION)

    @app.exception_handler(NoEpisodeError)
    async def _no_episode(request: Request, exc: NoEpisodeError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=409)

    @app.exception_handler(ValueError)
    async def _bad_value(request: Request, exc: ValueError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=400)

    return ServedEnv(env_spec, server, app)


def build_app(envs: Sequence[str | EnvSpec] | None = None, *,
              max_sessions: int = DEFAULT_MAX_SESSIONS, token: str | None = None,
              idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
              max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> Guard:
    """The ASGI application serving ``envs`` (default: every registered environment)."""
    if max_sessions < 1:
        raise ValueError(f"max_sessions must be at least 1, got {max_sessions}")
    if idle_timeout is not None and idle_timeout <= 0:
        raise ValueError(f"idle_timeout must be positive (or None), got {idle_timeout}")
    specs = [load_spec(e) for e in envs] if envs else all_specs()
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise ValueError(f"environment listed twice: {names}")
    served = {s.name: _env_app(s, max_sessions, idle_timeout) for s in specs}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Mounted apps get no lifespan of their own: start OpenEnv's idle reapers here.
        for env in served.values():
            env.server._start_reaper()
        yield
        for env in served.values():
            env.server._stop_reaper()

    root = FastAPI(title="Lifeline environments", version=__version__, lifespan=lifespan)
    root.state.served = served

    @root.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "healthy"}

    @root.get("/")
    async def index() -> dict[str, Any]:
        return {"lifeline": __version__, "envs": {n: e.describe() for n, e in served.items()}}

    for name, env in served.items():
        root.mount(f"/{name}", env.app)
    from lifeline.web import mount_web  # browser pages: /<env>/web and the HTML index at /

    mount_web(root, served)
    return Guard(root, token=token, max_message_bytes=max_message_bytes,
                 idle_timeout=idle_timeout, message_check=check_session_message)


def served_envs(app: Guard) -> dict[str, ServedEnv]:
    """The environments mounted in an app made by :func:`build_app` (for stats and tests)."""
    root: FastAPI = app.app  # type: ignore[assignment]
    served: dict[str, ServedEnv] = root.state.served
    return served


def make_server(app: Guard, host: str = "127.0.0.1", port: int = 8000,
                log_level: str = "warning", ws_compression: bool = False) -> Any:
    """A ``uvicorn.Server`` for ``app`` (not started), with WebSocket limits matched to the app.

    ``ws_compression`` enables permessage-deflate; it is off by default because compressing
    every observation costs more CPU than it saves on a local network (the usual training setup).
    """
    import uvicorn

    config = uvicorn.Config(app, host=host, port=port, log_level=log_level,
                            ws="websockets-sansio", lifespan="on",
                            ws_per_message_deflate=ws_compression,
                            ws_max_size=max(16 << 20, 2 * app.max_message_bytes))
    return uvicorn.Server(config)


def serve(envs: Sequence[str | EnvSpec] | None = None, host: str = "127.0.0.1",
          port: int = 8000, max_sessions: int = DEFAULT_MAX_SESSIONS, token: str | None = None,
          idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
          max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES, log_level: str = "info",
          ws_compression: bool = False) -> None:
    """Serve ``envs`` until interrupted (blocking). See the module docstring for the limits."""
    app = build_app(envs, max_sessions=max_sessions, token=token, idle_timeout=idle_timeout,
                    max_message_bytes=max_message_bytes)
    base = f"http://{host}:{port}"
    print(f"Lifeline {__version__} serving on {base} (bearer token {'required' if token else 'off'}"
          f", {max_sessions} sessions per env, idle timeout {idle_timeout or 'off'} s)")
    for name in served_envs(app):
        print(f"  {name:<12} {base}/{name}  (episodes: ws://{host}:{port}/{name}/ws)")
    make_server(app, host, port, log_level, ws_compression).run()


@contextmanager
def background_server(app: Guard, host: str = "127.0.0.1") -> Iterator[str]:
    """Run ``app`` on a free port in a daemon thread; yield its base URL; always shut it down.

    Used by the tests, the benchmark and notebooks. The socket is bound before the thread
    starts, so there is no race for the port.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
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
