"""Session capabilities never reach uvicorn's logs (issue 30, item d).

A ``/ws?session_id=ID`` attach, the live view's ``/web/api/session/web:KEY`` (the key plays the
session) and ``watch:HANDLE`` are request lines uvicorn logs at ``info``; whoever reads the log
could otherwise drive or watch those sessions.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

pytest.importorskip("openenv")

from lifeline.serve.run import free_port
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


def test_access_and_websocket_log_lines_carry_no_capability(tmp_path: Path) -> None:
    # The real `lifeline serve --watch` in its own process, its logs read from files: uvicorn's
    # logging set-up (dictConfig) must not run inside the test process, whose log capture it
    # would take over for every later test on the same worker.
    port = free_port()
    out_path, err_path = tmp_path / "out.log", tmp_path / "err.log"
    with out_path.open("w") as out, err_path.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "lifeline", "serve", "lifeline.testing.counter:COUNTER_SPEC",
             "--watch", "--port", str(port), "--log-level", "info"],
            stdout=out, stderr=err)
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert proc.poll() is None and time.monotonic() < deadline, "server did not start"
                time.sleep(0.2)
            name = COUNTER_SPEC.name
            with httpx.Client(base_url=f"{url}/{name}", timeout=10) as http:
                rpc = {"jsonrpc": "2.0", "id": 1, "method": "openenv/session/create"}
                sid = http.post("/mcp", json=rpc).json()["result"]["session_id"]
                key = http.post("/web/api/new", json={"seed": 1}).json()["id"]
                assert http.get(f"/web/api/session/{key}").status_code == 200
                assert http.post(f"/web/api/session/{key}/step",
                                 json={"index": 0}).status_code == 200
                watch = http.get("/web/api/sessions").json()[0]["id"]
                assert http.get(f"/web/api/session/{watch}").status_code == 200
            with RawWS(f"{url}/{name}/ws?session_id={sid}") as attached:
                assert attached.request({"type": "state"})["type"] == "state"
            time.sleep(0.5)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    logged = out_path.read_text() + err_path.read_text()
    assert "/web/api/session/web%3A<redacted>/step" in logged  # the lines are there ...
    assert "session_id=<redacted>" in logged
    for secret in (sid, key.partition(":")[2], watch.partition(":")[2]):
        assert secret not in logged  # ... without the capabilities
