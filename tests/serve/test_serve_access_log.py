"""Session capabilities never reach uvicorn's logs (issue 30, item d).

A ``/ws?session_id=ID`` attach, the live view's ``/web/api/session/web:KEY`` (the key plays the
session) and ``watch:HANDLE`` are request lines uvicorn logs at ``info``; whoever reads the log
could otherwise drive or watch those sessions.
"""

from __future__ import annotations

import io
import sys
import time

import httpx
import pytest

pytest.importorskip("openenv")

from lifeline.serve.run import background_server
from lifeline.serve.server import build_app
from lifeline.serve.transport import redact
from lifeline.testing.counter import COUNTER_SPEC
from tests.server_helpers import RawWS


def test_redact_replaces_every_capability() -> None:
    assert redact("GET /ed/ws?session_id=abc-123&x=1 HTTP/1.1") == (
        "GET /ed/ws?session_id=<redacted>&x=1 HTTP/1.1")
    assert redact("/ed/web/api/session/web:Zx_9/step") == "/ed/web/api/session/web:<redacted>/step"
    assert redact("/ed/web/api/session/watch%3AZx_9?static=1") == (
        "/ed/web/api/session/watch%3A<redacted>?static=1")
    assert redact("GET /ed/health") == "GET /ed/health"


def test_access_and_websocket_log_lines_carry_no_capability(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # uvicorn's logging config binds its handlers to sys.stdout/sys.stderr when the server
    # starts; buffers that are never closed (unlike pytest's per-test capture files, which a
    # later log line on this worker would hit) receive the lines.
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    app = build_app([COUNTER_SPEC], watch=True)
    with background_server(app, log_level="info") as url:
        name = COUNTER_SPEC.name
        with httpx.Client(base_url=f"{url}/{name}", timeout=10) as http:
            rpc = {"jsonrpc": "2.0", "id": 1, "method": "openenv/session/create"}
            sid = http.post("/mcp", json=rpc).json()["result"]["session_id"]
            key = http.post("/web/api/new", json={"seed": 1}).json()["id"]
            assert http.get(f"/web/api/session/{key}").status_code == 200
            assert http.post(f"/web/api/session/{key}/step", json={"index": 0}).status_code == 200
            watch = http.get("/web/api/sessions").json()[0]["id"]
            assert http.get(f"/web/api/session/{watch}").status_code == 200
        with RawWS(f"{url}/{name}/ws?session_id={sid}") as attached:
            assert attached.request({"type": "state"})["type"] == "state"
        time.sleep(0.3)
    logged = out.getvalue() + err.getvalue()
    assert "/web/api/session/web%3A<redacted>/step" in logged  # the lines are there ...
    assert "session_id=<redacted>" in logged
    for secret in (sid, key.partition(":")[2], watch.partition(":")[2]):
        assert secret not in logged  # ... without the capabilities
