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
