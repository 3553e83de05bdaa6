"""Evaluate a masked policy (e.g. sb3-contrib MaskablePPO) on a Lifeline Gymnasium env.

Stable-Baselines3's ``stable_baselines3.common.evaluation.evaluate_policy`` never passes action
masks, so a MaskablePPO policy evaluated with it plays illegal actions (each one a wasted turn on
Lifeline) and scores far below what it learned — on ``ed`` it reported -768 ± 0. Use either
sb3-contrib's own ``sb3_contrib.common.maskable.evaluation.evaluate_policy`` (masks, mean
reward only) or :func:`evaluate_masked` here, which also returns the grader's score per episode
and plays the held-out evaluation seeds by default, so its numbers are comparable with
``lifeline eval``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

EVAL_SEED_BASE = 1_000_000  # lifeline.eval.seeds.EVAL_SEED_BASE (held-out seeds)


@dataclass(frozen=True)
class MaskedEvaluation:
    """Per-episode results of :func:`evaluate_masked` and their means."""

    seeds: list[int]
    returns: list[float]
    scores: list[float]
    lengths: list[int]
    invalid: list[int] = field(default_factory=list)

    @property
    def mean_return(self) -> float:
        return float(np.mean(self.returns))

    @property
    def mean_score(self) -> float:
        return float(np.mean(self.scores))

    def __str__(self) -> str:
        return (f"{len(self.seeds)} episodes: score {self.mean_score:.3f}, return "
                f"{self.mean_return:.1f}, invalid actions {sum(self.invalid)}")


def _same_space(a: Any, b: Any) -> bool:
    """Spaces equal in type and shape (bounds may differ by dtype rounding after a save)."""
    from gymnasium import spaces

    if isinstance(a, spaces.Dict) and isinstance(b, spaces.Dict):
        return a.spaces.keys() == b.spaces.keys() and all(
            _same_space(a[k], b[k]) for k in a.spaces)
    return type(a) is type(b) and getattr(a, "shape", None) == getattr(b, "shape", None)


def match_observations(env: Any, model_space: Any) -> Any:
    """``env``, wrapped in the flat face whose observation space is ``model_space``'s.

    A model trained on ``FlattenMasked(gym.make(id))`` has a ``Box`` observation space; playing
    it on ``gym.make(id)`` would hand it ``Dict`` observations. This returns ``env`` unchanged
    when its space already matches (or ``model_space`` is ``None``), else ``FlattenMasked(env)``
    or ``FlatBox(env, mask)`` for the first layout with the model's shapes, and raises a
    one-line ``ValueError`` naming both shapes when none has them.
    """
    from gymnasium import spaces

    from lifeline.faces.flat import FlatBox
    from lifeline.faces.gymnasium import FlattenMasked

    if model_space is None or _same_space(env.observation_space, model_space):
        return env
    space = env.observation_space
    if isinstance(space, spaces.Dict) and "action_mask" in space.spaces:
        candidates = [FlattenMasked(env), FlatBox(env, "first"), FlatBox(env, "dict")]
        for wrapped in candidates:
            if _same_space(wrapped.observation_space, model_space):
                return wrapped

    def shape(space: Any) -> str:
        if isinstance(space, spaces.Dict):
            return "Dict(" + ", ".join(f"{k}={shape(v)}" for k, v in space.spaces.items()) + ")"
        return f"{type(space).__name__}{getattr(space, 'shape', '')}"
    raise ValueError(f"the model observes {shape(model_space)} but the env gives "
                     f"{shape(env.observation_space)}; no flat face of it (FlattenMasked, "
                     f"FlatBox first/dict) matches: pass the env the model was trained on")


def evaluate_masked(model: Any, env: Any, n_eval_episodes: int = 10,
                    seeds: Sequence[int] | None = None,
                    deterministic: bool = True) -> MaskedEvaluation:
    """Play ``model`` on ``env`` with the legal-action mask on every step.

    ``model`` needs ``predict(obs, deterministic=..., action_masks=mask)`` (MaskablePPO) — or a
    plain ``predict(obs, deterministic=...)``, then masked-out choices are counted in
    ``invalid``. ``env`` is a Gymnasium env id (``"lifeline/ED-v3"``) or env built from one
    (wrappers such as :class:`~lifeline.faces.gymnasium.FlattenMasked` included, matching
    what the model was trained on). A model whose ``observation_space`` is a flat face of the
    env's ``Dict`` (``FlattenMasked`` or a :class:`~lifeline.faces.flat.FlatBox` layout) gets
    the env wrapped to match (:func:`match_observations`). ``seeds`` default to the held-out
    evaluation seeds ``1_000_000 + i``.
    """
    import gymnasium as gym

    if isinstance(env, str):
        env = gym.make(env)
    env = match_observations(env, getattr(model, "observation_space", None))
    seeds = list(seeds) if seeds is not None else [EVAL_SEED_BASE + i
                                                   for i in range(n_eval_episodes)]
    returns, scores, lengths, invalid = [], [], [], []
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        total, steps, bad, done = 0.0, 0, 0, False
        while not done:
            mask = np.asarray(env.get_wrapper_attr("action_masks")(), dtype=bool)
            try:
                action, _ = model.predict(obs, deterministic=deterministic, action_masks=mask)
            except TypeError:  # a policy without mask support
                action, _ = model.predict(obs, deterministic=deterministic)
            action = int(np.asarray(action).item())
            bad += int(not mask[action])
            obs, reward, terminated, truncated, info = env.step(action)
            total += float(reward)
            steps += 1
            done = terminated or truncated
        returns.append(total)
        scores.append(float(info.get("score", np.nan)))
        lengths.append(steps)
        invalid.append(bad)
    return MaskedEvaluation(seeds, returns, scores, lengths, invalid)
