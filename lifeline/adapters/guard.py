"""ASGI middleware in front of every served environment: auth, message hygiene, idle timeout.

OpenEnv's WebSocket loop is robust to most bad input, but a few frames end the whole session
(a JSON array or a deeply nested document raise outside its per-message ``try``; a binary frame
breaks ``receive_text``). This guard answers those frames itself with an error frame in the
same protocol and keeps the session alive, rejects oversized messages before anyone parses them,
closes WebSockets idle for longer than the timeout (which frees their session slot), and checks
the bearer token on HTTP and WebSocket alike.
"""

from __future__ import annotations

import asyncio
import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

OPEN_ENDPOINT = "health"
"""The only endpoint reachable without a token (``/health``, ``/<env>/health``): liveness."""


def _json_body(status: int, payload: dict[str, Any]) -> tuple[list[tuple[bytes, bytes]], bytes]:
    body = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="lifeline"'))
    return headers, body


class Guard:
    """Wraps an ASGI app; see the module docstring. ``token=None`` disables authentication."""

    def __init__(self, app: ASGIApp, *, token: str | None, max_message_bytes: int,
                 idle_timeout: float | None,
                 message_check: Callable[[dict[str, Any]], str | None] | None = None) -> None:
        self.app = app
        self.message_check = message_check
        """Optional check of a parsed session message: a clear reason to refuse it, or None."""
        self.token = token
        self.max_message_bytes = max_message_bytes
        self.idle_timeout = idle_timeout

    # ----- entry point ------------------------------------------------------------------------
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    def _authorized(self, scope: Scope) -> bool:
        if self.token is None:
            return True
        if scope["type"] == "http" and scope.get("path", "").rsplit("/", 1)[-1] == OPEN_ENDPOINT:
            return True
        for key, value in scope.get("headers", []):
            if key == b"authorization":
                scheme, _, given = value.decode("latin-1").partition(" ")
                if scheme.lower() == "bearer":
                    return hmac.compare_digest(given.strip().encode(), self.token.encode())
        return False

    # ----- HTTP -------------------------------------------------------------------------------
    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._authorized(scope):
            await self._reply(send, 401, {"detail": "unauthorized: missing or invalid bearer "
                                                    "token (send 'Authorization: Bearer <token>')"})
            return
        for key, value in scope.get("headers", []):
            if key == b"content-length" and value.isdigit() \
                    and int(value) > self.max_message_bytes:
                await self._reply(send, 413, {"detail": self._too_large(int(value))})
                return
        await self.app(scope, receive, send)

    @staticmethod
    async def _reply(send: Send, status: int, payload: dict[str, Any]) -> None:
        headers, body = _json_body(status, payload)
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _too_large(self, size: int) -> str:
        return (f"message of {size / 1e6:.1f} MB exceeds the server limit of "
                f"{self.max_message_bytes / 1e6:.1f} MB")

    # ----- WebSocket ----------------------------------------------------------------------------
    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._authorized(scope):
            await receive()  # websocket.connect
            # Closing before accepting makes the server answer the handshake with HTTP 403.
            await send({"type": "websocket.close", "code": 1008, "reason": "unauthorized"})
            return
        rpc = scope.get("path", "").endswith("/mcp")
        closed = False

        async def guarded_send(message: Message) -> None:
            if not closed:  # after an idle close the app's own close is moot
                await send(message)

        async def guarded_receive() -> Message:
            nonlocal closed
            while True:
                try:
                    # asyncio.timeout schedules one timer (no extra task per message).
                    async with asyncio.timeout(self.idle_timeout):
                        message = await receive()
                except TimeoutError:
                    closed = True
                    await send({"type": "websocket.close", "code": 1001,
                                "reason": f"idle for more than {self.idle_timeout:g} s"})
                    return {"type": "websocket.disconnect", "code": 1001}
                if message["type"] != "websocket.receive":
                    return message
                problem = self._check_frame(message, rpc)
                if problem is None:
                    return message
                await send({"type": "websocket.send", "text": self._error_frame(problem, rpc)})

        await self.app(scope, guarded_receive, guarded_send)

    def _check_frame(self, message: Message, rpc: bool) -> tuple[str, str] | None:
        """``(code, message)`` if a data frame must not reach the app, else ``None``."""
        text = message.get("text")
        if text is None:
            return ("INVALID_JSON", "binary frames are not supported: send JSON as a text frame")
        if len(text) > self.max_message_bytes:
            return ("MESSAGE_TOO_LARGE", self._too_large(len(text.encode("utf-8"))))
        try:
            data = json.loads(text)
        except RecursionError:
            return ("INVALID_JSON", "Invalid JSON: nested too deeply")
        except ValueError as exc:
            return ("INVALID_JSON", f"Invalid JSON: {exc}")
        if not isinstance(data, dict):
            return ("VALIDATION_ERROR", "a message must be a JSON object such as "
                                        "{\"type\": \"step\", \"data\": {...}}")
        if not rpc and self.message_check is not None:
            reason = self.message_check(data)
            if reason is not None:
                return ("VALIDATION_ERROR", reason)
        return None

    @staticmethod
    def _error_frame(problem: tuple[str, str], rpc: bool) -> str:
        code, text = problem
        if rpc:  # the /mcp socket speaks JSON-RPC 2.0
            rpc_code = -32700 if code in ("INVALID_JSON", "MESSAGE_TOO_LARGE") else -32600
            return json.dumps({"jsonrpc": "2.0", "id": None,
                               "error": {"code": rpc_code, "message": text}})
        return json.dumps({"type": "error", "data": {"message": text, "code": code}})
