"""A Gymnasium face whose scenario follows a curriculum (used by ``train ppo --curriculum``).

The curriculum object (e.g. :class:`lifeline.envs.dispatch.curriculum.Curriculum`) is explicit and
lives outside ``reset(seed)``: at each reset this face asks it for the current level, resets that
level's environment with the caller's seed (a training seed under :class:`TrainingEnv`), and at
the end of each episode reports the grader score back so the curriculum can escalate or
de-escalate. All levels must share one id (fixed spaces), e.g. the difficulties of one city.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol, SupportsFloat

import gymnasium as gym
import numpy as np

from lifeline.core.registry import spec
from lifeline.faces.gymnasium import LifelineGymEnv


class LevelSchedule(Protocol):
    """What the face needs from a curriculum."""

    levels: tuple[str, ...]
    level: int

    def record(self, score: float) -> str: ...


def make_env_curriculum(env_name: str, target: str, seed_start: int = 0) -> Any:
    """The env's own curriculum up to ``target`` (its package's ``curriculum.make_curriculum``).

    ``ValueError`` if the environment ships none.
    """
    package = spec(env_name).entry_point.partition(":")[0].rpartition(".")[0]
    try:
        module = importlib.import_module(package + ".curriculum")
    except ModuleNotFoundError:
        module = None
    if module is None or not hasattr(module, "make_curriculum"):
        raise ValueError(f"{env_name} has no curriculum (no {package}.curriculum.make_curriculum)")
    return module.make_curriculum(target, seed_start=seed_start)


class CurriculumFace(gym.Env[dict[str, np.ndarray], np.int64]):
    """One Gymnasium env per curriculum level; ``reset`` plays the curriculum's current level."""

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 - gymnasium convention

    def __init__(self, env_name: str, curriculum: LevelSchedule) -> None:
        self.curriculum = curriculum
        self.faces = {sc: LifelineGymEnv(env_name, sc) for sc in curriculum.levels}
        first = self.faces[curriculum.levels[0]]
        for face in self.faces.values():
            if face.action_space != first.action_space:
                raise ValueError("curriculum levels must share their spaces (one id, one city)")
        self.observation_space = first.observation_space
        self.action_space = first.action_space
        self.current = first
        self.scenario = curriculum.levels[0]

    @property
    def core(self) -> Any:
        return self.current.core

    @property
    def state(self) -> Any:
        return self.current.state

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None,
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        self.scenario = self.curriculum.levels[self.curriculum.level]
        self.current = self.faces[self.scenario]
        obs, info = self.current.reset(seed=seed, options=options)
        info["scenario"] = self.scenario
        return obs, info

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], SupportsFloat, bool, bool,
                                         dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.current.step(action)
        if terminated or truncated:
            info["scenario"] = self.scenario
            self.curriculum.record(float(info["score"]))
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.current.action_masks()
