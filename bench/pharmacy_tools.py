"""Served tool calls per second of the pharmacy env, side by side with the counter env.

One server serves ``pharmacy`` and the trivial ``counter``; one client process drives each with
named tool calls three ways:

* ``ws_step`` — OpenEnv ``step`` messages on the WebSocket ``/<env>/ws``;
* ``ws_mcp`` — MCP ``tools/call`` requests as ``mcp`` messages on the same kind of socket;
* ``http_mcp`` — MCP over HTTP: ``POST /<env>/mcp`` on one keep-alive connection per session
  (``openenv/session/create``, then ``tools/call`` with the ``session_id``; episodes restarted
  with the ``start_episode`` tool, so this is an MCP-only client);
* ``http_mcp_spec`` — the same as the official ``mcp`` SDK speaks it: ``initialize``, then
  ``tools/call`` with the ``Mcp-Session-Id`` header, answered as ``CallToolResult`` (text
  ``content`` + ``structuredContent``).

The pharmacy client plays an LLM-like round (briefing, requests, evidence from every ward, ERP,
WMS, budget, a plan, a PO, advance_round) with the default text + structured observation. The
client is :mod:`leanclient` (pre-encoded requests, replies checked by position: the reply type,
no JSON-RPC error, ``done``), so that the client's cost does not hide the server's on a small
machine. Prints JSON: best-of-rounds calls/s per mode and session count, the server's CPU time
per call and the calls/s one server core sustains at that cost, the ratio pharmacy / counter,
and the speed-up over the original MedChain's 213-288 calls/s.

    python bench/pharmacy_tools.py [--seconds 2] [--rounds 3] [--sessions 1 16] [--workers 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from leanclient import HttpConnection, WsConnection, open_connection
from server import COUNTER, process_cpu_seconds, start_server

from lifeline.serve.run import free_port

PLAN = json.dumps({"ward_icu": {"BLOOD-RBC": "100%", "IV-SAL-500": "100%"},
                   "ward_er": {"BLOOD-RBC": "90%"}, "ward_general": {"GLOVE-001": "70%"}})
PHARMACY_ROUND: list[tuple[str, dict[str, Any]]] = [
    ("get_round_briefing", {}), ("view_requests", {}), ("read_inbox", {}),
    ("request_evidence", {"ward_id": "ward_icu", "sku": "all"}),
    ("request_evidence", {"ward_id": "ward_er", "sku": "all"}),
    ("request_evidence", {"ward_id": "ward_general", "sku": "all"}),
    ("erp_oracle_get_inventory", {}), ("wms_scan_inventory", {}), ("finance_sap_get_budget", {}),
    ("query_ward_history", {"ward_id": "ward_general"}),
    ("submit_allocation_plan", {"plan": PLAN, "rationale": "per evidence"}),
    ("submit_po", {"supplier_id": "MEDLINE", "product_id": "IV-SAL-500",
                   "destination_id": "CENTRAL", "quantity": 20}),
    ("advance_round", {}),
]
COUNTER_CALLS: list[tuple[str, dict[str, Any]]] = [("increment", {"amount": 1}), ("hold", {})]
MODES = ("ws_step", "ws_mcp", "http_mcp", "http_mcp_spec")
ORIGINAL = (213.0, 288.0)
"""The original MedChain's served tool calls per second on this machine (issue 11)."""


def _rpc(rid: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}


