"""Every registered environment × scenario passes the conformance checker and Gymnasium's."""

from __future__ import annotations

import warnings

import gymnasium as gym
import pytest
from conftest import ENV_SCENARIOS
from gymnasium.utils.env_checker import check_env as gym_check_env

import lifeline
from lifeline.faces.gymnasium import FlattenMasked
from lifeline.testing import check_env


@pytest.mark.parametrize(("env_name", "scenario"), ENV_SCENARIOS)
def test_conformance(env_name: str, scenario: str) -> None:
    results = check_env(env_name, scenario)
    assert all(r.passed for r in results)


@pytest.mark.parametrize(("env_name", "scenario"), ENV_SCENARIOS)
def test_gymnasium_env_checker(env_name: str, scenario: str) -> None:
    env = gym.make(lifeline.spec(env_name).gym_id, scenario=scenario)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any checker warning is a failure
        gym_check_env(env.unwrapped, skip_render_check=False)
    flat = FlattenMasked(env.unwrapped)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=".*different from the unwrapped.*")
        gym_check_env(flat)
    assert flat.action_masks().any()
