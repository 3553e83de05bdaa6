"""Sessions on a live server: isolation under concurrency, capacity, disconnects, idle timeout,
bearer-token auth, and ``openenv validate``."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import httpx
import pytest
from openenv.cli._validation import validate_running_environment
from openenv.core.generic_client import GenericEnvClient
from openenv.core.mcp_client import MCPToolClient
from websockets.exceptions import ConnectionClosed, InvalidStatus

from lifeline.core.registry import EnvSpec
from lifeline.faces.tools import action_to_call
from lifeline.serve.client import LifelineClient
from lifeline.serve.openenv import START_TOOL
from lifeline.serve.run import background_server
from lifeline.serve.server import build_app, served_envs
from lifeline.testing.counter import COUNTER_SPEC
from tests.server_helpers import SERVED, RawWS, masked_random_indices

REAL = [s for s in SERVED if s is not COUNTER_SPEC] or [COUNTER_SPEC]


def _wait_for(predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def _core_rollout(spec: EnvSpec, seed: int, actions: list[int]) -> tuple[list[float], float]:
    core = spec.load()(spec.default_scenario)
    state = core.reset(seed)
    rewards = [core.step(state, a).reward for a in actions]
    return rewards, core.grade(state).score


def test_32_concurrent_sessions_are_isolated() -> None:
    """32 interleaved episodes with different seeds each match their own serial core rollout."""
    spec = REAL[0]
    core = spec.load()(spec.default_scenario)
    seeds = list(range(100, 132))
    plans = {s: masked_random_indices(core, s, 60) for s in seeds}
    app = build_app([spec], max_sessions=32)

    async def play(url: str, seed: int) -> tuple[list[float], float | None, int]:
        async with LifelineClient(url, spec.name) as env:
            result = await env.reset(seed=seed)
            rewards = []
            for index in plans[seed]:
                result = await env.act(index)
                rewards.append(result.reward)
                await asyncio.sleep(0)  # interleave the sessions step by step
            state = await env.state()
            return rewards, result.observation.score, state.seed

    async def main(url: str) -> list[tuple[list[float], float | None, int]]:
        return await asyncio.gather(*(play(url, s) for s in seeds))

    with background_server(app) as url:
        results = asyncio.run(main(url))
        assert _wait_for(lambda: served_envs(app)[spec.name].server.active_sessions == 0)
    for seed, (rewards, _score, reported_seed) in zip(seeds, results, strict=True):
        expected, _ = _core_rollout(spec, seed, plans[seed])
        assert reported_seed == seed
        assert rewards == expected, f"session with seed {seed} saw another session's state"


def test_capacity_limit_and_disconnect_frees_the_slot() -> None:
    app = build_app([COUNTER_SPEC], max_sessions=2)
    server = served_envs(app)["counter"].server
    with background_server(app) as url:
        first, second = RawWS(f"{url}/counter/ws"), RawWS(f"{url}/counter/ws")
        first.reset(seed=1)
        second.reset(seed=2)
        assert server.active_sessions == 2
        with pytest.raises(RuntimeError, match="capacity"), \
                GenericEnvClient(base_url=f"{url}/counter").sync() as third:
            third.reset(seed=3)
        # An abrupt disconnect (no close frame) mid-episode frees the slot ...
        first.conn.socket.close()
        assert _wait_for(lambda: server.active_sessions == 1)
        # ... and a new session fits again; the surviving one is untouched.
        with GenericEnvClient(base_url=f"{url}/counter").sync() as again:
            assert again.reset(seed=3).observation["seed"] == 3
        assert second.step(index=0)["data"]["observation"]["step"] == 1
        second.close()
        assert _wait_for(lambda: server.active_sessions == 0)


def test_idle_sessions_are_closed() -> None:
    app = build_app([COUNTER_SPEC], max_sessions=4, idle_timeout=0.5)
    server = served_envs(app)["counter"].server
    with background_server(app) as url:
        peer = RawWS(f"{url}/counter/ws")
        peer.reset(seed=1)
        time.sleep(0.2)
        peer.step(index=0)  # activity resets the clock
        assert server.active_sessions == 1
        with pytest.raises(ConnectionClosed) as closed:
            peer.recv(timeout=5.0)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001
        assert "idle" in closed.value.rcvd.reason
        assert _wait_for(lambda: server.active_sessions == 0)


def test_bearer_token() -> None:
    app = build_app([COUNTER_SPEC], token="s3cret")
    with background_server(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        assert http.get("/health").status_code == 200
        assert http.get("/counter/health").status_code == 200
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret"}):
            for path in ("/", "/counter/schema", "/counter/metadata"):
                r = http.get(path, headers=headers)
                assert r.status_code == 401 and "bearer token" in r.json()["detail"]
            assert http.post("/counter/mcp", json={}, headers=headers).status_code == 401
            with pytest.raises(InvalidStatus):
                RawWS(f"{url}/counter/ws", headers=headers)
        good = {"Authorization": "Bearer s3cret"}
        assert http.get("/counter/schema", headers=good).status_code == 200
        with RawWS(f"{url}/counter/ws", headers=good) as peer:
            assert peer.reset(seed=1)["type"] == "observation"
        with LifelineClient(url, "counter", token="s3cret").sync() as env:
            assert env.reset(seed=1).observation.seed == 1


def test_openenv_validate_passes_for_every_env() -> None:
    with background_server(build_app(SERVED)) as url:
        for spec in SERVED:
            report = validate_running_environment(f"{url}/{spec.name}")
            failed = [c for c in report["criteria"] if not c["passed"]]
            assert report["passed"], failed


def test_openenv_mcp_tool_client() -> None:
    """OpenEnv's own MCP client: an HTTP ``/mcp`` session for the tools, attached to the
    WebSocket that resets the episode."""
    spec = REAL[0]
    app = build_app([spec], max_sessions=4)

    async def run(url: str) -> None:
        async with MCPToolClient(base_url=f"{url}/{spec.name}", mode="production") as env:
            await env.reset(seed=4)
            tools = await env.list_tools()
            assert [t.name for t in tools] == [*(t.kind for t in spec.load().action_types),
                                               START_TOOL]
            noop = spec.load()(spec.default_scenario).noop_action()
            out = await env.call_tool(noop.kind, **action_to_call(noop)[1])
            out = out if isinstance(out, dict) else out.model_dump()
            assert out["step"] == 1 and isinstance(out["reward"], float) and out["valid"]

    with background_server(app) as url:
        asyncio.run(run(url))
        assert _wait_for(lambda: served_envs(app)[spec.name].server.active_sessions == 0)


def test_typed_client_sync_and_async() -> None:
    spec = REAL[0]
    core = spec.load()(spec.default_scenario)
    noop = core.noop_action()
    with background_server(build_app([spec])) as url:
        with LifelineClient(url, spec.name).sync() as env:
            first = env.reset(seed=9)
            assert first.observation.seed == 9 and first.reward == 0.0
            tools = env.list_tools()
            assert [t["name"] for t in tools] == [t.kind for t in spec.load().action_types]
            by_action = env.act(noop)
            by_call = env.call(noop.kind, **action_to_call(noop)[1])
            by_index = env.act(core.encode(noop))
            assert [r.observation.step for r in (by_action, by_call, by_index)] == [1, 2, 3]
            assert all(isinstance(r.reward, float) for r in (by_action, by_call, by_index))
            assert env.state().step_count == 3

        async def run() -> None:
            async with LifelineClient(url, spec.name) as env:
                await env.reset(seed=9, scenario=spec.scenarios[-1])
                result = await env.call("no_such_tool")
                assert not result.observation.valid and "unknown tool" in result.observation.error
        asyncio.run(run())
