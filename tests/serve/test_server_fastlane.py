"""The fast lanes answer exactly as OpenEnv does, and workers share a burst of connections.

Two servers run side by side, one with the fast lanes (``lifeline.serve.fastlane``) and one
without; the same messages (valid and invalid steps, MCP tool calls over the WebSocket and over
HTTP, errors included) must get the same replies from both, for every served environment.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from lifeline.core.registry import EnvSpec
from lifeline.serve import fastlane
from lifeline.serve.run import background_server
from lifeline.serve.server import build_app, served_envs
from lifeline.serve.workers import BalancedEventLoop
from tests.server_helpers import SERVED, RawWS


@pytest.fixture(scope="module")
def twin_urls() -> Iterator[tuple[str, str]]:
    """``(with fast lanes, without)`` servers of every environment."""
    with background_server(build_app(SERVED, max_sessions=8)) as fast, \
            background_server(build_app(SERVED, max_sessions=8, fast_lanes=False)) as slow:
        yield fast, slow


def _legal_index(reply: dict[str, Any]) -> int:
    mask = reply["data"]["observation"]["structured"]["action_mask"]
    return next((i for i, ok in enumerate(mask) if ok), 0)


def _ws_script(url: str, env: EnvSpec) -> list[dict[str, Any]]:
    """Replies to one fixed conversation on ``/<env>/ws`` (each step chosen from the reply)."""
    core = env.load()(env.default_scenario)
    tool = core.action_types[0].kind
    replies = []

    def rpc(rid: int, name: Any, arguments: Any) -> dict[str, Any]:
        return {"type": "mcp", "data": {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                                        "params": {"name": name, "arguments": arguments}}}

    with RawWS(f"{url}/{env.name}/ws") as ws:
        reply = ws.reset(seed=3, episode_id="twin")
        replies.append(reply)
        for _ in range(3):
            reply = ws.step(index=_legal_index(reply))
            replies.append(reply)
        messages: list[Any] = [
            {"type": "step", "data": {"tool_name": "no_such_tool", "arguments": {}}},
            {"type": "step", "data": {"tool_name": tool, "arguments": {"bogus": 1}}},
            {"type": "step", "data": {"tool_name": tool, "arguments": "{}"}},
            {"type": "step", "data": {"index": 10**6}},
            {"type": "step", "data": {"index": 0, "tool_name": tool}},
            {"type": "step", "data": {"type": "list_tools"}},
            {"type": "step", "data": {"index": "zero"}},
            rpc(1, tool, {}), rpc(2, "no_such_tool", {}), rpc(3, tool, '{"bogus": 2}'),
            rpc(4, "start_episode", {"seed": -1}), rpc(5, "start_episode", {"views": 7}),
            rpc("six", "start_episode", {"seed": 5, "views": ["structured"], "episode_id": "b"}),
            rpc(7, tool, None),
            {"type": "mcp", "data": {"jsonrpc": "2.0", "id": 8, "method": "tools/list"}},
            {"type": "state"},
        ]
        for message in messages:
            replies.append(ws.request(message))
    return replies


@pytest.mark.parametrize("env", SERVED, ids=lambda s: s.name)
def test_fast_lanes_answer_websocket_messages_as_openenv(twin_urls: tuple[str, str],
                                                         env: EnvSpec) -> None:
    fast, slow = (_ws_script(url, env) for url in twin_urls)
    assert len(fast) == len(slow)
    for got, want in zip(fast, slow, strict=True):
        assert got == want


def _http_script(url: str, env: EnvSpec) -> list[dict[str, Any]]:
    core = env.load()(env.default_scenario)
    tool = core.action_types[0].kind
    out = []
    with httpx.Client(base_url=f"{url}/{env.name}", timeout=30) as http:
        created = http.post("/mcp", json={"jsonrpc": "2.0", "id": 1,
                                          "method": "openenv/session/create"}).json()
        sid = created["result"]["session_id"]

        def call(rid: Any, name: Any, arguments: Any, session: Any = sid) -> None:
            params = {"session_id": session, "name": name, "arguments": arguments}
            reply = http.post("/mcp", json={"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                                            "params": params})
            assert reply.status_code == 200
            out.append(reply.json())

        call(1, tool, {})  # no episode yet
        call(2, "start_episode", {"seed": 4})
        for rid in range(3, 6):
            call(rid, tool, {})
        call(6, "no_such_tool", {})
        call(7, tool, {"bogus": 1})
        call(8, "start_episode", {"seed": "x"})
        call(9, tool, "{}")
        call(10, tool, {}, session="not-a-session")
        http.post("/mcp", json={"jsonrpc": "2.0", "id": 11, "method": "openenv/session/close",
                                "params": {"session_id": sid}})
        call(12, tool, {})  # closed
    return out


@pytest.mark.parametrize("env", SERVED[:3], ids=lambda s: s.name)
def test_fast_lane_answers_http_mcp_as_openenv(twin_urls: tuple[str, str], env: EnvSpec) -> None:
    fast, slow = (_http_script(url, env) for url in twin_urls)
    for got, want in zip(fast, slow, strict=True):
        # The unknown-session texts name the (different) session ids; the rest is identical.
        if "error" in want and "Unknown session_id" in want["error"]["message"]:
            assert "Unknown session_id" in got["error"]["message"]
            continue
        assert got == want


def test_fast_lanes_take_the_steps(twin_urls: tuple[str, str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Steps and tool calls really go through the lanes (not only through OpenEnv)."""
    taken: list[str] = []
    handle, call_tool = fastlane.Lane.handle, fastlane.call_tool

    def counting_handle(self: fastlane.Lane, message: dict[str, Any]) -> bytes | None:
        answer = handle(self, message)
        if answer is not None:
            taken.append(str(message.get("type")))
        return answer

    def counting_call(*args: Any) -> dict[str, Any] | None:
        answer = call_tool(*args)
        if answer is not None:
            taken.append("http")
        return answer

    monkeypatch.setattr(fastlane.Lane, "handle", counting_handle)
    monkeypatch.setattr("lifeline.serve.server.call_tool", counting_call)
    fast, _ = twin_urls
    env = SERVED[0]
    _ws_script(fast, env)
    _http_script(fast, env)
    assert taken.count("step") >= 3 and taken.count("mcp") >= 3 and taken.count("http") >= 4


