"""CodeRed ``text_heuristic``: the coordinator heuristic fed from the text view (``render.py``).

:func:`parse` rebuilds the observation columns :class:`HeuristicAgent` reads — patients and 911
calls (status, node, known condition or call category and callback hint, hospital, blood type,
typing, crossmatch, need, escalation), ambulances (status, position, ETA), hospitals (diversion,
OR states, specialists, blood stock) — and the road factors from the rush-hour flag and the
road alerts (:func:`lifeline.envs.codered.dynamics.refresh_roads`, the public rule for what an
accident or a closure does to a road). The legal actions are read from the listing in the text
(the heuristic skips an action the mask forbids). :class:`CodeRedTextPolicy` then runs the
heuristic's own rules in its order.
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import numpy as np

from lifeline.core.agent import TextPolicy
from lifeline.core.graph import RoadGraph
from lifeline.core.registry import make
from lifeline.envs.codered.baselines import HeuristicAgent
from lifeline.envs.codered.dynamics import refresh_roads
from lifeline.envs.codered.env import CodeRedEnv
from lifeline.envs.codered.observation import HOSPITAL_COLUMNS, PATIENT_COLUMNS, UNIT_COLUMNS
from lifeline.envs.codered.params import (
    BLOOD_TYPES,
    CATEGORIES,
    CONDITIONS,
    DISRUPTIONS,
    HOSPITAL_NODE,
    NODES,
    PROCEDURES,
    ROADS,
    SPECIALISTS,
)
from lifeline.envs.codered.types import OR_STATES, P_STATUS, U_STATUS, MaintainPlan
from lifeline.faces.tools import as_tool_call

_NODE = {n: i for i, n in enumerate(NODES)}
_STATUS = {n: i for i, n in enumerate(P_STATUS)}
_USTATUS = {n: i for i, n in enumerate(U_STATUS)}
_COND = {n: i for i, n in enumerate(CONDITIONS)}
_CAT = {n: i for i, n in enumerate(CATEGORIES)}
_BT = {n: i for i, n in enumerate(BLOOD_TYPES)}
_OR = {n: i for i, n in enumerate(OR_STATES)}
_PATIENT = re.compile(r"^  \[(\d+)\] (.+?) @([^,]+), (\w+), \d+ min since onset(.*)$")
_CALL = re.compile(r"^911 call '(\w+)'(?: \(callback says (\w+)\))?$")
_UNIT = re.compile(r"^  \[(\d+)\] (ALS|BLS)( mutual-aid)? (\w+) @([^,]+?)(?: -> ([^,]+?))?"
                   r"(?:, eta ([\d.]+) min)?(?:, patient (\d+))?$")
_HOSP = re.compile(r"^  \[(\d)\] .*?(?: DIVERSION (\d+) min)? \| ICU free (\d+) \| ORs: (.*)$")
_OR_ITEM = re.compile(r"^(\w+)(?:\((\w+)\))?")
_SPEC = re.compile(r"(\w+) present (\d+) paged (\d+) on-call (\d+)")
_LEGAL = re.compile(r"^- (.*?)(?:, N in \{(.*)\})?$")
_H_PRESENT, _H_PAGED, _H_ONCALL = 11, 14, 17


def _roads(rush: bool, alerts: str, rush_factor: float) -> np.ndarray:
    """Road factors and closures from the rush flag and the road alerts (the public rules)."""
    disruptions, active = [], []
    for item in alerts.split(", "):
        kind, _, where = item.partition(" ")
        if kind in DISRUPTIONS[:2] and "-" in where:
            a, b = where.split("-", 1)
            disruptions.append((0.0, DISRUPTIONS.index(kind), _NODE[a], _NODE[b], 0.0))
            active.append(True)
    scratch = SimpleNamespace(disruptions=disruptions, active=active, rush=rush,
                              graph=RoadGraph(len(NODES), list(ROADS)))
    refresh_roads(scratch, SimpleNamespace(rush_factor=rush_factor))  # type: ignore[arg-type]
    g = scratch.graph
    return np.array([[g.factor[a, b], float(g.removed[a, b])] for a, b, _ in ROADS],
                    dtype=np.float32)


def parse(text: str, rush_factor: float) -> dict[str, Any]:
    """The heuristic's observation rebuilt from ``render_text`` output, plus ``legal``: the set
    of calls listed as legal (``None`` when the listing was cut short)."""
    patients: dict[int, list[float]] = {}
    units: dict[int, list[float]] = {}
    hosp = np.zeros((3, len(HOSPITAL_COLUMNS)), np.float32)
    ors = np.zeros((3, 3, 5), np.float32)
    blood = np.zeros((3, 8), np.float32)
    rush, alerts = False, ""
    legal: set[str] | None = set()
    section, h = "", -1
    for line in text.splitlines():
        if line.startswith("CODE RED"):
            rush = "morning rush" in line
        elif line.startswith("ALERTS: "):
            alerts = line.removeprefix("ALERTS: ")
        elif not line.startswith(" ") and not line.startswith("- "):
            section = line.split(" ", 1)[0].rstrip(":")
        elif section == "PATIENTS" and (m := _PATIENT.match(line)) is not None:
            patients[int(m.group(1))] = _patient_row(m)
        elif section == "AMBULANCES" and (m := _UNIT.match(line)) is not None:
            node = _NODE[m.group(5)]
            units[int(m.group(1))] = [
                1.0, float(m.group(2) == "ALS"), _USTATUS[m.group(4)], node,
                _NODE[m.group(6)] if m.group(6) else node,
                float(m.group(7)) if m.group(7) else 0.0,
                int(m.group(8)) + 1.0 if m.group(8) else 0.0, float(m.group(3) is not None)]
        elif section == "HOSPITALS" and (m := _HOSP.match(line)) is not None:
            h = int(m.group(1))
            hosp[h, 0] = HOSPITAL_NODE[h]
            hosp[h, 1] = max(float(m.group(2)), 0.5) if m.group(2) else 0.0  # shown while > 0
            hosp[h, 2] = int(m.group(3))
            if m.group(4) != "no ORs":
                for r, item in enumerate(m.group(4).split(", ")):
                    om = _OR_ITEM.match(item)
                    assert om is not None
                    state = _OR[om.group(1)]
                    proc = PROCEDURES.index(om.group(2)) if om.group(2) else -1
                    ors[h, r, :3] = (1.0, state, proc + 1.0)
                    hosp[h, 4 + state] += 1 if state in (0, 1, 2) else 0
                    if state == 3:
                        hosp[h, 7 + proc] += 1
                    elif state in (4, 5):
                        hosp[h, 5 + state] += 1
        elif section == "HOSPITALS" and line.strip().startswith("specialists:"):
            for sm in _SPEC.finditer(line):
                k = SPECIALISTS.index(sm.group(1))
                hosp[h, _H_PRESENT + k], hosp[h, _H_PAGED + k], hosp[h, _H_ONCALL + k] = (
                    int(sm.group(2)), int(sm.group(3)), int(sm.group(4)))
        elif section == "HOSPITALS" and line.strip().startswith("blood:"):
            for item in line.split()[1:]:
                bt, n = item.rsplit(":", 1)
                blood[h, _BT[bt]] = int(n)
        elif section == "Legal" and line.startswith("- ") and legal is not None:
            legal = _legal_line(line, legal)
    pts = np.zeros((max(patients, default=-1) + 1, len(PATIENT_COLUMNS)), np.float32)
    for i, row in patients.items():
        pts[i] = row
    us = np.zeros((max(units, default=-1) + 1, len(UNIT_COLUMNS)), np.float32)
    for u, row in units.items():
        us[u] = row
    return {"patients": pts, "units": us, "hospitals": hosp, "ors": ors, "blood": blood,
            "roads": _roads(rush, alerts, rush_factor), "legal": legal}


def _patient_row(m: re.Match[str]) -> list[float]:
    row = [0.0] * len(PATIENT_COLUMNS)
    row[0], row[5], row[6] = 1.0, _NODE[m.group(3)], _STATUS[m.group(4)]
    what, extra = m.group(2), m.group(5)
    if (cm := _CALL.match(what)) is not None:
        row[1], row[2] = 1.0, _CAT[cm.group(1)] + 1.0
        row[4] = _COND[cm.group(2)] + 1.0 if cm.group(2) else 0.0
    else:
        row[3] = _COND[what] + 1.0
    for item in extra.split(", ")[1:] if extra else ():
        word, _, rest = item.partition(" ")
        if word == "ambulance":
            row[10] = int(rest) + 1.0
        elif word == "hospital":
            row[11] = int(rest) + 1.0
        elif word == "blood" and rest.startswith("ready"):
            ready, pending = re.findall(r"\d+", rest)
            row[15], row[16] = float(ready), float(pending)
        elif word == "blood":
            row[12] = _BT[rest] + 1.0
        elif word == "typing":
            row[13] = 1.0
        elif word == "needs":
            row[14] = float(rest.split()[0].lstrip("~"))
        elif word == "ESCALATED":
            row[17] = 1.0
        elif word == "secondary":
            row[18] = 1.0
    return row


def _legal_line(line: str, legal: set[str]) -> set[str] | None:
    """Adds the calls of one listing line; ``None`` once the listing says it was cut."""
    if line.startswith("- ... and"):
        return None
    m = _LEGAL.match(line)
    assert m is not None
    call, ranges = m.group(1), m.group(2)
    if ranges is None:
        legal.add(call)
        return legal
    for part in ranges.split(", "):
        lo, _, hi = part.partition("..")
        for v in range(int(lo), int(hi or lo) + 1):
            legal.add(call[:-2] + f"{v})")  # the template ends "=N)"
    return legal


class CodeRedTextPolicy(TextPolicy):
    """Text -> :func:`parse` -> the heuristic's rules (legal ones only) -> a ``<tool_call>``."""

    def __init__(self, env_name: str, scenario: str) -> None:
        super().__init__(env_name, scenario)
        env = make(env_name, scenario)  # the public city map and rush factor only
        assert isinstance(env, CodeRedEnv)
        self._env = env
        self._agent = HeuristicAgent()

    def reply(self, observation: str) -> str:
        from lifeline.faces.tools import format_call

        e, a = self._env, self._agent
        obs = parse(observation, e.params.rush_factor)
        legal = obs.pop("legal")
        dist = a.map.update(obs["roads"])
        for rule in (a._calls, a._pickups, a._assign, a._prepare, a._blood, a._aid, a._hoard):
            action = rule(e, obs, dist)
            if action is not None and (legal is None or format_call(action) in legal):
                return as_tool_call(action)
        return as_tool_call(MaintainPlan())
