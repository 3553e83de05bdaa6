"""ASGI middleware in front of every served environment: auth, message hygiene, idle timeout.

OpenEnv's WebSocket loop is robust to most bad input, but a few frames end the whole session
(a JSON array or a deeply nested document raise outside its per-message ``try``; a binary frame
breaks ``receive_text``; a lone UTF-16 surrogate makes the error reply itself unserialisable).
This guard answers those frames itself with an error frame in the same protocol and keeps the
session alive, rejects oversized messages (counted in bytes, HTTP bodies chunked or not) before
anyone parses them, closes WebSockets idle for longer than the timeout (which frees their
session slot), and checks the bearer token on HTTP and WebSocket alike.

Every refusal says what was wrong and what is accepted. Error replies are counted through the
optional ``on_error(path, kind)`` hook (the server's Prometheus counters).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import hmac
import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl

from lifeline.serve.fastlane import LANE, Lane
from lifeline.serve.frames import WEBSOCKET, SessionGate, dumps
from lifeline.serve.mcp import (
    NO_ANSWER,
    OPENENV_ONLY,
    SESSION_HEADER,
    McpEndpoint,
    answer,
    check_request,
    is_mcp_request,
    is_notification_message,
)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
RpcCheck = Callable[[dict[str, Any]], "tuple[tuple[int, str] | None, bool]"]
"""Checks (and may normalise in place) a JSON-RPC request:
``((JSON-RPC error code, reason) or None, changed)``."""
MessageCheck = Callable[[dict[str, Any]], "str | tuple[str, str] | None"]
"""Checks a session message: a reason (``VALIDATION_ERROR``), ``(code, reason)``, or None."""
FastRpc = Callable[[str, dict[str, Any]], "dict[str, Any] | None"]
"""Answers a checked HTTP JSON-RPC request to ``path`` itself (the response), or declines
(``None``) so that the app answers it (:func:`lifeline.serve.fastlane.call_tool`)."""

UNAUTHORIZED = ("unauthorized: missing or invalid bearer token (send 'Authorization: Bearer "
                "<token>', or HTTP Basic auth with any user name and the token as password)")
"""The 401 answer (HTTP and WebSocket handshakes alike)."""
BODY_TIMEOUT = 30.0
"""Default seconds for a request body to arrive (the headers have their own deadline in the
transport, :data:`lifeline.serve.transport.HEADER_TIMEOUT`)."""
OPEN_ENDPOINT = "health"
"""The only endpoint reachable without a token (``/health``, ``/<env>/health``): liveness."""
MAX_DEPTH = 64
"""Deepest JSON nesting accepted in a message (real messages nest 3-4 levels)."""
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A JSON ``\\uD800``-``\\uDFFF`` escape: the only way a lone surrogate gets into a message."""



def _json_body(status: int, payload: dict[str, Any]) -> tuple[list[tuple[bytes, bytes]], bytes]:
    body = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:  # both schemes accepted (Basic: what browsers and ~/.netrc send)
        headers.append((b"www-authenticate", b'Bearer realm="lifeline"'))
        headers.append((b"www-authenticate", b'Basic realm="lifeline", charset="UTF-8"'))
    return headers, body


def _compact(payload: dict[str, Any]) -> str:
    """A reply frame in OpenEnv's own compact JSON (what ``_count_reply`` recognises)."""
    return json.dumps(payload, separators=(",", ":"))


def _depth_exceeds(value: Any, limit: int) -> bool:
    """Whether ``value`` nests containers deeper than ``limit`` (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, (dict, list)))
    return False


def _has_lone_surrogate(value: Any) -> bool:
    """Whether any string (key or value) in ``value`` is not encodable as UTF-8."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def parse_message(text: str) -> tuple[Any, tuple[str, str] | None]:
    """``(document, None)`` or ``(None, (code, why))`` for one JSON message (frame or body)."""
    try:
        data = json.loads(text)
    except RecursionError:
        return None, ("INVALID_JSON", f"Invalid JSON: nested too deeply (at most {MAX_DEPTH} "
                                      f"levels are accepted)")
    except ValueError as exc:
        return None, ("INVALID_JSON", f"Invalid JSON: {exc}; send one JSON object as UTF-8 text")
    if (text.count("[") + text.count("{") > MAX_DEPTH) and _depth_exceeds(data, MAX_DEPTH):
        return None, ("INVALID_JSON", f"Invalid JSON: nested more than {MAX_DEPTH} levels deep")
    if _SURROGATE_ESCAPE.search(text) and _has_lone_surrogate(data):
        return None, ("INVALID_JSON", "Invalid JSON: a string contains a lone UTF-16 surrogate "
                                      "escape (\\ud800-\\udfff not in a valid pair), which is "
                                      "not Unicode text; send valid UTF-8 strings")
    return data, None


