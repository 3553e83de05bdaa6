"""The Gymnasium face: ids, Dict observation with mask, info mask, terminated vs truncated."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import lifeline
from lifeline.envs.ed.types import Wait
from lifeline.faces.gymnasium import FlattenMasked, make_gym


def test_make_by_id_with_scenario() -> None:
    env = gym.make("lifeline/ED-v3", scenario="surge")
    obs, info = env.reset(seed=3)
    assert env.unwrapped.core.scenario == "surge"  # type: ignore[attr-defined]
    assert set(obs) >= {"action_mask", "queue", "general_beds", "icu_beds"}
    assert obs["action_mask"].dtype == np.int8
    np.testing.assert_array_equal(obs["action_mask"].astype(bool), info["action_mask"])
    np.testing.assert_array_equal(env.unwrapped.action_masks(), info["action_mask"])  # type: ignore[attr-defined]


def test_unknown_scenario_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"unknown scenario 'nope'.*normal_day"):
        gym.make("lifeline/ED-v3", scenario="nope")


def test_noop_episode_terminates_at_end_of_shift() -> None:
    env = make_gym("ed")
    env.reset(seed=0)
    steps, terminated, truncated, info = 0, False, False, {}
    while not (terminated or truncated):
        _, _, terminated, truncated, info = env.step(0)
        steps += 1
    assert terminated and not truncated and steps == 96
    assert 0.0 <= info["score"] <= 1.0 and "survival" in info["components"]


def test_invalid_spam_uses_the_turn_and_reaches_the_end_of_the_shift() -> None:
    env = make_gym("ed")
    env.reset(seed=0)
    noop = make_gym("ed")
    noop.reset(seed=0)
    k = env.unwrapped.core.params.actions_per_tick  # type: ignore[attr-defined]
    terminated = truncated = False
    while not (terminated or truncated):  # K invalid actions use the K slots of one tick
        rewards = []
        for _ in range(k):
            _, reward, terminated, truncated, info = env.step(10_000)
            assert not info["valid"]
            rewards.append(reward)
        _, wait_reward, *_ = noop.step(noop.unwrapped.core.encode(Wait()))  # type: ignore[attr-defined]
        assert sum(rewards) == pytest.approx(wait_reward - k)
    assert terminated and not truncated  # the clock ran to the end: nothing frozen


def test_out_of_range_action_does_not_crash() -> None:
    env = make_gym("ed")
    env.reset(seed=0)
    _, reward, _, _, info = env.step(10_000)
    assert not info["valid"] and "out of range" in info["message"] and reward <= -1.0


def test_step_before_reset_raises_reset_needed() -> None:
    env = make_gym("ed")
    with pytest.raises(gym.error.ResetNeeded):
        env.step(0)


def test_flatten_wrapper_keeps_masks() -> None:
    env = make_gym("ed", flatten=True)
    obs, _ = env.reset(seed=1)
    assert obs.dtype == np.float32 and obs.shape == env.observation_space.shape
    assert isinstance(env, FlattenMasked) and env.action_masks().dtype == bool


def test_gym_seeding_reproducible_and_distinct() -> None:
    a, b = make_gym("ed"), make_gym("ed")
    oa, _ = a.reset(seed=11)
    ob, _ = b.reset(seed=11)
    assert all(np.array_equal(oa[k], ob[k]) for k in oa)
    rng = np.random.default_rng(0)
    for _ in range(50):
        action = int(rng.choice(np.flatnonzero(a.unwrapped.action_masks())))  # type: ignore[attr-defined]
        ra, rb = a.step(action), b.step(action)
        assert ra[1] == rb[1] and all(np.array_equal(ra[0][k], rb[0][k]) for k in ra[0])


def test_all_ids_registered() -> None:
    for spec in lifeline.all_specs():
        assert spec.gym_id in gym.registry


def test_flatten_masked_squashes_by_default_and_keeps_raw_on_request() -> None:
    """The default flat face is log-squashed (what an MLP can learn from); raw on request."""
    import warnings

    import gymnasium as gym
    import numpy as np

    from lifeline.faces.features import squash
    from lifeline.faces.gymnasium import FlattenMasked, LifelineGymEnv

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        raw = FlattenMasked(LifelineGymEnv("dispatch"), normalize=False)
        norm = FlattenMasked(LifelineGymEnv("dispatch"))
        r, _ = raw.reset(seed=3)
        n, _ = norm.reset(seed=3)
    assert r.max() > 100.0, "dispatch observations reach the hundreds raw"
    np.testing.assert_array_equal(n, squash(r))
    assert n.max() < 12.0 and norm.observation_space.contains(n)
    assert isinstance(norm.observation_space, gym.spaces.Box)
    assert float(norm.observation_space.high.max()) < 15.0


def test_ignoring_the_mask_is_warned_once_with_the_count() -> None:
    """Plain PPO/DQN ignore masks: an episode of mostly illegal actions says so, once."""
    import warnings

    import numpy as np

    from lifeline.faces import gymnasium as face

    face._warned_illegal.discard("ed")
    env = face.LifelineGymEnv("ed")
    rng = np.random.default_rng(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for episode in range(2):
            env.reset(seed=episode)
            done, info = False, {}
            while not done:
                _, _, term, trunc, info = env.step(int(rng.integers(env.action_space.n)))
                done = term or trunc
            assert info["illegal_actions"] > 0
    said = [str(w.message) for w in caught if "were illegal" in str(w.message)]
    assert len(said) == 1, said
    assert "MaskablePPO" in said[0] and " of " in said[0]
    # A masked policy is never warned.
    face._warned_illegal.discard("ed")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env.reset(seed=5)
        done = False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            _, _, term, trunc, info = env.step(int(rng.choice(legal)))
            done = term or trunc
    assert info["illegal_actions"] == 0
    assert not [w for w in caught if "were illegal" in str(w.message)]
