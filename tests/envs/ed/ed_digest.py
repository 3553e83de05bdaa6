"""One episode digest for the ED golden-trajectory tests (``test_ed_v3_snapshot``, on ``EDEnv``).

Every action index, reward, validity and end flag, every observation array after each step, and
the final grade (score, components, metrics) go into one SHA-256: a change to the dynamics, the
observation or the grader changes the digest.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

from lifeline.agents import make_agent
from lifeline.core.env import Environment


def trajectory_digest(env: Environment, agent_name: str, seed: int) -> str:
    """SHA-256 of one whole episode of ``agent_name`` on ``env`` from ``seed``."""
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