class Caller:
    """One lean session: sends ``calls`` in a loop, checks every reply, restarts finished
    episodes; counts the tool calls answered before ``stop``."""

    def __init__(self, mode: str, calls: list[tuple[str, dict[str, Any]]], seed: int) -> None:
        self.mode, self.calls, self.seed = mode, calls, seed
        self.stop = 0.0
        self.count = 0
        self.i = 0
        self.last = b""
        self.session_id: str | None = None
        self.in_call = False
        self.frames: list[bytes] = []

    # ----- encoding ---------------------------------------------------------------------------
    def _encode(self, request: dict[str, Any]) -> bytes:
        if self.mode == "ws_step":
            raise AssertionError("ws_step sends steps, not JSON-RPC")
        if self.mode == "ws_mcp":
            return json.dumps({"type": "mcp", "data": request}).encode()
        return json.dumps(request).encode()

    def prepare(self) -> None:
        """Pre-encode this session's calls (needs the session id for HTTP MCP)."""
        frames = []
        for k, (name, args) in enumerate(self.calls):
            if self.mode == "ws_step":
                frames.append(json.dumps({"type": "step", "data": {"tool_name": name,
                                                                   "arguments": args}}).encode())
            else:
                params: dict[str, Any] = {"name": name, "arguments": args}
                if self.session_id is not None:
                    params["session_id"] = self.session_id
                frames.append(self._encode(_rpc(k + 1, "tools/call", params)))
        self.frames = frames

    def start(self) -> bytes:
        """The message that (re)starts an episode."""
        self.in_call = False
        self.seed += 1000
        if self.mode == "ws_step":
            return json.dumps({"type": "reset", "data": {"seed": self.seed}}).encode()
        params: dict[str, Any] = {"name": "start_episode", "arguments": {"seed": self.seed}}
        if self.session_id is not None:
            params["session_id"] = self.session_id
        return self._encode(_rpc(0, "tools/call", params))

    def first(self) -> bytes:
        if self.mode == "http_mcp":
            return self._encode(_rpc(0, "openenv/session/create", {}))
        if self.mode == "http_mcp_spec":
            return self._encode(_rpc(0, "initialize", {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"}}))
        self.prepare()
        return self.start()

    # ----- replies ----------------------------------------------------------------------------
    def _done(self, reply: bytes) -> bool:
        """Check one reply; whether its episode is over."""
        if self.mode == "ws_step":
            if not reply.startswith(b'{"type":"observation"'):
                raise RuntimeError(f"not an observation: {reply[:300]!r}")
            return reply.endswith(b'"done":true}}')
        if self.mode == "http_mcp_spec":
            at = reply.find(b'"structuredContent":{"done":')
            if at < 0 or b'"isError":false' not in reply[-40:]:
                raise RuntimeError(f"not a tool result: {reply[:300]!r}")
            return reply.startswith(b"true", at + 28)
        head = reply[:120]
        if self.mode == "ws_mcp" and not head.startswith(b'{"type":"mcp"'):
            raise RuntimeError(f"not an MCP reply: {reply[:300]!r}")
        at = head.find(b'"result":{"done":')
        if at < 0:
            raise RuntimeError(f"not a tool result: {reply[:300]!r}")
        return head.startswith(b"true", at + 17)

    def __call__(self, reply: bytes) -> bytes | None:
        if self.mode == "http_mcp" and self.session_id is None:
            self.session_id = json.loads(reply)["result"]["session_id"]
            self.prepare()
            return self.start()
        if self.mode == "http_mcp_spec" and not self.frames:  # initialized: the header is kept
            assert "protocolVersion" in json.loads(reply)["result"]
            self.prepare()
            return self.start()
        done = self._done(reply)
        if self.in_call:
            self.count += 1
        self.last = reply
        if time.perf_counter() >= self.stop:
            return None
        if done:
            return self.start()
        frame = self.frames[self.i % len(self.frames)]
        self.i += 1
        self.in_call = True
        return frame


async def measure(port: int, env: str, calls: list[tuple[str, dict[str, Any]]], mode: str,
                  sessions: int, seconds: float, server_pid: int) -> tuple[int, float, float]:
    """``(calls, server CPU s, seconds)`` in the measured window (after a 0.3 s warm-up)."""
    kind = HttpConnection if mode.startswith("http") else WsConnection
    path = f"/{env}/mcp" if mode.startswith("http") else f"/{env}/ws"
    callers = [Caller(mode, calls, 7 + s) for s in range(sessions)]
    conns = await asyncio.gather(*(open_connection(kind, c, "127.0.0.1", port, path)
                                   for c in callers))
    loop = asyncio.get_running_loop()

    async def run(window: float, kick: bool) -> None:
        stop = time.perf_counter() + window
        for conn, caller in zip(conns, callers, strict=True):
            caller.stop = stop
            conn.finished = loop.create_future()
            if kick:
                conn.send(caller.first())
            else:
                conn.deliver(caller.last)
        await asyncio.gather(*(c.finished for c in conns))

    await run(0.3, kick=True)  # set-up and warm-up
    for caller in callers:
        caller.count = 0
    cpu0, start = process_cpu_seconds(server_pid), time.perf_counter()
    await run(seconds, kick=False)
    cpu, elapsed = process_cpu_seconds(server_pid) - cpu0, time.perf_counter() - start
    for conn in conns:
        conn.close()  # type: ignore[attr-defined]
    return sum(c.count for c in callers), cpu, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sessions", type=int, nargs="*", default=[1, 16])
    parser.add_argument("--modes", nargs="*", default=list(MODES), choices=MODES)
    parser.add_argument("--workers", type=int, default=1, help="server processes")
    args = parser.parse_args()
    load_start = os.getloadavg()
    port = free_port()
    proc = start_server(["pharmacy", COUNTER], port, args.workers)
    best: dict[str, float] = {}
    cpu: dict[str, float] = {}
    try:
        for _ in range(args.rounds):
            for env, calls in (("counter", COUNTER_CALLS), ("pharmacy", PHARMACY_ROUND)):
                for mode in args.modes:
                    for n in args.sessions:
                        key = f"{env}_{mode}_{n}"
                        count, used, elapsed = asyncio.run(
                            measure(port, env, calls, mode, n, args.seconds, proc.pid))
                        best[key] = max(best.get(key, 0.0), round(count / elapsed, 1))
                        us = 1e6 * used / max(count, 1)
                        cpu[key] = min(cpu.get(key, float("inf")), round(us, 1))
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    pharmacy = {k.removeprefix("pharmacy_"): v for k, v in best.items()
                if k.startswith("pharmacy_")}
    print(json.dumps({
        "benchmark": "pharmacy_served_tool_calls", "workers": args.workers,
        "seconds_per_cell": args.seconds, "rounds": args.rounds,
        "calls_per_s": best, "server_cpu_us_per_call": cpu,
        "ratio_pharmacy_to_counter": {k: round(v / best[f"counter_{k}"], 3)
                                      for k, v in pharmacy.items()},
        "original_medchain_calls_per_s": "213-288",
        "speedup_over_original": {k: f"{v / ORIGINAL[1]:.1f}-{v / ORIGINAL[0]:.1f}x"
                                  for k, v in pharmacy.items()},
        # What one core of server sustains (from the CPU per call, which other load on the
        # machine disturbs far less than the rate itself).
        "server_capacity_calls_per_s_per_core": {k: round(1e6 / v) for k, v in cpu.items()},
        "load_average_at_start": load_start, "load_average": os.getloadavg(),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()}}, indent=2))


if __name__ == "__main__":
    main()
