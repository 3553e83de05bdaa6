"""Property-based fuzzing of a live server (Hypothesis): raw WebSocket frames and HTTP bodies.

For every served environment, over arbitrary frames — random text, random JSON, and messages
built from the protocol's own vocabulary (types, option names, JSON-RPC methods, tool names,
lone surrogates, huge and non-finite numbers) — the properties are:

* the session never ends (only the client, the idle timeout or the cap may end one);
* every reply is well-formed JSON; an error reply names the problem (never a bare
  "Invalid message" or an empty text);
* after a frame answered with an error, the episode is exactly as before (same ``state``);
* HTTP bodies to every route never get a 5xx.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lifeline.serve.guard import parse_message
from lifeline.serve.mcp import is_notification_message
from lifeline.serve.run import background_server
from lifeline.serve.server import build_app
from lifeline.serve.wire import check_session_message
from tests.server_helpers import SERVED, RawWS

NAMES = [s.name for s in SERVED]
LONE = st.sampled_from(["\ud800", "\udfff", "a\udc80b"])
WORDS = ["type", "data", "seed", "views", "episode_id", "scenario", "tool_name", "arguments",
         "index", "metadata", "jsonrpc", "method", "params", "id", "name", "session_id", "self",
         "reset", "step", "state", "mcp", "close", "call_tool", "list_tools", "tools/call",
         "tools/list", "openenv/session/create", "openenv/session/close", "2.0", "hold",
         "wait", "increment", "start_episode", "text", "structured", "legal", "amount", "slot"]
KEYS = st.sampled_from(WORDS) | st.text(max_size=6) | LONE
SCALARS = (st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.integers(-2, 40)
           | st.floats() | st.text(max_size=10) | LONE | st.sampled_from(WORDS))
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(KEYS, inner, max_size=4), max_leaves=10)
MESSAGES = st.fixed_dictionaries(
    {"type": st.sampled_from(["reset", "step", "state", "mcp", "close"]) | SCALARS},
    optional={"data": JSON | st.dictionaries(st.sampled_from(WORDS), JSON, max_size=4),
              "extra": JSON})
RPC = st.fixed_dictionaries(
    {"jsonrpc": st.just("2.0") | SCALARS,
     "method": st.sampled_from(["tools/list", "tools/call", "openenv/session/close"]) | SCALARS},
    optional={"id": SCALARS, "params": st.dictionaries(st.sampled_from(WORDS), JSON,
                                                       max_size=4) | JSON})


def _dump(value: Any) -> str:
    return json.dumps(value)  # lone surrogates travel as \\udxxx escapes, NaN as NaN


VALID = st.sampled_from([
    {"type": "reset", "data": {"seed": 1}}, {"type": "step", "data": {"index": 0}},
    {"type": "step", "data": {"tool_name": "hold", "arguments": {}}}, {"type": "state"},
    {"type": "mcp", "data": {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}}])


def _spoil(message: dict[str, Any], where: str, key: Any, value: Any) -> dict[str, Any]:
    """A valid message with one foreign key/value at the top level or inside ``data``."""
    spoiled = json.loads(json.dumps(message))
    target = spoiled.setdefault("data", {}) if where == "data" else spoiled
    if isinstance(target, dict):
        target[key] = value
    return spoiled


MUTANTS = st.builds(_spoil, VALID, st.sampled_from(["top", "data"]), KEYS, JSON)
FRAMES = st.one_of(
    MUTANTS.map(_dump),
    MESSAGES.map(_dump),
    st.builds(lambda rpc: _dump({"type": "mcp", "data": rpc}), RPC),
    JSON.map(_dump),
    st.text(max_size=30),
    MESSAGES.map(_dump).flatmap(lambda t: st.integers(0, len(t)).map(lambda n: t[:n])),
)
BODIES = st.one_of(RPC.map(_dump), JSON.map(_dump), MESSAGES.map(_dump), st.text(max_size=30))
ERROR_CODES = {"INVALID_JSON", "UNKNOWN_TYPE", "VALIDATION_ERROR", "EXECUTION_ERROR",
               "MESSAGE_TOO_LARGE"}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with background_server(build_app(SERVED, max_sessions=4)) as base:
        yield base


def _state(ws: RawWS) -> dict[str, Any]:
    reply = ws.request({"type": "state"})
    assert reply["type"] == "state", reply
    data: dict[str, Any] = reply["data"]
    return data


def _is_notification(frame: str) -> bool:
    """A well-formed ``mcp`` message carrying a JSON-RPC notification (no ``id``)."""
    data, problem = parse_message(frame)
    if problem is not None or not isinstance(data, dict) or data.get("type") != "mcp":
        return False
    return check_session_message(data) is None and is_notification_message(data.get("data"))


def _check_error(message: Any) -> None:
    assert isinstance(message, str) and len(message) >= 20, message
    assert message.strip() != "Invalid message", message


@pytest.mark.parametrize("name", NAMES)
def test_ws_frames_never_end_the_session(url: str, name: str) -> None:
    with RawWS(f"{url}/{name}/ws") as ws:
        ws.reset(seed=1)
        ws.step(index=0)

        @settings(max_examples=250, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(frame=FRAMES)
        def check(frame: str) -> None:
            try:
                if json.loads(frame) == {"type": "close"}:
                    return  # the one frame that ends a session on purpose
            except (ValueError, RecursionError):
                pass
            before = _state(ws)
            if _is_notification(frame):  # JSON-RPC: never answered, never executed
                ws.send(frame)
                assert _state(ws) == before, frame  # (an answer would arrive first)
                return
            reply = ws.request(frame)
            kind = reply.get("type")
            if kind == "error":
                assert reply["data"]["code"] in ERROR_CODES, reply
                _check_error(reply["data"]["message"])
                assert _state(ws) == before, frame  # a refused frame changes nothing
            elif kind == "mcp":
                if "error" in reply["data"]:
                    _check_error(reply["data"]["error"]["message"])
                    assert _state(ws) == before, frame
            else:
                assert kind in ("observation", "state"), reply
                _state(ws)  # still answering

        check()


def test_http_bodies_never_get_a_5xx(url: str) -> None:
    with httpx.Client(base_url=url, timeout=30) as http:

        @settings(max_examples=150, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(name=st.sampled_from(NAMES),
               route=st.sampled_from(["reset", "step", "mcp", "state", "schema"]),
               body=BODIES)
        def check(name: str, route: str, body: str) -> None:
            r = http.post(f"/{name}/{route}", content=body.encode("utf-8", "surrogatepass"),
                          headers={"content-type": "application/json"})
            assert r.status_code < 500, (route, body, r.text)
            if route == "mcp" and r.status_code == 202:  # a notification: no answer
                assert r.content == b"" and is_notification_message(json.loads(body)), body
                return
            reply = r.json()
            if route == "mcp":
                assert reply.get("jsonrpc") == "2.0", reply
                if "error" in reply:
                    _check_error(reply["error"]["message"])
            elif r.status_code >= 400:
                assert reply.get("detail"), reply

        check()
