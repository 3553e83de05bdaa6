"""The official ``mcp`` Python SDK plays whole episodes (issue 28, Deliver 1).

``ClientSession`` over the SDK's own transports, against a background server on 127.0.0.1:
Streamable HTTP (``streamable_http_client``) and WebSocket (``websocket_client``, subprotocol
``mcp``). Each run: ``initialize`` (+ ``notifications/initialized``), ``ping``,
``tools/list``, ``tools/call`` answered with text ``content`` and ``structuredContent`` (the
observation), a whole episode of two environments whose score equals the same calls played on
the core, and errors as JSON-RPC errors (unknown tool, bad arguments, unknown method). The
OpenEnv dialect of the same endpoint (``params.session_id``, bare observations) stays as
tests/serve/test_server_mcp.py checks it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

pytest.importorskip("mcp")

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError

from lifeline.core.registry import EnvSpec
from lifeline.faces.tools import action_to_call, parse_tool_call
from lifeline.serve.openenv import START_TOOL
from lifeline.serve.run import background_server
from lifeline.serve.server import build_app, served_envs
from lifeline.serve.wire import resolve_spec
from tests.server_helpers import RawWS

ENVS = ["ed", "dispatch"]
TOKEN = "sdk-secret"


APP = build_app(ENVS, max_sessions=4, token=TOKEN)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with background_server(APP) as base:
        yield base


def _auth() -> httpx.AsyncClient:
    return httpx.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)


def _reference(spec: EnvSpec, seed: int, calls: list[tuple[str, dict[str, Any]]]) -> float:
    core = spec.load()(spec.default_scenario)
    state = core.reset(seed)
    for name, arguments in calls:
        core.step(state, parse_tool_call(core, name, arguments))
    assert state.done
    return float(core.grade(state).score)


async def _play(session: ClientSession, name: str, seed: int) -> None:
    spec = resolve_spec(name)
    init = await session.initialize()
    assert init.serverInfo.name == f"lifeline-{name}"
    assert init.capabilities.tools is not None
    await session.send_ping()
    tools = {t.name: t for t in (await session.list_tools()).tools}
    assert START_TOOL in tools and "seed" in tools[START_TOOL].inputSchema["properties"]
    first = await session.call_tool(START_TOOL, {"seed": seed, "views": ["text"]})
    assert not first.isError and first.content[0].type == "text"
    assert first.structuredContent is not None and first.structuredContent["step"] == 0
    assert first.structuredContent["text"] in first.content[0].text
    tool, arguments = action_to_call(spec.load()(spec.default_scenario).noop_action())
    assert tool in tools
    # an invalid call is a step (penalised, time moves), its reason in the text: no tool error
    bad = await session.call_tool(tool, {**arguments, "bogus": 1})
    assert not bad.isError and bad.structuredContent is not None
    assert bad.structuredContent["valid"] is False and bad.structuredContent["step"] == 1
    assert "invalid action: " in bad.content[0].text  # type: ignore[union-attr]
    # the whole episode, do-nothing calls, smallest view
    obs = (await session.call_tool(START_TOOL, {"seed": seed, "views": []})).structuredContent
    assert obs is not None
    calls: list[tuple[str, dict[str, Any]]] = []
    while not obs["done"]:
        result = await session.call_tool(tool, arguments)
        assert not result.isError and "reward" in result.content[0].text  # type: ignore[union-attr]
        obs = result.structuredContent
        assert obs is not None
        calls.append((tool, arguments))
        assert len(calls) < 5000
    assert obs["score"] == _reference(spec, seed, calls)
    assert f"score {obs['score']:.4g}" in result.content[0].text  # type: ignore[union-attr]
    # errors are JSON-RPC errors
    with pytest.raises(McpError) as unknown:
        await session.call_tool("no_such_tool", {})
    assert unknown.value.error.code == -32602 and "no_such_tool" in unknown.value.error.message
    with pytest.raises(McpError) as options:
        await session.call_tool(START_TOOL, {"seed": -1})
    assert options.value.error.code == -32602 and "seed" in options.value.error.message
    with pytest.raises(McpError) as method:
        await session.list_resources()
    assert method.value.error.code == -32601


@pytest.mark.parametrize("name", ENVS)
def test_official_sdk_over_streamable_http(url: str, name: str) -> None:
    async def main() -> str | None:
        async with (_auth() as http,
                    streamable_http_client(f"{url}/{name}/mcp", http_client=http) as (r, w, sid),
                    ClientSession(r, w) as session):
            await _play(session, name, seed=3)
            return sid()

    session_id = asyncio.run(main())
    assert session_id is not None  # the Mcp-Session-Id header, deleted at exit
    assert session_id not in served_envs(APP)[name].server.sessions


@pytest.mark.filterwarnings("ignore:The WebSocket client transport is deprecated")
def test_official_sdk_over_websocket() -> None:
    """The SDK's (deprecated, still shipped) WebSocket transport: subprotocol ``mcp``."""
    from mcp.client.websocket import websocket_client

    async def main(url: str, name: str) -> None:
        ws = url.replace("http://", "ws://") + f"/{name}/mcp"
        # the SDK's WebSocket client sends no headers: this server has no token
        async with websocket_client(ws) as (r, w), ClientSession(r, w) as session:
            await _play(session, name, seed=4)

    with background_server(build_app(ENVS, max_sessions=2)) as url:
        for name in ENVS:
            asyncio.run(main(url, name))


