"""WebSocket throughput of ``lifeline serve``: steps/s for 1 session and 16 concurrent sessions.

Every environment is served by one server process together with the trivial ``counter``
reference environment, and driven the same way by a separate client process (asyncio, raw
``websockets``, masked-random tool calls taken from the observation). The ratio
``env / counter`` says how much of the serving cost is the environment's own work: the
server itself adds the same per-step overhead to both.

    python bench/server.py [--seconds 2] [--rounds 3] [--envs ed] [--views all|structured]

Prints one JSON document: per environment the best-of-rounds steps/s (1 session, 16 sessions),
the server's CPU time per step (read from ``/proc``; robust to other load on the machine), and
the ratios to the counter. On a small machine the 16-session cells can be limited by the client
process (it parses every observation), so compare server CPU per step as well.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

from lifeline import __version__
from lifeline.adapters.server import free_port
from lifeline.core.registry import all_specs

COUNTER = "lifeline.testing.counter:COUNTER_SPEC"


def start_server(envs: list[str], port: int) -> subprocess.Popen[bytes]:
    """The server in its own process (so client and server do not share a GIL)."""
    code = ("from lifeline.adapters.server import serve; "
            f"serve({envs!r}, port={port}, max_sessions=64, log_level='warning')")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("server did not start")


def _next_action(obs: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    legal = obs.get("legal_actions")
    if legal:
        call: dict[str, Any] = rng.choice(legal)
        return call
    mask = obs["structured"]["action_mask"]
    return {"index": rng.choice([i for i, ok in enumerate(mask) if ok])}


async def session(url: str, seed: int, views: list[str] | None, stop: float,
                  counts: list[int]) -> None:
    """Play masked-random episodes back to back until ``stop``; count steps in ``counts[0]``."""
    rng = random.Random(seed)
    reset: dict[str, Any] = {"type": "reset", "data": {"seed": seed}}
    if views:
        reset["data"]["views"] = views
    async with websockets.connect(url, max_size=None) as ws:
        await ws.send(json.dumps(reset))
        reply = json.loads(await ws.recv())
        while time.perf_counter() < stop:
            data = reply["data"]
            if data["done"]:
                reset["data"]["seed"] += 1000
                await ws.send(json.dumps(reset))
            else:
                action = _next_action(data["observation"], rng)
                await ws.send(json.dumps({"type": "step", "data": action}))
                counts[0] += 1
            reply = json.loads(await ws.recv())
            if reply["type"] != "observation":
                raise RuntimeError(f"server error: {reply}")


async def measure(url: str, sessions: int, seconds: float, views: list[str] | None) -> int:
    """Steps completed by ``sessions`` concurrent sessions in ``seconds`` (after a warm-up)."""
    counts = [0]
    warm_stop = time.perf_counter() + 0.3
    await asyncio.gather(*(session(url, s, views, warm_stop, [0]) for s in range(sessions)))
    stop = time.perf_counter() + seconds
    await asyncio.gather(*(session(url, 17 + s, views, stop, counts) for s in range(sessions)))
    return counts[0]


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` (Linux ``/proc``; 0.0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_cell(url: str, sessions: int, seconds: float, views: list[str] | None,
             server_pid: int) -> tuple[float, float]:
    """``(steps/s, server CPU microseconds per step)`` of one measurement."""
    cpu0, t0 = process_cpu_seconds(server_pid), time.perf_counter()
    steps = asyncio.run(measure(url, sessions, seconds, views))
    wall, cpu = time.perf_counter() - t0, process_cpu_seconds(server_pid) - cpu0
    # Wall time includes the warm-up; count its steps out by scaling to the measured window.
    return steps / seconds, 1e6 * cpu * (seconds / wall) / max(steps, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="measurement per cell")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (best kept)")
    parser.add_argument("--envs", nargs="*", default=None, help="default: all registered")
    parser.add_argument("--views", choices=["all", "structured"], default="all",
                        help="observation content: everything, or arrays only (RL clients)")
    args = parser.parse_args()
    names = args.envs or [s.name for s in all_specs()]
    views = None if args.views == "all" else ["structured"]
    port = free_port()
    proc = start_server([*names, COUNTER], port)
    samples: dict[tuple[str, int], list[tuple[float, float]]] = {}
    try:
        # Interleave rounds so that load from other processes hits every cell alike; keep the
        # best round per cell (the least disturbed one).
        for _ in range(args.rounds):
            for name in ["counter", *names]:
                url = f"ws://127.0.0.1:{port}/{name}/ws"
                for sessions in (1, 16):
                    samples.setdefault((name, sessions), []).append(
                        run_cell(url, sessions, args.seconds, views, proc.pid))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    results: dict[str, dict[str, float]] = {}
    for (name, sessions), cells in samples.items():
        best_rate = max(rate for rate, _ in cells)
        best_cpu = min(cpu for _, cpu in cells)
        results.setdefault(name, {})[f"steps_per_s_{sessions}_session"
                                     + ("s" if sessions > 1 else "")] = round(best_rate, 1)
        results[name][f"server_cpu_us_per_step_{sessions}"] = round(best_cpu, 1)
    ref = results["counter"]
    for name in names:
        r = results[name]
        for key in ("steps_per_s_1_session", "steps_per_s_16_sessions"):
            r[f"ratio_{key}"] = round(r[key] / ref[key], 3)
        for n in (1, 16):
            # Capacity ratio: how many steps/s one server core sustains, env vs counter.
            r[f"ratio_cpu_capacity_{n}"] = round(ref[f"server_cpu_us_per_step_{n}"]
                                                 / r[f"server_cpu_us_per_step_{n}"], 3)
    print(json.dumps({
        "benchmark": "server_websocket_throughput", "lifeline": __version__,
        "views": args.views, "seconds_per_cell": args.seconds, "rounds": args.rounds,
        "load_average": os.getloadavg(),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "results": results}, indent=2))


if __name__ == "__main__":
    main()
