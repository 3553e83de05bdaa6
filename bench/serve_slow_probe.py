"""Slow-connection probe of ``lifeline serve`` (issue 30's audit).

150 silent + 150 header-dribbling connections at the default limits, then 85 + 85 at a
file-descriptor limit of 160. For 25 s it samples the server's open file descriptors every
second, sends one ``/health`` request per second, and in the end counts the server's stderr
lines (the audit saw 104,298 EMFILE tracebacks in 16 s). Prints JSON::

    PYTHONPATH=$PWD python bench/serve_slow_probe.py > results/serving/slow_connections.json
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any

import httpx

from lifeline.serve.run import free_port

COUNTER = "lifeline.testing.counter:COUNTER_SPEC"


def launch(nofile: int | None, logdir: str) -> tuple[subprocess.Popen[bytes], int, str]:
    port = free_port()
    limit = (f"import resource; resource.setrlimit(resource.RLIMIT_NOFILE, ({nofile}, {nofile}))"
             "; " if nofile else "")
    code = (limit + "from lifeline.serve.run import serve; "
            f"serve([{COUNTER!r}], port={port}, log_level='warning')")
    log_path = os.path.join(logdir, f"server_{nofile or 'default'}.log")
    with open(log_path, "w") as log:
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                                stderr=log, env={**os.environ, "PYTHONPATH": os.getcwd()})
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return proc, port, log_path
        except httpx.HTTPError:
            pass
        time.sleep(0.3)


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def probe(nofile: int | None, pairs: int, logdir: str, seconds: float = 25.0) -> dict[str, Any]:
    proc, port, log_path = launch(nofile, logdir)
    before = open_fds(proc.pid)
    silent, dribbling = [], []
    for _ in range(pairs):
        silent.append(socket.create_connection(("127.0.0.1", port)))
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        dribbling.append(sock)
    series, ok, failed = [], 0, 0
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        for sock in dribbling:
            with contextlib.suppress(OSError):  # one more header byte, never their end
                sock.sendall(b"X")
        try:
            ok += httpx.get(f"http://127.0.0.1:{port}/health", timeout=3).status_code == 200
        except httpx.HTTPError:
            failed += 1
        series.append([round(time.monotonic() - start, 1), open_fds(proc.pid)])
        time.sleep(1.0)
    for sock in silent + dribbling:
        sock.close()
    proc.terminate()
    proc.wait(30)
    with open(log_path) as log:
        lines = log.read().splitlines()
    return {"fd_limit": nofile, "connections": 2 * pairs, "server_fds_before": before,
            "server_fds_series": series, "health_ok": ok, "health_failed": failed,
            "stderr_lines": len(lines), "stderr": lines[:5]}


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="lifeline-probe-") as logdir:
        runs = [probe(None, 150, logdir), probe(160, 85, logdir)]
    print(json.dumps({"probe": "bench/serve_slow_probe.py", "runs": runs}, indent=1))


if __name__ == "__main__":
    main()