def test_streamable_http_session_rules(url: str) -> None:
    """The session header is a capability; notifications get 202 and no body; an unknown
    session 404; DELETE closes; the session counts against the cap; no token, no session."""
    name = ENVS[0]
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json, text/event-stream"}
    with httpx.Client(base_url=f"{url}/{name}", headers=headers, timeout=10) as http:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "t", "version": "0"}}}
        reply = http.post("/mcp", json=init)
        assert reply.status_code == 200
        assert reply.json()["result"]["protocolVersion"] == "2025-06-18"
        sid = reply.headers["mcp-session-id"]
        mine = {"mcp-session-id": sid}
        note = http.post("/mcp", headers=mine,
                         json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert note.status_code == 202 and note.content == b""
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": START_TOOL, "arguments": '{"seed": 5}'}}  # a JSON string
        assert http.post("/mcp", headers=mine, json=call).json()["result"][
            "structuredContent"]["seed"] == 5
        no_id = {"jsonrpc": "2.0", "method": "tools/call",
                 "params": {"name": START_TOOL, "arguments": {"seed": 6}}}
        assert http.post("/mcp", headers=mine, json=no_id).status_code == 202  # not played
        state = http.post("/mcp", headers=mine, json=call).json()["result"]["structuredContent"]
        assert state["seed"] == 5
        other_last = "1" if sid.endswith("0") else "0"  # a forged id always differs from sid
        forged = http.post("/mcp", headers={"mcp-session-id": sid[:-1] + other_last}, json=call)
        assert forged.status_code == 404 and forged.json()["error"]["code"] == -32600
        unauth = httpx.post(f"{url}/{name}/mcp", json=init, timeout=10)
        assert unauth.status_code == 401
        with RawWS(f"{url}/{name}/ws", headers={"Authorization": f"Bearer {TOKEN}"}) as ws:
            ws.reset(seed=1)  # a WebSocket's session: no HTTP header can name it
            theirs = next(e.session_id for e in served_envs(APP)[name].server.sessions.entries()
                          if e.transport == "websocket")
            stolen = http.post("/mcp", headers={"mcp-session-id": theirs}, json=call)
            assert stolen.status_code == 404 and "error" in stolen.json()
            assert http.delete("/mcp", headers={"mcp-session-id": theirs}).status_code == 404
            assert ws.request({"type": "state"})["data"]["step_count"] == 0
        assert http.delete("/mcp", headers=mine).status_code == 200
        assert http.post("/mcp", headers=mine, json=call).status_code == 404
        assert http.delete("/mcp", headers=mine).status_code == 404
        assert http.get("/mcp", headers=mine).status_code == 405  # no server-sent events


def test_initialize_counts_against_the_cap() -> None:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "1999-01-01", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "0"}}}
    with background_server(build_app(ENVS[:1], max_sessions=1)) as base, \
            httpx.Client(base_url=f"{base}/{ENVS[0]}", timeout=10) as http:
        first = http.post("/mcp", json=init)
        assert first.json()["result"]["protocolVersion"] == "2025-11-25"  # the newest spoken
        refused = http.post("/mcp", json=init).json()
        assert refused["error"]["code"] == -32000 and "capacity" in refused["error"][
            "message"].lower()
        http.delete("/mcp", headers={"mcp-session-id": first.headers["mcp-session-id"]})
        assert "result" in http.post("/mcp", json=init).json()
