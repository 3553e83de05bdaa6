"""The batch ED-v3 as the fast PPO recipe drives it: :class:`~lifeline.envs.ed.batch_v3.EDBatchV3`
(``kernel_v3``, N envs per call) behind a minimal vector loop, with no copies.

Only the batch env's public face is used: ``reset_env``, ``step`` (with ``skip``), ``done``,
``grade``, ``obs``, ``mask``, ``reward``, ``terminated``, ``truncated``, ``seeds``, ``params``
and ``num_actions``. Two modes:

* ``episode_seeds`` given (training): an env whose episode ends is reset in the same step to the
  next seed of that iterator (a trainer passes its training-seed stream, so no episode can land
  on a validation or held-out seed); the returned observation is the new episode's first.
* ``episode_seeds=None`` (evaluation, cloning data): every env plays the one episode it was reset
  to; a finished env is skipped by later steps (reward 0, flags False).

``step`` returns ``(obs, reward, terminated, truncated, score)``; ``score`` is the grader's score
of the episodes that ended in this step and NaN elsewhere. ``obs`` holds the batch env's own
arrays (overwritten by the next step) plus ``action_mask`` (boolean, shape ``(N, A)``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from lifeline.envs.ed.batch_v3 import EDBatchV3
from lifeline.envs.ed.params import EDParams
from lifeline.faces.features import MASK_KEY


class EDv3Vec:
    """N ED-v3 episodes stepped together (module docstring)."""

    def __init__(self, num_envs: int, scenario: str,
                 episode_seeds: Iterator[int] | None = None) -> None:
        self.batch = EDBatchV3(num_envs, scenario)
        self.num_envs = num_envs
        self.episode_seeds = episode_seeds
        self.num_actions = int(self.batch.num_actions)
        self._finished = np.zeros(num_envs, dtype=np.bool_)

    @property
    def params(self) -> EDParams:
        return self.batch.params

    def _obs(self) -> dict[str, np.ndarray]:
        return {**self.batch.obs, MASK_KEY: self.batch.mask}

    def reset(self, seeds: Sequence[int]) -> dict[str, np.ndarray]:
        """Start env ``i`` on ``seeds[i]``."""
        if len(seeds) != self.num_envs:
            raise ValueError(f"{len(seeds)} seeds for {self.num_envs} envs")
        for i, seed in enumerate(seeds):
            self.batch.reset_env(i, int(seed))
        self._finished[:] = False
        return self._obs()

    def step(self, actions: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray,
                                                 np.ndarray, np.ndarray]:
        b = self.batch
        skip = self._finished.copy()
        b.step(np.asarray(actions, dtype=np.int64), skip)
        reward = np.where(skip, 0.0, b.reward)
        terminated = b.terminated & ~skip
        truncated = b.truncated & ~skip
        score = np.full(self.num_envs, np.nan)
        for i in np.flatnonzero(terminated | truncated):
            score[i] = b.grade(int(i)).score
            if self.episode_seeds is not None:
                b.reset_env(int(i), int(next(self.episode_seeds)))
            else:
                self._finished[i] = True
        return self._obs(), reward, terminated, truncated, score

    @property
    def finished(self) -> np.ndarray:
        """Envs whose single episode has ended (``episode_seeds=None`` only)."""
        return self._finished
