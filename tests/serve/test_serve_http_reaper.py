"""HTTP MCP sessions are reaped by Lifeline's own reaper (OpenEnv's is not started: it reads
bookkeeping Lifeline no longer writes into OpenEnv's private fields): after the idle timeout
without a request naming them, never while a WebSocket attached to them is talking."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

pytest.importorskip("openenv")

from lifeline.serve.run import background_server
from lifeline.serve.server import build_app, served_envs
from lifeline.testing.counter import COUNTER_SPEC
from tests.server_helpers import RawWS


def _rpc(http: httpx.Client, method: str, **params: Any) -> dict[str, Any]:
    answer: dict[str, Any] = http.post("/counter/mcp", json={
        "jsonrpc": "2.0", "id": 1, "method": method, "params": params}).json()
    return answer


def test_idle_http_sessions_are_reaped_and_active_ones_kept() -> None:
    app = build_app([COUNTER_SPEC], idle_timeout=0.6)
    server = served_envs(app)["counter"].server
    with background_server(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        sid = _rpc(http, "openenv/session/create")["result"]["session_id"]
        _rpc(http, "tools/call", session_id=sid, name="start_episode", arguments={"seed": 1})
        for _ in range(8):  # calls every 0.25 s for 2 s: kept (tools/list counts too)
            time.sleep(0.25)
            assert "result" in _rpc(http, "tools/list", session_id=sid)
        assert sid in server.sessions
        # attached and talking over the socket for longer than the timeout: kept
        with RawWS(f"{url}/counter/ws?session_id={sid}") as ws:
            for _ in range(6):
                time.sleep(0.25)
                assert ws.request({"type": "state"})["type"] == "state"
        assert sid in server.sessions
        deadline = time.monotonic() + 5
        while sid in server.sessions:  # silent now: reaped
            assert time.monotonic() < deadline, "the idle HTTP session was not reaped"
            time.sleep(0.05)
        answer = _rpc(http, "tools/call", session_id=sid, name="increment", arguments={})
        assert "Unknown session_id" in answer["error"]["message"]
        assert server.active_sessions == 0
