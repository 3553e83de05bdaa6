"""The Model Context Protocol itself on ``/<env>/mcp``: what the official ``mcp`` SDK speaks.

OpenEnv's MCP handler answers ``tools/list`` and ``tools/call`` (with ``session_id`` in the
params and the bare observation as the result) and nothing else: a standard client's
``initialize`` gets "method not found". This module answers the protocol proper (revisions
2024-11-05 to 2025-11-25, the ones the SDK supports) over both transports:

* **Streamable HTTP** (``POST /<env>/mcp``): ``initialize`` opens a session of the environment
  (it counts against the cap, like ``openenv/session/create``) and returns its id in the
  ``Mcp-Session-Id`` response header; every later request carries that header. The id is the
  session's capability (OpenEnv's ``uuid4``), returned only to its creator. Notifications
  (``notifications/initialized``, ...) are accepted with ``202`` and never answered; an
  unknown or ended session gets ``404`` (the spec's signal to start over); ``DELETE`` with the
  header closes the session. Responses are ``application/json`` (no server-sent events: the
  server never sends requests of its own, so ``GET`` is ``405``).
* **WebSocket** (``/<env>/mcp``, subprotocol ``mcp``, the SDK's ``websocket_client``): the
  connection's own session, opened at connect; after ``initialize`` the same answers as HTTP.

Answers: ``tools/list`` gives each action as a tool plus ``start_episode``, with its
``inputSchema``; ``tools/call`` gives a ``CallToolResult`` whose ``structuredContent`` is the
observation (the same fields OpenEnv's result has) and whose ``content`` is one text block —
the text view (if chosen) and a status line (step, reward, done, the error of an invalid
action, the score at the end). ``ping`` gives ``{}``. Errors are JSON-RPC errors: unknown
method ``-32601``, unknown tool or bad arguments ``-32602``, a full server ``-32000``; a tool
call with no episode running is a tool error (``isError: true``: the model can recover by
calling ``start_episode``). Requests without the header and of OpenEnv's methods keep
OpenEnv's answers (its ``MCPToolClient`` reads the bare observation).

Typed against Protocols (:class:`McpSession`, :class:`McpHost`): it imports neither the
OpenEnv face nor the server.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Protocol

from lifeline import __version__

__all__ = ["MCP_METHODS", "NO_ANSWER", "PROTOCOL_VERSIONS", "SESSION_HEADER", "McpEndpoint",
           "McpHost", "McpSession", "answer", "check_request", "is_mcp_request",
           "is_notification_message", "negotiate", "tool_result"]

PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
"""MCP revisions this server speaks (newest first; all the ``mcp`` 1.x SDK supports)."""
SESSION_HEADER = "mcp-session-id"
"""The Streamable HTTP session header (HTTP header names are case-insensitive)."""
MCP_METHODS = ("initialize", "ping", "tools/list", "tools/call")
"""The requests answered here (plus every ``notifications/*`` notification, never answered)."""
OPENENV_ONLY = ("openenv/session/create", "openenv/session/close")
"""OpenEnv's own methods: always answered by OpenEnv's handler."""
SERVER_ERROR = -32000
"""JSON-RPC code of a refusal by the server (the session cap reached)."""
NO_ANSWER: dict[str, Any] = {}
"""Returned for a notification: accepted, never answered."""


class McpSession(Protocol):
    """What the protocol needs of a served session (a
    :class:`~lifeline.serve.openenv.LifelineOpenEnv` is one)."""

    def fast_tool(self, name: str) -> Callable[..., dict[str, Any]] | None:
        """The tool ``name`` as a plain call returning the observation's fields, or ``None``."""
        ...

    def mcp_tools(self) -> list[dict[str, Any]]:
        """Every tool as ``{"name", "description", "inputSchema"}``."""
        ...


class McpHost(Protocol):
    """What the protocol needs of one environment's server
    (:class:`~lifeline.serve.server.LifelineEnvServer`)."""

    env_name: str

    async def open_http_session(self) -> tuple[str, McpSession]:
        """Open an HTTP session (``SessionCapacityError``-like exceptions when full)."""
        ...

    def http_session(self, session_id: str) -> McpSession | None:
        """The live HTTP session ``session_id``, or ``None``."""
        ...

    async def close_http_session(self, session_id: str) -> bool:
        """Close the live HTTP session ``session_id``; whether there was one."""
        ...

    def touch(self, session_id: str, step: bool = True) -> None:
        """Record activity (and a step) of ``session_id``."""
        ...


def negotiate(requested: Any) -> str:
    """The revision to answer ``initialize`` with: the client's if spoken here, else the newest."""
    return requested if requested in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]


def is_notification_message(data: Any) -> bool:
    """A well-formed JSON-RPC 2.0 notification: ``"jsonrpc": "2.0"``, a string ``method``,
    ``params`` absent or an object, and no ``id``. It is never executed and never answered
    (a malformed one is an invalid request, answered with an error)."""
    return (isinstance(data, dict) and "id" not in data and data.get("jsonrpc") == "2.0"
            and isinstance(data.get("method"), str)
            and isinstance(data.get("params", {}), dict))


def is_mcp_request(data: Any, has_session_header: bool) -> bool:
    """Whether an HTTP ``/mcp`` request is the protocol proper (answered here) rather than
    OpenEnv's dialect: it carries ``Mcp-Session-Id``, or it is ``initialize``, ``ping`` or a
    notification (no ``id``: never executed, never answered, in either dialect). OpenEnv's own
    methods with an ``id`` always go to OpenEnv."""
    if not isinstance(data, dict):
        return has_session_header
    method = data.get("method")
    if is_notification_message(data):
        return True  # whatever its method: accepted, never executed
    if method in OPENENV_ONLY:
        return False
    if has_session_header:
        return True
    return method in ("initialize", "ping") or (
        isinstance(method, str) and method.startswith("notifications/"))


def _error(rid: Any, code: int, message: str) -> dict[str, Any]:
    if not isinstance(rid, (str, int)) or isinstance(rid, bool):
        rid = None
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


def _ok(rid: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def check_request(data: Any) -> dict[str, Any] | None:
    """The JSON-RPC error response for a malformed message, or ``None`` if well-formed."""
    if not isinstance(data, dict):
        return _error(None, -32600, "a JSON-RPC message must be one JSON object (batches are "
                                    "not part of MCP since 2025-06-18)")
    rid = data.get("id")
    if data.get("jsonrpc") != "2.0":
        return _error(rid, -32600, "a JSON-RPC message needs \"jsonrpc\": \"2.0\"")
    if "id" in data and (rid is None or isinstance(rid, bool) or not isinstance(rid, (str, int))):
        return _error(None, -32600, "a JSON-RPC 'id' must be a string or an integer")
    if "method" not in data and ("result" in data or "error" in data):
        return None  # a response to a server request: there are none, it is dropped
    if not isinstance(data.get("method"), str):
        return _error(rid, -32600, "a JSON-RPC request needs 'method' (a string)")
    if not isinstance(data.get("params", {}), dict):
        return _error(rid, -32602, "'params' must be a JSON object")
    return None


def is_notification(data: dict[str, Any]) -> bool:
    """A message that gets no answer: a notification (no ``id``) or a response."""
    return "id" not in data or "method" not in data


def initialize_result(env_name: str, params: dict[str, Any]) -> dict[str, Any]:
    """The ``InitializeResult``: tools only, no server-initiated requests."""
    return {
        "protocolVersion": negotiate(params.get("protocolVersion")),
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": f"lifeline-{env_name}", "version": __version__},
        "instructions": (f"Lifeline '{env_name}' environment. Call start_episode (optionally "
                         f"with a seed) to begin; every other tool is one step of the episode; "
                         f"structuredContent carries the observation, reward, done and, at "
                         f"the end, the score."),
    }


def _status_line(obs: dict[str, Any]) -> str:
    parts = [f"step {obs.get('step')}"]
    reward = obs.get("reward")
    if isinstance(reward, float) and math.isfinite(reward):
        parts.append(f"reward {reward:+.4g}")
    parts.append(f"done {str(bool(obs.get('done'))).lower()}")
    if obs.get("error"):
        parts.append(f"invalid action: {obs['error']}")
    if obs.get("done") and obs.get("score") is not None:
        parts.append(f"score {obs['score']:.4g}")
    return " | ".join(parts)


def tool_result(obs: dict[str, Any]) -> dict[str, Any]:
    """A ``CallToolResult`` for one observation (its fields as ``structuredContent``)."""
    text = obs.get("text") or ""
    body = f"{text.rstrip()}\n\n{_status_line(obs)}" if text else _status_line(obs)
    return {"content": [{"type": "text", "text": body}], "structuredContent": obs,
            "isError": False}


def answer(env_name: str, session: McpSession, request: dict[str, Any],
           touch: Callable[[bool], None]) -> dict[str, Any]:
    """The response to a well-formed request on ``session`` (:data:`NO_ANSWER` for a
    notification). ``touch(step)`` records the call's activity."""
    if is_notification(request):
        return NO_ANSWER
    rid, method = request.get("id"), request["method"]
    params: dict[str, Any] = request.get("params") or {}
    if method == "initialize":
        return _ok(rid, initialize_result(env_name, params))
    if method == "ping":
        touch(False)
        return _ok(rid, {})
    if method == "tools/list":
        touch(False)
        return _ok(rid, {"tools": session.mcp_tools()})
    if method != "tools/call":
        return _error(rid, -32601, f"method not found: {method[:60]!r}; this server answers "
                                   f"{', '.join(MCP_METHODS)}")
    name, arguments = params.get("name"), params.get("arguments")
    arguments = {} if arguments is None else arguments
    if not isinstance(name, str) or not isinstance(arguments, dict):
        return _error(rid, -32602, "tools/call needs 'name' (a string) and 'arguments' (an "
                                   "object)")
    call = session.fast_tool(name)
    if call is None:
        names = ", ".join(t["name"] for t in session.mcp_tools())
        return _error(rid, -32602, f"unknown tool {name[:60]!r}; tools: {names}")
    try:
        obs = call(**arguments)
    except TypeError as exc:  # arguments the tool does not take
        return _error(rid, -32602, f"invalid arguments for {name}: {exc}")
    except ValueError as exc:  # start_episode options refused (the message says which)
        return _error(rid, -32602, str(exc))
    except RuntimeError as exc:  # no episode running / session closed: a tool error
        touch(False)
        return _ok(rid, {"content": [{"type": "text", "text": str(exc)}], "isError": True})
    touch(True)
    return _ok(rid, tool_result(obs))


class McpEndpoint:
    """The protocol on every served environment's ``/mcp``; ``hosts(path)`` finds the server
    of the environment a path belongs to (``None``: not an environment's ``/mcp``)."""

    def __init__(self, hosts: Callable[[str], McpHost | None]) -> None:
        self.hosts = hosts

    def host(self, path: str) -> McpHost | None:
        return self.hosts(path) if path.endswith("/mcp") else None

    async def http(self, host: McpHost, data: Any, session_id: str | None
                   ) -> tuple[int, dict[str, str], dict[str, Any] | None]:
        """``(status, extra headers, response or None)`` for one POSTed message."""
        problem = check_request(data)
        if problem is not None:
            return 400, {}, problem
        if data.get("method") == "initialize" and "id" in data and session_id is None:
            try:
                sid, _ = await host.open_http_session()
            except Exception as exc:  # the cap (SessionCapacityError), a factory failure
                return 200, {}, _error(data.get("id"), SERVER_ERROR, str(exc))
            return 200, {SESSION_HEADER: sid}, _ok(
                data["id"], initialize_result(host.env_name, data.get("params") or {}))
        if session_id is None:
            if data.get("method") == "ping" and "id" in data:
                return 200, {}, _ok(data["id"], {})
            if is_notification(data):
                return 202, {}, None
            return 400, {}, _error(data.get("id"), -32600, (
                "this request needs the Mcp-Session-Id header returned by initialize (or "
                "OpenEnv's dialect: params.session_id from openenv/session/create)"))
        session = host.http_session(session_id)
        if session is None:
            return 404, {}, _error(data.get("id"), -32600, (
                f"unknown or ended MCP session {session_id[:60]!r}: send initialize again"))
        response = answer(host.env_name, session, data,
                          lambda step: host.touch(session_id, step))
        if response is NO_ANSWER:
            return 202, {}, None
        return 200, {}, response
