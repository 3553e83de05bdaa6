"""The batch ED (:class:`EDBatchV3`, N envs in ``kernel_v3``'s arrays) is the same environment as
the scalar core: identical observations, masks, rewards, terminations, validity, grades and
returns for the same seeds and actions, on every scenario, with several envs stepped (and
skipped) together; and its Gymnasium ``VectorEnv`` face keeps the vector API contract (and
matches Gymnasium's own ``SyncVectorEnv`` over the scalar env step for step).
``test_ed_kernel_v3.py`` checks the kernel itself, one env, step for step."""

from __future__ import annotations

from dataclasses import replace

import gymnasium as gym
import numpy as np
import pytest

import lifeline  # noqa: F401  (registers the Gymnasium ids)
from lifeline.core.registry import spec
from lifeline.envs.ed.batch import EDVectorEnv
from lifeline.envs.ed.batch_v3 import EDBatchV3
from lifeline.envs.ed.env import EDEnv
from lifeline.envs.ed.params import SCENARIOS

GYM_ID = spec("ed").gym_id


def _scalar_gym(scenario: str = "normal_day") -> gym.Env:
    """The scalar ED as a Gymnasium env."""
    from lifeline.faces.gymnasium import LifelineGymEnv

    return LifelineGymEnv("ed", core=EDEnv(scenario))


def _policy_action(rng: np.random.Generator, mask: np.ndarray, offsets: dict[str, int],
                   style: str) -> int:
    """Random legal action; ``style="discharge"`` prefers discharges (early ones included, so
    returns and repeat early discharges happen); 10 % of actions are arbitrary integers (invalid
    ones included)."""
    if rng.random() < 0.1:
        return int(rng.integers(-3, mask.size + 3))
    legal = np.flatnonzero(mask)
    if style == "discharge":
        discharges = legal[legal >= offsets["discharge_general"]]
        if discharges.size and rng.random() < 0.5:
            return int(rng.choice(discharges))
    return int(rng.choice(legal))


def _assert_same_step(env: EDEnv, state: object, batch: EDBatchV3, i: int, where: str) -> None:
    for key, value in env.observe(state).items():  # type: ignore[arg-type]
        np.testing.assert_array_equal(batch.obs[key][i], value, err_msg=f"{where}: {key}")
    np.testing.assert_array_equal(batch.mask[i], env.action_mask(state),  # type: ignore[arg-type]
                                  err_msg=f"{where}: mask")


def run_parity(scenario: str, seeds: list[int], style: str = "random",
               params: object = None) -> dict[str, int]:
    """Play the same actions in the scalar core and the batch; assert every step equal."""
    env = EDEnv(scenario, params=params)  # type: ignore[arg-type]
    n = len(seeds)
    batch = EDBatchV3(n, scenario, params=params)  # type: ignore[arg-type]
    states = [env.reset(s) for s in seeds]
    for i, s in enumerate(seeds):
        batch.reset_env(i, s)
        _assert_same_step(env, states[i], batch, i, f"{scenario} seed {s} reset")
    rng = np.random.default_rng(sum(seeds))
    totals = {"steps": 0, "returns": 0, "repeat_early": 0, "early_stopped": 0}
    while not all(st.done for st in states):
        skip = np.array([st.done for st in states])
        actions = np.array([_policy_action(rng, batch.mask[i], env.layout.offsets, style)
                            for i in range(n)])
        batch.step(actions, skip)
        for i, st in enumerate(states):
            if skip[i]:
                continue
            ts = env.step(st, int(actions[i]))
            where = f"{scenario} seed {seeds[i]} step {st.steps} action {actions[i]}"
            assert batch.reward[i] == ts.reward, where
            assert batch.terminated[i] == ts.terminated, where
            assert batch.truncated[i] == ts.truncated, where
            assert batch.valid[i] == ts.valid, where
            assert batch.info_ev[i, 0] == ts.info["ticks"], where
            assert batch.info_ev[i, 1] == ts.info["deaths"], where
            _assert_same_step(env, st, batch, i, where)
            totals["steps"] += 1
    for i, st in enumerate(states):
        assert batch.done(i)
        assert batch.grade(i) == env.grade(st), f"{scenario} seed {seeds[i]}: grade"
        assert batch.episode_return(i) == st.episode_return
        c = st.counters
        totals["returns"] += c.returns
        totals["early_stopped"] += int(c.early_stop_tick >= 0)
        totals["repeat_early"] += sum(p.return_count >= 2 for t in st.schedule for p in t)
    return totals


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_batch_matches_the_scalar_core_on_every_scenario(scenario: str) -> None:
    totals = run_parity(scenario, list(range(7 * len(scenario), 7 * len(scenario) + 6)))
    assert totals["steps"] > 6 * 96  # at least a tick per step on average


def test_batch_matches_through_returns_and_repeat_early_discharges() -> None:
    """A discharge-happy policy: patients return (one level worse) and are discharged early
    again, using the pre-drawn ``return_draws`` of their k-th return."""
    totals = run_parity("surge", list(range(100, 116)), style="discharge")
    assert totals["returns"] > 20
    assert totals["repeat_early"] > 0


def test_batch_matches_through_the_early_stop() -> None:
    params = replace(SCENARIOS["mass_casualty"], early_stop_deaths=8)
    totals = run_parity("mass_casualty", list(range(200, 212)), params=params)
    assert totals["early_stopped"] > 0


