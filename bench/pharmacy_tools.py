"""Served tool calls per second of the pharmacy env, side by side with the counter env.

One server process serves ``pharmacy`` and the trivial ``counter``; a client process drives each
with named tool calls over the WebSocket, both as OpenEnv ``step`` messages and as MCP
``tools/call`` requests on the same socket. The pharmacy client plays an LLM-like round
(briefing, requests, evidence from every ward, ERP, WMS, budget, a plan, a PO, advance_round) with
the default text + structured observation. Prints JSON (best of ``--rounds``).

    python bench/pharmacy_tools.py [--seconds 2] [--rounds 3] [--sessions 1 16]
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

import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server import COUNTER, process_cpu_seconds, start_server

from lifeline.adapters.server import free_port

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


async def session(url: str, calls: list[tuple[str, dict[str, Any]]], mcp: bool, seed: int,
                  stop: float, counts: list[int]) -> None:
    """Send ``calls`` in a loop (resetting when an episode ends) until ``stop``."""
    async with websockets.connect(url, max_size=None) as ws:
        await ws.send(json.dumps({"type": "reset", "data": {"seed": seed}}))
        reply = json.loads(await ws.recv())
        i = 0
        while time.perf_counter() < stop:
            done = reply["data"].get("done") if reply["type"] == "observation" else (
                reply["data"]["result"]["done"])
            if done:
                seed += 1000
                await ws.send(json.dumps({"type": "reset", "data": {"seed": seed}}))
            else:
                name, args = calls[i % len(calls)]
                i += 1
                if mcp:
                    msg = {"type": "mcp", "data": {"jsonrpc": "2.0", "id": i,
                                                   "method": "tools/call",
                                                   "params": {"name": name, "arguments": args}}}
                else:
                    msg = {"type": "step", "data": {"tool_name": name, "arguments": args}}
                await ws.send(json.dumps(msg))
                counts[0] += 1
            reply = json.loads(await ws.recv())
            if reply["type"] not in ("observation", "mcp") or "error" in reply["data"]:
                raise RuntimeError(f"server error: {str(reply)[:300]}")


async def measure(url: str, calls: list[tuple[str, dict[str, Any]]], mcp: bool, sessions: int,
                  seconds: float) -> int:
    counts = [0]
    warm = time.perf_counter() + 0.3
    await asyncio.gather(*(session(url, calls, mcp, s, warm, [0]) for s in range(sessions)))
    stop = time.perf_counter() + seconds
    await asyncio.gather(*(session(url, calls, mcp, 7 + s, stop, counts)
                           for s in range(sessions)))
    return counts[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sessions", type=int, nargs="*", default=[1, 16])
    args = parser.parse_args()
    port = free_port()
    proc = start_server(["pharmacy", COUNTER], port)
    best: dict[str, float] = {}
    cpu: dict[str, float] = {}
    try:
        for _ in range(args.rounds):
            for env, calls in (("counter", COUNTER_CALLS), ("pharmacy", PHARMACY_ROUND)):
                for mcp in (False, True):
                    for n in args.sessions:
                        key = f"{env}_{'mcp' if mcp else 'ws_step'}_{n}"
                        c0, t0 = process_cpu_seconds(proc.pid), time.perf_counter()
                        steps = asyncio.run(measure(f"ws://127.0.0.1:{port}/{env}/ws", calls,
                                                    mcp, n, args.seconds))
                        wall = time.perf_counter() - t0
                        used = process_cpu_seconds(proc.pid) - c0
                        best[key] = max(best.get(key, 0.0), round(steps / args.seconds, 1))
                        us = 1e6 * used * (args.seconds / wall) / max(steps, 1)
                        cpu[key] = min(cpu.get(key, float("inf")), round(us, 1))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    ratios = {k.replace("pharmacy_", ""): round(best[k] / best[k.replace("pharmacy", "counter")], 3)
              for k in best if k.startswith("pharmacy")}
    print(json.dumps({"benchmark": "pharmacy_served_tool_calls", "calls_per_s": best,
                      "server_cpu_us_per_call": cpu, "ratio_pharmacy_to_counter": ratios,
                      "original_medchain_calls_per_s": "213-288",
                      "load_average": os.getloadavg(),
                      "machine": {"python": platform.python_version(), "cpus": os.cpu_count()}},
                     indent=2))


if __name__ == "__main__":
    main()
