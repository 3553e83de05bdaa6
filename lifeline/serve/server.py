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
* ``idle_timeout`` — a WebSocket silent for that long is closed and its session freed (the
  guard's timer); HTTP MCP sessions without a call for that long are closed by
  :meth:`LifelineEnvServer.reap_idle`.
* ``token`` — bearer token required everywhere except the health checks.
* ``max_message_bytes`` — larger messages (counted in UTF-8 bytes; HTTP bodies chunked or not)
  are refused with an error frame or HTTP 413, session intact.

``GET /metrics`` serves Prometheus metrics (:mod:`lifeline.serve.metrics`). With
``workers > 1`` (:func:`lifeline.serve.run.serve`) several processes share the port; the
session cap then holds in total through a shared ledger (:mod:`lifeline.serve.slots`) and
``/``, ``/health`` and ``/metrics`` report every worker.

WebSocket permessage-deflate is off unless asked for (``ws_compression``): compressing every
observation tripled the per-step cost on a local network. See ``docs/serving.md``.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from openenv.core.env_server.exceptions import SessionCapacityError
from openenv.core.env_server.http_server import HTTPEnvServer
from openenv.core.env_server.interfaces import Environment as OEEnvironment
from openenv.core.env_server.types import ConcurrencyConfig, ServerMode

from lifeline import __version__
from lifeline.core.registry import EnvSpec, all_specs
from lifeline.serve.fastlane import LANE, call_tool
from lifeline.serve.frames import WEBSOCKET
from lifeline.serve.guard import Guard
from lifeline.serve.mcp import McpEndpoint
from lifeline.serve.metrics import CONTENT_TYPE_LATEST, ServerMetrics
from lifeline.serve.openenv import (
    LifelineOpenEnv,
    LifelineState,
    NoEpisodeError,
    check_reset_options,
    openenv_env_class,
    resolve_spec,
)
from lifeline.serve.sessions import SessionTable
from lifeline.serve.slots import SlotLedger
from lifeline.serve.wire import check_rpc_request, check_session_message

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

    * Every session it creates is entered in :attr:`sessions`, Lifeline's own table
      (:mod:`lifeline.serve.sessions`), with the transport that created it, and removed when
      the session's environment is closed, whatever closes it (disconnect,
      ``openenv/session/close``, the reaper). OpenEnv has no public API to list its sessions,
      record activity or tell a WebSocket session from an HTTP one, so Lifeline owns that path
      here instead of reading or writing OpenEnv's private fields.
    * Idle sessions are reaped by :meth:`reap_idle`, not by OpenEnv's reaper (which is never
      started): HTTP MCP sessions after ``session_timeout`` without a call; WebSocket sessions
      are closed by the guard's idle timer only, so an episode whose socket is still talking is
      never reaped (and the socket can never outlive its counted session).
    * With a :class:`SlotLedger` (several worker processes), a session needs one of the
      environment's slots *in total*; the slot is given back when the session is closed.
    * Sessions opened are counted in :class:`ServerMetrics`; open ones are read from the
      table (or the ledger) when metrics are scraped.

    Sessions are created and destroyed through OpenEnv's own subclass hooks,
    ``_create_session`` (extended here) and ``_destroy_session`` (called by the reaper).
    """

    def __init__(self, *args: Any, ledger: SlotLedger | None = None,
                 metrics: ServerMetrics | None = None, idle_timeout: float | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ledger = ledger
        self.metrics = metrics
        self.idle_timeout = idle_timeout
        """Seconds an HTTP MCP session may go without a call before :meth:`reap_idle` ends it."""
        self.sessions = SessionTable()
        """The live sessions (Lifeline's own table, see :mod:`lifeline.serve.sessions`)."""

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
        websocket = WEBSOCKET.get()
        hooks: list[Any] = []
        if isinstance(env, LifelineOpenEnv):
            self.sessions.add(session_id, env, "websocket" if websocket else "http")
            hooks.append(lambda: self.sessions.remove(session_id))
            lane = LANE.get()
            if websocket and lane is not None:
                lane.bind(self, session_id, env)
        if self.ledger is not None:
            hooks.append(self.ledger.releaser(name))
        if self.metrics is not None:
            self.metrics.sessions_total.labels(env=name).inc()
        if hooks and isinstance(env, LifelineOpenEnv):
            def on_close() -> None:
                for hook in hooks:
                    hook()
            env.on_close = on_close
        return session_id, env

    # ----- the fast lane's view (lifeline.serve.frames.LaneServer) --------------------------
    def http_session(self, session_id: str) -> LifelineOpenEnv | None:
        """The live session ``session_id`` if it was created over HTTP MCP, else ``None``."""
        entry = self.sessions.get(session_id)
        if entry is None or entry.transport != "http":
            return None
        env: LifelineOpenEnv = entry.env
        return env

    def touch(self, session_id: str, step: bool = True) -> None:
        """Record a meaningful call of ``session_id`` (the idle clock restarts)."""
        self.sessions.touch(session_id, step)

    # ----- the MCP protocol's view (lifeline.serve.mcp.McpHost) -----------------------------
    async def open_http_session(self) -> tuple[str, LifelineOpenEnv]:
        """Open a session as ``openenv/session/create`` does (MCP ``initialize`` over HTTP)."""
        marker = WEBSOCKET.set(False)
        try:
            session_id, env = await self._create_session()
        finally:
            WEBSOCKET.reset(marker)
        assert isinstance(env, LifelineOpenEnv)
        return session_id, env

    async def close_http_session(self, session_id: str) -> bool:
        """Close the HTTP session ``session_id`` (MCP ``DELETE``); whether it was live."""
        if self.http_session(session_id) is None:
            return False
        await self._destroy_session(session_id)
        return True

    # ----- idle HTTP sessions ---------------------------------------------------------------
    async def reap_idle(self) -> None:
        """Close HTTP MCP sessions idle for longer than :attr:`idle_timeout`, forever (a task
        started by the app's lifespan; cancelled at shutdown)."""
        timeout = self.idle_timeout
        if timeout is None:
            return
        interval = min(max(timeout / 4, 0.05), 5.0)
        while True:
            await asyncio.sleep(interval)
            for session_id in self.sessions.idle_http(timeout):
                await self._destroy_session(session_id)

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

    @staticmethod
    def reset_problem(options: dict[str, Any]) -> str | None:
        """Why ``options`` are not a valid reset (the WebSocket path's words), or ``None``;
        for the live view (:mod:`lifeline.web.live`), which imports nothing of the server."""
        return check_reset_options(options)

    @staticmethod
    def step_problem(data: Any) -> str | None:
        """Why ``data`` is not a valid step (the WebSocket path's words), or ``None``."""
        problem = check_session_message({"type": "step", "data": data})
        return problem[1] if isinstance(problem, tuple) else problem

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
        env_name=env_spec.name, state_cls=LifelineState, ledger=ledger, metrics=metrics,
        idle_timeout=idle_timeout)
    server.register_routes(app, mode=ServerMode.SIMULATION)

    @app.get("/tasks")
    async def tasks() -> dict[str, Any]:
        """Scenarios, tool schemas, the baseline ladder and its committed reference scores."""
        from lifeline.serve.tasks import task_listing

        return task_listing(env_spec)

    @app.exception_handler(NoEpisodeError)
    async def _no_episode(request: Request, exc: NoEpisodeError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=409)

    @app.exception_handler(ValueError)
    async def _bad_value(request: Request, exc: ValueError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=400)

    return ServedEnv(env_spec, server, app)