def test_patient_arrays_grow_on_demand() -> None:
    batch = EDBatchV3(2, "surge", capacity=8)
    env = EDEnv("surge")
    batch.reset_env(0, 3)
    batch.reset_env(1, 4)
    assert batch.capacity >= max(env.reset(s).hazard_draws.shape[0] for s in (3, 4)) > 8
    for i, s in enumerate((3, 4)):
        _assert_same_step(env, env.reset(s), batch, i, "grown")


# ----- the Gymnasium VectorEnv face --------------------------------------------------------------
def test_make_vec_returns_the_batch_env_with_batched_spaces() -> None:
    venv = gym.make_vec(GYM_ID, num_envs=4, vectorization_mode="vector_entry_point",
                        scenario="surge")
    assert isinstance(venv.unwrapped, EDVectorEnv)
    single = _scalar_gym("surge")
    assert venv.single_observation_space == single.observation_space
    assert venv.single_action_space == single.action_space
    assert venv.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    obs, info = venv.reset(seed=5)
    assert obs in venv.observation_space
    assert list(info["seed"]) == [5, 6, 7, 8]
    masks = venv.unwrapped.action_masks()
    assert isinstance(single.action_space, gym.spaces.Discrete)
    assert masks.shape == (4, single.action_space.n) and masks.dtype == np.bool_
    np.testing.assert_array_equal(obs["action_mask"], masks.astype(np.int8))
    actions = venv.action_space.sample()
    obs, reward, terminated, truncated, info = venv.step(actions)
    assert obs in venv.observation_space
    assert reward.shape == (4,) and reward.dtype == np.float64
    assert terminated.shape == truncated.shape == (4,) and terminated.dtype == np.bool_
    assert info["valid"].shape == (4,) and info["_valid"].all()
    venv.close()
    single.close()


def test_unknown_keywords_are_rejected_and_other_modes_still_work() -> None:
    with pytest.raises(TypeError, match="unexpected keyword"):
        gym.make_vec(GYM_ID, num_envs=2, vectorization_mode="vector_entry_point", colour=1)
    sync = gym.make_vec(GYM_ID, num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, gym.vector.SyncVectorEnv)
    sync.close()


def _play_both(mode: str, steps: int) -> None:
    """EDVectorEnv vs Gymnasium's SyncVectorEnv over the scalar env: same seeds, same actions,
    same everything, through episode ends and auto-resets (each env's next episode seed comes
    from its own np_random, as in LifelineGymEnv)."""
    n = 3
    batch = EDVectorEnv(n, "night_shift", autoreset_mode=mode)
    sync = gym.vector.SyncVectorEnv([lambda: _scalar_gym("night_shift") for _ in range(n)],
                                    autoreset_mode=gym.vector.AutoresetMode(mode))
    obs_b, info_b = batch.reset(seed=11)
    obs_s, info_s = sync.reset(seed=11)
    rng = np.random.default_rng(0)
    ended = 0
    for step in range(steps):
        for key in obs_s:
            np.testing.assert_array_equal(obs_b[key], obs_s[key], err_msg=f"{step} {key}")
        masks = obs_b["action_mask"].astype(bool)
        actions = np.array([rng.choice(np.flatnonzero(m)) if rng.random() < 0.95
                            else int(rng.integers(-2, m.size + 2)) for m in masks])
        obs_b, r_b, te_b, tr_b, info_b = batch.step(actions)
        obs_s, r_s, te_s, tr_s, info_s = sync.step(actions)
        np.testing.assert_array_equal(r_b, r_s)
        np.testing.assert_array_equal(te_b, te_s)
        np.testing.assert_array_equal(tr_b, tr_s)
        if te_b.any():
            ended += int(te_b.sum())
            for i in np.flatnonzero(te_b):
                assert info_b["_score"][i]
                if mode == "NextStep":
                    assert info_b["score"][i] == pytest.approx(info_s["score"][i], abs=0)
                else:
                    assert info_b["score"][i] == info_s["final_info"]["score"][i]
                    for key, value in info_s["final_obs"][i].items():
                        np.testing.assert_array_equal(info_b["final_obs"][i][key], value)
    assert ended >= n  # every env went through an episode end and an auto-reset
    batch.close()
    sync.close()


def test_vector_env_matches_sync_vector_env_next_step_autoreset() -> None:
    _play_both("NextStep", 2 * 96 * 4 + 50)


def test_vector_env_matches_sync_vector_env_same_step_autoreset() -> None:
    _play_both("SameStep", 2 * 96 * 4 + 50)


def test_next_step_autoreset_ignores_the_action_after_the_end() -> None:
    venv = EDVectorEnv(2, "night_shift")
    venv.reset(seed=1)
    done = np.zeros(2, dtype=bool)
    while not done.all():
        _, _, terminated, truncated, info = venv.step(np.zeros(2, dtype=np.int64))
        done |= terminated | truncated
        if terminated.any():
            assert info["_score"].any() and (info["score"][terminated] > 0).all()
    obs, reward, terminated, truncated, info = venv.step(np.full(2, 10_000))
    assert (reward == 0).all() and not terminated.any() and not truncated.any()
    assert not info["_valid"].any()
    assert (obs["time"][:, 0] == 0).all()  # back at 00:00 of a new shift


def test_make_vec_gives_the_batch_env_without_a_warning() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        venv = gym.make_vec(GYM_ID, num_envs=2, vectorization_mode="vector_entry_point")
    assert isinstance(venv.unwrapped, EDVectorEnv) and venv.unwrapped.core.version == 3
    assert venv.single_action_space == gym.spaces.Discrete(EDEnv("normal_day").num_actions)
    venv.close()
