"""The WebSocket transport: uvicorn's sans-I/O protocol with cheaper flow control.

uvicorn's ``websockets-sansio`` protocol pauses reading the socket after *every* received
message and resumes when the application takes it, so each step of a session costs two extra
``epoll_ctl`` system calls (and the selector's bookkeeping) — about a tenth of a served step's
CPU on the development machine. :class:`LaneWebSocketProtocol` keeps the flow control but pauses
only when :data:`QUEUE_HIGH` messages are waiting: a client that sends without reading replies
is still stopped there (a bounded queue per connection), and the one-message-at-a-time
conversation of an episode never touches the selector. uvicorn loads the class by name
(``ws="lifeline.serve.transport:LaneWebSocketProtocol"``).

It also bounds what a client that does not read can hold (uvicorn's own protocol waits for a
full write buffer to drain forever, so such a client kept its session, its slot and the
server's graceful shutdown):

* the write buffer pauses the application's sends above :data:`WRITE_BUFFER_HIGH` bytes;
* a send still waiting after :data:`SEND_TIMEOUT` seconds aborts the connection (the app sees a
  disconnect, so the session is closed and its slot freed);
* after a close frame (the app's, an idle close, or the server's 1012 at shutdown), a
  connection whose buffered data the client never takes is aborted after the same timeout,
  so neither its socket nor the shutdown waits for it.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

from uvicorn.protocols.http.flow_control import FlowControl
from uvicorn.protocols.http.h11_impl import H11Protocol as _H11Protocol
from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

QUEUE_HIGH = 16
"""Received messages waiting for the application before reading the socket pauses."""
WRITE_BUFFER_HIGH = 1 << 20
"""Bytes of unsent replies a connection may buffer before the application's sends wait
(asyncio's default is 64 KiB; an observation can be tens of kilobytes)."""
SEND_TIMEOUT = 5.0
"""Seconds a send may wait for the client to take buffered data before the connection is
aborted (also the grace after a close frame)."""

PROTOCOL = f"{__name__}:LaneWebSocketProtocol"
"""What to give uvicorn as ``ws``."""


class LaneWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol, pausing reads only when messages pile up, with
    a bounded write buffer and send timeout (see the module docstring)."""

    write_buffer_high: int = WRITE_BUFFER_HIGH
    send_timeout: float = SEND_TIMEOUT

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        transport.set_write_buffer_limits(high=self.write_buffer_high)

    async def send(self, message: Any) -> None:
        if not self.writable.is_set() and not self.disconnected:
            try:
                async with asyncio.timeout(self.send_timeout):
                    await self.writable.wait()
            except TimeoutError:
                self.logger.info("WebSocket client %s took no data for %g s: connection aborted",
                                 self.client, self.send_timeout)
                self.transport.abort()
                raise ClientDisconnected from None
        await super().send(message)
        if message.get("type") == "websocket.close":
            self._abort_later()

    def shutdown(self) -> None:
        super().shutdown()
        self._abort_later()

    def _abort_later(self) -> None:
        """Abort the connection unless it has closed within :attr:`send_timeout` (a no-op on
        a connection already gone)."""
        self.loop.call_later(self.send_timeout, self.transport.abort)

    def send_receive_event_to_app(self) -> None:
        # uvicorn pauses reading here unless ``read_paused`` is already set, and resumes in
        # ``receive()`` once the queue is empty (a no-op when reading was never paused).
        # Marking the reads as paused while the queue is short skips the pause; at the
        # high-water mark the real pause happens.
        if self.queue.qsize() + 1 < QUEUE_HIGH and self.transport.is_reading():
            self.read_paused = True
        elif self.transport.is_reading():
            self.read_paused = False
        super().send_receive_event_to_app()


HEADER_TIMEOUT = 10.0
"""Seconds a client has, from connecting (or from the end of the previous response on a
keep-alive connection), to send a request's complete headers."""


class _TimedFlowControl(FlowControl):
    """uvicorn's HTTP flow control, with a deadline on a full write buffer.

    uvicorn waits for a paused write buffer to drain for ever, so a client that sends requests
    (pipelined, or one with a large answer) and never reads the responses kept its connection,
    its request's task and the buffered responses. Here a wait longer than ``timeout`` aborts
    the connection (the response is dropped, the app sees a disconnect).
    """

    def __init__(self, transport: asyncio.Transport, timeout: float, client: Any) -> None:
        super().__init__(transport)
        self.timeout, self.client = timeout, client

    async def drain(self) -> None:
        try:
            async with asyncio.timeout(self.timeout):
                await super().drain()
        except TimeoutError:
            logging.getLogger("uvicorn.error").info(
                "HTTP client %s took no data for %g s: connection aborted", self.client,
                self.timeout)
            self._transport.abort()  # connection_lost marks the request disconnected
            self.resume_writing()


class _HeaderDeadline:
    """A deadline for a request's headers, and for a client to take its responses, mixed into
    uvicorn's HTTP protocols.

    uvicorn has a keep-alive timeout but no header timeout: its keep-alive timer is armed only
    after a response and cancelled by any byte received, so a connection that never sends a
    request, or dribbles its headers a byte at a time, stays open for ever (the audit held 300
    such connections past 62 s and ran a server out of file descriptors). This arms one more
    timer — at connect and after each response — which closes the connection unless a request
    has by then got its headers through (a request in progress, a WebSocket upgrade and the
    keep-alive timer's own closing are left alone).
    """

    header_timeout: float = HEADER_TIMEOUT
    send_timeout: float = SEND_TIMEOUT
    """Seconds a response may wait for a client that does not read (:class:`_TimedFlowControl`)."""
    _deadline: asyncio.TimerHandle | None = None
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    cycle: Any
    flow: Any
    client: Any

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        self.flow = _TimedFlowControl(transport, self.send_timeout, self.client)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        super().connection_lost(exc)  # type: ignore[misc]

    def _arm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = self.loop.call_later(self.header_timeout, self._expire)

    def _expire(self) -> None:
        self._deadline = None
        transport = self.transport
        if transport.is_closing() or transport.get_protocol() is not self:
            return  # closed already, or upgraded to a WebSocket
        cycle = self.cycle
        if cycle is None or cycle.response_complete:  # no request got its headers through
            transport.close()


class H11Protocol(_HeaderDeadline, _H11Protocol):
    """uvicorn's pure-Python HTTP/1.1 protocol with a header deadline."""


HTTP_PROTOCOLS = {"h11": f"{__name__}:H11Protocol"}
"""What to give uvicorn as ``http``, by parser (``httptools`` when it is installed)."""

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _HttpToolsProtocol
except ImportError:  # pragma: no cover - httptools ships with the server extra
    pass
else:
    class HttpToolsProtocol(_HeaderDeadline, _HttpToolsProtocol):
        """uvicorn's ``httptools`` HTTP/1.1 protocol (a C parser) with a header deadline."""

    HTTP_PROTOCOLS["httptools"] = f"{__name__}:HttpToolsProtocol"


ACCEPT_BATCH = 16
"""Connections accepted per wake-up of the listening socket (asyncio's default: the listen
backlog, 2048)."""
FD_LOG_INTERVAL = 10.0
"""Seconds between two log lines about running out of file descriptors."""


class ServerEventLoop(asyncio.SelectorEventLoop):
    """The server's event loop: asyncio's, with file-descriptor exhaustion kept quiet.

    When ``accept()`` fails for want of descriptors (``EMFILE``/``ENFILE``), asyncio logs a
    traceback and schedules a retry *for each of the up to 2,048 accepts of that wake-up*, so a
    server at its descriptor limit wrote tens of thousands of tracebacks a second (the audit:
    104,298 in 16 s). This loop accepts at most :data:`ACCEPT_BATCH` connections per wake-up
    and logs that condition as one line every :data:`FD_LOG_INTERVAL` seconds, with the count
    of the failures in between. uvicorn loads it as its loop factory (``loop="module:attr"``).
    """

    _fd_logged_at: float = -float("inf")
    _fd_suppressed: int = 0

    def _accept_connection(self, protocol_factory: Any, sock: Any, sslcontext: Any = None,
                           server: Any = None, backlog: int = 100, *args: Any) -> None:
        super()._accept_connection(  # type: ignore[misc]
            protocol_factory, sock, sslcontext, server, min(backlog, ACCEPT_BATCH), *args)

    def call_exception_handler(self, context: dict[str, Any]) -> None:
        if context.get("message") != "socket.accept() out of system resource":
            super().call_exception_handler(context)
            return
        now = self.time()
        if now - self._fd_logged_at < FD_LOG_INTERVAL:
            self._fd_suppressed += 1
            return
        exc = context.get("exception")
        logging.getLogger("uvicorn.error").warning(
            "cannot accept connections: %s (%d more such failures in the last %g s); new "
            "connections wait in the listen queue; raise the file-descriptor limit (ulimit -n) "
            "or lower the connection limit", exc, self._fd_suppressed, FD_LOG_INTERVAL)
        self._fd_logged_at, self._fd_suppressed = now, 0


SERVER_LOOP = f"{__name__}:ServerEventLoop"
"""What to give uvicorn as ``loop``."""


_CAPABILITIES = (
    (re.compile(r"(session_id=)[^&\s\"#]+"), r"\1<redacted>"),
    (re.compile(r"(/web/api/session/)(web|watch)(:|%3A)[^/?\s\"]+", re.IGNORECASE),
     r"\1\2\3<redacted>"),
)
"""Where a session's capability can stand in a logged request line: ``/ws?session_id=ID``
(attaching to an HTTP MCP session) and the live view's ``/web/api/session/web:KEY`` (its own
sessions' keys) or ``watch:HANDLE`` (read-only handles)."""


def redact(text: str) -> str:
    """``text`` with every session capability replaced by ``<redacted>``."""
    for pattern, replacement in _CAPABILITIES:
        text = pattern.sub(replacement, text)
    return text


class CapabilityFilter(logging.Filter):
    """Keeps session capabilities out of uvicorn's logs: the access log (``GET
    /ed/web/api/session/web:KEY``) and the WebSocket lines of the error log (``"WebSocket
    /ed/ws?session_id=ID" [accepted]``) get ``<redacted>`` in their place. Anyone who can read
    the log could otherwise drive or watch those sessions."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and any(isinstance(a, str) for a in record.args):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.msg, str) and not record.args:
            record.msg = redact(record.msg)
        return True


def log_config() -> dict[str, Any]:
    """uvicorn's logging configuration with :class:`CapabilityFilter` on both handlers (a
    dict, so worker processes build the same)."""
    import copy

    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["filters"] = {"capabilities": {"()": f"{__name__}.CapabilityFilter"}}
    for handler in config["handlers"].values():
        handler["filters"] = ["capabilities"]
    return config
