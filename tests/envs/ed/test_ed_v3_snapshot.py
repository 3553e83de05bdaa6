"""Golden trajectories of ed v3 (issue 27): whole episodes (every action, reward, validity, clock
and observation, and the final grade) of ``EDEnv`` hashed and compared with digests recorded for
this version. A change to the v3 dynamics, observation or grader changes a digest: then bump the
env's version (README version history) and record new digests, never silently. (ED-v2's own
digests, on ``EDv2Env``, are in ``test_ed_snapshot.py`` and are unchanged by v3.)
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from lifeline.agents import make_agent
from lifeline.core.env import Environment
from lifeline.envs.ed.env import EDEnv

GOLDEN = {
    ("heuristic", "surge", 11):
        "b77d58f9492ca9a815055b385893cceb93ba1abd8c2acdad893e7adaff5c4fac",
    ("random", "mass_casualty", 5):
        "f7ba002da0b7f43deaaf94a38fe7481dae2bc68c1906bb25c5719ca6baeb2f72",
    ("discharge_boarders", "icu_boarding", 3):
        "9fb6afc7129583624f9f5c0cee3abaa2e50e0fe6f66d1c269c67f386a1f73344",
    ("invalid_instead_of_wait", "night_shift", 2):
        "fd58b3567829f67d2f3117eededaa355fa3da5aaeb2297092f5adeb3cac83b76",
}


def trajectory_digest(agent_name: str, scenario: str, seed: int) -> str:
    env: Environment = EDEnv(scenario)
    agent = make_agent(agent_name, "ed")
    state = env.reset(seed)
    agent.reset(env, seed)
    h = hashlib.sha256()
    while not state.done:
        action = agent.act(env, state)
        index = action if isinstance(action, int) else env.encode(action)
        ts = env.step(state, action)
        h.update(json.dumps([index, round(ts.reward, 9), ts.valid, ts.terminated,
                             ts.truncated]).encode())
        for key, array in sorted(env.observe(state).items()):
            h.update(key.encode() + np.ascontiguousarray(array).tobytes())
    grade = env.grade(state)
    h.update(json.dumps({"score": round(grade.score, 12),
                         "components": {k: round(v, 12) for k, v in grade.components.items()},
                         "metrics": {k: round(v, 12) for k, v in grade.metrics.items()}},
                        sort_keys=True).encode())
    return h.hexdigest()


@pytest.mark.parametrize(("agent", "scenario", "seed"), list(GOLDEN))
def test_whole_v3_trajectory_matches_the_recorded_digest(agent: str, scenario: str,
                                                         seed: int) -> None:
    assert EDEnv(scenario).version == 3
    assert trajectory_digest(agent, scenario, seed) == GOLDEN[(agent, scenario, seed)]
