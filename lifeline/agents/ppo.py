"""A trained MaskablePPO policy as a Lifeline agent (``make_agent("ppo:PATH", env)``).

``PATH`` is a run directory written by :func:`lifeline.train.ppo.train_ppo` (or its
``model.zip``). The agent rebuilds the policy input from the *core* observation with the same
:func:`lifeline.faces.features.features` the training wrapper used, masks illegal actions with
``env.action_mask(state)``, and takes the most probable action — deterministic, so evaluations
are reproducible.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from lifeline.core.agent import Agent
from lifeline.core.env import Action, Environment
from lifeline.faces.features import feature_keys, features

MODEL_FILE = "model.zip"
METADATA_FILE = "metadata.json"


def resolve_run(path: str | Path) -> tuple[Path, Path]:
    """``(model.zip, metadata.json)`` of a run directory or model file, or ``FileNotFoundError``."""
    p = Path(path)
    model = p / MODEL_FILE if p.is_dir() else p
    if not model.is_file() and model.with_suffix(".zip").is_file():
        model = model.with_suffix(".zip")
    if not model.is_file():
        raise FileNotFoundError(f"no PPO model at {path!s} (expected a run directory with "
                                f"{MODEL_FILE} or the model file itself)")
    meta = model.parent / METADATA_FILE
    if not meta.is_file():
        raise FileNotFoundError(f"no {METADATA_FILE} beside {model}")
    return model, meta


class PPOAgent(Agent):
    """Deterministic (arg-max) MaskablePPO policy loaded from a training run."""

    def __init__(self, path: str | Path) -> None:
        from sb3_contrib import MaskablePPO

        model_path, meta_path = resolve_run(path)
        self.path = model_path.parent
        self.metadata: dict[str, Any] = json.loads(meta_path.read_text())
        self.model = MaskablePPO.load(model_path, device="cpu")
        self.name = f"ppo:{path}"
        self._keys: list[str] = list(self.metadata["features"]["keys"])

    def _check(self, env: Environment) -> None:
        meta = self.metadata
        if env.name != meta["env"]:
            raise ValueError(f"this PPO model was trained on {meta['env']!r}, not {env.name!r}")
        if env.version != meta["env_version"]:
            raise ValueError(f"this PPO model was trained on {env.name} v{meta['env_version']}, "
                             f"the environment is v{env.version}; retrain it")
        if env.num_actions != meta["num_actions"]:
            raise ValueError(f"action count {env.num_actions} != trained {meta['num_actions']} "
                             f"(scenario {env.scenario!r} has a different layout?)")
        if feature_keys(list(env.observation_spec())) != self._keys:
            raise ValueError("observation layout differs from the one the model was trained on")

    def reset(self, env: Environment, seed: int) -> None:
        self._check(env)

    def act(self, env: Environment, state: Any) -> Action | int:
        mask = np.asarray(env.action_mask(state), dtype=bool)
        if not mask.any():
            return env.noop_action()
        obs = features(env.observe(state), self._keys)
        action, _ = self.model.predict(obs, deterministic=True, action_masks=mask)
        return int(np.asarray(action).item())
