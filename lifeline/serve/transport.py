"""The WebSocket transport: uvicorn's sans-I/O protocol with cheaper flow control.

uvicorn's ``websockets-sansio`` protocol pauses reading the socket after *every* received
message and resumes when the application takes it, so each step of a session costs two extra
``epoll_ctl`` system calls (and the selector's bookkeeping) — about a tenth of a served step's
CPU on the development machine. :class:`LaneWebSocketProtocol` keeps the flow control but pauses
only when :data:`QUEUE_HIGH` messages are waiting: a client that sends without reading replies
is still stopped there (a bounded queue per connection), and the one-message-at-a-time
conversation of an episode never touches the selector. uvicorn loads the class by name
(``ws="lifeline.serve.transport:LaneWebSocketProtocol"``).
"""

from __future__ import annotations

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

QUEUE_HIGH = 16
"""Received messages waiting for the application before reading the socket pauses."""

PROTOCOL = f"{__name__}:LaneWebSocketProtocol"
"""What to give uvicorn as ``ws``."""


class LaneWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol, pausing reads only when messages pile up."""

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
