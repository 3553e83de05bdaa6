"""A lean benchmark client: WebSocket and keep-alive HTTP/1.1 over raw asyncio protocols.

On a 2-core machine the benchmark client shares the cores with the server, so every
microsecond the client spends per message is taken from the server: with two server workers
the measured scaling is ``2 S / (S + C)`` for a server cost ``S`` and client cost ``C`` per
step, and a general-purpose client (``websockets``: frame objects, futures, a task switch per
message; ``httpx``: a request model per call) costs as much as the server it measures. This
client does the minimum a correct client must do and nothing else:

* one process and one event loop drive every session; each reply is handled in the protocol's
  ``data_received`` callback, which writes the next message at once (no task per message);
* outgoing messages are pre-encoded bytes (client frames are masked, as RFC 6455 requires,
  with an all-zero key, which leaves the payload as is, so a frame is a header plus the bytes);
* replies are checked, not decoded: the caller's handler gets each complete message as bytes
  and reads what it needs (type, ``done``, the action mask) by position.

The WebSocket handshake is checked (status 101 and ``Sec-WebSocket-Accept``), pings are
answered, fragmented messages are reassembled, and a close frame or a dropped connection ends
the session with an error.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
from collections.abc import Callable, Sequence

Handler = Callable[[bytes], "bytes | None"]
"""Gets one complete reply; returns the next message to send, or ``None`` to stop."""

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_ZERO_MASK = b"\x00\x00\x00\x00"


def ws_frame(payload: bytes, opcode: int = 1) -> bytes:
    """A final client frame (text by default) with ``payload``, masked with a zero key."""
    n = len(payload)
    if n < 126:
        head = bytes((0x80 | opcode, 0x80 | n))
    elif n < 1 << 16:
        head = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
    return head + _ZERO_MASK + payload


class _Connection(asyncio.Protocol):
    """Common plumbing: the transport, the handler, completion and errors."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        loop = asyncio.get_running_loop()
        self.ready: asyncio.Future[None] = loop.create_future()
        self.finished: asyncio.Future[None] = loop.create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def fail(self, why: str) -> None:
        for future in (self.ready, self.finished):
            if not future.done():
                future.set_exception(RuntimeError(why))
        if self.transport is not None:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.finished.done():
            self.fail(f"connection lost: {exc}")

    def deliver(self, payload: bytes) -> None:
        """Hand one reply to the handler; send what it returns or finish."""
        try:
            reply = self.handler(payload)
        except Exception as exc:  # a failed check ends the run with its message
            self.fail(str(exc))
            return
        if reply is None:
            if not self.finished.done():
                self.finished.set_result(None)
        else:
            self.send(reply)

    def send(self, payload: bytes) -> None:
        raise NotImplementedError


