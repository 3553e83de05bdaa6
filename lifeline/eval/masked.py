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


def evaluate_masked(model: Any, env: Any, n_eval_episodes: int = 10,
                    seeds: Sequence[int] | None = None,
                    deterministic: bool = True) -> MaskedEvaluation:
    """Play ``model`` on ``env`` with the legal-action mask on every step.

    ``model`` needs ``predict(obs, deterministic=..., action_masks=mask)`` (MaskablePPO) — or a
    plain ``predict(obs, deterministic=...)``, then masked-out choices are counted in
    ``invalid``. ``env`` is a Gymnasium env id (``"lifeline/ED-v2"``) or env built from one
    (wrappers such as :class:`~lifeline.faces.gymnasium.FlattenMasked` included, matching
    what the model was trained on). ``seeds`` default to the held-out evaluation seeds
    ``1_000_000 + i``.
    """
    import gymnasium as gym

    if isinstance(env, str):
        env = gym.make(env)
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