class SessionRules:
    """Who may drive which session (:class:`lifeline.serve.frames.SessionGate`), over the
    served environments; the guard asks before the app sees a request.

    * A session created by a WebSocket belongs to that connection: no HTTP MCP request may
      name it (``tools/call``, ``tools/list``, ``openenv/session/close``), and no other socket
      may attach to it (``/ws?session_id=``).
    * On a WebSocket, a JSON-RPC request may name only the connection's own session.
    * An HTTP MCP session is driven by whoever holds its id: the unguessable capability
      (OpenEnv's ``uuid4``, 122 random bits) returned by ``openenv/session/create`` to its
      creator and published nowhere else (the live view shows a separate watch handle). A
      request allowed to name it counts as its activity (the idle clock restarts).
    """

    def __init__(self, served: dict[str, ServedEnv]) -> None:
        self.served = served

    def server_of(self, path: str) -> LifelineEnvServer | None:
        env = self.served.get(path.strip("/").split("/", 1)[0])
        return env.server if env is not None else None

    def rpc_refusal(self, path: str, request: dict[str, Any], own: str | None,
                    websocket: bool) -> tuple[int, str] | None:
        params = request.get("params")
        sid = params.get("session_id") if isinstance(params, dict) else None
        server = self.server_of(path)
        if not isinstance(sid, str) or server is None:
            return None
        if websocket:
            if sid == own:
                return None
            return (-32602, "a request on a WebSocket acts on that connection's own session; "
                            "'session_id' names another session (omit it)")
        entry = server.sessions.get(sid)
        if entry is None:
            return None  # unknown (or a watch handle): OpenEnv answers "Unknown session_id"
        if entry.transport == "websocket":
            return (-32602, f"session {sid} belongs to a WebSocket connection: only that "
                            f"connection can use or close it")
        server.touch(sid, step=False)
        return None

    def attach(self, path: str, session_id: str) -> str | None:
        server = self.server_of(path)
        entry = server.sessions.get(session_id) if server is not None else None
        if entry is None:
            return None  # unknown: OpenEnv answers "Unknown session_id"
        if entry.transport == "websocket":
            return (f"session {session_id} belongs to another WebSocket connection: a "
                    f"WebSocket session can be used only by the connection that created it")
        if entry.attached:
            return f"Session {session_id} already has an attached WebSocket"
        entry.attached = True
        return None

    def detach(self, path: str, session_id: str) -> None:
        server = self.server_of(path)
        entry = server.sessions.get(session_id) if server is not None else None
        if entry is not None and entry.attached:
            entry.attached = False
            server.touch(session_id, step=False)  # type: ignore[union-attr]


