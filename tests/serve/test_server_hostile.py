"""Regression tests for the defects a hostile client found (issue 13), one test per defect.

Each of these failed against the server before the fix: a cap bypass through OpenEnv's reaper,
chunked bodies past the size limit, a frame that ended the session, HTTP 500s, an episode id
that broke ``state``, sizes counted in characters, an empty token that locked everyone out,
bare "Invalid message" errors, and ``openenv validate`` against a token-protected server.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from openenv.cli._validation import validate_running_environment
from typer.testing import CliRunner

from lifeline.serve.run import background_server
from lifeline.serve.server import build_app, served_envs
from lifeline.testing.counter import COUNTER_SPEC
from tests.server_helpers import RawWS

LONE = '"\\ud800"'
"""A lone-surrogate JSON string literal (the escape as it travels in the frame's text)."""


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with background_server(build_app([COUNTER_SPEC], max_sessions=8)) as base:
        yield base


def _error(reply: dict[str, Any], code: str, *texts: str) -> str:
    assert reply["type"] == "error", reply
    assert reply["data"]["code"] == code, reply
    message: str = reply["data"]["message"]
    for text in texts:
        assert text.lower() in message.lower(), reply
    return message


def _alive(ws: RawWS, step: int) -> None:
    reply = ws.step(index=0)
    assert reply["type"] == "observation", reply
    assert reply["data"]["observation"]["step"] == step


def test_state_frames_keep_the_episode_and_the_cap_holds() -> None:
    """1. OpenEnv's reaper counted only reset/step: a socket sending only ``state`` lost its
    episode after the idle timeout, the slot was freed while the socket lived, and the cap
    could be exceeded by one. The guard's timer (every frame counts) now owns WebSockets."""
    app = build_app([COUNTER_SPEC], max_sessions=1, idle_timeout=1.0)
    server = served_envs(app)["counter"].server
    with background_server(app) as base, RawWS(f"{base}/counter/ws") as peer:
        peer.reset(seed=1)
        deadline = time.monotonic() + 6.5  # the reaper wakes every max(timeout / 4, 5 s)
        while time.monotonic() < deadline:
            assert peer.request({"type": "state"})["data"]["seed"] == 1
            time.sleep(0.3)
        assert server.active_sessions == 1
        _alive(peer, 1)  # the episode is still there
        with RawWS(f"{base}/counter/ws") as second:  # refused as it connects
            _error(second.recv(), "CAPACITY_REACHED")


def test_chunked_body_is_bounded(url: str) -> None:
    """2. Only Content-Length was checked; a chunked upload of any size went through."""
    def chunks() -> Iterator[bytes]:
        for _ in range(48):
            yield b"x" * 65536  # 3 MB in total, no Content-Length

    with httpx.Client(base_url=url, timeout=30) as http:
        r = http.post("/counter/mcp", content=chunks())
        assert r.status_code == 413 and "exceeds the server limit" in r.json()["detail"]
        assert http.get("/health").status_code == 200


def test_lone_surrogates_get_an_error_and_the_session_goes_on(url: str) -> None:
    """3. A lone surrogate made the error reply unserialisable: SESSION_ERROR, socket closed."""
    with RawWS(f"{url}/counter/ws") as ws:
        ws.reset(seed=1)
        for frame in ('{"type": "reset", "data": {"seed": 1, ' + LONE + ': 1}}',
                      '{"type": "state", ' + LONE + ': 1}',
                      '{"type": "step", "data": {"tool_name": ' + LONE + '}}',
                      '{"type": "step", "data": {"tool_name": "increment", "arguments": '
                      '"{\\"\\\\ud800\\": 1}"}}'):
            reply = ws.request(frame)
            if reply["type"] == "observation":  # the string-encoded arguments: invalid step
                assert "surrogate" in reply["data"]["observation"]["error"]
                continue
            _error(reply, "INVALID_JSON", "surrogate")
        _alive(ws, 2)
    with httpx.Client(base_url=url, timeout=10) as http:
        r = http.post("/counter/reset", content='{"seed": 1, ' + LONE + ': 1}')
        assert r.status_code == 400 and "surrogate" in r.json()["detail"]


def test_unhashable_views_and_non_string_session_ids(url: str) -> None:
    """4. ``views: [[1]]`` was an HTTP 500 (and a Python message over the WebSocket); a
    non-string MCP ``session_id`` was a 500 from OpenEnv's handler."""
    with httpx.Client(base_url=url, timeout=10) as http:
        r = http.post("/counter/reset", json={"seed": 1, "views": [[1]]})
        assert r.status_code == 400 and "views must be a list of strings" in r.json()["detail"]
        for method, params in (("openenv/session/close", {"session_id": [1]}),
                               ("tools/call", {"name": "hold", "session_id": {"a": 1}}),
                               ("tools/list", {"session_id": 7})):
            r = http.post("/counter/mcp", json={"jsonrpc": "2.0", "id": 3, "method": method,
                                                "params": params})
            assert r.status_code == 200, r.text
            error = r.json()["error"]
            assert error["code"] == -32602 and "'session_id' must be the string" in \
                error["message"] and r.json()["id"] == 3
    with RawWS(f"{url}/counter/ws") as ws:
        _error(ws.reset(seed=1, views=[[1]]), "EXECUTION_ERROR", "views must be a list of strings")
        reply = ws.request({"type": "mcp", "data": {"jsonrpc": "2.0", "id": 1,
                                                    "method": "openenv/session/close",
                                                    "params": {"session_id": [1]}}})
        assert reply["type"] == "mcp" and reply["data"]["error"]["code"] == -32602


def test_non_string_episode_id_is_refused(url: str) -> None:
    """5. ``episode_id: 5`` was accepted, then every ``state`` failed with "Invalid message"."""
    with RawWS(f"{url}/counter/ws") as ws:
        ws.reset(seed=1, episode_id="mine")
        _error(ws.reset(seed=2, episode_id=5), "EXECUTION_ERROR", "episode_id must be a "
               "non-empty string")
        state = ws.request({"type": "state"})
        assert state["type"] == "state" and state["data"]["episode_id"] == "mine"


def test_mcp_arguments_as_json_string_or_list(url: str) -> None:
    """6. (second half) ``arguments`` as a JSON string or a list gave "call() argument after
    ** must be a mapping"; a string is now decoded (as on the WebSocket), a list is named."""
    with httpx.Client(base_url=url, timeout=10) as http:
        sid = http.post("/counter/mcp", json={"jsonrpc": "2.0", "id": 1,
                                              "method": "openenv/session/create"}
                        ).json()["result"]["session_id"]

        def call(name: str, arguments: Any) -> dict[str, Any]:
            reply: dict[str, Any] = http.post("/counter/mcp", json={
                "jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": name, "arguments": arguments, "session_id": sid}}).json()
            return reply

        assert call("start_episode", '{"seed": 3}')["result"]["seed"] == 3
        assert call("increment", '{"amount": 1}')["result"]["step"] == 1
        assert call("hold", None)["result"]["step"] == 2
        error = call("increment", [1])["error"]
        assert error["code"] == -32602 and "'arguments' must be a JSON object" in error["message"]
        assert call("hold", {})["result"]["step"] == 3  # the episode is untouched


