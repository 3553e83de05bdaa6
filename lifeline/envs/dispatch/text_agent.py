"""Dispatch ``text_heuristic``: closest-idle dispatch fed from the text view (``render.py``) alone.

:func:`parse` rebuilds the observation columns :class:`ClosestIdleAgent` reads (calls, units,
hospitals, traffic multiplier, mutual aid left) from the text; :class:`DispatchTextPolicy` runs
the heuristic's own rule chain on them. Static knowledge — the scenario's city map (travel
times), the protocol urgency of each call type, unit and call-slot counts — comes from a fresh
environment of the scenario, as a dispatcher knows the city; nothing of the episode does.
Report ages and the traffic multiplier are printed to 0.1, so ETAs can differ in the last digit
and a near-tie between two units may go the other way (measured: see the README).
"""

from __future__ import annotations

import re

import numpy as np

from lifeline.core.agent import TextPolicy
from lifeline.core.registry import make
from lifeline.envs.dispatch.baselines import ClosestIdleAgent
from lifeline.envs.dispatch.env import DispatchEnv
from lifeline.envs.dispatch.observation import CALL_COLUMNS, CLOCK_COLUMNS, UNIT_COLUMNS
from lifeline.envs.dispatch.params import CALL_TYPES
from lifeline.envs.dispatch.render import TONES
from lifeline.envs.dispatch.types import STATUS_NAMES, Hold
from lifeline.faces.tools import as_tool_call

_HEAD = re.compile(r"traffic x([\d.]+) \| mutual aid left (\d+)")
_CALL = re.compile(r"^\s+\[(\d+)\] call #\d+ node (\d+) \(.*\), (\w+), (\w+), ([\d.]+) min, "
                   r"(\d+)/(\d+) units")
_UNIT = re.compile(r"^\s+\[(\d+)\] (ALS|BLS) (\w+) @(\d+) -> (\d+) \(([\d.]+) min ago\), "
                   r"home (\d+)(?:, call slot (\d+))?(?:, hospital (\d+))?")
_HOSP = re.compile(r"^\s+\[(\d+)\] .* @(\d+): (DIVERT|open) \(")
_TYPE = {n: i for i, n in enumerate(CALL_TYPES)}
_TONE = {n: i for i, n in enumerate(TONES)}
_STATUS = {n: i for i, n in enumerate(STATUS_NAMES)}


def parse(text: str, e: DispatchEnv) -> dict[str, np.ndarray]:
    """The closest-idle heuristic's observation rebuilt from ``render_text`` output (``e`` gives
    the static sizes only)."""
    ctx = e.ctx
    clock = np.zeros(len(CLOCK_COLUMNS), dtype=np.float32)
    calls = np.zeros((ctx.K, len(CALL_COLUMNS)), dtype=np.float32)
    units = np.zeros((ctx.U, len(UNIT_COLUMNS)), dtype=np.float32)
    hosp = np.zeros((ctx.H, 4), dtype=np.float32)
    section = ""
    for line in text.splitlines():
        if line.startswith("Legal actions"):
            break
        if not line.startswith(" "):
            section = line.split(" ", 1)[0]
            if (m := _HEAD.search(line)) is not None:
                clock[2], clock[4] = float(m.group(1)), float(m.group(2))
            continue
        if section == "CALLS" and (m := _CALL.match(line)) is not None:
            k = int(m.group(1))
            calls[k, 0] = 1.0
            calls[k, 1] = int(m.group(2))
            calls[k, 3] = _TYPE[m.group(3)]
            calls[k, 4] = _TONE[m.group(4)]
            calls[k, 5] = float(m.group(5))
            calls[k, 6], calls[k, 7] = int(m.group(6)), int(m.group(7))
        elif section == "UNITS" and (m := _UNIT.match(line)) is not None:
            u = int(m.group(1))
            units[u, 0] = 1.0
            units[u, 1] = m.group(2) == "ALS"
            units[u, 2] = _STATUS[m.group(3)]
            units[u, 3], units[u, 4] = int(m.group(4)), int(m.group(5))
            units[u, 5] = float(m.group(6))
            units[u, 8] = int(m.group(7))
            units[u, 6] = int(m.group(8)) + 1 if m.group(8) else 0
            units[u, 7] = int(m.group(9)) + 1 if m.group(9) else 0
        elif section == "HOSPITALS" and (m := _HOSP.match(line)) is not None:
            h = int(m.group(1))
            hosp[h, 0], hosp[h, 1] = int(m.group(2)), m.group(3) == "DIVERT"
    return {"clock": clock, "calls": calls, "units": units, "hospitals": hosp}


class DispatchTextPolicy(TextPolicy):
    """Text -> :func:`parse` -> closest-idle's rules -> a ``<tool_call>``."""

    heuristic: type[ClosestIdleAgent] = ClosestIdleAgent

    def __init__(self, env_name: str, scenario: str) -> None:
        super().__init__(env_name, scenario)
        env = make(env_name, scenario)  # the static city and protocol tables only
        assert isinstance(env, DispatchEnv)
        self._env = env
        self._agent = self.heuristic()

    def reply(self, observation: str) -> str:
        obs = parse(observation, self._env)
        a = self._agent
        for choose in (a._dispatch, a._hospital, a._aid, a._reposition):
            action = choose(self._env, obs)
            if action is not None:
                return as_tool_call(action)
        return as_tool_call(Hold())
