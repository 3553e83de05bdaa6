"""MCP as a complete face: an MCP-only client plays whole episodes of every served environment.

Two clients: OpenEnv's own ``MCPToolClient`` (production mode: HTTP ``/mcp`` session) and a
plain JSON-RPC client over HTTP. Neither touches the WebSocket ``reset``: the episode starts
with the ``start_episode`` tool, and every other tool call is one step.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import numpy as np
import pytest
from openenv.core.mcp_client import MCPToolClient

from lifeline.core.registry import EnvSpec
from lifeline.faces.tools import action_to_call
from lifeline.serve.openenv import START_TOOL
from lifeline.serve.run import background_server
from lifeline.serve.server import build_app, served_envs
from tests.server_helpers import SERVED

NAMES = [s.name for s in SERVED]
MAX_STEPS = 5000


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with background_server(build_app(SERVED, max_sessions=8)) as base:
        yield base


def _legal_call(obs: dict[str, Any], rng: np.random.Generator) -> tuple[str, dict[str, Any]]:
    """A random legal call from the ``legal`` view."""
    call = obs["legal_actions"][int(rng.integers(len(obs["legal_actions"])))]
    return call["tool_name"], call["arguments"]


def _reference(spec: EnvSpec, seed: int, calls: list[tuple[str, dict[str, Any]]]) -> float:
    """The score of the same calls played on the core directly."""
    from lifeline.faces.tools import parse_tool_call

    core = spec.load()(spec.default_scenario)
    state = core.reset(seed)
    for name, arguments in calls:
        core.step(state, parse_tool_call(core, name, arguments))
    assert state.done
    return float(core.grade(state).score)


def _noop(spec: EnvSpec) -> tuple[str, dict[str, Any]]:
    return action_to_call(spec.load()(spec.default_scenario).noop_action())


@pytest.mark.parametrize("name", NAMES)
def test_plain_json_rpc_client_plays_a_full_episode(url: str, name: str) -> None:
    """Session, tools, a whole episode (the do-nothing call each step, the smallest view), a
    second episode in the same session, close — JSON-RPC over HTTP and nothing else."""
    spec = next(s for s in SERVED if s.name == name)
    with httpx.Client(base_url=f"{url}/{name}", timeout=30) as http:
        ids = iter(range(1, 1_000_000))

        def rpc(method: str, **params: Any) -> Any:
            reply = http.post("/mcp", json={"jsonrpc": "2.0", "id": next(ids),
                                             "method": method, "params": params}).json()
            assert "error" not in reply, reply
            return reply["result"]

        sid = rpc("openenv/session/create")["session_id"]
        tools = {t["name"]: t for t in rpc("tools/list", session_id=sid)["tools"]}
        assert START_TOOL in tools and tools[START_TOOL]["inputSchema"]["properties"]["seed"]
        obs = rpc("tools/call", name=START_TOOL, session_id=sid,
                  arguments={"seed": 11, "views": []})
        assert obs["seed"] == 11 and obs["step"] == 0 and not obs["done"]
        tool, arguments = _noop(spec)
        assert tool in tools
        steps = 0
        while not obs["done"] and steps < MAX_STEPS:
            obs = rpc("tools/call", name=tool, arguments=arguments, session_id=sid)
            steps += 1
            assert isinstance(obs["reward"], float)
        assert obs["done"] and obs["score"] == _reference(spec, 11, [(tool, arguments)] * steps)
        # A new episode in the same session, then the session is closed.
        assert rpc("tools/call", name=START_TOOL, session_id=sid,
                   arguments={"seed": 12})["step"] == 0
        assert rpc("openenv/session/close", session_id=sid)["closed"] is True


def test_openenv_mcp_tool_client_plays_every_env(url: str) -> None:
    """OpenEnv's client, random legal calls from the ``legal`` view, every environment."""
    async def play(spec: EnvSpec) -> None:
        rng = np.random.default_rng(1)
        async with MCPToolClient(base_url=f"{url}/{spec.name}", mode="production") as env:
            names = [t.name for t in await env.list_tools()]
            assert names[-1] == START_TOOL
            obs = await env.call_tool(START_TOOL, seed=5, views=["legal"])
            calls = []
            while not obs["done"] and len(calls) < MAX_STEPS:
                calls.append(_legal_call(obs, rng))
                obs = await env.call_tool(calls[-1][0], **calls[-1][1])
                if len(calls) == 40:  # then the cheapest view for the rest of the episode
                    assert obs["legal_actions"]
                    obs["legal_actions"] = []
                    break
            tool, arguments = _noop(spec)
            while not obs["done"] and len(calls) < MAX_STEPS:
                calls.append((tool, arguments))
                obs = await env.call_tool(tool, **arguments)
            assert obs["done"] and obs["score"] == _reference(spec, 5, calls)

    async def main() -> None:
        for spec in SERVED:
            await play(spec)

    asyncio.run(main())


def test_mcp_sessions_count_against_the_cap() -> None:
    app = build_app([SERVED[0]], max_sessions=1)
    with background_server(app) as base, httpx.Client(base_url=base, timeout=10) as http:
        create = {"jsonrpc": "2.0", "id": 1, "method": "openenv/session/create"}
        sid = http.post(f"/{SERVED[0].name}/mcp", json=create).json()["result"]["session_id"]
        refused = http.post(f"/{SERVED[0].name}/mcp", json=create).json()
        assert "capacity" in refused["error"]["message"].lower()
        http.post(f"/{SERVED[0].name}/mcp", json={"jsonrpc": "2.0", "id": 2,
                                                  "method": "openenv/session/close",
                                                  "params": {"session_id": sid}})
        assert served_envs(app)[SERVED[0].name].server.active_sessions == 0
