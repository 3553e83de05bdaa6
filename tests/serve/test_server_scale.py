"""``/metrics`` (Prometheus text format) and multi-process serving (``--workers``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from lifeline.serve.run import background_server, free_port
from lifeline.serve.server import build_app
from lifeline.serve.slots import SlotLedger
from lifeline.testing.counter import COUNTER_SPEC
from tests.server_helpers import RawWS

COUNTER = "lifeline.testing.counter:COUNTER_SPEC"


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def test_metrics_count_sessions_steps_errors_and_latency() -> None:
    app = build_app([COUNTER_SPEC], token="tok")
    auth = {"Authorization": "Bearer tok"}
    with background_server(app) as base, httpx.Client(base_url=base, timeout=10) as http:
        assert http.get("/metrics").status_code == 401  # token-protected like the rest
        with RawWS(f"{base}/counter/ws", headers=auth) as ws:
            ws.reset(seed=1)
            ws.step(index=0)
            ws.step(tool_name="increment", arguments={"amount": 99})  # invalid: a penalised step
            ws.request("{oops")
            r = http.get("/metrics", headers=auth)
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
            got = _samples(r.text)
        env = (("env", "counter"),)
        assert got[("lifeline_sessions_active", env)] == 1
        assert got[("lifeline_sessions_total", env)] == 1
        assert got[("lifeline_steps_total", env)] == 2
        assert got[("lifeline_step_seconds_count", env)] == 2
        assert got[("lifeline_step_seconds_bucket", (*env, ("le", "+Inf")))] == 2
        assert got[("lifeline_errors_total", (("env", "counter"), ("kind", "INVALID_JSON")))] == 1
        assert got[("lifeline_errors_total", (("env", "counter"),
                                              ("kind", "INVALID_ACTION")))] == 1
        assert got[("lifeline_errors_total", (("env", ""), ("kind", "HTTP_401")))] == 1


def test_slot_ledger_caps_in_total_and_forgets_dead_processes(tmp_path: Path) -> None:
    ledger = SlotLedger(tmp_path / "slots.json")
    assert ledger.acquire("ed", 2) == (True, 0)
    other = SlotLedger(tmp_path / "slots.json")
    other.pid = 2**22 + 12345  # a process that does not exist: its slots do not count
    assert other.acquire("ed", 2) == (True, 1)
    assert ledger.acquire("ed", 2) == (True, 1)  # the dead entry was dropped
    assert ledger.acquire("ed", 2) == (False, 2)
    ledger.release("ed")
    assert ledger.snapshot()["sessions"] == {"ed": {str(os.getpid()): 1}}


@pytest.fixture(scope="module")
def workers_url() -> Iterator[str]:
    """``lifeline serve --workers 2`` in a subprocess (the real CLI), cap 3 in total."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "lifeline", "serve", COUNTER, "--port", str(port),
         "--workers", "2", "--max-sessions", "3", "--log-level", "warning"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if httpx.get(f"{base}/health", timeout=2).json().get("workers") == 2:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"server did not start: {proc.stderr.read()!r}"
                                   if proc.stderr else "server did not start")
            time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_workers_share_the_cap_and_report_together(workers_url: str) -> None:
    base = workers_url
    peers = []
    try:
        # Open the cap's worth of sessions; the kernel spreads connections over the workers.
        for seed in range(3):
            peer = RawWS(f"{base}/counter/ws")
            assert peer.reset(seed=seed)["type"] == "observation"
            peers.append(peer)
        index = httpx.get(f"{base}/", timeout=10).json()
        assert index["workers"] == 2 and index["envs"]["counter"]["active_sessions"] == 3
        for _ in range(6):  # whichever worker takes it, the fourth session is refused
            with RawWS(f"{base}/counter/ws") as extra:
                reply = extra.recv()
                assert reply["data"]["code"] == "CAPACITY_REACHED", reply
        for peer in peers:  # each session stays on its process and keeps its episode
            for step in range(1, 4):
                assert peer.step(index=0)["data"]["observation"]["step"] == step
        peers.pop().close()
        deadline = time.monotonic() + 10
        while httpx.get(f"{base}/", timeout=10).json()["envs"]["counter"]["active_sessions"] != 2:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        with RawWS(f"{base}/counter/ws") as again:  # the freed slot is usable from any worker
            assert again.reset(seed=9)["type"] == "observation"
        # Metrics add up over both workers (multiprocess collector).
        for _ in range(4):
            text = httpx.get(f"{base}/metrics", timeout=10).text
            got = _samples(text)
            assert got[("lifeline_steps_total", (("env", "counter"),))] == 9
            assert got[("lifeline_sessions_total", (("env", "counter"),))] == 4
    finally:
        for peer in peers:
            peer.close()


def test_slot_ledger_under_concurrent_processes(tmp_path: Path) -> None:
    """Two processes x three threads taking and giving back slots: no lost update, no
    corrupt file (the write must land before the lock is released)."""
    code = ("import sys, threading\n"
            "from lifeline.serve.slots import SlotLedger\n"
            "ledger = SlotLedger(sys.argv[1])\n"
            "def work():\n"
            "    for _ in range(100):\n"
            "        if ledger.acquire('x', 1000)[0]:\n"
            "            ledger.release('x')\n"
            "threads = [threading.Thread(target=work) for _ in range(3)]\n"
            "[t.start() for t in threads]; [t.join() for t in threads]\n"
            "ledger.acquire('x', 1000)\n")
    path = tmp_path / "slots.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path)], env=env,
                              stderr=subprocess.PIPE) for _ in range(2)]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    # Both processes ended holding one slot each: dead now, so nothing is held any more.
    assert SlotLedger(path).snapshot()["sessions"] == {"x": {}}


def test_workers_explain_an_http_mcp_session_of_another_worker(workers_url: str) -> None:
    """An HTTP MCP session lives in one worker; a call that reaches another says so."""
    reply = httpx.post(f"{workers_url}/counter/mcp", timeout=10, json={
        "jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"session_id": "elsewhere", "name": "hold", "arguments": {}}}).json()
    message = reply["error"]["message"]
    assert reply["id"] == 4 and message.startswith("Unknown session_id: elsewhere")
    assert "2 worker processes" in message and "keep-alive" in message
    index = httpx.get(f"{workers_url}/", timeout=10).json()
    assert isinstance(index["sessions_by_worker"], dict)
