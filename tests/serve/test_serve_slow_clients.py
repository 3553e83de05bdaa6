"""Slow and silent clients are bounded (issue 30, item 3).

* a WebSocket client that sends but never reads loses its connection once the send timeout
  passes with the write buffer full, and its slot is freed (it kept both slots for >= 90 s);
* the idle clock counts only meaningful frames: refused frames and pings do not keep a session;
* HTTP connections that never send a request, or dribble their headers, are closed after the
  header timeout (150 + 150 of them stayed open past 62 s), normal requests meanwhile served;
* the connection limit is uvicorn's ``limit_concurrency``, derived from the fd limit;
* running out of file descriptors is logged as one line per interval, not a traceback storm.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import socket
import struct
import time
from typing import Any

import httpx
import pytest

pytest.importorskip("openenv")

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from lifeline.serve.run import TransportLimits, background_server, make_server
from lifeline.serve.server import build_app, served_envs
from lifeline.serve.transport import FD_LOG_INTERVAL, ServerEventLoop
from lifeline.testing.counter import COUNTER_SPEC
from tests.server_helpers import RawWS


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _wait_for(predicate: Any, timeout: float) -> float:
    """Seconds until ``predicate()`` held (fails the test after ``timeout``)."""
    start = time.monotonic()
    while not predicate():
        assert time.monotonic() - start < timeout, "condition not reached in time"
        time.sleep(0.05)
    return time.monotonic() - start


class DeafClient:
    """A WebSocket client that completes the handshake, then only ever sends (masked frames,
    a tiny receive buffer, never a read): what the audit used to hold slots."""

    def __init__(self, host: str, port: int, path: str) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.connect((host, port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                           f"Upgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
                           ).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        assert head.startswith(b"HTTP/1.1 101"), head

    def send(self, message: dict[str, Any]) -> bool:
        """Send one text frame; ``False`` once the server has dropped the connection."""
        payload = json.dumps(message).encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        n = len(payload)
        header += (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack("!H", n)
                   if n < 65536 else bytes([0x80 | 127]) + struct.pack("!Q", n))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        try:
            self.sock.sendall(header + mask + masked)
        except OSError:
            return False
        return True

    def close(self) -> None:
        self.sock.close()


def test_a_client_that_never_reads_loses_its_slot() -> None:
    app = build_app(["ed"], max_sessions=2, idle_timeout=3.0)
    server = served_envs(app)["ed"].server
    limits = TransportLimits(send_timeout=1.0, write_buffer=64 << 10)
    with background_server(app, limits=limits) as url:
        host, port = url.removeprefix("http://").split(":")
        deaf = [DeafClient(host, int(port), "/ed/ws") for _ in range(2)]
        for client in deaf:
            client.sock.settimeout(2.0)
            client.send({"type": "reset", "data": {"seed": 1, "views": ["text", "legal"]}})
        _wait_for(lambda: server.active_sessions == 2, 10)
        # The cap is reached while they hold: OpenEnv creates a WebSocket's session when it
        # connects, so the refusal comes unasked, followed by a close (a reset sent after it
        # would race the close: the frame is read, not answered).
        with RawWS(f"{url}/ed/ws") as third:
            assert third.recv()["data"]["code"] == "CAPACITY_REACHED"
        start = time.monotonic()
        for _ in range(3000):  # replies (several kB each) pile up unread: buffers fill
            if not all(c.send({"type": "step", "data": {"index": 0}}) for c in deaf):
                break
        freed = _wait_for(lambda: server.active_sessions == 0, 3.0 + 10.0)
        held = time.monotonic() - start
        with RawWS(f"{url}/ed/ws") as fourth:  # the slots are back
            assert fourth.reset(seed=1)["type"] == "observation"
        for client in deaf:
            client.close()
    assert held < 3.0 + 10.0, (held, freed)


def test_idle_timeout_counts_only_meaningful_frames() -> None:
    app = build_app([COUNTER_SPEC], max_sessions=4, idle_timeout=1.0)
    server = served_envs(app)["counter"].server
    with background_server(app) as url:
        ws_url = url.replace("http://", "ws://") + "/counter/ws"
        # refused frames (not JSON, wrong shape) and pings do not restart the idle clock
        with connect(ws_url, open_timeout=10) as conn:
            conn.send(json.dumps({"type": "reset", "data": {"seed": 1}}))
            conn.recv(timeout=10)
            start = time.monotonic()
            with pytest.raises(ConnectionClosed) as closed:
                while time.monotonic() - start < 10:
                    conn.ping()
                    conn.send("not json")
                    conn.send(json.dumps({"type": "step", "data": 7}))
                    conn.recv(timeout=0.3)
                    conn.recv(timeout=0.3)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001
            assert time.monotonic() - start < 3.0
        _wait_for(lambda: server.active_sessions == 0, 5)
        # well-formed messages do keep it (a state request included)
        with RawWS(f"{url}/counter/ws") as peer:
            peer.reset(seed=1)
            for _ in range(8):
                time.sleep(0.3)
                assert peer.request({"type": "state"})["type"] == "state"
            assert peer.step(index=0)["data"]["observation"]["step"] == 1


def test_silent_and_dribbling_http_connections_are_closed() -> None:
    app = build_app([COUNTER_SPEC])
    limits = TransportLimits(header_timeout=1.0)
    with background_server(app, limits=limits) as url:
        host, port = url.removeprefix("http://").split(":")
        before = _open_fds()
        silent = [socket.create_connection((host, int(port))) for _ in range(40)]
        dribbling = [socket.create_connection((host, int(port))) for _ in range(40)]
        for sock in dribbling:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        start = time.monotonic()
        closed: set[int] = set()
        while len(closed) < 80 and time.monotonic() - start < 8:
            for i, sock in enumerate(silent + dribbling):
                if i in closed:
                    continue
                if i >= 40:
                    try:
                        sock.sendall(b"X")  # one more header byte, never the end
                    except OSError:
                        closed.add(i)
                        continue
                sock.settimeout(0.01)
                try:
                    if sock.recv(1024) == b"":
                        closed.add(i)
                except TimeoutError:
                    pass
                except OSError:
                    closed.add(i)
            assert httpx.get(f"{url}/health", timeout=5).status_code == 200
            time.sleep(0.2)
        elapsed = time.monotonic() - start
        for sock in silent + dribbling:
            sock.close()
        assert len(closed) == 80 and elapsed < 4.0, (len(closed), elapsed)
        _wait_for(lambda: _open_fds() <= before + 2, 5)
        # a keep-alive connection that got its answer still works within the deadline
        with httpx.Client(base_url=url, timeout=5) as http:
            for _ in range(3):
                assert http.get("/health").status_code == 200


def test_the_connection_limit_is_uvicorns_and_follows_the_fd_limit() -> None:
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    server = make_server(build_app([COUNTER_SPEC]))
    assert server.config.limit_concurrency == max(16, soft - 64)
    assert server.config.timeout_keep_alive == 5
    assert server.config.timeout_graceful_shutdown == 5.0
    explicit = make_server(build_app([COUNTER_SPEC]),
                           limits=TransportLimits(max_connections=100, keep_alive=2))
    assert explicit.config.limit_concurrency == 100
    assert explicit.config.timeout_keep_alive == 2


def test_fd_exhaustion_is_one_log_line_per_interval(caplog: pytest.LogCaptureFixture) -> None:
    loop = ServerEventLoop()
    try:
        error = OSError(24, "Too many open files")
        with caplog.at_level(logging.WARNING, logger="uvicorn.error"):
            for _ in range(5000):
                loop.call_exception_handler({"message": "socket.accept() out of system resource",
                                             "exception": error})
        lines = [r for r in caplog.records if "cannot accept connections" in r.getMessage()]
        assert len(lines) == 1 and lines[0].exc_info is None
        assert "Too many open files" in lines[0].getMessage()
        loop._fd_logged_at -= FD_LOG_INTERVAL  # the interval has passed
        loop.call_exception_handler({"message": "socket.accept() out of system resource",
                                     "exception": error})
        lines = [r for r in caplog.records if "cannot accept connections" in r.getMessage()]
        assert len(lines) == 2 and "4999 more such failures" in lines[1].getMessage()
    finally:
        loop.close()
    assert asyncio.get_event_loop_policy() is not None


def test_an_http_client_that_never_reads_responses_is_dropped() -> None:
    """Pipelined requests whose responses are never read: uvicorn waited for the write buffer
    to drain for ever (connection, request task and buffered responses held); now the
    connection is aborted once a response has waited ``send_timeout``."""
    app = build_app(["ed"])
    limits = TransportLimits(send_timeout=1.0)
    with background_server(app, limits=limits) as url:
        host, port = url.removeprefix("http://").split(":")
        before = _open_fds()
        # /ed/metadata answers ~50 kB: 200 of them are more than every buffer on the way holds
        requests = b"GET /ed/metadata HTTP/1.1\r\nHost: x\r\n\r\n" * 200
        deaf: list[socket.socket] = []
        for _ in range(4):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect((host, int(port)))
            sock.sendall(requests)
            deaf.append(sock)
        _wait_for(lambda: _open_fds() >= before + 2 * len(deaf), 5)  # the server's ends too
        start = time.monotonic()
        while time.monotonic() - start < 1.0 + 10.0:  # the server's ends go
            if _open_fds() <= before + len(deaf):
                break
            assert httpx.get(f"{url}/health", timeout=5).status_code == 200
            time.sleep(0.1)
        dropped = time.monotonic() - start
        for sock in deaf:
            sock.close()
        assert dropped < 1.0 + 5.0, dropped
