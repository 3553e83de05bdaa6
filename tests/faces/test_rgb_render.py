"""Gymnasium rendering: ansi / rgb_array / human, Gymnasium-style warnings, RecordVideo, SB3."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import lifeline

IDS = [(s.gym_id, s.default_scenario) for s in lifeline.all_specs()]


def _steps(env: gym.Env, n: int) -> None:
    for _ in range(n):
        mask = env.unwrapped.action_masks().astype(np.int8)  # type: ignore[attr-defined]
        _, _, term, trunc, _ = env.step(env.action_space.sample(mask=mask))
        if term or trunc:
            env.reset()


@pytest.mark.parametrize(("gym_id", "scenario"), IDS)
def test_rgb_array_is_a_picture_of_the_frame(gym_id: str, scenario: str) -> None:
    env = gym.make(gym_id, scenario=scenario, render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"]
    env.reset(seed=1)
    first = env.render()
    _steps(env, 20)
    later = env.render()
    for img in (first, later):
        assert isinstance(img, np.ndarray) and img.dtype == np.uint8
        assert img.ndim == 3 and img.shape[2] == 3 and img.shape[0] >= 200
        assert img.std() > 5  # something is drawn
    assert not np.array_equal(first, later)  # the picture follows the episode


def test_ansi_and_human(capsys: pytest.CaptureFixture[str]) -> None:
    env = gym.make("lifeline/ED-v3", render_mode="ansi")
    env.reset(seed=0)
    assert env.render().startswith("ED shift")
    human = gym.make("lifeline/ED-v3", render_mode="human")
    human.reset(seed=0)
    assert human.render() is None
    assert "ED shift" in capsys.readouterr().out  # reset rendered by itself


def test_unsupported_or_missing_mode_warns_instead_of_raising() -> None:
    with pytest.warns(UserWarning, match="not supported"):
        env = lifeline.faces.gymnasium.LifelineGymEnv("ed", render_mode="rgb_array_list")
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert env.render() is None


def test_record_video(tmp_path: Path) -> None:
    pytest.importorskip("moviepy")
    from gymnasium.wrappers import RecordVideo

    env = RecordVideo(gym.make("lifeline/ED-v3", render_mode="rgb_array"), str(tmp_path / "v"),
                      episode_trigger=lambda _: True, video_length=12, disable_logger=True)
    env.reset(seed=3)
    _steps(env, 14)
    env.close()
    videos = list((tmp_path / "v").glob("*.mp4"))
    assert videos and videos[0].stat().st_size > 1000


def test_sb3_make_vec_env() -> None:
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_util import make_vec_env

    venv = make_vec_env("lifeline/ED-v3", n_envs=2, seed=0)
    obs = venv.reset()
    assert obs["action_mask"].shape[0] == 2
    venv.step(np.zeros(2, dtype=np.int64))  # wait is always legal
    frames = venv.get_images()
    assert len(frames) == 2 and frames[0].shape[2] == 3
    venv.close()
