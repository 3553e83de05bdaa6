"""ED baselines, found through the env's ``EnvSpec``: the acuity-first triage heuristic and the
capacity-unconstrained upper bound (``AGENTS`` at the end names them)."""

from __future__ import annotations

from typing import Any

import numpy as np

from lifeline.agents.base import Agent
from lifeline.core.env import Action, Environment
from lifeline.envs.ed.env import EDEnv
from lifeline.envs.ed.params import RESPIRATORY, unconstrained
from lifeline.envs.ed.types import (
    AdmitGeneral,
    AdmitICU,
    DischargeGeneral,
    DischargeICU,
    EDState,
    StepDown,
    TransferToICU,
    Ventilate,
    Wait,
)

_ESI, _COND, _READY, _VENT = 0, 1, 3, 4  # columns of the bed arrays
_WAIT_H = 2  # column of the queue array
_RESP_CODE = RESPIRATORY + 1


def _ed(env: Environment) -> EDEnv:
    if not isinstance(env, EDEnv):
        raise TypeError(f"this agent plays the ed environment, not {env.name}")
    return env


class EDHeuristicAgent(Agent):
    """Acuity-first triage using only the observation (what a charge nurse would see).

    Priority each step: discharge ready patients; ventilate critical respiratory ICU patients;
    move general-bed patients who turned ESI 1 to the ICU; admit the most urgent waiting patient
    (ESI 1 to ICU, stepping down the most stable ICU patient if needed; ESI 2 to ICU only while
    two ICU beds are free; others to general beds); otherwise wait.
    """

    name = "heuristic"

    def act(self, env: Environment, state: Any) -> Action | int:
        ed = _ed(env)
        obs = ed.observe(state)
        gen, icu, queue = obs["general_beds"], obs["icu_beds"], obs["queue"]
        free_g = np.flatnonzero(gen[:, _ESI] == 0).size
        free_i = np.flatnonzero(icu[:, _ESI] == 0).size
        vents_free = int(obs["ventilators"][0])
        for b in np.flatnonzero(icu[:, _READY] == 1):
            return DischargeICU(bed=int(b))
        for b in np.flatnonzero(gen[:, _READY] == 1):
            return DischargeGeneral(bed=int(b))
        if vents_free:
            occupied = icu[:, _ESI] > 0
            unvented = occupied & (icu[:, _VENT] == 0)
            resp = unvented & (icu[:, _COND] == _RESP_CODE) & (icu[:, _ESI] <= 2)
            if resp.any():
                return Ventilate(bed=int(np.flatnonzero(resp)[0]))
            critical = unvented & (icu[:, _ESI] == 1)
            if vents_free > 1 and critical.any():
                return Ventilate(bed=int(np.flatnonzero(critical)[0]))
        if free_i:
            crashing = np.flatnonzero(gen[:, _ESI] == 1)
            if crashing.size:
                return TransferToICU(bed=int(crashing[0]))
        step_down = self._most_stable_icu(icu)
        if free_g:
            # Fast track: a low-acuity patient about to leave unseen goes first when no
            # ESI 1-2 patient is waiting (they are quick to treat and LWBS is a failure too).
            urgent = (queue[:, _ESI] >= 1) & (queue[:, _ESI] <= 2)
            at_risk = np.flatnonzero((queue[:, _ESI] >= 4) & (queue[:, _WAIT_H] >= 2.5))
            if at_risk.size and not urgent.any():
                return AdmitGeneral(slot=int(at_risk[0]))
        for slot in range(queue.shape[0]):
            esi = int(queue[slot, _ESI])
            if esi == 0:
                break
            if esi == 1:
                if free_i:
                    return AdmitICU(slot=slot)
                if step_down is not None and free_g:
                    return StepDown(bed=step_down)
            if esi == 2 and free_i >= 2:
                return AdmitICU(slot=slot)
            if free_g:
                return AdmitGeneral(slot=slot)
        return Wait()

    @staticmethod
    def _most_stable_icu(icu: np.ndarray) -> int | None:
        """ICU bed of the least acute, unventilated patient with observed ESI >= 3, if any."""
        candidates = np.flatnonzero((icu[:, _ESI] >= 3) & (icu[:, _VENT] == 0))
        if candidates.size == 0:
            return None
        return int(candidates[np.argmax(icu[candidates, _ESI])])


class EDBoundAgent(Agent):
    """Upper bound: unlimited beds and ventilators, immediate admission, clairvoyant care needs.

    Plays the same seeds (same patient stream) on the scenario with capacity removed
    (:func:`lifeline.envs.ed.params.unconstrained`) and reads hidden needs from the state, so
    every patient gets the right level of care the tick they arrive. Scored by the same grader.
    """

    name = "bound"

    def prepare(self, env: Environment) -> Environment:
        ed = _ed(env)
        return EDEnv(ed.scenario, params=unconstrained(ed.params))

    def act(self, env: Environment, state: Any) -> Action | int:
        s: EDState = state
        for b, p in enumerate(s.icu):
            if p is not None and p.ready:
                return DischargeICU(bed=b)
            if p is not None and p.needs_vent and not p.ventilated:
                return Ventilate(bed=b)
        for b, p in enumerate(s.general):
            if p is not None and p.ready:
                return DischargeGeneral(bed=b)
            if p is not None and p.needs_icu:
                return TransferToICU(bed=b)
        if s.waiting:
            return AdmitICU(slot=0) if s.waiting[0].needs_icu else AdmitGeneral(slot=0)
        return Wait()


AGENTS: dict[str, type[Agent]] = {
    "heuristic": EDHeuristicAgent,
    "bound": EDBoundAgent,
}
"""The ed ladder's own agents (``noop``/``random`` are generic) and its exploit policies."""
