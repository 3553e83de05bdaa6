"""Random play with a per-step check: the loop behind the parity tests of fast code paths.

Parity tests (a compiled kernel against its numpy fallback, a rewrite against a kept reference)
all play masked-random episodes with some share of a "wait" action and compare the two paths
after every step; this is that loop once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from lifeline.core.env import Environment


def play_checked(env: Environment[Any, Any], seed: int, hold: int, hold_p: float,
                 max_steps: int, check: Callable[[Any, str], None], rng_offset: int = 0) -> int:
    """Play ``env`` from ``reset(seed)``: ``hold`` with probability ``hold_p``, else a uniformly
    random legal action (``numpy`` generator seeded ``seed + rng_offset``), for at most
    ``max_steps`` steps; ``check(state, where)`` runs after the reset and after every step.
    Returns the number of steps played."""
    rng = np.random.default_rng(seed + rng_offset)
    state = env.reset(seed)
    check(state, f"seed {seed} reset")
    steps = 0
    while not state.done and steps < max_steps:
        legal = np.flatnonzero(env.action_mask(state))
        action = hold if rng.random() < hold_p else int(legal[rng.integers(legal.size)])
        env.step(state, action)
        steps += 1
        check(state, f"seed {seed} step {steps} t={getattr(state, 't', steps)}")
    return steps