def test_size_limit_counts_bytes_and_huge_frames_keep_the_session() -> None:
    """7. The limit counted characters (4-byte emoji passed 4x over), and frames over 16 MiB
    closed the connection with 1009 instead of a MESSAGE_TOO_LARGE error."""
    app = build_app([COUNTER_SPEC], max_message_bytes=100_000)
    with background_server(app) as base, RawWS(f"{base}/counter/ws") as ws:
        ws.reset(seed=1)
        emoji = "\U0001f691" * 30_000  # 30k characters, 120 kB of UTF-8
        _error(ws.step(tool_name="hold", arguments={"note": emoji}), "MESSAGE_TOO_LARGE",
               "exceeds the server limit")
        _error(ws.step(tool_name="hold", arguments={"note": "x" * (20 << 20)}),
               "MESSAGE_TOO_LARGE", "exceeds the server limit")
        _alive(ws, 1)
        with httpx.Client(base_url=base, timeout=10) as http:
            r = http.post("/counter/mcp", content=('{"x": "' + emoji + '"}').encode())
            assert r.status_code == 413


def test_empty_and_non_ascii_tokens() -> None:
    """8. ``--token ""`` printed "token off" yet answered 401 everywhere, and then an empty
    ``Bearer`` passed; a non-ASCII token never matched."""
    with pytest.raises(ValueError, match="non-empty string"):
        build_app([COUNTER_SPEC], token="")
    from lifeline.cli import app as cli

    result = CliRunner().invoke(cli, ["serve", "lifeline.testing.counter:COUNTER_SPEC",
                                        "--token", ""])
    assert result.exit_code == 2 and "non-empty string" in result.output
    token = "s3crét-\U0001f511"
    with background_server(build_app([COUNTER_SPEC], token=token)) as base, \
            httpx.Client(base_url=base, timeout=10) as http:
        good = [(b"Authorization", b"Bearer " + token.encode("utf-8"))]
        assert http.get("/", headers=good).status_code == 200
        for value in (b"Bearer", b"Bearer  x", b"Bearer wrong", token.encode("utf-8")):
            assert http.get("/", headers=[(b"Authorization", value)]).status_code == 401


