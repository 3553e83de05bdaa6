"""Bad input against a live server: every case gets a clear error and the session keeps working."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from openenv.core.generic_client import GenericEnvClient

from lifeline.core.registry import EnvSpec
from lifeline.faces.tools import tool_specs
from lifeline.serve.openenv import START_TOOL
from lifeline.serve.run import background_server
from lifeline.serve.server import build_app
from tests.server_helpers import SERVED, RawWS

NAMES = [s.name for s in SERVED]


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with background_server(build_app(SERVED, max_sessions=16)) as base:
        yield base


@pytest.fixture(params=NAMES)
def ws(request: pytest.FixtureRequest, url: str) -> Iterator[RawWS]:
    with RawWS(f"{url}/{request.param}/ws") as peer:
        yield peer


def _error(reply: dict[str, Any], code: str, text: str) -> None:
    assert reply["type"] == "error", reply
    assert reply["data"]["code"] == code, reply
    assert text.lower() in reply["data"]["message"].lower(), reply


def _still_works(ws: RawWS, expected_step: int | None = None) -> None:
    """The session answers a normal step (continuing the same episode when one is running)."""
    reply = ws.step(index=0)
    assert reply["type"] == "observation", reply
    if expected_step is not None:
        assert reply["data"]["observation"]["step"] == expected_step + 1


def _invalid_step(reply: dict[str, Any], text: str) -> dict[str, Any]:
    assert reply["type"] == "observation", reply
    obs = reply["data"]["observation"]
    assert obs["valid"] is False and text.lower() in obs["error"].lower(), obs["error"]
    assert isinstance(reply["data"]["reward"], float)
    return obs


@pytest.mark.parametrize(("frame", "code", "text"), [
    ("{not json", "INVALID_JSON", "Invalid JSON"),
    ("", "INVALID_JSON", "Invalid JSON"),
    ("[1, 2, 3]", "VALIDATION_ERROR", "must be a JSON object"),
    ('"step"', "VALIDATION_ERROR", "must be a JSON object"),
    ("[" * 50_000 + "]" * 50_000, "INVALID_JSON", "nested too deeply"),
    ('{"type": "jump"}', "UNKNOWN_TYPE", "Unknown message type"),
    ('{"type": "step"}', "VALIDATION_ERROR", "a step message needs 'data'"),
    ('{"type": "step", "data": {"tool_name": "x", "colour": 1}}', "VALIDATION_ERROR",
     "unexpected field(s) 'colour' in a step"),
    ('{"type": "step", "data": {"action": {"index": 0}}}', "VALIDATION_ERROR",
     "unexpected field(s) 'action' in a step"),
    ('{"type": "step", "data": {"index": "three"}}', "VALIDATION_ERROR",
     "'index' must be an integer"),
    ('{"type": "step", "data": {"index": 2.5}}', "VALIDATION_ERROR", "got 2.5"),
    ('{"type": "step", "data": {"type": "dance"}}', "VALIDATION_ERROR", "'call_tool' (default)"),
    ('{"type": "reset", "data": [1]}', "VALIDATION_ERROR", "a reset's 'data' must be an object"),
])
def test_protocol_errors(ws: RawWS, frame: str, code: str, text: str) -> None:
    ws.reset(seed=1)
    _error(ws.request(frame), code, text)
    _still_works(ws, expected_step=0)


def test_binary_frame(ws: RawWS) -> None:
    ws.reset(seed=1)
    ws.conn.send(b'{"type": "state"}')
    _error(ws.recv(), "INVALID_JSON", "text frame")
    _still_works(ws, expected_step=0)


def test_ten_megabyte_payload(ws: RawWS) -> None:
    ws.reset(seed=1)
    blob = "x" * (10 << 20)
    _error(ws.step(tool_name="wait", arguments={"note": blob}), "MESSAGE_TOO_LARGE",
           "exceeds the server limit")
    _still_works(ws, expected_step=0)


def test_step_before_reset(ws: RawWS) -> None:
    _error(ws.step(index=0), "EXECUTION_ERROR", "no episode is running")
    assert ws.reset(seed=2)["type"] == "observation"
    _still_works(ws, expected_step=0)


@pytest.mark.parametrize(("data", "text"), [
    ({"seed": 1, "scenario": "apocalypse"}, "unknown scenario 'apocalypse'"),
    ({"seed": -5}, "non-negative integer"),
    ({"seed": "seven"}, "non-negative integer"),
    ({"seed": 1, "senario": "surge"}, "unknown reset option(s): 'senario'"),
    ({"seed": 1, "views": ["pictures"]}, "unknown view(s)"),
    ({"seed": 1, "views": 3}, "views must be a list"),
])
def test_bad_reset_keeps_the_running_episode(ws: RawWS, data: dict[str, Any], text: str) -> None:
    first = ws.reset(seed=3)["data"]["observation"]
    _still_works(ws, expected_step=0)
    _error(ws.reset(**data), "EXECUTION_ERROR", text)
    reply = ws.request({"type": "state"})
    assert reply["data"]["seed"] == first["seed"] and reply["data"]["step_count"] == 1
    _still_works(ws, expected_step=1)


def test_bad_tool_calls_are_penalised_no_ops(ws: RawWS) -> None:
    ws.reset(seed=4)
    specs = {s.name: s for s in tool_specs(_spec(ws).load())}
    obs = _invalid_step(ws.step(tool_name="teleport", arguments={}), "unknown tool 'teleport'")
    assert obs["step"] == 1  # counted like any invalid action (the step budget applies)
    with_args = next(s for s in specs.values() if s.params)
    pname = with_args.params[0].name
    _invalid_step(ws.step(tool_name=with_args.name, arguments={}), f"missing required "
                  f"argument(s) '{pname}'")
    valid_args = {p.name: 0 for p in with_args.params}  # multi-argument tools need them all
    _invalid_step(ws.step(tool_name=with_args.name, arguments=valid_args | {pname: "zero"}),
                  f"argument '{pname}' must be an integer")
    _invalid_step(ws.step(tool_name=with_args.name, arguments=valid_args | {"extra": 1}),
                  "unexpected argument(s) 'extra'")
    _invalid_step(ws.step(tool_name=with_args.name, arguments="{oops"), "not valid JSON")
    _invalid_step(ws.step(tool_name=7), "tool name must be a non-empty string")
    _invalid_step(ws.step(), "needs 'tool_name'")
    _invalid_step(ws.step(tool_name="x", index=0), "not both")
    _still_works(ws, expected_step=8)


def test_out_of_range_ids(ws: RawWS) -> None:
    ws.reset(seed=5)
    step = 0
    done = False  # invalid actions use turns: a short episode may end during the loop
    for spec in tool_specs(_spec(ws).load()):
        for p in spec.params:
            for bad in (-1, 10**6, 2**70):
                args = {q.name: 0 for q in spec.params} | {p.name: bad}
                reply = ws.step(tool_name=spec.name, arguments=args)
                obs = _invalid_step(reply, "")
                assert obs["error"], (spec.name, args)
                step += 1
                done = done or reply["data"]["done"]
    for bad in (-1, 10**6):
        _invalid_step(ws.step(index=bad), "")
        step += 1
    _still_works(ws, expected_step=None if done else step)


def test_step_after_done_then_reset(ws: RawWS) -> None:
    obs = ws.reset(seed=6, views=["legal"])["data"]["observation"]
    while True:
        reply = ws.step(index=0 if not obs["legal_actions"] else None,
                        **(obs["legal_actions"][-1] if obs["legal_actions"] else {}))
        obs = reply["data"]["observation"]
        if reply["data"]["done"]:
            break
    assert obs["score"] is not None and obs["components"]
    after = ws.step(index=0)["data"]
    assert after["done"] is True and after["reward"] == 0.0
    assert "episode is over" in after["observation"]["error"]
    assert ws.reset(seed=7)["data"]["done"] is False
    _still_works(ws, expected_step=0)


def test_mcp_over_websocket(ws: RawWS) -> None:
    def rpc(method: str, params: dict[str, Any]) -> dict[str, Any]:
        reply = ws.request({"type": "mcp", "data": {"jsonrpc": "2.0", "id": 1, "method": method,
                                                    "params": params}})
        assert reply["type"] == "mcp"
        data: dict[str, Any] = reply["data"]
        return data

    tools = rpc("tools/list", {})["result"]["tools"]
    assert [t["name"] for t in tools] == [*(s.name for s in tool_specs(_spec(ws).load())),
                                          START_TOOL]
    assert "no episode is running" in rpc("tools/call", {"name": tools[0]["name"],
                                                         "arguments": {}})["error"]["message"]
    ws.reset(seed=8)
    result = rpc("tools/call", {"name": tools[0]["name"], "arguments": {}})["result"]
    assert result["step"] == 1 and isinstance(result["reward"], float)
    assert "not found" in rpc("tools/call", {"name": "nope", "arguments": {}})["error"]["message"]
    assert "method not found" in rpc("tools/dance", {})["error"]["message"].lower()
    _still_works(ws, expected_step=1)


def test_http_endpoints_fail_clearly(url: str) -> None:
    with httpx.Client(base_url=url, timeout=30) as http:
        for name in NAMES:
            r = http.post(f"/{name}/step", json={"action": {"index": 0}})
            assert r.status_code == 409 and "WebSocket" in r.json()["detail"]
            r = http.post(f"/{name}/reset", json={"seed": 1, "scenario": "nope"})
            assert r.status_code == 400 and "unknown scenario" in r.json()["detail"]
            r = http.post(f"/{name}/reset", json={"seed": 1})
            assert r.status_code == 200 and r.json()["observation"]["seed"] == 1
            r = http.post(f"/{name}/mcp", content=b"{broken")
            assert r.json()["error"]["code"] == -32700
            r = http.post(f"/{name}/mcp", content=b"x" * (10 << 20))
            assert r.status_code == 413 and "exceeds" in r.json()["detail"]
            tools = http.post(f"/{name}/mcp", json={"jsonrpc": "2.0", "id": 1,
                                                     "method": "tools/list"}).json()
            assert tools["result"]["tools"]
        assert http.get("/nowhere/ws").status_code == 404


def _spec(ws: RawWS) -> EnvSpec:
    path = ws.conn.request.path if ws.conn.request else ""
    name = path.strip("/").split("/")[0]
    return next(s for s in SERVED if s.name == name)


def test_mcp_websocket_protocol_errors(url: str) -> None:
    with RawWS(f"{url}/{NAMES[-1]}/mcp") as mcp:
        for frame, code in (("{nope", -32700), ("[1]", -32600), ("x" * (10 << 20), -32700),
                            ('{"jsonrpc": "2.0"}', -32600)):
            reply = mcp.request(frame)
            assert reply["jsonrpc"] == "2.0" and reply["error"]["code"] == code, reply
        reply = mcp.request({"jsonrpc": "2.0", "id": 5, "method": "tools/list"})
        assert reply["id"] == 5 and reply["result"]["tools"]


def test_standard_client_sees_the_precise_reason(url: str) -> None:
    """OpenEnv's client only shows an error's message, so the message must say what is wrong."""
    with GenericEnvClient(base_url=f"{url}/{NAMES[-1]}").sync() as env:
        env.reset(seed=1)
        with pytest.raises(RuntimeError, match=r"unexpected field.*'action'"):
            env.step({"action": 3})
        with pytest.raises(RuntimeError, match="unknown scenario"):
            env.reset(seed=1, scenario="nope")
        result = env.step({"tool_name": "nope"})
        assert result.observation["valid"] is False
        assert "unknown tool 'nope'" in result.observation["error"]
        assert result.observation["step"] == 1
