"""``lifeline_sessions_active`` is read from the live session table (issue 30, item 4): after a
worker crash it showed 4 sessions with 2 open (a gauge incremented and decremented by each
process, whose files outlived the process). Now it is what the ledger says at each scrape."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from typing import Any

import httpx
import pytest

pytest.importorskip("openenv")

from prometheus_client.parser import text_string_to_metric_families

from lifeline.serve.run import background_server, free_port
from lifeline.serve.server import build_app
from lifeline.testing.counter import COUNTER_SPEC
from tests.server_helpers import RawWS

COUNTER = "lifeline.testing.counter:COUNTER_SPEC"


def _active(base: str) -> float:
    text = httpx.get(f"{base}/metrics", timeout=10).text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "lifeline_sessions_active" and sample.labels == {"env": "counter"}:
                return float(sample.value)
    return 0.0


def _wait(predicate: Any, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.2)


def test_active_sessions_follow_the_table() -> None:
    with background_server(build_app([COUNTER_SPEC])) as base:
        assert _active(base) == 0
        with RawWS(f"{base}/counter/ws") as a:
            a.reset(seed=1)
            with RawWS(f"{base}/counter/ws") as b:
                b.reset(seed=2)
                assert _active(base) == 2
            _wait(lambda: _active(base) == 1)
        _wait(lambda: _active(base) == 0)


@pytest.mark.slow
def test_a_crashed_workers_sessions_leave_the_metric() -> None:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "lifeline", "serve", COUNTER, "--port", str(port),
         "--workers", "2", "--max-sessions", "16", "--log-level", "warning"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    peers: list[RawWS] = []
    try:
        def up() -> bool:
            try:
                return bool(httpx.get(f"{base}/health", timeout=2).json().get("workers") == 2)
            except httpx.HTTPError:
                return False
        _wait(up, 180)
        for seed in range(8):  # the kernel spreads them over both workers
            peer = RawWS(f"{base}/counter/ws")
            peer.reset(seed=seed)
            peers.append(peer)
        by_worker = httpx.get(f"{base}/", timeout=10).json()["sessions_by_worker"]
        assert sum(by_worker.values()) == 8 and _active(base) == 8
        victim, lost = max(by_worker.items(), key=lambda kv: kv[1])
        os.kill(int(victim), signal.SIGKILL)
        _wait(lambda: _active(base) == 8 - lost)
        time.sleep(1.0)  # and it stays there (the replacement worker reports no sessions)
        assert _active(base) == 8 - lost
    finally:
        for peer in peers:
            with contextlib.suppress(Exception):  # the killed worker's sockets are gone
                peer.close()
        proc.terminate()
        proc.wait(timeout=60)
