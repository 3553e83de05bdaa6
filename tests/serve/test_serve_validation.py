"""Malformed input gets a 4xx (or an error frame) with a one-line reason, on every path
(issue 30, items 5 and 7): the live view's web API validates as the WebSocket path does;
huge float indices, JSON-RPC notifications and the auth schemes are handled as documented."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

pytest.importorskip("openenv")

from lifeline.serve.run import background_server
from lifeline.serve.server import build_app
from lifeline.testing.counter import COUNTER_SPEC
from tests.server_helpers import RawWS


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with background_server(build_app([COUNTER_SPEC], max_sessions=8)) as base:
        yield base


def _one_line(reply: httpx.Response, status: int = 400) -> str:
    assert reply.status_code == status, (reply.status_code, reply.text)
    detail = reply.json()["detail"]
    assert isinstance(detail, str) and detail and "\n" not in detail, detail
    return detail


BAD_NEW = ['{"seed": 1e309}', '{"seed": [1]}', '{"seed": 1.5}', '{"seed": 1180591620717411303424}',
           '{"seed": true}', '{"seed": -1}', '{"seed": "abc"}', '{"bogus": 1}', '[1]', '7',
           '{', '{"scenario": 3}', '{"scenario": "no_such_scenario"}']


@pytest.mark.parametrize("body", BAD_NEW)
def test_web_new_refuses_malformed_input(url: str, body: str) -> None:
    reply = httpx.post(f"{url}/counter/web/api/new", content=body,
                       headers={"content-type": "application/json"}, timeout=10)
    _one_line(reply)


def test_web_new_accepts_seeds_in_the_documented_range(url: str) -> None:
    for seed in (0, 5, 2**64 - 1):
        reply = httpx.post(f"{url}/counter/web/api/new", json={"seed": seed}, timeout=10)
        assert reply.status_code == 200 and reply.json()["seed"] == seed
    drawn = httpx.post(f"{url}/counter/web/api/new", json={}, timeout=10)
    assert drawn.status_code == 200 and isinstance(drawn.json()["seed"], int)
    assert httpx.post(f"{url}/counter/web/api/new", json={"seed": 2**64},
                      timeout=10).status_code == 400


@pytest.mark.parametrize("body", ['{"index": 1e309}', '{"index": 1e19}', '{"index": "x"}',
                                  '{"index": true}', '{"index": 1.5}', '{"bogus": 1}', '[0]',
                                  '{', '{"index": 0, "metadata": 3}'])
def test_web_step_refuses_malformed_input(url: str, body: str) -> None:
    key = httpx.post(f"{url}/counter/web/api/new", json={"seed": 1}, timeout=10).json()["id"]
    reply = httpx.post(f"{url}/counter/web/api/session/{key}/step", content=body,
                       headers={"content-type": "application/json"}, timeout=10)
    _one_line(reply)
    state = httpx.get(f"{url}/counter/web/api/session/{key}", timeout=10).json()
    assert state["steps"] == 0  # nothing was played
    ok = httpx.post(f"{url}/counter/web/api/session/{key}/step", json={"index": 0}, timeout=10)
    assert ok.status_code == 200 and ok.json()["steps"] == 1


def test_huge_float_index_gets_a_reason_on_the_websocket(url: str) -> None:
    with RawWS(f"{url}/counter/ws") as ws:
        ws.reset(seed=1)
        for frame in ('{"type": "step", "data": {"index": 1e19}}',
                      '{"type": "step", "data": {"index": -9.3e18}}',
                      '{"type": "step", "data": {"index": 9223372036854775808}}'):
            reply = ws.request(frame)
            assert reply["type"] == "error" and reply["data"]["code"] == "VALIDATION_ERROR"
            assert "64-bit integer" in reply["data"]["message"]
        assert ws.step(index=0)["data"]["observation"]["step"] == 1


def test_a_tools_call_notification_is_not_played(url: str) -> None:
    with httpx.Client(base_url=f"{url}/counter", timeout=10) as http:
        sid = http.post("/mcp", json={"jsonrpc": "2.0", "id": 1,
                                      "method": "openenv/session/create"}).json()["result"]
        sid = sid["session_id"]

        def call(**extra: object) -> httpx.Response:
            request = {"jsonrpc": "2.0", "method": "tools/call", **extra,
                       "params": {"session_id": sid, "name": "increment", "arguments": {}}}
            return http.post("/mcp", json=request)

        http.post("/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "session_id": sid, "name": "start_episode", "arguments": {"seed": 1}}})
        notification = call()  # no id: accepted (202), never answered, never played
        assert notification.status_code == 202 and notification.content == b""
        null_id = call(id=None)  # an id of null is no notification: refused with a reason
        assert null_id.status_code == 200 and "notification" in null_id.json()["error"]["message"]
        played = call(id=3).json()["result"]
        assert played["step"] == 1  # the notification and the null id played nothing
    with RawWS(f"{url}/counter/ws") as ws:
        ws.reset(seed=1)
        ws.send({"type": "mcp", "data": {"jsonrpc": "2.0", "method": "tools/call",
                                         "params": {"name": "increment"}}})  # no answer
        assert ws.request({"type": "state"})["data"]["step_count"] == 0  # the next reply
    with RawWS(f"{url}/counter/mcp") as mcp:
        mcp.send({"jsonrpc": "2.0", "method": "tools/call",
                  "params": {"name": "start_episode", "arguments": {"seed": 1}}})
        listed = mcp.request({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert listed["id"] == 1 and listed["result"]["tools"]  # the first and only reply


def test_bearer_and_basic_auth_as_documented() -> None:
    app = build_app([COUNTER_SPEC], token="s3cret")
    with background_server(app) as base, httpx.Client(base_url=base, timeout=10) as http:
        refused = http.get("/counter/web")
        assert refused.status_code == 401
        challenges = refused.headers.get_list("www-authenticate")
        assert any(c.startswith("Bearer") for c in challenges)
        assert any(c.startswith("Basic") for c in challenges)  # what makes a browser ask
        assert "HTTP Basic" in refused.json()["detail"]
        for auth in ({"headers": {"Authorization": "Bearer s3cret"}},
                     {"auth": ("anyone", "s3cret")}):
            assert http.get("/counter/web", **auth).status_code == 200
            assert http.get("/counter/web/api/info",
                            **auth).status_code == 200
        assert http.get("/counter/web", auth=("anyone", "wrong")).status_code == 401
