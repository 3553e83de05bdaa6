"""Several server processes behind one port (``lifeline serve --workers N``).

uvicorn's worker supervisor binds the port once and starts N processes that all accept on it;
the kernel hands each new connection to one of them, and a WebSocket session lives on the
process that accepted it for its whole life. What the processes must agree on is shared
through one temporary directory:

* ``slots.json`` — the session ledger (:class:`lifeline.serve.slots.SlotLedger`), so the
  cap of ``--max-sessions`` holds for all workers together;
* ``metrics/`` — prometheus_client's multi-process files, so ``/metrics`` on any worker
  reports the whole server.

Each worker builds its app with :func:`app_from_environment` from the JSON configuration in
:data:`CONFIG_ENV`.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import tempfile
from pathlib import Path
from typing import Any

from lifeline.serve.guard import Guard
from lifeline.serve.server import build_app
from lifeline.serve.slots import LEDGER_ENV
from lifeline.serve.transport import ServerEventLoop

CONFIG_ENV = "LIFELINE_SERVE_CONFIG"
"""Environment variable with the JSON keyword arguments of ``build_app`` for every worker."""


def app_from_environment() -> Guard:
    """The app of one worker (a uvicorn ``factory``): ``build_app`` with the shared config."""
    config: dict[str, Any] = json.loads(os.environ[CONFIG_ENV])
    return build_app(config.pop("envs"), slots_file=os.environ[LEDGER_ENV], **config)


class BalancedEventLoop(ServerEventLoop):
    """The event loop of a worker: it shares new connections fairly with the other workers.

    All workers wait on the one listening socket, and a new connection wakes them all. asyncio's
    own loop then accepts up to ``backlog`` (2048; :class:`ServerEventLoop`: 16) pending
    connections in one go, so a burst of clients (16 sessions connecting at once) lands on
    whichever worker woke first, and the other one idles while this one serves every session
    (measured: 16/0 in three bursts of four). This loop accepts one connection per wake-up
    and then stays away from the socket for a moment that grows with the connections it
    already serves (:data:`ACCEPT_PAUSE` each, at most :data:`MAX_ACCEPT_PAUSE`): the less
    loaded worker gets the next one. Alone, a worker still accepts everything, only slightly
    slower. uvicorn loads this class as its loop factory (``loop="module:attr"``).
    """

    def _accept_connection(self, protocol_factory: Any, sock: socket.socket,
                           sslcontext: Any = None, server: Any = None, backlog: int = 100,
                           *args: Any) -> None:
        super()._accept_connection(protocol_factory, sock, sslcontext, server, 1, *args)
        serving = int(getattr(server, "_active_count", 0)) + 1
        pause = min(MAX_ACCEPT_PAUSE, ACCEPT_PAUSE * serving)
        fd = sock.fileno()
        if fd < 0 or not self._remove_reader(fd):  # type: ignore[attr-defined]
            return

        def resume() -> None:
            if sock.fileno() >= 0 and (server is None or server.is_serving()):
                self._add_reader(  # type: ignore[attr-defined]
                    sock.fileno(), self._accept_connection, protocol_factory, sock,
                    sslcontext, server, backlog, *args)

        self.call_later(pause, resume)

    def _make_socket_transport(self, sock: socket.socket, *args: Any, **kwargs: Any) -> Any:
        # asyncio turns Nagle's algorithm off only for sockets whose ``proto`` reads
        # IPPROTO_TCP; the listening socket the workers inherit from uvicorn's supervisor reads
        # 0, and so do its accepted connections. An HTTP response (headers, then body: two
        # writes) then waited for the client's delayed ACK: 40 ms per request (measured: 22
        # HTTP MCP calls/s with two workers, against 1,300 with one).
        if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return super()._make_socket_transport(sock, *args, **kwargs)  # type: ignore[misc]


ACCEPT_PAUSE = 0.0005
"""Seconds a worker stays away from the listening socket per connection it serves."""
MAX_ACCEPT_PAUSE = 0.01
"""Upper bound of that pause (a lone worker with many clients still accepts 100 a second)."""
BALANCED_LOOP = f"{__name__}:BalancedEventLoop"


def run_workers(config: dict[str, Any], *, host: str, port: int, workers: int,
                **uvicorn_options: Any) -> None:
    """Run ``workers`` processes serving ``build_app(**config)`` on ``host:port`` (blocking)."""
    import uvicorn

    with tempfile.TemporaryDirectory(prefix="lifeline-serve-") as shared:
        metrics = Path(shared) / "metrics"
        metrics.mkdir()
        # Inherited by the spawned workers (set before they start).
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(metrics)
        os.environ[LEDGER_ENV] = str(Path(shared) / "slots.json")
        os.environ[CONFIG_ENV] = json.dumps(config)
        uvicorn.run("lifeline.serve.workers:app_from_environment", factory=True, host=host,
                    port=port, workers=workers, loop=BALANCED_LOOP, **uvicorn_options)