@pytest.mark.parametrize("frame", [
    '{"type": "state", "x": 1}',
    '{"type": "close", "data": {}}',
    '{"type": "step", "data": {"index": 0, "metadata": 5}}',
    '{"type": "reset", "data": null}',
    '{"type": "reset", "data": {"seed": 1, "self": 1}}',
    '{"type": "reset", "data": {"seed": 1.5}}',
    '{"type": "reset", "data": {"seed": 1, "scenario": ["a"]}}',
    '{"type": 5}',
    '{}',
    '{"type": "mcp", "data": {"jsonrpc": "2.0", "method": "tools/list", "params": [1]}}',
    '{"type": "mcp", "data": {"jsonrpc": "1.0", "method": "tools/list"}}',
    '{"type": "mcp", "data": 3}',
])
def test_errors_say_what_is_wrong_and_what_is_accepted(url: str, frame: str) -> None:
    """9. Many random frames got a bare "Invalid message" (or a Python-internal text)."""
    with RawWS(f"{url}/counter/ws") as ws:
        ws.reset(seed=1)
        reply = ws.request(frame)
        if reply["type"] == "mcp":
            message = reply["data"]["error"]["message"]
        else:
            assert reply["type"] == "error", reply
            message = reply["data"]["message"]
        assert message != "Invalid message" and len(message) > 40, reply
        assert "argument" not in message or "arguments" in message  # no TypeError texts
        assert any(w in message for w in ("accepted", " is ", "one of", "must be", "needs",
                                          "such as", "e.g.")), message
        _alive(ws, 1)


def test_openenv_validate_against_a_token_server(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """10. ``openenv validate`` cannot send a header: it passed 1 of 6 checks against a
    ``--token`` server. The token is also accepted as an HTTP Basic password, which
    ``requests`` (inside ``openenv validate``) takes from ``~/.netrc`` (or ``$NETRC``)."""
    with background_server(build_app([COUNTER_SPEC], token="s3cret")) as base:
        before = validate_running_environment(f"{base}/counter")
        assert not before["passed"]
        netrc = tmp_path / "netrc"
        netrc.write_text("machine 127.0.0.1 login lifeline password s3cret\n")
        netrc.chmod(0o600)
        monkeypatch.setenv("NETRC", str(netrc))
        report = validate_running_environment(f"{base}/counter")
        assert report["passed"], [c for c in report["criteria"] if not c["passed"]]
        with httpx.Client(base_url=base, timeout=10) as http:
            assert http.get("/", auth=("anyone", "wrong")).status_code == 401