class WsConnection(_Connection):
    """One WebSocket connection; messages are text frames."""

    def __init__(self, handler: Handler, host: str, path: str,
                 headers: Sequence[tuple[str, str]] = ()) -> None:
        super().__init__(handler)
        self.key = base64.b64encode(os.urandom(16))
        self.accept = base64.b64encode(hashlib.sha1(self.key + _GUID).digest())
        lines = [f"GET {path} HTTP/1.1", f"Host: {host}", "Upgrade: websocket",
                 "Connection: Upgrade", f"Sec-WebSocket-Key: {self.key.decode()}",
                 "Sec-WebSocket-Version: 13", *(f"{k}: {v}" for k, v in headers)]
        self.request = ("\r\n".join(lines) + "\r\n\r\n").encode()
        self.upgraded = False
        self.fragments: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        assert self.transport is not None
        self.transport.write(self.request)

    def send(self, payload: bytes) -> None:
        assert self.transport is not None
        self.transport.write(ws_frame(payload))

    def data_received(self, data: bytes) -> None:
        buf = self.buffer
        buf += data
        if not self.upgraded:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buf[:end]).lower()
            del buf[:end + 4]
            if not head.startswith(b"http/1.1 101") or self.accept.lower() not in head:
                self.fail(f"WebSocket handshake refused: {head[:200]!r}")
                return
            self.upgraded = True
            self.ready.set_result(None)
        while len(buf) >= 2:
            b0, b1 = buf[0], buf[1]
            n, offset = b1 & 0x7F, 2
            if n == 126:
                if len(buf) < 4:
                    return
                n, offset = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                if len(buf) < 10:
                    return
                n, offset = int.from_bytes(buf[2:10], "big"), 10
            if b1 & 0x80:
                self.fail("the server masked a frame")
                return
            if len(buf) < offset + n:
                return
            payload = bytes(buf[offset:offset + n])
            del buf[:offset + n]
            opcode = b0 & 0x0F
            if opcode in (0, 1, 2):
                if not b0 & 0x80:
                    self.fragments.append(payload)
                    continue
                if self.fragments:
                    payload = b"".join([*self.fragments, payload])
                    self.fragments.clear()
                self.deliver(payload)
            elif opcode == 9:  # ping
                assert self.transport is not None
                self.transport.write(ws_frame(payload, opcode=10))
            elif opcode == 8:
                code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else None
                self.fail(f"the server closed the WebSocket ({code}): {payload[2:200]!r}")
                return

    def close(self) -> None:
        """Send a normal close frame and drop the connection."""
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(ws_frame((1000).to_bytes(2, "big"), opcode=8))
            self.transport.close()


class HttpConnection(_Connection):
    """One keep-alive HTTP/1.1 connection; each message is a JSON ``POST`` to ``path``."""

    def __init__(self, handler: Handler, host: str, path: str,
                 headers: Sequence[tuple[str, str]] = ()) -> None:
        super().__init__(handler)
        extra = "".join(f"{k}: {v}\r\n" for k, v in headers)
        self.head = (f"POST {path} HTTP/1.1\r\nHost: {host}\r\n"
                     f"Content-Type: application/json\r\n{extra}").encode()
        self.want: int | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.ready.set_result(None)

    def send(self, payload: bytes) -> None:
        assert self.transport is not None
        self.transport.write(b"%sContent-Length: %d\r\n\r\n%s"
                             % (self.head, len(payload), payload))

    def data_received(self, data: bytes) -> None:
        buf = self.buffer
        buf += data
        while True:
            if self.want is None:
                end = buf.find(b"\r\n\r\n")
                if end < 0:
                    return
                head = bytes(buf[:end]).lower()
                del buf[:end + 4]
                at = head.find(b"mcp-session-id:")
                if at >= 0 and b"mcp-session-id" not in self.head.lower():
                    # MCP Streamable HTTP: every later request carries the session's header
                    stop = head.find(b"\r\n", at)
                    value = head[at + 15:stop if stop > 0 else None].strip()
                    self.head += b"Mcp-Session-Id: " + value + b"\r\n"
                if not head.startswith(b"http/1.1 200"):
                    self.fail(f"HTTP error: {head[:200]!r}")
                    return
                at = head.find(b"content-length:")
                if at < 0:
                    self.fail("a response without Content-Length")
                    return
                self.want = int(head[at + 15:head.find(b"\r\n", at) if
                                    head.find(b"\r\n", at) > 0 else None])
            if len(buf) < self.want:
                return
            body = bytes(buf[:self.want])
            del buf[:self.want]
            self.want = None
            self.deliver(body)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


async def open_connection(kind: type[_Connection], handler: Handler, host: str, port: int,
                          path: str, headers: Sequence[tuple[str, str]] = ()) -> _Connection:
    """Connect (and for WebSocket, upgrade) a connection whose replies go to ``handler``."""
    loop = asyncio.get_running_loop()
    _, conn = await loop.create_connection(
        lambda: kind(handler, f"{host}:{port}", path, headers), host, port)  # type: ignore[call-arg]
    await conn.ready
    return conn