def test_fast_lane_json_matches_pydantic_dump() -> None:
    """The lanes' encoder gives the JSON pydantic would (non-ASCII text, floats, nesting)."""
    payload = {"text": "Ärzte — 15 °C", "x": [1.5, 2.0, 1e-7, 10**20], "n": None, "b": True,
               "nested": {"a": [[0.0, 1.0]]}}
    assert json.loads(fastlane.dumps(payload)) == payload
    assert fastlane.dumps({1: "int key"}) == b'{"1":"int key"}'  # json's fallback


def test_balanced_loop_accepts_one_connection_per_wakeup_and_all_eventually(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A burst of connections is taken one per wake-up (asyncio's accept loop is asked for one
    connection, not ``backlog``), none is left waiting, and every one has TCP_NODELAY."""
    base = asyncio.selector_events.BaseSelectorEventLoop
    original = base._accept_connection  # type: ignore[attr-defined]
    asked: list[int] = []

    def recording(self: Any, protocol_factory: Any, sock: Any, sslcontext: Any = None,
                  server: Any = None, backlog: int = 100, *args: Any) -> Any:
        asked.append(backlog)
        return original(self, protocol_factory, sock, sslcontext, server, backlog, *args)

    monkeypatch.setattr(base, "_accept_connection", recording)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    nodelay: list[int] = []
    loop = BalancedEventLoop()

    class Count(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            sock = transport.get_extra_info("socket")
            nodelay.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    async def main() -> None:
        server = await loop.create_server(Count, sock=listener)
        clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(6)]
        try:
            deadline = time.perf_counter() + 20
            while len(nodelay) < 6 and time.perf_counter() < deadline:
                await asyncio.sleep(0.001)
        finally:
            for client in clients:
                client.close()
            server.close()

    thread = threading.Thread(target=loop.run_until_complete, args=(main(),))
    thread.start()
    thread.join(timeout=30)
    loop.close()
    assert len(nodelay) == 6 and len(asked) >= 6 and set(asked) == {1}
    # The listener says proto 0 (as the one uvicorn's supervisor hands its workers), yet every
    # connection has Nagle's algorithm off (else HTTP replies wait 40 ms for a delayed ACK).
    assert listener.proto == 0 and all(nodelay)


def test_fast_lane_keeps_openenv_session_bookkeeping() -> None:
    """Steps through the lane count in the server's own session table (step count, last
    activity), which is what its idle reaper reads."""
    app = build_app([SERVED[0]])
    server = next(iter(served_envs(app).values())).server
    session_id, env = asyncio.run(server._create_session())
    lane = fastlane.Lane()
    lane.bind(server, session_id, env)
    env.reset(seed=1)
    entry = server.sessions.get(session_id)
    assert entry is not None
    before = entry.last_activity
    for _ in range(3):
        assert lane.handle({"type": "step", "data": {"index": 0}}) is not None
    assert entry.steps == 3 and entry.last_activity >= before
    asyncio.run(server._destroy_session(session_id))
    assert server.sessions.get(session_id) is None
