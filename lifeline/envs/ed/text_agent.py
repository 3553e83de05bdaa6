"""ED ``text_heuristic``: the triage heuristic fed from the text view (``render.py``) alone.

:func:`parse` turns the text back into the arrays :class:`EDHeuristicAgent` reads (beds, queue,
free ventilators) and :class:`EDTextPolicy` runs the heuristic's own ``act`` on them. Every number
the heuristic uses is printed exactly in the text (acuity, condition, ready/boarding/ventilated
flags, waiting hours to the quarter hour), so the two agents play the same actions.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from lifeline.core.agent import TextPolicy
from lifeline.envs.ed.baselines import EDHeuristicAgent
from lifeline.envs.ed.env import EDEnv
from lifeline.envs.ed.observation import BED_COLUMNS, STAFF_FIELDS
from lifeline.envs.ed.params import CONDITIONS
from lifeline.faces.tools import as_tool_call

_CODE = {name: i + 1 for i, name in enumerate(CONDITIONS)}
_VENTS = re.compile(r"ventilators free (\d+)/(\d+)")
_STAFF = re.compile(r"^Physicians free (\d+)/(\d+) \| scanners free (\d+)/\d+, imaging queue "
                    r"(\d+) \| hospital beds free: ward (\d+), ICU (\d+)")
_PENDING = re.compile(r"PENDING(\d+)")
_IMGQ = re.compile(r"IMGQ(\d+)")
_WARD = re.compile(r"^(General|ICU) beds \((\d+) free of (\d+)\):")
_BED = re.compile(r"^\s+([GI])(\d+)\s+ESI(\d) (\w+)\s+([\d.]+)h(.*)$")
_QUEUE = re.compile(r"^Queue \(most urgent (\d+) of (\d+)\):")
_SLOT = re.compile(r"^\s+slot (\d+): ESI(\d) (\w+)\s+waiting\s+([\d.]+)h")


def parse(text: str) -> dict[str, np.ndarray]:
    """The heuristic's observation arrays rebuilt from ``render_text`` output."""
    sizes: dict[str, int] = {}
    beds: dict[str, list[tuple[int, list[float]]]] = {"G": [], "I": []}
    queue: list[list[float]] = []
    vents_free = 0
    staff = [0.0] * len(STAFF_FIELDS)
    for line in text.splitlines():
        if (m := _STAFF.match(line)) is not None:
            free, duty, scan, queue_len, ward_free, icu_free = (float(x) for x in m.groups())
            staff = [duty, free, scan, queue_len, ward_free, icu_free]
        elif (m := _VENTS.search(line)) is not None:
            vents_free = int(m.group(1))
        elif (m := _WARD.match(line)) is not None:
            sizes["G" if m.group(1) == "General" else "I"] = int(m.group(3))
        elif (m := _BED.match(line)) is not None:
            flags = m.group(6)
            row = [float(m.group(3)), float(_CODE[m.group(4)]), float(m.group(5)),
                   float("READY" in flags), float("VENT" in flags), float("BOARDING" in flags)]
            pending = _PENDING.search(flags)
            position = _IMGQ.search(flags)
            row += [float(" SEEN" in flags), float(pending.group(1)) if pending else 0.0,
                    float(position.group(1)) if position else 0.0]
            beds[m.group(1)].append((int(m.group(2)), row))
        elif (m := _SLOT.match(line)) is not None:
            queue.append([float(m.group(2)), float(_CODE[m.group(3)]), float(m.group(4))])
        elif line.startswith("Legal actions"):
            break
    arrays = {}
    columns = BED_COLUMNS
    for key, ward in (("general_beds", "G"), ("icu_beds", "I")):
        arr = np.zeros((sizes.get(ward, 0), columns), dtype=np.float32)
        for b, row in beds[ward]:
            arr[b] = row
        arrays[key] = arr
    q = np.zeros((len(queue) + 1, 3), dtype=np.float32)  # a trailing empty row ends the queue
    if queue:
        q[: len(queue)] = queue
    arrays["queue"] = q
    arrays["ventilators"] = np.array([vents_free, 0], dtype=np.float32)
    arrays["staff"] = np.array(staff, dtype=np.float32)
    return arrays


class _FromText(EDHeuristicAgent):
    """The heuristic with its view replaced by the parsed text (it never sees a state)."""

    parsed: dict[str, np.ndarray]

    def view(self, env: EDEnv, state: Any) -> dict[str, np.ndarray]:
        return self.parsed


class EDTextPolicy(TextPolicy):
    """Text -> :func:`parse` -> the heuristic's decision -> a ``<tool_call>``."""

    def __init__(self, env_name: str, scenario: str) -> None:
        super().__init__(env_name, scenario)
        self._heuristic = _FromText()
        self._env = EDEnv(scenario)  # only for the heuristic's type check; no episode in it

    def reply(self, observation: str) -> str:
        self._heuristic.parsed = parse(observation)
        action = self._heuristic.act(self._env, None)
        assert not isinstance(action, int)
        return as_tool_call(action)
