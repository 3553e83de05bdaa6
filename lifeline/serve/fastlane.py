"""Fast lanes: a session's hot calls answered without OpenEnv's generic per-message layers.

Profiling a served step showed most of the server's own time outside the simulation: OpenEnv's
WebSocket loop parses every frame a second time (the guard has parsed it already), validates it
twice with pydantic, dumps the observation to a dict and builds and dumps a response model; its
MCP handler starts a *thread pool per tool call* to list the tools (``run_async_safely``) and
walks the observation recursively to make it JSON-safe; an HTTP ``/mcp`` call also goes through
FastAPI's routing and response validation. The calls that make up an episode are few and
simple, so they take a lane of their own:

* WebSocket ``/<env>/ws``: ``step`` messages and ``mcp`` ``tools/call`` requests of a session
  the socket opened itself (:class:`Lane`, bound when OpenEnv creates the session);
* HTTP ``POST /<env>/mcp``: ``tools/call`` with the ``session_id`` of a live session
  (:func:`call_tool`).

A lane answers exactly what OpenEnv would (same frames, same JSON-RPC results and error texts)
and records the call in the server's own session table (activity time, step count; see
:mod:`lifeline.serve.sessions`: OpenEnv has no public API for that bookkeeping, so Lifeline owns
it rather than writing into OpenEnv's private session info). It declines everything else — another
message type, a frame OpenEnv would refuse, an unknown tool or session — which then takes the
ordinary path, so OpenEnv stays the reference for every answer the lane does not give. The
guard (:mod:`lifeline.serve.guard`) has already checked every frame (size, JSON, shape)
before a lane sees it. Replies are encoded with ``orjson`` when it is installed. The lane is
typed against the Protocols of :mod:`lifeline.serve.frames` (a session, a server), so it
imports neither the OpenEnv face nor the server.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from lifeline.serve.frames import LaneServer, LaneSession, dumps, observation_frame

__all__ = ["LANE", "Lane", "call_tool"]

LANE: ContextVar[Lane | None] = ContextVar("lifeline_lane", default=None)
"""The lane of the WebSocket connection being handled (set by the guard, bound by the server
when the connection's session is created)."""


def _tool_call(env: LaneSession, request: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON-RPC response of a ``tools/call`` on ``env``, or ``None`` to decline it."""
    params = request.get("params", {})
    if not isinstance(params, dict):
        return None
    name, arguments = params.get("name"), params.get("arguments", {})
    if not isinstance(arguments, dict):
        return None
    call = env.fast_tool(name) if isinstance(name, str) else None
    if call is None:
        return None  # unknown tool: OpenEnv's handler words the error
    rid = request.get("id")
    try:
        result = call(**arguments)
    except Exception as exc:  # as OpenEnv's handler: an internal error with the message
        return {"jsonrpc": "2.0", "id": rid,
                "error": {"code": -32603, "message": str(exc), "data": None}}
    return {"jsonrpc": "2.0", "id": rid, "result": result}


class Lane:
    """One WebSocket connection's fast lane: unbound until its session exists."""

    __slots__ = ("env", "mcp", "server", "session_id")

    def __init__(self) -> None:
        self.server: LaneServer | None = None
        self.session_id: str | None = None
        self.env: LaneSession | None = None
        self.mcp = False
        """Whether the connection has sent MCP ``initialize`` (it is then answered as the
        protocol says, :mod:`lifeline.serve.mcp`, not in OpenEnv's dialect)."""

    def bind(self, server: LaneServer, session_id: str, env: LaneSession) -> None:
        """Attach the session this connection has just opened."""
        self.server, self.session_id, self.env = server, session_id, env

    def handle(self, message: dict[str, Any]) -> bytes | None:
        """The reply frame to a checked session message, or ``None`` to let OpenEnv answer."""
        env, server, session_id = self.env, self.server, self.session_id
        if env is None or server is None or session_id is None:
            return None
        kind = message.get("type")
        if kind == "step":
            data = message.get("data")
            if not isinstance(data, dict):
                return None
            try:
                action = env.action_model.model_validate(data)
            except Exception:
                return None  # OpenEnv's reply names the validation error
            if action.type != "call_tool":
                return None
            try:
                fields = env.step_fields(action)
            except Exception as exc:  # as OpenEnv: the session goes on
                return dumps({"type": "error",
                              "data": {"message": str(exc), "code": "EXECUTION_ERROR"}})
            server.touch(session_id)
            return dumps(observation_frame(fields))
        if kind == "mcp":
            request = message.get("data")
            if not isinstance(request, dict) or request.get("method") != "tools/call":
                return None
            response = _tool_call(env, request)
            if response is None:
                return None
            server.touch(session_id)
            return dumps({"type": "mcp", "data": response})
        return None


def call_tool(server: LaneServer, request: dict[str, Any]) -> dict[str, Any] | None:
    """The response to an HTTP ``/mcp`` ``tools/call`` naming a live HTTP session, or ``None``."""
    if request.get("method") != "tools/call":
        return None
    params = request.get("params")
    session_id = params.get("session_id") if isinstance(params, dict) else None
    if not isinstance(session_id, str):
        return None
    env = server.http_session(session_id)
    if env is None:
        return None  # unknown, initialising or not drivable over HTTP: the server answers
    response = _tool_call(env, request)
    if response is not None:
        server.touch(session_id)
    return response