def _query_value(scope: Scope, key: str) -> str | None:
    """The last value of ``key`` in the request's query string (as Starlette's
    ``query_params.get`` reads it), or ``None``."""
    found = None
    for name, value in parse_qsl(bytes(scope.get("query_string", b"")).decode("latin-1"),
                                 keep_blank_values=True):
        if name == key:
            found = value
    return found or None


class Guard:
    """Wraps an ASGI app; see the module docstring. ``token=None`` disables authentication."""

    def __init__(self, app: ASGIApp, *, token: str | None, max_message_bytes: int,
                 idle_timeout: float | None,
                 message_check: MessageCheck | None = None,
                 rpc_check: RpcCheck | None = None,
                 on_error: Callable[[str, str], None] | None = None,
                 fast_rpc: FastRpc | None = None, lanes: bool = False,
                 sessions: SessionGate | None = None,
                 body_timeout: float | None = BODY_TIMEOUT,
                 mcp: McpEndpoint | None = None) -> None:
        if token is not None and (not isinstance(token, str) or not token.strip()
                                  or token != token.strip()):
            raise ValueError("the bearer token must be a non-empty string without surrounding "
                             "whitespace; omit it (and unset LIFELINE_TOKEN) to serve without "
                             "authentication")
        self.app = app
        self.message_check = message_check
        """Optional check of a parsed session message: a clear reason to refuse it, or None."""
        self.rpc_check = rpc_check
        """Optional check/normalisation of a JSON-RPC request (``/mcp``, ``mcp`` messages)."""
        self.on_error = on_error
        self.fast_rpc = fast_rpc
        """Optional fast answer to checked HTTP JSON-RPC requests (see :data:`FastRpc`)."""
        self.lanes = lanes
        """Give each ``/ws`` connection a :class:`~lifeline.serve.fastlane.Lane`: its steps
        and tool calls are answered here once the app has bound the connection's session."""
        self.sessions = sessions
        self.body_timeout = body_timeout
        """Seconds an HTTP request's body may take to arrive, once its headers have (408)."""
        """Optional rules of who may drive which session (checked before the app sees a
        JSON-RPC request naming a session or a WebSocket attaching to one)."""
        self.mcp = mcp
        """The Model Context Protocol proper on ``/<env>/mcp`` (:mod:`lifeline.serve.mcp`):
        requests with ``Mcp-Session-Id``, ``initialize``, ``ping``, notifications."""
        self.token = token
        # Compared as bytes: clients send UTF-8 (or, for Latin-1 text, possibly Latin-1).
        self._secrets: list[bytes] = []
        if token is not None:
            self._secrets.append(token.encode("utf-8"))
            try:
                latin = token.encode("latin-1")
            except UnicodeEncodeError:
                latin = b""
            if latin and latin not in self._secrets:
                self._secrets.append(latin)
        self.max_message_bytes = max_message_bytes
        self.idle_timeout = idle_timeout

    # ----- entry point ------------------------------------------------------------------------
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "websocket":
            marker = WEBSOCKET.set(True)
            try:
                await self._websocket(scope, receive, send)
            finally:
                WEBSOCKET.reset(marker)
        else:
            await self.app(scope, receive, send)

    def _error(self, scope: Scope, kind: str) -> None:
        if self.on_error is not None:
            self.on_error(scope.get("path", ""), kind)

    def _matches(self, given: bytes) -> bool:
        ok = False
        for secret in self._secrets:  # no early exit: constant time in the number of tries
            ok |= hmac.compare_digest(given, secret)
        return ok

    def _authorized(self, scope: Scope) -> bool:
        if self.token is None:
            return True
        if scope["type"] == "http" and scope.get("path", "").rsplit("/", 1)[-1] == OPEN_ENDPOINT:
            return True
        for key, value in scope.get("headers", []):
            if key != b"authorization":
                continue
            scheme, _, rest = bytes(value).strip().partition(b" ")
            given = rest.strip()
            if not given:
                return False
            if scheme.lower() == b"bearer":
                return self._matches(given)
            if scheme.lower() == b"basic":  # any user name, the token as password (~/.netrc)
                try:
                    _, _, password = base64.b64decode(given, validate=True).partition(b":")
                except (binascii.Error, ValueError):
                    return False
                return self._matches(password)
            return False
        return False

    # ----- HTTP -------------------------------------------------------------------------------
    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._authorized(scope):
            self._error(scope, "HTTP_401")
            await self._reply(send, 401, {"detail": UNAUTHORIZED})
            return
        for key, value in scope.get("headers", []):
            if key == b"content-length" and value.isdigit() \
                    and int(value) > self.max_message_bytes:
                self._error(scope, "HTTP_413")
                await self._reply(send, 413, {"detail": self._too_large(int(value))})
                return
        # Read the whole body here, counting bytes as they come: a chunked upload has no
        # Content-Length to check, so this is what bounds its size.
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.body_timeout):
                while True:
                    message = await receive()
                    if message["type"] != "http.request":
                        return  # the client went away before sending its body
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > self.max_message_bytes:
                        self._error(scope, "HTTP_413")
                        await self._reply(send, 413,
                                          {"detail": self._too_large(size, at_least=True)})
                        return
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            self._error(scope, "HTTP_408")
            await self._reply(send, 408, {"detail": f"the request body did not arrive within "
                                                    f"{self.body_timeout:g} s"})
            return
        parsed: tuple[Any, tuple[str, str] | None] | None = None
        if self.mcp is not None:
            handled, parsed = await self._mcp_http(scope, b"".join(chunks), send)
            if handled:
                return
        checked = await self._check_body(scope, b"".join(chunks), send, parsed)
        if checked is None:
            return
        body = checked
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        async def counted_send(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] >= 400:
                self._error(scope, f"HTTP_{message['status']}")
            await send(message)

        await self.app(scope, replay, counted_send)

    async def _check_body(self, scope: Scope, body: bytes, send: Send,
                          parsed: tuple[Any, tuple[str, str] | None] | None = None
                          ) -> bytes | None:
        """The body to pass on (JSON-RPC arguments normalised), or ``None`` if answered here.
        ``parsed``: :func:`parse_message` of the body, if already done."""
        rpc = scope.get("method") == "POST" and scope.get("path", "").endswith("/mcp")
        if not rpc and body.lstrip()[:1] not in (b"{", b"["):
            return body  # not JSON: the route answers (FastAPI's 422 names the problem)
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            self._error(scope, "HTTP_400")
            await self._reply(send, 400, {"detail": "the request body is not valid UTF-8; "
                                                    "send JSON encoded as UTF-8"})
            return None
        data, problem = parse_message(text) if parsed is None else parsed
        if problem is not None:
            if not rpc and not any(w in problem[1] for w in ("nested", "surrogate")):
                return body  # a plain syntax error: the route's own 422 names it
            self._error(scope, "RPC_-32700" if rpc else "HTTP_400")
            if rpc:
                await self._reply(send, 200, self._rpc_error(-32700, problem[1], None))
            else:
                await self._reply(send, 400, {"detail": problem[1]})
            return None
        if rpc and self.rpc_check is not None:
            if not isinstance(data, dict):
                await self._reply(send, 200, self._rpc_error(
                    -32600, "a JSON-RPC request must be a JSON object such as {\"jsonrpc\": "
                            "\"2.0\", \"id\": 1, \"method\": \"tools/list\"}", None))
                self._error(scope, "RPC_-32600")
                return None
            refusal, changed = self.rpc_check(data)
            if refusal is None and self.sessions is not None:
                refusal = self.sessions.rpc_refusal(scope.get("path", ""), data, None, False)
            if refusal is not None:
                self._error(scope, f"RPC_{refusal[0]}")
                await self._reply(send, 200, self._rpc_error(*refusal, data.get("id")))
                return None
            if self.fast_rpc is not None:
                response = self.fast_rpc(scope.get("path", ""), data)
                if response is not None:
                    if "error" in response:
                        self._error(scope, f"RPC_{response['error']['code']}")
                    await self._send_body(send, 200, dumps(response))
                    return None
            if changed:
                return json.dumps(data).encode()
        return body

    async def _mcp_http(self, scope: Scope, body: bytes, send: Send
                        ) -> tuple[bool, tuple[Any, tuple[str, str] | None] | None]:
        """Answer an MCP Streamable HTTP message (POST, or DELETE of a session):
        ``(answered, the body's parse if done)``; not answered leaves the request to OpenEnv's
        dialect (no ``Mcp-Session-Id``, OpenEnv's methods)."""
        assert self.mcp is not None
        path, method = scope.get("path", ""), scope.get("method")
        host = self.mcp.host(path)
        if host is None or method not in ("POST", "DELETE"):
            return False, None
        session_id: str | None = None
        for key, value in scope.get("headers", []):
            if key == SESSION_HEADER.encode():
                session_id = bytes(value).decode("latin-1").strip() or None
        if method == "DELETE":
            if session_id is None:
                return False, None
            closed = await host.close_http_session(session_id)
            await self._send_body(send, 200 if closed else 404, b"")
            return True, None
        try:
            data, problem = parse_message(body.decode("utf-8"))
        except UnicodeDecodeError:
            if session_id is None:
                return False, None  # OpenEnv's dialect words it
            data, problem = None, ("INVALID_JSON", "the request body is not valid UTF-8")
        if problem is not None:
            if session_id is None:
                return False, (data, problem)  # OpenEnv's dialect words it
            self._error(scope, "RPC_-32700")
            await self._reply(send, 400, self._rpc_error(-32700, problem[1], None))
            return True, None
        if not is_mcp_request(data, session_id is not None):
            return False, (data, problem)
        if (isinstance(data, dict) and data.get("method") == "tools/call" and "id" in data
                and self.rpc_check is not None):
            refusal, _ = self.rpc_check(data)  # normalises the arguments (JSON strings)
            if refusal is not None:
                self._error(scope, f"RPC_{refusal[0]}")
                await self._reply(send, 200, self._rpc_error(*refusal, data.get("id")))
                return True, None
        status, headers, response = await self.mcp.http(host, data, session_id)
        if response is None:
            await self._send_body(send, status, b"")
            return True, None
        if "error" in response:
            self._error(scope, f"RPC_{response['error']['code']}")
        await self._send_body(send, status, dumps(response), headers)
        return True, None

    def _mcp_frame(self, text: str | None, path: str, lane: Lane) -> tuple[str, bool] | None:
        """``(reply, activity)`` for an MCP message on a ``/<env>/mcp`` WebSocket answered as
        the protocol says (reply ``""``: none, a notification), or ``None`` to leave it to
        OpenEnv's dialect. Only a request answered (not refused) is activity."""
        host = self.mcp.host(path) if self.mcp is not None else None
        if (host is None or text is None or lane.env is None or lane.session_id is None
                or 4 * len(text) > self.max_message_bytes):
            return None
        data, problem = parse_message(text)
        if problem is not None or not isinstance(data, dict):
            return None
        method = data.get("method")
        if is_notification_message(data):
            return "", False  # a notification (any method): never executed, never answered
        if method in OPENENV_ONLY or not (
                lane.mcp or method in ("initialize", "ping")
                or (isinstance(method, str) and method.startswith("notifications/"))):
            return None
        malformed = check_request(data)
        if malformed is not None:
            return _compact(malformed), False
        if method == "initialize":
            lane.mcp = True
        if method == "tools/call" and "id" in data and self.rpc_check is not None:
            refusal, _ = self.rpc_check(data)
            if refusal is not None:
                return _compact(self._rpc_error(*refusal, data.get("id"))), False
        server, sid = lane.server, lane.session_id
        response = answer(host.env_name, lane.env, data,  # type: ignore[arg-type]
                          lambda step: server.touch(sid, step) if server else None)
        if response is NO_ANSWER:
            return "", False
        return _compact(response), True

    @staticmethod
    def _rpc_error(code: int, message: str, request_id: Any) -> dict[str, Any]:
        if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):
            request_id = None
        return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}

    @staticmethod
    async def _reply(send: Send, status: int, payload: dict[str, Any]) -> None:
        headers, body = _json_body(status, payload)
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    @staticmethod
    async def _send_body(send: Send, status: int, body: bytes,
                         extra: dict[str, str] | None = None) -> None:
        """An ``application/json`` response with an already encoded body."""
        headers = [(b"content-type", b"application/json"),
                   (b"content-length", str(len(body)).encode())]
        headers += [(k.encode(), v.encode()) for k, v in (extra or {}).items()]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _too_large(self, size: int, at_least: bool = False) -> str:
        return (f"message of {'more than ' if at_least else ''}{size / 1e6:.1f} MB exceeds the "
                f"server limit of {self.max_message_bytes / 1e6:.1f} MB "
                f"({self.max_message_bytes} bytes of UTF-8)")

    # ----- WebSocket ----------------------------------------------------------------------------
    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._authorized(scope):
            self._error(scope, "WS_401")
            await receive()  # websocket.connect
            # Closing before accepting makes the server answer the handshake with HTTP 403.
            await send({"type": "websocket.close", "code": 1008, "reason": "unauthorized"})
            return
        path = scope.get("path", "")
        rpc = path.endswith("/mcp")
        # Every connection gets a Lane: the server binds the session the connection creates to
        # it (its own session, the only one its JSON-RPC requests may name); only /ws
        # connections use it to answer steps (``self.lanes``).
        lane = Lane()
        fast = self.lanes and path.endswith("/ws")
        attached = _query_value(scope, "session_id") if path.endswith("/ws") else None
        if attached is not None and self.sessions is not None:
            refusal = self.sessions.attach(path, attached)
            if refusal is not None:
                self._error(scope, "SESSION_FORBIDDEN")
                await receive()  # websocket.connect
                await send({"type": "websocket.accept"})
                await send({"type": "websocket.send", "text": _compact(
                    {"type": "error", "data": {"message": refusal, "code": "SESSION_FORBIDDEN"}})})
                await send({"type": "websocket.close", "code": 1008,
                            "reason": "session not yours"})
                return
        closed = False

        offered_mcp = rpc and "mcp" in scope.get("subprotocols", [])

        async def guarded_send(message: Message) -> None:
            if closed:  # after an idle close the app's own close is moot
                return
            if offered_mcp and message["type"] == "websocket.accept" \
                    and not message.get("subprotocol"):
                message = {**message, "subprotocol": "mcp"}  # the MCP SDK's WebSocket client
            text = message.get("text")
            if text is not None and self.on_error is not None:
                self._count_reply(scope, text, rpc)
            await send(message)

        idle = self.idle_timeout
        clock = asyncio.get_running_loop().time
        last = clock()  # when the last meaningful frame came: the idle clock runs from there

        async def guarded_receive() -> Message:
            nonlocal closed, last
            while True:
                try:
                    # One timer per wait (no extra task per message); refused frames and the
                    # transport's pings do not move the deadline.
                    async with asyncio.timeout_at(None if idle is None else last + idle):
                        message = await receive()
                except TimeoutError:
                    closed = True
                    with contextlib.suppress(OSError):  # a client that does not read: the
                        await send({"type": "websocket.close", "code": 1001,  # transport's
                                    "reason": f"idle for more than {idle:g} s"})  # send timeout
                    return {"type": "websocket.disconnect", "code": 1001}
                if message["type"] != "websocket.receive":
                    return message
                if rpc and self.mcp is not None:
                    handled = self._mcp_frame(message.get("text"), path, lane)
                    if handled is not None:
                        reply_text, activity = handled
                        if activity:  # a request answered (a notification or refusal is not)
                            last = clock()
                        if reply_text:
                            try:
                                await guarded_send({"type": "websocket.send",
                                                    "text": reply_text})
                            except OSError:
                                return {"type": "websocket.disconnect", "code": 1006}
                        continue
                reply, data = self._checked_frame(message, rpc, lane.session_id or attached,
                                                   path)
                if reply == "":
                    continue  # a JSON-RPC notification in an ``mcp`` message: dropped
                if reply is None:  # a well-formed message: activity
                    last = clock()
                    if fast and lane.env is not None:
                        answer = lane.handle(data)
                        if answer is not None:
                            reply = answer.decode("utf-8")
                if reply is None:
                    return message
                try:
                    await guarded_send({"type": "websocket.send", "text": reply})
                except OSError:  # the transport gave up on a client that does not read
                    return {"type": "websocket.disconnect", "code": 1006}

        marker = LANE.set(lane)
        try:
            await self.app(scope, guarded_receive, guarded_send)
        finally:
            LANE.reset(marker)
            if attached is not None and self.sessions is not None:
                self.sessions.detach(path, attached)

    def _count_reply(self, scope: Scope, text: str, rpc: bool) -> None:
        """Count an outgoing error frame (cheap prefix tests first; parsed only if an error)."""
        if text.startswith('{"type":"error"'):
            try:
                code = json.loads(text)["data"]["code"]
            except (ValueError, KeyError, TypeError):
                code = "ERROR"
            self._error(scope, str(code))
        elif (rpc or text.startswith('{"type":"mcp"')) and '"error":{' in text:
            try:
                doc = json.loads(text)
                doc = doc if rpc else doc["data"]
                self._error(scope, f"RPC_{doc['error']['code']}")
            except (ValueError, KeyError, TypeError):
                self._error(scope, "RPC_ERROR")

    def _check_frame(self, message: Message, rpc: bool) -> str | None:
        """The error reply to send instead of passing a data frame on, or ``None`` to pass it.

        May rewrite ``message["text"]`` (JSON-RPC arguments sent as a JSON string are decoded).
        """
        return self._checked_frame(message, rpc)[0]

    def _checked_frame(self, message: Message, rpc: bool, own: str | None = None,
                       path: str = "") -> tuple[str | None, Any]:
        """``(error reply, None)`` for a refused frame, ``(None, parsed message)`` otherwise;
        ``("", None)`` for a JSON-RPC notification inside an ``mcp`` message (dropped unread).

        ``own`` is the session of the connection (a JSON-RPC request may name no other)."""
        text = message.get("text")
        if text is None:
            return self._reply_frame(("INVALID_JSON", "binary frames are not supported: send "
                                                      "JSON as a text frame"), rpc), None
        # Bytes, not characters: only texts that might be too large are encoded to count.
        if len(text) > self.max_message_bytes or (
                4 * len(text) > self.max_message_bytes
                and len(text.encode("utf-8", "surrogatepass")) > self.max_message_bytes):
            size = len(text.encode("utf-8", "surrogatepass"))
            return self._reply_frame(("MESSAGE_TOO_LARGE", self._too_large(size)), rpc), None
        data, problem = parse_message(text)
        if problem is not None:
            return self._reply_frame(problem, rpc), None
        if not isinstance(data, dict):
            return self._reply_frame(("VALIDATION_ERROR", "a message must be a JSON object such "
                                      "as {\"type\": \"step\", \"data\": {...}}"), rpc), None
        if rpc:
            request: dict[str, Any] | None = data
        else:
            if self.message_check is not None:
                reason = self.message_check(data)
                if reason is not None:
                    problem = reason if isinstance(reason, tuple) else ("VALIDATION_ERROR", reason)
                    return self._reply_frame(problem, rpc), None
            inner = data.get("data") if data.get("type") == "mcp" else None
            request = inner if isinstance(inner, dict) else None
            if is_notification_message(request):
                return "", None  # a notification: JSON-RPC says it gets no answer
        if request is not None and self.rpc_check is not None:
            refusal, changed = self.rpc_check(request)
            if refusal is None and self.sessions is not None:
                refusal = self.sessions.rpc_refusal(path, request, own, True)
            if refusal is not None:
                error = self._rpc_error(*refusal, request.get("id"))
                return _compact(error if rpc else {"type": "mcp", "data": error}), None
            if changed:
                message["text"] = json.dumps(data)
        return None, data

    def _reply_frame(self, problem: tuple[str, str], rpc: bool) -> str:
        code, text = problem
        if rpc:  # the /mcp socket speaks JSON-RPC 2.0
            rpc_code = -32700 if code in ("INVALID_JSON", "MESSAGE_TOO_LARGE") else -32600
            return _compact(self._rpc_error(rpc_code, text, None))
        return _compact({"type": "error", "data": {"message": text, "code": code}})
