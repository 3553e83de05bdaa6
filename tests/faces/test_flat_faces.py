"""The flat faces (``lifeline.faces.flat``, ``flat_marl``): layouts, masks, SuperSuit.

The RLlib training run is in ``tests/faces/test_flat_rllib.py`` (slow: it starts Ray).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import lifeline
from lifeline.faces.flat import FlatBox, FlatLayout, RLlibEnv

GYM_IDS = [s.gym_id for s in lifeline.all_specs()]


@pytest.mark.parametrize("gym_id", GYM_IDS)
def test_mask_first_layout_is_the_mask_then_the_features(gym_id: str) -> None:
    raw = gym.make(gym_id)
    flat = FlatBox(gym.make(gym_id))
    obs_raw, info_raw = raw.reset(seed=3)
    obs, info = flat.reset(seed=3)
    n = raw.action_space.n  # type: ignore[attr-defined]
    assert flat.observation_space.contains(obs)
    assert obs.dtype == np.float32
    np.testing.assert_array_equal(obs[:n], obs_raw["action_mask"])
    feats = np.concatenate([np.asarray(obs_raw[k], np.float32).ravel()
                            for k in raw.observation_space.spaces  # type: ignore[attr-defined]
                            if k != "action_mask"])
    np.testing.assert_array_equal(obs[n:], feats)
    np.testing.assert_array_equal(info["action_mask"], info_raw["action_mask"])
    legal = int(np.flatnonzero(info["action_mask"])[-1])
    obs2, *_, info2 = flat.step(legal)
    np.testing.assert_array_equal(obs2[:n], flat.action_masks())
    np.testing.assert_array_equal(info2["action_mask"], flat.action_masks())


@pytest.mark.parametrize("mask", ["first", "dict", "none"])
def test_every_layout_passes_gymnasiums_check_env(mask: str) -> None:
    env = FlatBox(gym.make("lifeline/Pharmacy-v2").unwrapped, mask=mask)  # type: ignore[arg-type]
    check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=0)
    if mask == "dict":
        assert set(obs) == {"action_mask", "observations"}
        np.testing.assert_array_equal(obs["action_mask"] > 0, info["action_mask"])
    elif mask == "none":
        assert obs.shape == (env.layout.features,)


def test_rllib_env_takes_an_env_config_mapping() -> None:
    env = RLlibEnv({"id": "lifeline/Pharmacy-v2", "scenario": "heavy", "mask": "dict"})
    assert env.unwrapped.core.scenario == "heavy"  # type: ignore[attr-defined]
    assert isinstance(env.observation_space, gym.spaces.Dict)
    default = RLlibEnv()
    assert isinstance(default.observation_space, gym.spaces.Box)
    with pytest.raises(ValueError, match="mask must be one of"):
        RLlibEnv({"mask": "last"})


def test_layout_rejects_non_dict_spaces_and_shrinking_pads() -> None:
    with pytest.raises(TypeError, match="Dict"):
        FlatLayout(gym.spaces.Box(0, 1, (3,)))
    space = gym.spaces.Dict({"a": gym.spaces.Box(0, 1, (4,)),
                             "action_mask": gym.spaces.Box(0, 1, (5,), dtype=np.int8)})
    with pytest.raises(ValueError, match="padding"):
        FlatLayout(space, num_actions=3)
    layout = FlatLayout(space, num_actions=7, features=6)
    out = layout.flatten({"a": np.ones(4), "action_mask": np.array([1, 0, 1, 0, 1])})
    np.testing.assert_array_equal(out, [1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 0, 0])


# ----- PettingZoo / SuperSuit -------------------------------------------------------------------


def _parallel(pad: bool, mask: str = "first"):  # type: ignore[no-untyped-def,unused-ignore]
    pytest.importorskip("pettingzoo")
    from lifeline.envs.evgrid import parallel_env
    from lifeline.faces.flat_marl import FlatParallel

    return FlatParallel(parallel_env(), mask=mask, pad=pad)  # type: ignore[arg-type]


def test_flat_parallel_keeps_each_agents_mask_and_passes_pettingzoos_api_test() -> None:
    from pettingzoo.test import parallel_api_test

    env = _parallel(pad=False)
    parallel_api_test(env, num_cycles=50)
    obs, infos = env.reset(seed=5)
    raw = env.env._observations()
    for agent in env.possible_agents:
        n = env.action_space(agent).n
        assert env.observation_space(agent).contains(obs[agent])
        np.testing.assert_array_equal(obs[agent][:n], raw[agent]["action_mask"])
        np.testing.assert_array_equal(infos[agent]["action_mask"], raw[agent]["action_mask"] > 0)
        np.testing.assert_array_equal(env.action_mask(agent), infos[agent]["action_mask"])


def test_supersuit_vec_conversion_runs_whole_episodes_with_masked_actions() -> None:
    ss = pytest.importorskip("supersuit")
    env = _parallel(pad=True)
    a_max = env.action_space("dispatcher").n
    assert env.observation_space("operator") == env.observation_space("dispatcher")
    vec = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(env), 1, num_cpus=0,
                                base_class="gymnasium")
    assert vec.num_envs == 2
    obs, infos = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    steps, ended = 0, False
    while not ended:
        masks = obs[:, :a_max] > 0
        assert masks.any(axis=1).all()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, reward, terminated, truncated, infos = vec.step(acts)
        assert np.isfinite(reward).all()
        steps += 1
        ended = bool(np.any(terminated | truncated))
        # the operator moves first on its own mask: a padded or masked id never reaches it
        # (the dispatcher's mask is of the start of the step, before the operator's directive)
        assert not any(m.startswith("operator") for i in infos for m in i["messages"])
        assert not masks[0, env.env.n_operator:].any()
    assert steps > 100
    assert all("score" in i for i in infos)


def test_supersuit_padding_and_agent_indicator_work_on_the_unpadded_face() -> None:
    ss = pytest.importorskip("supersuit")
    env = ss.agent_indicator_v0(ss.pad_action_space_v0(ss.pad_observations_v0(
        _parallel(pad=False))))
    shapes = {env.observation_space(a).shape for a in env.possible_agents}
    assert len(shapes) == 1
    vec = ss.pettingzoo_env_to_vec_env_v1(env)
    obs, _ = vec.reset(seed=1)
    assert obs.shape == (2, *shapes.pop())
    flat = ss.flatten_v0(_parallel(pad=False, mask="none"))
    assert all(len(flat.observation_space(a).shape) == 1 for a in flat.possible_agents)
