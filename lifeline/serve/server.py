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
* ``max_message_bytes`` — larger messages (counted in UTF-8 bytes; HTTP bodies chunked or not)
  are refused with an error frame or HTTP 413, session intact.

``GET /metrics`` serves Prometheus metrics (:mod:`lifeline.adapters.metrics`). With
``workers > 1`` (:func:`serve`) several processes share the port; the session cap then holds in
total through a shared ledger (:mod:`lifeline.adapters.slots`) and ``/``, ``/health`` and
``/metrics`` report every worker.

WebSocket permessage-deflate is off unless asked for (``ws_compression``): compressing every
observation tripled the per-step cost on a local network. See ``docs/serving.md``.
"""

from __future__ import annotations

import importlib
import os
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from openenv.core.env_server.exceptions import SessionCapacityError
from openenv.core.env_server.http_server import HTTPEnvServer
from openenv.core.env_server.interfaces import Environment as OEEnvironment
from openenv.core.env_server.types import ConcurrencyConfig, ServerMode

from lifeline import __version__
from lifeline.adapters.fastlane import LANE, call_tool
from lifeline.adapters.guard import WEBSOCKET, Guard
from lifeline.adapters.metrics import CONTENT_TYPE_LATEST, ServerMetrics
from lifeline.adapters.openenv import (
    LifelineOpenEnv,
    LifelineState,
    NoEpisodeError,
    openenv_env_class,
    resolve_spec,
)
from lifeline.adapters.slots import SlotLedger
from lifeline.adapters.wire import check_rpc_request, check_session_message
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


class LifelineEnvServer(HTTPEnvServer):
    """OpenEnv's server with Lifeline's session accounting.

    * A session opened by a WebSocket (``/ws``, ``/mcp``) is closed by the guard's idle timer,
      which counts *every* frame; OpenEnv's reaper (which counts only reset/step/MCP calls)
      therefore leaves it alone, so it never reaps an episode whose socket is still talking
      (and the socket can never outlive its counted session).
    * With a :class:`SlotLedger` (several worker processes), a session needs one of the
      environment's slots *in total*; the slot is given back when the session's environment
      is closed, whatever closes it (disconnect, ``openenv/session/close``, reaper).
    * Sessions opened and open are counted in :class:`ServerMetrics`.
    """

    def __init__(self, *args: Any, ledger: SlotLedger | None = None,
                 metrics: ServerMetrics | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ledger = ledger
        self.metrics = metrics

    async def _create_session(self) -> tuple[str, OEEnvironment]:
        name, cap = self.env_name, self.max_concurrent_envs
        if self.ledger is not None:
            taken, total = self.ledger.acquire(name, cap)
            if not taken:
                raise SessionCapacityError(active_sessions=total, max_sessions=cap)
        try:
            session_id, env = await super()._create_session()
        except BaseException:
            if self.ledger is not None:
                self.ledger.release(name)
            raise
        if WEBSOCKET.get():
            self._session_websocket_attachments.add(session_id)
            lane = LANE.get()
            if lane is not None and isinstance(env, LifelineOpenEnv):
                lane.bind(self, session_id, env)
        hooks: list[Any] = []
        if self.ledger is not None:
            hooks.append(self.ledger.releaser(name))
        if self.metrics is not None:
            active = self.metrics.sessions_active.labels(env=name)
            active.inc()
            self.metrics.sessions_total.labels(env=name).inc()
            hooks.append(active.dec)
        if hooks and isinstance(env, LifelineOpenEnv):
            def on_close() -> None:
                for hook in hooks:
                    hook()
            env.on_close = on_close
        return session_id, env

    def total_sessions(self) -> int:
        """Open sessions of this environment: in every worker with a ledger, else here."""
        if self.ledger is None:
            return self.active_sessions
        per: dict[str, int] = self.ledger.snapshot()["sessions"].get(self.env_name, {})
        return sum(per.values())


@dataclass
class ServedEnv:
    """One mounted environment: its spec, its OpenEnv server and its sub-application."""

    spec: EnvSpec
    server: LifelineEnvServer
    app: FastAPI = field(repr=False)

    def describe(self) -> dict[str, Any]:
        return {"path": f"/{self.spec.name}", "gym_id": self.spec.gym_id,
                "scenarios": list(self.spec.scenarios), "tags": list(self.spec.tags),
                "active_sessions": self.server.total_sessions(),
                "max_sessions": self.server.max_concurrent_envs}


def _instrumented(env_cls: type[LifelineOpenEnv],
                  metrics: ServerMetrics) -> type[LifelineOpenEnv]:
    """``env_cls`` with each step timed and counted (WebSocket steps and MCP tool calls)."""
    name = env_cls.env_spec.name
    steps = metrics.steps.labels(env=name)
    seconds = metrics.step_seconds.labels(env=name)
    invalid = metrics.errors.labels(env=name, kind="INVALID_ACTION")

    def step_fields(self: LifelineOpenEnv, action: Any) -> dict[str, Any]:
        start = time.perf_counter()
        fields = env_cls.step_fields(self, action)
        seconds.observe(time.perf_counter() - start)
        steps.inc()
        if fields["valid"] is False:
            invalid.inc()
        return fields

    return type(env_cls.__name__, (env_cls,), {"step_fields": step_fields,
                                               "__module__": env_cls.__module__,
                                               "__doc__": env_cls.__doc__})


def _env_app(env_spec: EnvSpec, max_sessions: int, idle_timeout: float | None,
             metrics: ServerMetrics | None = None,
             ledger: SlotLedger | None = None) -> ServedEnv:
    """A full OpenEnv app for one environment (routes registered by ``HTTPEnvServer``)."""
    app = FastAPI(title=f"Lifeline {env_spec.name}", version=__version__,
                  description=env_spec.description)
    env_cls = openenv_env_class(env_spec)
    if metrics is not None:
        env_cls = _instrumented(env_cls, metrics)
    server = LifelineEnvServer(
        env_cls, env_cls.action_model, env_cls.observation_model,
        concurrency_config=ConcurrencyConfig(max_concurrent_envs=max_sessions,
                                             session_timeout=idle_timeout),
        env_name=env_spec.name, state_cls=LifelineState, ledger=ledger, metrics=metrics)
    server.register_routes(app, mode=ServerMode.SIMULATION)

    @app.get("/tasks")
    async def tasks() -> dict[str, Any]:
        """Scenarios, tool schemas, the baseline ladder and its committed reference scores."""
        from lifeline.adapters.tasks import task_listing

        return task_listing(env_spec)

    @app.exception_handler(NoEpisodeError)
    async def _no_episode(request: Request, exc: NoEpisodeError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=409)

    @app.exception_handler(ValueError)
    async def _bad_value(request: Request, exc: ValueError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=400)

    return ServedEnv(env_spec, server, app)


def _foreign_session(server: LifelineEnvServer, request: dict[str, Any],
                     workers: int) -> dict[str, Any] | None:
    """The JSON-RPC error for an HTTP MCP call naming a session this worker does not hold,
    when other workers may hold it (OpenEnv's own text, plus the reason and the remedy)."""
    params = request.get("params")
    sid = params.get("session_id") if isinstance(params, dict) else None
    if (workers < 2 or request.get("method") not in ("tools/call", "tools/list")
            or not isinstance(sid, str) or sid in server._sessions):
        return None
    return {"jsonrpc": "2.0", "id": request.get("id"), "error": {
        "code": -32602, "data": None,
        "message": f"Unknown session_id: {sid} (this server runs {workers} worker processes and "
                   f"an HTTP MCP session lives in the worker that created it; send all of a "
                   f"session's requests over one keep-alive HTTP connection, or use the "
                   f"WebSocket /{server.env_name}/ws or /{server.env_name}/mcp)"}}


def build_app(envs: Sequence[str | EnvSpec] | None = None, *,
              max_sessions: int = DEFAULT_MAX_SESSIONS, token: str | None = None,
              idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
              max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
              slots_file: str | os.PathLike[str] | None = None,
              fast_lanes: bool = True) -> Guard:
    """The ASGI application serving ``envs`` (default: every registered environment).

    ``slots_file`` names the ledger shared by the worker processes of one server (the session
    cap then holds in total); :func:`serve` sets it up for ``workers > 1``. ``fast_lanes``
    answers steps and MCP tool calls without OpenEnv's per-message layers
    (:mod:`lifeline.adapters.fastlane`; the same answers, off only to compare).
    """
    if max_sessions < 1:
        raise ValueError(f"max_sessions must be at least 1, got {max_sessions}")
    if idle_timeout is not None and idle_timeout <= 0:
        raise ValueError(f"idle_timeout must be positive (or None), got {idle_timeout}")
    if max_message_bytes < 1:
        raise ValueError(f"max_message_bytes must be positive, got {max_message_bytes}")
    specs = [load_spec(e) for e in envs] if envs else all_specs()
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise ValueError(f"environment listed twice: {names}")
    ledger = SlotLedger(slots_file) if slots_file is not None else None
    metrics = ServerMetrics()
    served = {s.name: _env_app(s, max_sessions, idle_timeout, metrics, ledger) for s in specs}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Mounted apps get no lifespan of their own: start OpenEnv's idle reapers here.
        if ledger is not None:
            ledger.join()
        for env in served.values():
            env.server._start_reaper()
        yield
        for env in served.values():
            env.server._stop_reaper()
        if ledger is not None:
            ledger.leave()
        if metrics.shared:
            from prometheus_client import multiprocess

            multiprocess.mark_process_dead(os.getpid(), metrics.shared)

    root = FastAPI(title="Lifeline environments", version=__version__, lifespan=lifespan)
    root.state.served = served
    root.state.metrics = metrics

    def workers() -> int:
        return len(ledger.snapshot()["workers"]) if ledger is not None else 1

    @root.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "healthy", "workers": workers()}

    @root.get("/")
    async def index() -> dict[str, Any]:
        listing: dict[str, Any] = {"lifeline": __version__, "workers": workers(),
                                   "envs": {n: e.describe() for n, e in served.items()}}
        if ledger is not None:  # how the kernel and the workers spread the sessions
            by_worker: dict[str, int] = {}
            for per in ledger.snapshot()["sessions"].values():
                for pid, count in per.items():
                    by_worker[pid] = by_worker.get(pid, 0) + count
            listing["sessions_by_worker"] = by_worker
        return listing

    @root.get("/metrics")
    async def prometheus() -> Response:
        return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)

    for name, env in served.items():
        root.mount(f"/{name}", env.app)

    def on_error(path: str, kind: str) -> None:
        head = path.strip("/").split("/", 1)[0]
        metrics.error(head if head in served else "", kind)

    def fast_rpc(path: str, request: dict[str, Any]) -> dict[str, Any] | None:
        """``tools/call`` on ``/<env>/mcp`` for a live session, answered by the fast lane; with
        several workers, a session this worker does not know gets an error that says why."""
        head, _, rest = path.strip("/").partition("/")
        env = served.get(head)
        if env is None or rest != "mcp":
            return None
        answer = call_tool(env.server, request)
        if answer is None and ledger is not None:
            answer = _foreign_session(env.server, request, workers())
        return answer

    from lifeline.web import mount_web  # browser pages: /<env>/web and the HTML index at /

    mount_web(root, served)
    return Guard(root, token=token, max_message_bytes=max_message_bytes,
                 idle_timeout=idle_timeout, message_check=check_session_message,
                 rpc_check=check_rpc_request, on_error=on_error,
                 fast_rpc=fast_rpc if fast_lanes else None, lanes=fast_lanes)


def served_envs(app: Guard) -> dict[str, ServedEnv]:
    """The environments mounted in an app made by :func:`build_app` (for stats and tests)."""
    root: FastAPI = app.app  # type: ignore[assignment]
    served: dict[str, ServedEnv] = root.state.served
    return served


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
    from lifeline.adapters.transport import PROTOCOL

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
    from lifeline.adapters.workers import run_workers

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
