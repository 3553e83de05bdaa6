"""Golden trajectories of ed v1: whole episodes (every action, reward, validity, clock and
observation, and the final grade) hashed and compared with digests recorded for this version.

A change to the dynamics, the observation or the grader changes a digest: then bump the env's
version (README version history) and record the new digests, never silently.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

import lifeline
from lifeline.agents import make_agent

GOLDEN = {
    ("heuristic", "surge", 11):
        "4fdf31ebba3024475066a70020cc04ecd397b75bbce4fd7e248027c90f814954",
    ("random", "mass_casualty", 5):
        "55cbf3dbfbaed1bcc44925cf8dea8d170d418982ed65c2432e9d20c296d9c898",
    ("churn", "ventilator_crisis", 3):
        "e7de92b12287d97411240195c4cc882ad8f19e3ec1e1ea57cf946db10c94dc30",
    ("invalid_instead_of_wait", "icu_boarding", 2):
        "f0ef774f7cf1a376f6ac4e40f127c1cfff4b972a772b07b241f4816c98313444",
}


def trajectory_digest(agent_name: str, scenario: str, seed: int) -> str:
    env = lifeline.make("ed", scenario)
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
def test_whole_trajectory_matches_the_recorded_digest(agent: str, scenario: str,
                                                      seed: int) -> None:
    assert lifeline.make("ed", scenario).version == 1
    assert trajectory_digest(agent, scenario, seed) == GOLDEN[(agent, scenario, seed)]
