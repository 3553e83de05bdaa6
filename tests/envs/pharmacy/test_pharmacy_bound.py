"""Pharmacy v2: the perfect-information bound dominates every policy, oracles included."""

from __future__ import annotations

import numpy as np
import pytest

import lifeline
from lifeline.agents import make_agent
from lifeline.envs.pharmacy.baselines import AGENTS
from lifeline.envs.pharmacy.env import PharmacyEnv
from lifeline.envs.pharmacy.params import SCENARIOS

ORACLES = ("oracle_gamer", "oracle_stingy")


def _score(env: PharmacyEnv, name: str, seed: int) -> tuple[float, float, float]:
    agent = make_agent(name, "pharmacy")
    agent.reset(env, seed)
    state = env.reset(seed)
    while not state.done:
        env.step(state, agent.act(env, state))
    g = env.grade(state)
    return g.score, g.components["patient_safety"], g.components["high_service"]


def test_oracles_are_registered_exploits() -> None:
    """``bound_dominates`` of the exploit suite plays every registered exploit: oracles too."""
    assert set(ORACLES) <= set(lifeline.spec("pharmacy").exploits)


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_bound_beats_every_policy_and_oracle(scenario: str) -> None:
    env = PharmacyEnv(scenario)
    seeds = (21, 22)
    bound = np.array([_score(env, "bound", s) for s in seeds])
    for name in AGENTS:
        if name == "bound":
            continue
        other = np.array([_score(env, name, s) for s in seeds])
        assert other[:, 0].mean() <= bound[:, 0].mean() + 1e-9, (name, other, bound)
        # patient safety too, unless the policy bought it with supplies: under a binding
        # budget a dollar serves more HIGH units than blood units (README "Exchange rates"), and
        # since round 2 the blood bank issues what a ward was not allocated (cut_everything
        # halves every line, so its saline money buys blood)
        traded = other[:, 2].mean() < bound[:, 2].mean() - 0.05
        assert traded or other[:, 1].mean() <= bound[:, 1].mean() + 0.005, (name, other, bound)
