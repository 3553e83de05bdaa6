"""codered's speed work changed no behaviour: every fingerprinted episode (masked-random and
heuristic play on every scenario; one SHA-256 per episode over the action mask, observation
arrays, reward, flags, messages, text view, frame and final grade) hashes exactly as recorded
before the optimisation (``tests/fixtures/codered_fingerprints.json``).

A deliberate change of behaviour is a new env version: re-record with
``PYTHONPATH=. python tests/envs/codered/test_codered_fingerprint.py`` and say so in the README's
history.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lifeline.agents import make_agent
from lifeline.envs.codered.env import CodeRedEnv

CASES: tuple[tuple[str, str, int], ...] = tuple(
    (scenario, policy, seed)
    for scenario in ("task1", "task2", "task3", "task4", "task5", "task3_gridlock", "task5_surge")
    for policy, seeds in (("random", tuple(range(20))), ("heuristic", (0, 1, 2)))
    for seed in seeds)
"""(scenario, policy, seed) episodes fingerprinted by the test."""


def episode_digest(scenario: str, policy: str, seed: int, render_every: int = 7) -> str:
    """SHA-256 of one episode (masked-random play from ``default_rng(seed)``, or an agent)."""
    env = CodeRedEnv(scenario)
    h = hashlib.sha256()
    rng = np.random.default_rng(seed)
    agent = None if policy == "random" else make_agent(policy, "codered")
    if agent is not None:
        agent.reset(env, seed)
    s = env.reset(seed)
    n = 0
    while True:
        mask = env.action_mask(s)
        h.update(mask.tobytes())
        for key, arr in env.observe(s).items():
            h.update(key.encode())
            h.update(np.ascontiguousarray(arr).tobytes())
        if n % render_every == 0:
            h.update(env.render_text(s).encode())
            h.update(json.dumps(env.frame(s), sort_keys=True).encode())
        if s.done:
            break
        if agent is None:
            legal = np.flatnonzero(mask)
            action: Any = int(legal[rng.integers(legal.size)])
        else:
            action = agent.act(env, s)
        ts = env.step(s, action)
        h.update(repr((env.encode(action) if not isinstance(action, int) else action,
                       ts.reward, ts.terminated, ts.truncated, ts.valid, ts.message,
                       s.last_report, s.t)).encode())
        n += 1
    g = env.grade(s)
    h.update(repr((g.score, sorted(g.components.items()), sorted(g.metrics.items()))).encode())
    h.update(env.render_text(s).encode())
    return h.hexdigest()


def all_digests() -> dict[str, str]:
    """Digest of every case in :data:`CASES`, keyed ``scenario/policy/seed``."""
    return {f"{sc}/{po}/{se}": episode_digest(sc, po, se) for sc, po, se in CASES}


FIXTURE = Path(__file__).parents[2] / "fixtures" / "codered_fingerprints.json"


def test_fixture_covers_every_case() -> None:
    recorded = json.loads(FIXTURE.read_text())
    assert sorted(recorded) == sorted(f"{sc}/{po}/{se}" for sc, po, se in CASES)


@pytest.mark.parametrize("scenario", sorted({sc for sc, _, _ in CASES}))
def test_trajectories_identical_to_recorded(scenario: str) -> None:
    recorded = json.loads(FIXTURE.read_text())
    for sc, po, se in CASES:
        if sc == scenario:
            key = f"{sc}/{po}/{se}"
            assert episode_digest(sc, po, se) == recorded[key], key


if __name__ == "__main__":
    FIXTURE.write_text(json.dumps(all_digests(), indent=1, sort_keys=True) + "\n")
