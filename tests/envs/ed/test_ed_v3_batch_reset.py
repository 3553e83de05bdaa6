"""The batch ED-v3 resets an env without the scalar env (``generator.draw_episode`` writes the
patients straight into kernel rows, ``kernel_v3.load_episode`` loads them): it must hold what the
scalar ``EDEnv.reset`` of the same seed holds, packed (``kernel_v3.pack``), on every scenario
(MCI bursts, ICU boarders, arrays that grow), and step on identically."""

from __future__ import annotations

import numpy as np
import pytest

from lifeline.envs.ed import kernel_v3 as K
from lifeline.envs.ed.batch_v3 import EDBatchV3
from lifeline.envs.ed.env import EDEnv, return_bound
from lifeline.envs.ed.params import SCENARIOS


def _packed(env: EDEnv, seed: int) -> tuple[K.KState, object]:
    state = env.reset(seed)
    kp = K.kparams(env.params)
    st = K.allocate(1, kp, state.hazard_draws.shape[0], return_bound(env.params))
    K.pack(st, 0, state, kp)
    return st, state


def _assert_same_reset(batch: EDBatchV3, i: int, env: EDEnv, seed: int) -> None:
    st, _ = _packed(env, seed)
    b = batch.st
    pids = int(st.S[0, K.S_NPIDS])
    np.testing.assert_array_equal(b.S[i], st.S[0], err_msg="S")
    np.testing.assert_array_equal(b.PT[i, :pids], st.PT[0], err_msg="patients")
    assert not b.PT[i, pids:].any()
    for name in ("GB", "IB", "SCHED", "FLOW"):
        np.testing.assert_array_equal(getattr(b, name)[i], getattr(st, name)[0], err_msg=name)
    n = int(st.S[0, K.S_NWAIT])
    np.testing.assert_array_equal(b.WL[i, :n], st.WL[0, :n], err_msg="waiting")
    np.testing.assert_array_equal(b.PD[i, :pids], st.PD[0], err_msg="patient draws")
    np.testing.assert_array_equal(b.RD[i, :pids], st.RD[0], err_msg="return draws")
    # hazard ranks: every tick from the one a patient enters the waiting room (boarders: all)
    enter = np.where(np.arange(pids) < st.SCHED[0, -1],
                     st.PT[0, :, K.F_ARR].astype(np.int64) + batch.kp.triage_ticks, 0)
    read = np.arange(batch.kp.horizon)[:, None] >= enter[None, :]
    np.testing.assert_array_equal(b.HZ[i, :, :pids][read], st.HZ[0, :, :pids][read])
    assert b.RET[i] == 0.0 and not b.EV[i].any()


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_batch_reset_holds_what_the_scalar_reset_holds(scenario: str) -> None:
    env = EDEnv(scenario)
    batch = EDBatchV3(3, scenario, capacity=8)  # far too small: the arrays grow
    for i, seed in enumerate((0, 17, 12345)):
        batch.reset_env(i, seed)
    for i, seed in enumerate((0, 17, 12345)):
        _assert_same_reset(batch, i, env, seed)
    batch.reset_env(1, 4)  # a reset over a played env leaves nothing of the old episode
    _assert_same_reset(batch, 1, env, 4)


@pytest.mark.parametrize("scenario", ["icu_boarding", "mass_casualty"])
def test_batch_env_steps_like_the_scalar_env_after_its_own_resets(scenario: str) -> None:
    env = EDEnv(scenario)
    batch = EDBatchV3(2, scenario)
    seeds = [3, 8]
    states = [env.reset(s) for s in seeds]
    for i, s in enumerate(seeds):
        batch.reset_env(i, s)
    rng = np.random.default_rng(1)
    for step in range(400):
        actions = np.array([rng.choice(np.flatnonzero(batch.mask[i])) for i in range(2)])
        batch.step(actions)
        for i, state in enumerate(states):
            ts = env.step(state, int(actions[i]))
            assert (batch.reward[i], batch.terminated[i]) == (ts.reward, ts.terminated), step
            np.testing.assert_array_equal(batch.mask[i], env.action_mask(state))
            for key, value in env.observe(state).items():
                np.testing.assert_array_equal(batch.obs[key][i], value, err_msg=key)


def test_large_batch_steps_each_env_as_a_small_batch_does() -> None:
    """An env's trajectory does not depend on how many envs share its batch (260 against 4)."""
    n = 260
    big, small = EDBatchV3(n, "surge"), EDBatchV3(4, "surge")
    for i in range(n):
        big.reset_env(i, 100 + i)
    for i in range(4):
        small.reset_env(i, 100 + n - 4 + i)
    rng = np.random.default_rng(3)
    for _ in range(300):
        legal = big.mask.cumsum(axis=1)
        actions = (legal <= (rng.random(n) * legal[:, -1])[:, None]).sum(axis=1)
        big.step(actions)
        small.step(actions[-4:])
        np.testing.assert_array_equal(big.mask[-4:], small.mask)
        np.testing.assert_array_equal(big.reward[-4:], small.reward)
        for key in K.OBS_KEYS:
            np.testing.assert_array_equal(big.obs[key][-4:], small.obs[key])
    assert (big.st.S[-4:, K.S_TICK] > 20).all()


def _rows_digest(scenario: str, seed: int) -> str:
    import hashlib

    from lifeline.core.rng import make_streams
    from lifeline.envs.ed import generator
    from lifeline.envs.ed.env import STREAMS

    rng = make_streams(seed, STREAMS)
    ep = generator.generate(SCENARIOS[scenario], rng["arrivals"], rng["patients"])
    return hashlib.sha256(ep.rows[:ep.pids].tobytes() + ep.sched.tobytes()).hexdigest()


def test_plain_python_generator_draws_the_same_episodes() -> None:
    """Without numba, ``generator.draw_episode`` runs as plain Python on numpy's Generators:
    the same rows, draw for draw."""
    import os
    import subprocess
    import sys

    cases = [("mass_casualty", 5), ("icu_boarding", 3)]
    code = ("from lifeline.envs.ed import kernel_v3\nassert not kernel_v3.HAVE_NUMBA\n"
            "from tests.envs.ed.test_ed_v3_batch_reset import _rows_digest\n"
            f"print(' '.join(_rows_digest(s, k) for s, k in {cases!r}))\n")
    env = {**os.environ, "LIFELINE_NO_NUMBA": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=False, cwd=os.getcwd())
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == [_rows_digest(s, k) for s, k in cases]
