"""Trajectory digests of ``evgrid`` (observation, mask, reward, score, text view per step).

Used to prove that speed-ups change nothing: the digests recorded before an optimisation
(``tests/fixtures/evgrid_trajectories.json``) must match those after it, on the same machine.

    python bench/evgrid_digest.py [--write]
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np

import lifeline
from lifeline.agents import make_agent

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "evgrid_trajectories.json"
CASES = (("baseline", "random", 3), ("festival_surge", "random", 5),
         ("station_outage", "greedy", 7), ("whitefield_night", "mpc", 2),
         ("silk_board_jam", "random", 11))
"""(scenario, policy, seed) of each recorded trajectory."""


def digest(scenario: str, policy: str, seed: int, max_steps: int = 4000) -> str:
    """sha256 over every step's action, reward (12 significant digits), mask, observation
    (float32 bytes) and the final grade and text view."""
    env = lifeline.make("evgrid", scenario)
    state = env.reset(seed)
    h = hashlib.sha256()
    rng = np.random.default_rng(seed)
    agent = make_agent(policy, "evgrid") if policy != "random" else None
    if agent is not None:
        agent.reset(env, seed)
    for _ in range(max_steps):
        if state.done:
            break
        mask = env.action_mask(state)
        obs = env.observe(state)
        h.update(mask.tobytes())
        for key in sorted(obs):
            h.update(np.ascontiguousarray(obs[key]).tobytes())
        if agent is None:
            legal = np.flatnonzero(mask)
            action: object = int(legal[rng.integers(legal.size)])
        else:
            action = agent.act(env, state)
        ts = env.step(state, action)  # type: ignore[arg-type]
        h.update(f"{action!r}|{ts.reward:.12g}|{ts.valid}".encode())
    g = env.grade(state)
    h.update(json.dumps({"score": round(g.score, 12),
                         "components": {k: round(v, 12) for k, v in g.components.items()}},
                        sort_keys=True).encode())
    h.update(env.render_text(state).encode())
    return h.hexdigest()


def all_digests() -> dict[str, str]:
    return {f"{sc}/{pol}/{seed}": digest(sc, pol, seed) for sc, pol, seed in CASES}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--write", action="store_true", help="record the fixture")
    args = parser.parse_args()
    d = all_digests()
    if args.write:
        FIXTURE.parent.mkdir(parents=True, exist_ok=True)
        FIXTURE.write_text(json.dumps(d, indent=1, sort_keys=True) + "\n")
    print(json.dumps(d, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
