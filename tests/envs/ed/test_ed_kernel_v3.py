"""ED-v3's array kernel (``lifeline.envs.ed.kernel_v3``) is the scalar ``EDEnv`` step for step:
the same seed and actions give identical masks, observations, rewards, validity, termination,
truncation, counters and episode return, on every scenario, with valid and invalid actions, and
(in a subprocess) as the plain-Python fallback without numba."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from lifeline.agents import make_agent
from lifeline.envs.ed import kernel_v3 as K
from lifeline.envs.ed import reward
from lifeline.envs.ed.baselines import EXPLOITS
from lifeline.envs.ed.batch_v3 import grade_state
from lifeline.envs.ed.env import EDEnv, return_bound
from lifeline.envs.ed.params import SCENARIOS


def lockstep(scenario: str, seed: int, agent_name: str, invalid_every: int = 0) -> int:
    """Play ``agent_name`` on the scalar env and replay each action on the kernel, comparing
    everything after every step; the number of steps."""
    env = EDEnv(scenario)
    kp = K.kparams(env.params)
    s = env.reset(seed)
    pids = s.hazard_draws.shape[0]
    st = K.allocate(1, kp, pids, return_bound(env.params))
    K.pack(st, 0, s, kp)
    agent = make_agent(agent_name, "ed")
    agent.reset(env, seed)
    spec = env.observation_spec()
    obs = {k: np.zeros((1, *spec[k].shape), np.float32) for k in K.OBS_KEYS}
    mask = np.zeros((1, env.num_actions), dtype=np.bool_)
    beds, risk = K.scratch(kp, pids)
    rng = np.random.default_rng(seed)
    steps = 0
    while not s.done:
        K.observe(st, 0, kp, *obs.values())
        for key, value in env.observe(s).items():
            np.testing.assert_array_equal(obs[key][0], value, err_msg=f"{key}, step {steps}")
        K.action_mask(st, 0, kp, mask, obs["general_beds"], obs["icu_beds"])
        np.testing.assert_array_equal(mask[0], env.action_mask(s), err_msg=f"mask, step {steps}")
        action = agent.act(env, s)
        a = action if isinstance(action, int) else env.encode(action)  # type: ignore[arg-type]
        if invalid_every and steps % invalid_every == 3:
            a = int(rng.integers(-2, env.num_actions + 2))
        ts = env.step(s, a)
        got = K.step_env(st, 0, a, kp, mask, beds, risk)
        assert got == (ts.reward, ts.valid, ts.terminated, ts.truncated), (steps, got, ts)
        steps += 1
    c = s.counters
    for column, expected in ((K.S_DEATHS, c.deaths), (K.S_DETER, c.deteriorations),
                              (K.S_TREATED, c.treated), (K.S_LWBS, c.lwbs),
                              (K.S_DHARMS, c.discharge_harms), (K.S_RETURNS, c.returns),
                              (K.S_PROVWAIT, c.provider_wait_ticks_closed),
                              (K.S_WAITSUM, c.wait_ticks_closed),
                              (K.S_INVALID, s.invalid_actions)):
        assert st.S[0, column] == expected
    assert st.RET[0] == s.episode_return
    mine, theirs = reward.grade(grade_state(st, 0, env.params), env.params), env.grade(s)
    assert (mine.score, mine.components, mine.metrics) == (theirs.score, theirs.components,
                                                           theirs.metrics)
    return steps


@pytest.mark.parametrize("scenario", list(SCENARIOS))
@pytest.mark.parametrize("agent", ["heuristic", "random"])
def test_kernel_matches_the_scalar_env_step_for_step(scenario: str, agent: str) -> None:
    assert lockstep(scenario, 11, agent, invalid_every=7) > 100


@pytest.mark.parametrize("agent", EXPLOITS)
def test_kernel_matches_the_scalar_env_under_every_exploit(agent: str) -> None:
    assert lockstep("icu_boarding" if "board" in agent else "surge", 5, agent) > 50


def test_plain_python_fallback_matches_too() -> None:
    code = ("from tests.envs.ed.test_ed_kernel_v3 import lockstep\n"
            "from lifeline.envs.ed import kernel_v3\n"
            "assert not kernel_v3.HAVE_NUMBA\n"
            "print(lockstep('night_shift', 3, 'random', invalid_every=5))\n")
    env = {**os.environ, "LIFELINE_NO_NUMBA": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=False, cwd=os.getcwd())
    assert out.returncode == 0, out.stderr[-2000:]
    assert int(out.stdout.split()[-1]) > 100


@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_make_vec_batch_env_equals_the_loop_of_scalar_envs(mode: str) -> None:
    """``gymnasium.make_vec("lifeline/ED-v3")`` (the kernel) and Gymnasium's SyncVectorEnv of
    scalar v3 envs: the same observations, masks (also in ``infos``), rewards and flags through
    episode ends and auto-resets."""
    import gymnasium as gym

    from lifeline.envs.ed.batch import EDVectorEnv

    n, autoreset = 3, gym.vector.AutoresetMode(mode)
    batch = gym.make_vec("lifeline/ED-v3", num_envs=n, vectorization_mode="vector_entry_point",
                         scenario="night_shift", autoreset_mode=autoreset)
    loop = gym.make_vec("lifeline/ED-v3", num_envs=n, vectorization_mode="sync",
                        vector_kwargs={"autoreset_mode": autoreset}, scenario="night_shift")
    assert isinstance(batch.unwrapped, EDVectorEnv)
    assert batch.single_observation_space == loop.single_observation_space
    ob, info = batch.reset(seed=5)
    ol, _ = loop.reset(seed=5)
    np.testing.assert_array_equal(info["action_mask"], ob["action_mask"].astype(bool))
    rng = np.random.default_rng(0)
    ends = 0
    for step in range(800):
        for key in ol:
            np.testing.assert_array_equal(ob[key], ol[key], err_msg=f"{key} at step {step}")
        legal = ob["action_mask"].astype(bool)
        acts = np.array([rng.choice(np.flatnonzero(row)) for row in legal])
        ob, rb, tb, ub, info = batch.step(acts)
        ol, rl, tl, ul, _ = loop.step(acts)
        np.testing.assert_array_equal(rb, rl)
        np.testing.assert_array_equal(tb, tl)
        np.testing.assert_array_equal(ub, ul)
        np.testing.assert_array_equal(info["action_mask"], ob["action_mask"].astype(bool))
        ends += int((tb | ub).sum())
    assert ends >= n  # every env went through at least one episode end
    batch.close()
    loop.close()
