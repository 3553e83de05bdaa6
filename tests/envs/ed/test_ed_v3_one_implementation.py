"""ED-v3 is written once (issue 27 item 3): the scalar ``EDEnv`` steps through ``kernel_v3``
(``scalar_kernel``; ED-v2's Python dynamics and its numba kernel are retired), and its
``EDState`` stays the whole truth: copies stepped by the same env, and states edited by hand,
step as they should."""

from __future__ import annotations

import copy
import pickle

import numpy as np

from lifeline.envs.ed.env import EDEnv
from lifeline.envs.ed.types import WAITING, Wait


def play(env: EDEnv, state: object, rng: np.random.Generator, steps: int) -> list[tuple]:
    out = []
    for _ in range(steps):
        if state.done:  # type: ignore[attr-defined]
            break
        legal = np.flatnonzero(env.action_mask(state))  # type: ignore[arg-type]
        a = int(rng.choice(legal)) if rng.random() < 0.9 else env.num_actions + 3  # invalid
        ts = env.step(state, a)  # type: ignore[arg-type]
        out.append((a, ts.reward, ts.valid, state.tick))  # type: ignore[attr-defined]
    return out


def test_a_copy_stepped_by_the_same_env_follows_the_same_trajectory() -> None:
    """The env's kernel arrays hold the last state it stepped; stepping a copy, then the
    original (and a pickle of it), must not mix them up."""
    env = EDEnv("surge")
    state = env.reset(4)
    play(env, state, np.random.default_rng(1), 120)
    twin = copy.deepcopy(state)
    thawed = pickle.loads(pickle.dumps(state))
    first = play(env, twin, np.random.default_rng(7), 200)
    second = play(env, state, np.random.default_rng(7), 200)
    third = play(env, thawed, np.random.default_rng(7), 200)
    assert first == second == third
    assert env.grade(twin).score == env.grade(state).score == env.grade(thawed).score


def test_a_hand_edit_between_steps_is_seen_by_the_next_step() -> None:
    env = EDEnv("normal_day")
    state = env.reset(0)
    while not state.waiting:
        env.step(state, Wait())
    p = state.waiting[0]
    p.patience_ticks = state.tick - p.arrival_tick  # leaves unseen this tick
    state.hazard_draws[p.pid, state.tick] = 1.0  # and neither dies nor worsens first
    lwbs = state.counters.lwbs
    env.step(state, Wait())
    assert state.counters.lwbs == lwbs + 1 and p.location != WAITING
