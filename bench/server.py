"""WebSocket throughput of ``lifeline serve``: steps/s for 1, 16 and 64 concurrent sessions,
with 1 and 2 worker processes (``--workers``), side by side in one run.

Every environment is served together with the trivial ``counter`` reference environment, by a
one-process server and by a two-worker server running at the same time, and driven the same way
by a separate client process: masked-random actions (an index drawn among the legal ones of the
reply's ``action_mask``), every reply checked (an observation, ``valid``, ``done`` read from
it). The default client is :mod:`leanclient` (raw asyncio protocols, pre-encoded frames, one
event loop for all sessions): on a small machine the client shares the cores with the server,
so a heavy client caps the measured scaling (``--client websockets`` runs the general-purpose
``websockets`` client instead, for comparison). The ratio ``env / counter`` says how much of
the serving cost is the environment's own work: the server itself adds the same per-step
overhead to both; the ratio ``workers 2 / workers 1`` is the multi-process scaling.

    python bench/server.py [--seconds 2] [--rounds 3] [--envs ed] [--views all|structured]
                           [--sessions 1 16 64] [--workers 1 2] [--client lean|websockets]

Prints one JSON document: per server (workers) and environment the best-of-rounds steps/s per
session count, the server's CPU time per step (all its processes, read from ``/proc``; robust to
other load on the machine), the client's CPU time per step, and the ratios. Other load on the
machine shows in the scaling first, so read it next to ``load_average`` (taken at the start and
at the end of the run).
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from leanclient import WsConnection, open_connection

from lifeline import __version__
from lifeline.core.registry import all_specs
from lifeline.serve.run import free_port

COUNTER = "lifeline.testing.counter:COUNTER_SPEC"


def start_server(envs: list[str], port: int, workers: int = 1) -> subprocess.Popen[bytes]:
    """The server in its own process(es) (so client and server do not share a GIL)."""
    code = ("from lifeline.serve.run import serve; "
            f"serve({envs!r}, port={port}, max_sessions=256, log_level='warning', "
            f"workers={workers})")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 180  # a loaded machine starts workers slowly
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


class Window:
    """The measured window, shared by the sessions of one cell: it opens once every session
    is connected and reset (connection set-up is not counted) and closes ``seconds`` later."""

    def __init__(self, sessions: int, seconds: float) -> None:
        self.waiting, self.seconds = sessions, seconds
        self.go = asyncio.Event()
        self.stop = float("inf")

    def ready(self) -> None:
        self.waiting -= 1
        if self.waiting == 0:
            self.stop = time.perf_counter() + self.seconds
            self.go.set()


async def session(url: str, seed: int, views: list[str] | None, window: Window,
                  counts: list[int]) -> None:
    """Play masked-random episodes back to back within the window; count steps in
    ``counts[0]``."""
    rng = random.Random(seed)
    reset: dict[str, Any] = {"type": "reset", "data": {"seed": seed}}
    if views:
        reset["data"]["views"] = views
    async with websockets.connect(url, max_size=None) as ws:
        await ws.send(json.dumps(reset))
        reply = json.loads(await ws.recv())
        window.ready()
        await window.go.wait()
        while time.perf_counter() < window.stop:
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


OBSERVATION = b'{"type":"observation"'
DONE = b'"done":true}}'
MASK = b'"action_mask":['


class Player:
    """One lean session: masked-random steps, every reply checked; resets when an episode ends.

    Until ``stop`` it answers each reply with the next message; then it stops (the caller
    sets a new ``stop`` and resumes it with the last reply)."""

    def __init__(self, seed: int, views: list[str] | None) -> None:
        self.rng = random.Random(seed)
        self.reset_data: dict[str, Any] = {"seed": seed}
        if views:
            self.reset_data["views"] = views
        self.stop = 0.0
        self.steps = self.invalid = 0
        self.stepping = False
        self.last = b""
        self.frames: dict[int, bytes] = {}

    def reset(self) -> bytes:
        self.stepping = False
        return json.dumps({"type": "reset", "data": self.reset_data}).encode()

    def __call__(self, reply: bytes) -> bytes | None:
        if not reply.startswith(OBSERVATION) or not reply.endswith(b"}}"):
            raise RuntimeError(f"not an observation: {reply[:300]!r}")
        if self.stepping:
            self.steps += 1
            if b'"valid":true' not in reply:
                self.invalid += 1
        self.last = reply
        if time.perf_counter() >= self.stop:
            return None
        if reply.endswith(DONE):
            self.reset_data["seed"] += 1000
            return self.reset()
        start = reply.rfind(MASK)
        if start < 0:
            raise RuntimeError("an observation without action_mask")
        flags = reply[start + len(MASK):reply.index(b"]", start)].split(b",")
        legal = [i for i, flag in enumerate(flags) if flag == b"true"]
        if not legal:
            raise RuntimeError("no legal action in a running episode")
        index = self.rng.choice(legal)
        frame = self.frames.get(index)
        if frame is None:
            frame = self.frames[index] = json.dumps(
                {"type": "step", "data": {"index": index}}).encode()
        self.stepping = True
        return frame


async def measure_lean(url: str, sessions: int, seconds: float, views: list[str] | None,
                       server_pid: int) -> tuple[int, float, float, float, list[int]]:
    """``(steps, server CPU s, client CPU s, seconds, sessions per worker)`` of ``sessions``
    lean sessions in the measured window (after a warm-up; it ends when the last reply due in
    it has come). The spread over workers is read from ``/`` (empty with one worker)."""
    host, _, rest = url.removeprefix("ws://").partition("/")
    name, _, port = host.partition(":")
    players = [Player(17 + s, views) for s in range(sessions)]
    conns = await asyncio.gather(*(open_connection(WsConnection, p, name, int(port), f"/{rest}")
                                   for p in players))
    loop = asyncio.get_running_loop()
    for conn, player in zip(conns, players, strict=True):
        conn.send(player.reset())
    await asyncio.gather(*(c.finished for c in conns))  # stop = 0: each answers its reset
    index = httpx.get(f"http://{host}/", timeout=30).json()
    spread = sorted(index.get("sessions_by_worker", {}).values(), reverse=True)

    async def run(window: float) -> None:
        stop = time.perf_counter() + window
        for conn, player in zip(conns, players, strict=True):
            player.stop = stop
            conn.finished = loop.create_future()
            conn.deliver(player.last)
        await asyncio.gather(*(c.finished for c in conns))

    await run(0.3)  # warm-up
    for player in players:
        player.steps = player.invalid = 0
    cpu0, client0, start = process_cpu_seconds(server_pid), time.process_time(), time.perf_counter()
    await run(seconds)
    cpu, client = process_cpu_seconds(server_pid) - cpu0, time.process_time() - client0
    elapsed = time.perf_counter() - start
    for conn in conns:
        conn.close()  # type: ignore[attr-defined]
    invalid = sum(p.invalid for p in players)
    if invalid:
        raise RuntimeError(f"{invalid} masked-legal steps were refused as invalid")
    return sum(p.steps for p in players), cpu, client, elapsed, spread


async def measure(url: str, sessions: int, seconds: float, views: list[str] | None,
                  server_pid: int) -> tuple[int, float]:
    """``(steps, server CPU seconds)`` of ``sessions`` concurrent sessions in the window
    (after a warm-up)."""
    warm = Window(sessions, 0.3)
    await asyncio.gather(*(session(url, s, views, warm, [0]) for s in range(sessions)))
    window, counts = Window(sessions, seconds), [0]
    cpu: list[float] = []

    async def clock() -> None:
        await window.go.wait()
        cpu.append(process_cpu_seconds(server_pid))
        await asyncio.sleep(max(0.0, window.stop - time.perf_counter()))
        cpu.append(process_cpu_seconds(server_pid))

    await asyncio.gather(clock(), *(session(url, 17 + s, views, window, counts)
                                    for s in range(sessions)))
    return counts[0], cpu[1] - cpu[0]


def _descendants(pid: int) -> list[int]:
    """``pid`` and all its live descendants (Linux ``/proc``)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` and its descendants (worker processes)."""
    total = 0.0
    for proc in _descendants(pid):
        try:
            fields = Path(f"/proc/{proc}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def run_cell(url: str, sessions: int, seconds: float, views: list[str] | None,
             server_pid: int, client: str = "lean") -> tuple[float, float, float, list[int]]:
    """``(steps/s, server CPU µs per step, client CPU µs per step, sessions per worker)`` of
    one measurement."""
    spread: list[int] = []
    if client == "lean":
        steps, cpu, used, elapsed, spread = asyncio.run(
            measure_lean(url, sessions, seconds, views, server_pid))
    else:
        c0 = time.process_time()
        steps, cpu = asyncio.run(measure(url, sessions, seconds, views, server_pid))
        used, elapsed = time.process_time() - c0, seconds
    n = max(steps, 1)
    return steps / elapsed, 1e6 * cpu / n, 1e6 * used / n, spread


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="measurement per cell")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (best kept)")
    parser.add_argument("--envs", nargs="*", default=None, help="default: all registered")
    parser.add_argument("--views", choices=["all", "structured"], default="all",
                        help="observation content: everything, or arrays only (RL clients)")
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 16, 64])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--client", choices=["lean", "websockets"], default="lean",
                        help="benchmark client (see the module docstring)")
    args = parser.parse_args()
    load_start = os.getloadavg()
    names = args.envs if args.envs is not None else [s.name for s in all_specs()]
    views = None if args.views == "all" else ["structured"]
    servers: dict[int, tuple[int, subprocess.Popen[bytes]]] = {}
    samples: dict[tuple[int, str, int], list[tuple[float, float, float, list[int]]]] = {}
    try:
        for workers in args.workers:
            port = free_port()
            servers[workers] = (port, start_server([*names, COUNTER], port, workers))
        # Interleave rounds so that load from other processes hits every cell alike; keep the
        # best round per cell (the least disturbed one).
        for _ in range(args.rounds):
            for name in ["counter", *names]:
                for sessions in args.sessions:
                    for workers, (port, proc) in servers.items():
                        url = f"ws://127.0.0.1:{port}/{name}/ws"
                        samples.setdefault((workers, name, sessions), []).append(
                            run_cell(url, sessions, args.seconds, views, proc.pid,
                                     args.client))
    finally:
        for _, proc in servers.values():
            proc.terminate()
            proc.wait(timeout=20)
    results: dict[str, dict[str, dict[str, float]]] = {}
    for (workers, name, sessions), cells in samples.items():
        row = results.setdefault(f"workers_{workers}", {}).setdefault(name, {})
        row[f"steps_per_s_{sessions}"] = round(max(c[0] for c in cells), 1)
        row[f"server_cpu_us_per_step_{sessions}"] = round(min(c[1] for c in cells), 1)
        row[f"client_cpu_us_per_step_{sessions}"] = round(min(c[2] for c in cells), 1)
        if workers > 1 and sessions > 1:
            best = max(cells, key=lambda c: c[0])
            row[f"sessions_by_worker_{sessions}"] = best[3]  # type: ignore[assignment]
    for per_env in results.values():
        ref = per_env["counter"]
        for name in names:
            r = per_env[name]
            for n in args.sessions:
                r[f"ratio_steps_per_s_{n}"] = round(r[f"steps_per_s_{n}"]
                                                    / ref[f"steps_per_s_{n}"], 3)
                # Capacity ratio: how many steps/s one server core sustains, env vs counter.
                r[f"ratio_cpu_capacity_{n}"] = round(ref[f"server_cpu_us_per_step_{n}"]
                                                     / r[f"server_cpu_us_per_step_{n}"], 3)
    scaling: dict[str, dict[str, float]] = {}
    if len(args.workers) > 1:
        base, top = f"workers_{args.workers[0]}", f"workers_{args.workers[-1]}"
        for name in ["counter", *names]:
            scaling[name] = {f"steps_per_s_{n}": round(results[top][name][f"steps_per_s_{n}"]
                                                       / results[base][name][f"steps_per_s_{n}"],
                                                       3)
                             for n in args.sessions}
    print(json.dumps({
        "benchmark": "server_websocket_throughput", "lifeline": __version__,
        "views": args.views, "client": args.client, "seconds_per_cell": args.seconds,
        "rounds": args.rounds,
        "load_average_at_start": load_start, "load_average": os.getloadavg(),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "results": results, "scaling_workers": scaling}, indent=2))


if __name__ == "__main__":
    main()
