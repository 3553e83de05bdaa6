"""Dispatch's optimised ``observe``, ``action_mask`` and step path equal the v1 reference exactly.

``tests/oracles/dispatch_reference.py`` keeps the pre-optimisation ``observe``/``action_mask``
verbatim. Every step of many episodes (masked-random with frequent holds so that the clock and the
city events move, plus the closest-idle heuristic, over every small-city scenario and the metro
city) must produce byte-identical observation arrays (same keys, dtypes, shapes, bytes) and masks.
The step path's fast validation is checked against the full rules on every action index.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from lifeline.envs.dispatch.baselines import ClosestIdleAgent
from lifeline.envs.dispatch.env import DispatchEnv, DispatchMetroEnv
from lifeline.envs.dispatch.params import SCENARIO_NAMES
from lifeline.envs.dispatch.types import DispatchState
from lifeline.testing.play import play_checked
from tests.oracles.dispatch_reference import action_mask_v1, observe_v1

SMALL = [s for s in SCENARIO_NAMES if not s.startswith("metro_")]


def _same(env: DispatchEnv, state: DispatchState, where: str) -> None:
    new, old = env.observe(state), observe_v1(state, env.ctx)
    assert list(new) == list(old), where
    for key, ref in old.items():
        got = new[key]
        assert got.dtype == ref.dtype and got.shape == ref.shape, f"{where}: {key}"
        assert got.flags.c_contiguous, f"{where}: {key} not C-contiguous"
        assert got.tobytes() == ref.tobytes(), f"{where}: {key}\n{got}\n!=\n{ref}"
    mask, ref_mask = env.action_mask(state), action_mask_v1(state, env.ctx, env.layout)
    assert mask.dtype == ref_mask.dtype and mask.tobytes() == ref_mask.tobytes(), \
        f"{where}: mask differs at {np.flatnonzero(mask != ref_mask)}"


def _random_episode(env: DispatchEnv, seed: int, hold_p: float, max_steps: int) -> int:
    return play_checked(env, seed, env.layout.hold, hold_p, max_steps,
                        lambda state, where: _same(env, state, where), rng_offset=1000)


@pytest.mark.parametrize("scenario", SMALL)
def test_observe_and_mask_match_v1_on_random_play(scenario: str) -> None:
    env = DispatchEnv(scenario)
    steps = sum(_random_episode(env, seed, hold_p, 1500)
                for seed, hold_p in ((0, 0.3), (1, 0.6), (2, 0.05)))
    assert steps > 1000


def test_observe_and_mask_match_v1_under_the_heuristic() -> None:
    env = DispatchEnv("expert")
    agent = ClosestIdleAgent()
    for seed in range(3):
        state = env.reset(seed)
        agent.reset(env, seed)
        while not state.done:
            env.step(state, agent.act(env, state))
            _same(env, state, f"closest_idle seed {seed} t={state.t:.2f}")


def test_observe_and_mask_match_v1_on_the_metro_city() -> None:
    env = DispatchMetroEnv("metro_expert")
    assert _random_episode(env, 0, 0.4, 1200) > 500


def test_observe_and_mask_match_v1_on_hand_edited_and_restored_states() -> None:
    """States built by hand (tests do this) and pickled snapshots: nothing is cached."""
    env = DispatchEnv("expert")
    state = env.reset(4)
    for _ in range(60):
        env.step(state, env.layout.hold)
    state.c_node[:] = (state.c_node + 3) % env.ctx.n_nodes
    _same(env, state, "edited nodes")
    state.visible[:] = -1
    state.n_open = 0
    _same(env, state, "no visible calls")
    restored = pickle.loads(pickle.dumps(copy.deepcopy(state)))
    _same(env, restored, "restored")
    state.done = True
    _same(env, state, "done")


def test_fast_validate_and_decode_table_match_the_full_rules() -> None:
    """The yes-only fast path of ``validate`` agrees with the full checks on every index."""
    from lifeline.envs.dispatch import rules
    from lifeline.envs.dispatch.types import Dispatch, Relocate

    env = DispatchEnv("expert")
    lay = env.layout
    rng = np.random.default_rng(7)
    state = env.reset(5)
    steps = checked = 0
    while not state.done and checked < 60:
        steps += 1
        legal = np.flatnonzero(env.action_mask(state))
        env.step(state, lay.hold if rng.random() < 0.5 else int(legal[rng.integers(legal.size)]))
        if steps % 5:
            continue
        checked += 1
        for index in range(lay.total):
            action = lay.decode(index)
            assert action == lay._decode(index)
            got = rules.validate(state, env.ctx, action)
            assert got == rules._validate(state, env.ctx, action), (index, action)
        for odd in (Dispatch(-1, 0), Dispatch(0, 99), Relocate(99, 0), Relocate(0, -1)):
            assert rules.validate(state, env.ctx, odd) == rules._validate(state, env.ctx, odd)
    assert checked == 60
