"""Sessions belong to the client that created them (issue 30, item 1): the audit's attack.

A plays an episode over the WebSocket, B over HTTP MCP; a third client (holding the shared
token when there is one — the server cannot tell clients apart by it) lists the live view's
sessions and tries, with everything it can learn or guess, to read, step, restart, attach to
and close A's and B's sessions. Every attempt must fail with a clear error, and A and B must
go on exactly where they were.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

pytest.importorskip("openenv")

from lifeline.serve.run import background_server
from lifeline.serve.server import build_app, served_envs
from lifeline.testing.counter import COUNTER_SPEC
from tests.server_helpers import RawWS

TOKEN = "s3cret"


@pytest.fixture(params=[None, TOKEN], ids=["no-token", "token"])
def served(request: pytest.FixtureRequest) -> Iterator[tuple[str, Any, dict[str, str]]]:
    token = request.param
    app = build_app([COUNTER_SPEC], max_sessions=8, token=token, watch=True)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with background_server(app) as url:
        yield url, served_envs(app)["counter"].server, headers


def _rpc(http: httpx.Client, method: str, rid: Any = 1, **params: Any) -> dict[str, Any]:
    reply = http.post("/counter/mcp", json={"jsonrpc": "2.0", "id": rid, "method": method,
                                            "params": params})
    assert reply.status_code == 200, reply.text
    answer: dict[str, Any] = reply.json()
    return answer


def _call(http: httpx.Client, sid: str, name: str, **arguments: Any) -> dict[str, Any]:
    return _rpc(http, "tools/call", session_id=sid, name=name, arguments=arguments)


def test_no_client_can_use_another_clients_session(
        served: tuple[str, Any, dict[str, str]]) -> None:
    url, server, headers = served
    with RawWS(f"{url}/counter/ws", headers=headers) as a, \
            httpx.Client(base_url=url, headers=headers, timeout=10) as b_http, \
            httpx.Client(base_url=url, headers=headers, timeout=10) as thief:
        # A: a WebSocket episode, 3 steps in.
        a.reset(seed=1)
        for _ in range(3):
            reply = a.step(tool_name="increment", arguments={})
        assert reply["data"]["observation"]["step"] == 3
        a_sid = next(e.session_id for e in server.sessions.entries()
                     if e.transport == "websocket")
        # B: an HTTP MCP episode, 2 steps in.
        b_sid = _rpc(b_http, "openenv/session/create")["result"]["session_id"]
        assert _call(b_http, b_sid, "start_episode", seed=2)["result"]["seed"] == 2
        for _ in range(2):
            b_obs = _call(b_http, b_sid, "increment")["result"]
        assert b_obs["step"] == 2

        # 1. The live view's list: watch handles, never a session id.
        listed = thief.get("/counter/web/api/sessions").json()
        ids = [s["id"] for s in listed]
        assert len(ids) == 2 and all(i.startswith("watch:") for i in ids)
        assert not any(a_sid in i or b_sid in i for i in ids)
        handles = [i.partition(":")[2] for i in ids]

        # 2. A handle reads (that is what the live view is for) but drives nothing.
        for i in ids:
            assert thief.get(f"/counter/web/api/session/{i}").status_code == 200
            refused = thief.post(f"/counter/web/api/session/{i}/step", json={"index": 0})
            assert refused.status_code == 403 and "read-only" in refused.json()["detail"]
        # Session ids are not accepted by the live view's API at all.
        for sid in (a_sid, b_sid):
            assert thief.get(f"/counter/web/api/session/openenv:{sid}").status_code == 404

        # 3. MCP over HTTP with a handle: not a session id.
        for h in handles:
            for method, params in (("tools/call", {"name": "increment", "arguments": {}}),
                                   ("tools/call", {"name": "start_episode",
                                                   "arguments": {"seed": 999}}),
                                   ("tools/list", {}), ("openenv/session/close", {})):
                answer = _rpc(thief, method, session_id=h, **params)
                assert "Unknown session_id" in answer["error"]["message"], (method, answer)

        # 4. MCP over HTTP with A's id (as if it had leaked): A belongs to its WebSocket.
        for method, params in (("tools/call", {"name": "increment", "arguments": {}}),
                               ("tools/call", {"name": "start_episode",
                                               "arguments": {"seed": 999}}),
                               ("tools/list", {}), ("openenv/session/close", {})):
            answer = _rpc(thief, method, session_id=a_sid, **params)
            assert "belongs to a WebSocket connection" in answer["error"]["message"], method

        # 5. Attaching a WebSocket to A (its id or its handle) or to B's handle.
        for target in (a_sid, *handles):
            with RawWS(f"{url}/counter/ws?session_id={target}", headers=headers) as peer:
                frame = peer.recv()
                assert frame["type"] == "error", frame
                assert ("belongs to another WebSocket" in frame["data"]["message"]
                        or "Unknown session_id" in frame["data"]["message"]), frame

        # 6. From the thief's own WebSocket, JSON-RPC naming someone else's session.
        with RawWS(f"{url}/counter/ws", headers=headers) as own:
            own.reset(seed=5)
            for sid in (a_sid, b_sid, *handles):
                for method in ("openenv/session/close", "tools/call", "tools/list"):
                    answer = own.request({"type": "mcp", "data": {
                        "jsonrpc": "2.0", "id": 9, "method": method,
                        "params": {"session_id": sid, "name": "increment", "arguments": {}}}})
                    assert "own session" in answer["data"]["error"]["message"], answer

        # A and B go on exactly where they were.
        reply = a.step(tool_name="increment", arguments={})
        assert reply["data"]["observation"]["step"] == 4
        assert reply["data"]["observation"]["seed"] == 1
        b_obs = _call(b_http, b_sid, "increment")["result"]
        assert b_obs["step"] == 3 and b_obs["seed"] == 2
        assert len(server.sessions) == 2 and server.active_sessions == 2


def test_the_creator_of_an_http_session_can_attach_a_websocket(
        served: tuple[str, Any, dict[str, str]]) -> None:
    """OpenEnv's feature stays: the holder of an HTTP MCP session's id may drive it from one
    WebSocket (``/ws?session_id=``), and while it does the idle reaper leaves it alone."""
    url, server, headers = served
    with httpx.Client(base_url=url, headers=headers, timeout=10) as http:
        sid = _rpc(http, "openenv/session/create")["result"]["session_id"]
        with RawWS(f"{url}/counter/ws?session_id={sid}", headers=headers) as ws:
            assert ws.reset(seed=3)["type"] == "observation"
            assert server.sessions.get(sid).attached
            with RawWS(f"{url}/counter/ws?session_id={sid}", headers=headers) as second:
                assert "already has an attached WebSocket" in second.recv()["data"]["message"]
            assert ws.step(index=0)["data"]["observation"]["step"] == 1
        assert not server.sessions.get(sid).attached
        assert _call(http, sid, "increment")["result"]["step"] == 2


def test_an_mcp_websocket_cannot_name_another_session(
        served: tuple[str, Any, dict[str, str]]) -> None:
    """The same rule on ``/<env>/mcp`` (a WebSocket speaking JSON-RPC): its requests act on its
    own session; naming another one — here an HTTP session whose id leaked — is refused."""
    url, server, headers = served
    with httpx.Client(base_url=url, headers=headers, timeout=10) as http:
        victim = _rpc(http, "openenv/session/create")["result"]["session_id"]
        _call(http, victim, "start_episode", seed=4)
        with RawWS(f"{url}/counter/mcp", headers=headers) as mcp:
            for method in ("openenv/session/close", "tools/call"):
                answer = mcp.request({"jsonrpc": "2.0", "id": 1, "method": method, "params": {
                    "session_id": victim, "name": "increment", "arguments": {}}})
                assert "own session" in answer["error"]["message"], answer
            own = mcp.request({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "start_episode", "arguments": {"seed": 9}}})
            assert own["result"]["seed"] == 9
        assert victim in server.sessions
        assert _call(http, victim, "increment")["result"]["step"] == 1


def test_no_watch_keeps_every_session_unreadable_by_others() -> None:
    """``--no-watch``: the live view lists and reads only the sessions started from it; an
    OpenEnv client's episode has no handle anywhere (and a guessed one reads nothing)."""
    app = build_app([COUNTER_SPEC], watch=False)
    server = served_envs(app)["counter"].server
    with background_server(app) as url, RawWS(f"{url}/counter/ws") as a, \
            httpx.Client(base_url=f"{url}/counter", timeout=10) as page:
        a.reset(seed=1)
        handle = server.sessions.entries()[0].watch  # what a watching server would publish
        own = page.post("/web/api/new", json={"seed": 2}).json()
        listed = page.get("/web/api/sessions").json()
        assert [s["source"] for s in listed] == ["web"] and listed[0]["id"] == own["watch"]
        assert page.get(f"/web/api/session/{own['watch']}").status_code == 200
        assert page.get(f"/web/api/session/watch:{handle}").status_code == 404
        assert a.step(index=0)["data"]["observation"]["step"] == 1
    with background_server(build_app([COUNTER_SPEC], watch=True)) as url, \
            RawWS(f"{url}/counter/ws") as a, httpx.Client(base_url=f"{url}/counter") as page:
        a.reset(seed=1)  # --watch publishes it, read-only
        assert [s["source"] for s in page.get("/web/api/sessions").json()] == ["openenv"]
