"""EVGrid ``text_heuristic``: the greedy dispatcher fed from the text view (``render.py``) alone.

:func:`parse` rebuilds what :class:`GreedyAgent` reads — pending EVs (persona, energy needed,
max power, wait, node, departure, site), the stations in range of each walk-up with drive
times, reported station slots/queues/prices/our load, feeder derating, shift flags and headroom
forecasts, the clock — and :class:`EVGridTextPolicy` runs the greedy's own pieces (``shift``,
``walkup``, ``dwell``) in its order. The public tariff, solar profile, road distances, persona
stay/patience ranges and the station table come from a fresh environment of the scenario;
nothing of the episode does. Serves ``evgrid_team`` too (the greedy dispatcher issues no
operator directives).
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np

from lifeline.core.agent import TextPolicy
from lifeline.core.registry import make
from lifeline.envs.evgrid.baselines import E_DWELL, GreedyAgent
from lifeline.envs.evgrid.env import EVGridEnv
from lifeline.envs.evgrid.observation import (
    CLOCK_COLUMNS,
    EV_COLUMNS,
    STATION_COLUMNS,
    ZONE_COLUMNS,
)
from lifeline.envs.evgrid.params import PERSONAS, STATIONS
from lifeline.envs.evgrid.types import Hold
from lifeline.faces.tools import as_tool_call

_NUM = r"(-?[\d.]+)"
_CLOCK = re.compile(r"\| t=(\d+)/")
_WALKUP = re.compile(rf"^\s+\[(\d+)\] (\w+), soc \d+%, needs {_NUM} kWh, max {_NUM} kW, "
                     rf"waited {_NUM} min, .*, at node (\d+) -> .* \| in range \(station:min\) "
                     rf"(.*)$")
_PLUGGED = re.compile(rf"^\s+\[(\d+)\] (\w+) plugged in at ([\w-]+) \(.*\), soc \d+%, needs "
                      rf"{_NUM} kWh, leaves in {_NUM} min, max {_NUM} kW")
_STATION = re.compile(rf"^\s*(\d+) [\w-]+ .*? z(\d) free {_NUM}/(\d+) q {_NUM} ₹{_NUM} ours "
                      rf"(\d+)/(\d+) {_NUM} kW( OUT OF SERVICE)?")
_ZONE = re.compile(rf"^\s+(\d) \w+\s+{_NUM} {_NUM} \(.*\) ours {_NUM} x{_NUM}"
                   rf"(?: TRIPPED {_NUM} min)?( shifted)? hot-spot {_NUM} C \| (.*)$")
_PERSONA = {n: i for i, n in enumerate(PERSONAS)}
_SITE = {s[0]: j for j, s in enumerate(STATIONS)}


def parse(text: str, e: EVGridEnv) -> tuple[dict[str, np.ndarray], np.ndarray, int]:
    """``(observation arrays, routable (K, S), tick)`` rebuilt from ``render_text`` output."""
    ctx = e.ctx
    evs = np.zeros((ctx.K, len(EV_COLUMNS)), np.float32)
    travel = np.zeros((ctx.K, ctx.S), np.float32)
    ok = np.zeros((ctx.K, ctx.S), bool)
    st = np.zeros((ctx.S, len(STATION_COLUMNS)), np.float32)
    zones = np.zeros((ctx.Z, len(ZONE_COLUMNS)), np.float32)
    forecast = np.zeros((ctx.Z, ctx.p.forecast_ticks), np.float32)
    tick = 0
    for line in text.splitlines():
        if line.startswith("Legal actions"):
            break
        if (m := _CLOCK.search(line)) is not None and line.startswith("EV GRID"):
            tick = round(int(m.group(1)) / ctx.p.tick_min)
        elif (m := _WALKUP.match(line)) is not None:
            k = int(m.group(1))
            evs[k, 0], evs[k, 1] = 1.0, _PERSONA[m.group(2)]
            evs[k, 4], evs[k, 5], evs[k, 7] = (float(m.group(i)) for i in (3, 4, 5))
            evs[k, 6] = int(m.group(6))
            for pair in m.group(7).split():
                if ":" in pair:
                    j, minutes = pair.split(":")
                    ok[k, int(j)], travel[k, int(j)] = True, float(minutes)
        elif (m := _PLUGGED.match(line)) is not None:
            k, site = int(m.group(1)), _SITE[m.group(3)]
            evs[k, 0], evs[k, 1], evs[k, 2] = 1.0, _PERSONA[m.group(2)], 1.0
            evs[k, 4], evs[k, 9], evs[k, 5] = (float(m.group(i)) for i in (4, 5, 6))
            evs[k, 10] = site + 1
            ok[k, site] = True
        elif (m := _STATION.match(line)) is not None:
            j = int(m.group(1))
            st[j, 0], st[j, 3], st[j, 2] = int(m.group(2)), float(m.group(3)), int(m.group(4))
            st[j, 4], st[j, 6] = float(m.group(5)), float(m.group(6))
            st[j, 7], st[j, 8], st[j, 10] = int(m.group(7)), int(m.group(8)), float(m.group(9))
            st[j, 9] = m.group(10) is not None
            st[j, 1] = ctx.st_kw[j]
        elif (m := _ZONE.match(line)) is not None:
            z = int(m.group(1))
            zones[z, 0], zones[z, 1], zones[z, 2], zones[z, 3] = (float(m.group(i))
                                                                  for i in (2, 3, 4, 5))
            zones[z, 4] = float(m.group(6)) if m.group(6) else 0.0
            zones[z, 5] = m.group(7) is not None
            zones[z, 8] = float(m.group(8))
            values = [float(v) for v in m.group(9).split()]
            forecast[z, :len(values)] = values
    clock = np.zeros(len(CLOCK_COLUMNS), np.float32)
    clock[0] = tick * ctx.p.tick_min
    clock[1] = max(ctx.p.horizon_min - clock[0], 0.0)  # v3: greedy caps stays at the horizon
    obs = {"clock": clock, "evs": evs, "travel": travel, "stations": st, "zones": zones,
           "headroom_forecast": forecast}
    return obs, ok, tick


class EVGridTextPolicy(TextPolicy):
    """Text -> :func:`parse` -> the greedy dispatcher's pieces -> a ``<tool_call>``."""

    def __init__(self, env_name: str, scenario: str) -> None:
        super().__init__(env_name, scenario)
        env = make(env_name, scenario)  # the public map, tariff and solar profile only
        assert isinstance(env, EVGridEnv)
        self._env = env
        self._agent = GreedyAgent()

    def reply(self, observation: str) -> str:
        e, a = self._env, self._agent
        obs, ok, tick = parse(observation, e)
        clock = SimpleNamespace(tick=tick)  # all the greedy reads of the state: the clock
        action = a.shift(e, clock, obs)  # type: ignore[arg-type]
        if action is not None:
            return as_tool_call(action)
        evs = obs["evs"]
        order = [k for k in range(e.ctx.K) if evs[k, 0] > 0 and evs[k, E_DWELL] == 0] + [
            k for k in range(e.ctx.K) if evs[k, 0] > 0 and evs[k, E_DWELL] > 0]
        for k in order:
            if evs[k, E_DWELL] > 0:
                action = a.dwell(e, clock, obs, k)  # type: ignore[arg-type]
            else:
                action = a.walkup(e, clock, obs, k, ok[k])  # type: ignore[arg-type]
            if action is not None:
                return as_tool_call(action)
        return as_tool_call(Hold())
