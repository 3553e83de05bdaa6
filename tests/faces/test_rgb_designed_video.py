"""``render_mode="rgb_array"`` draws the designed pictures (the same frames as the web pages),
and ``gymnasium.wrappers.RecordVideo`` turns them into a video, for one id per environment."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import lifeline  # noqa: F401  (registers the ids)
from lifeline.core.jsonable import clean
from lifeline.core.registry import make, spec
from lifeline.faces.raster import DESIGNED, frame_to_rgb

pytest.importorskip("moviepy")

# (env, scenario, colour that only its designed picture paints, pixels of it at least)
CASES = {
    "codered": ("task3", (0xAD, 0x14, 0x57), 300),  # the blood-stock gauges
    "pharmacy": ("medium", (0xC6, 0x28, 0x28), 300),  # empty cells of the stock heat map
    "evgrid": ("heatwave_peak", (0xEC, 0xEF, 0xF1), 2000),  # the feeder bars' background
    "evgrid_team": ("baseline", (0xEC, 0xEF, 0xF1), 2000),
    "dispatch_metro": ("metro_learning", (0x2E, 0x7D, 0x32), 150),  # hospitals, idle units
}


def _pixels_of(img: np.ndarray, rgb: tuple[int, int, int]) -> int:
    return int(np.all(np.abs(img.astype(int) - np.asarray(rgb)) <= 6, axis=-1).sum())


@pytest.mark.parametrize("env_name", sorted(CASES))
def test_rgb_array_is_the_designed_picture(env_name: str) -> None:
    scenario, colour, least = CASES[env_name]
    assert env_name in DESIGNED or env_name == "dispatch_metro"  # the metro: dispatch's map
    env = make(env_name, scenario)
    state = env.reset(3)
    for _ in range(8):
        if state.done:
            break
        env.step(state, int(np.flatnonzero(env.action_mask(state))[0]))
    static, frame = clean(env.frame_static()), clean(env.frame(state))
    img = frame_to_rgb(env_name, static, frame)
    assert img.shape == (480, 640, 3) and img.dtype == np.uint8
    assert _pixels_of(img, colour) >= least
    generic = frame_to_rgb("generic-card", static, frame)  # what it drew before: text only
    assert _pixels_of(generic, colour) < least


@pytest.mark.parametrize("env_name", sorted(CASES))
def test_record_video_of_the_designed_frames(env_name: str, tmp_path: Path) -> None:
    scenario, colour, least = CASES[env_name]
    env = gym.make(spec(env_name).gym_id, render_mode="rgb_array", scenario=scenario)
    env = gym.wrappers.RecordVideo(env, str(tmp_path / "video"), episode_trigger=lambda e: e == 0,
                                   video_length=6, disable_logger=True)
    _, info = env.reset(seed=3)
    for _ in range(8):
        mask = info.get("action_mask")
        action = int(np.flatnonzero(mask)[0]) if mask is not None else 0
        _, _, term, trunc, info = env.step(action)
        if term or trunc:
            break
    assert _pixels_of(env.render(), colour) >= least  # what the video shows: the designed frame
    env.close()
    videos = sorted((tmp_path / "video").glob("*.mp4"))
    assert videos and videos[0].stat().st_size > 1000