def _foreign_session(server: LifelineEnvServer, request: dict[str, Any],
                     workers: int) -> dict[str, Any] | None:
    """The JSON-RPC error for an HTTP MCP call naming a session this worker does not hold,
    when other workers may hold it (OpenEnv's own text, plus the reason and the remedy)."""
    params = request.get("params")
    sid = params.get("session_id") if isinstance(params, dict) else None
    if (workers < 2 or request.get("method") not in ("tools/call", "tools/list")
            or not isinstance(sid, str) or sid in server.sessions):
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
              fast_lanes: bool = True, watch: bool = False) -> Guard:
    """The ASGI application serving ``envs`` (default: every registered environment).

    ``slots_file`` names the ledger shared by the worker processes of one server (the session
    cap then holds in total); :func:`serve` sets it up for ``workers > 1``. ``fast_lanes``
    answers steps and MCP tool calls without OpenEnv's per-message layers
    (:mod:`lifeline.serve.fastlane`; the same answers, off only to compare). ``watch`` lets
    the live view (``/<env>/web``) list and read every running session through read-only watch
    handles; ``False`` keeps every client's session unreadable by any other.
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
    metrics.watch_sessions(lambda: {n: e.server.total_sessions() for n, e in served.items()})

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if ledger is not None:
            ledger.join()
        reapers = [asyncio.create_task(env.server.reap_idle(), name=f"reaper-{name}")
                   for name, env in served.items()]
        yield
        for reaper in reapers:
            reaper.cancel()
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

    mount_web(root, served, watch)
    rules = SessionRules(served)
    return Guard(root, token=token, max_message_bytes=max_message_bytes,
                 idle_timeout=idle_timeout, message_check=check_session_message,
                 rpc_check=check_rpc_request, on_error=on_error,
                 fast_rpc=fast_rpc if fast_lanes else None, lanes=fast_lanes,
                 sessions=rules, mcp=McpEndpoint(rules.server_of))


def served_envs(app: Guard) -> dict[str, ServedEnv]:
    """The environments mounted in an app made by :func:`build_app` (for stats and tests)."""
    root: FastAPI = app.app  # type: ignore[assignment]
    served: dict[str, ServedEnv] = root.state.served
    return served
