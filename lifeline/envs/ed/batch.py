"""The batch ED's Gymnasium face: :class:`EDVectorEnv`, what ``gymnasium.make_vec(
"lifeline/ED-v3", num_envs=N)`` returns (:func:`make_vector_env`, the id's
``vector_entry_point``).

The engine underneath is :class:`lifeline.envs.ed.batch_v3.EDBatchV3`: N environments held as
arrays and stepped together by :mod:`lifeline.envs.ed.kernel_v3`, the same kernel the scalar
:class:`~lifeline.envs.ed.env.EDEnv` steps with (N = 1), so the batch env *is* the scalar env
(``tests/envs/ed/test_ed_kernel_v3.py`` and ``test_ed_batch_parity.py`` check it step for step
and against Gymnasium's ``SyncVectorEnv`` of scalar envs). With numba (extra ``fast``) the
kernel is compiled; without it, it runs as plain Python (slow, same results).
``lifeline.faces.gymnasium.make_vector_env(..., batch=False)`` builds the Python loop of scalar
envs instead.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector.utils import batch_space
from gymnasium.vector.vector_env import AutoresetMode

from lifeline.envs.ed.batch_v3 import EDBatchV3
from lifeline.envs.ed.params import SCENARIOS, EDParams, check_version


class EDVectorEnv(gym.vector.VectorEnv[dict[str, np.ndarray], np.ndarray, np.ndarray]):
    """N ED environments stepped together by the kernel (:class:`EDBatchV3`), as a Gymnasium
    ``VectorEnv``.

    Same spaces as ``gymnasium.make("lifeline/ED-v3")`` (a ``Dict`` observation with
    ``action_mask`` as int8, ``Discrete`` actions), batched. Sub-env ``i`` is seeded like
    ``SyncVectorEnv`` seeds its copies: ``reset(seed=s)`` gives env ``i`` the episode seed
    ``s + i`` and a ``np_random`` from which every later (auto-)reset draws its episode seed, as
    :class:`lifeline.faces.gymnasium.LifelineGymEnv` does, so the batch env and the Python loop
    of scalar envs give the same episodes for the same seed. ``autoreset_mode``: ``NEXT_STEP``
    (Gymnasium's default: the step after an episode ends resets that env, its action is ignored,
    reward 0) or ``SAME_STEP`` (the ending step returns the next episode's first observation;
    the last one is in ``infos["final_obs"]``). ``infos`` carry per-env arrays (with Gymnasium's
    ``_key`` masks): ``action_mask`` (boolean (N, A), as every id's ``SyncVectorEnv`` stacks it),
    ``valid``, ``ticks``, ``deaths``, ``treated``, ``early_stopped``, and at the
    end of an episode ``score``, ``episode_return`` and the grade ``components``.
    ``action_masks()`` returns the boolean masks (N, A). ``copy=False`` returns the internal
    observation buffers (overwritten by the next step) instead of copies. ``episode_seeds``
    (an iterator) supplies every episode seed not given to ``reset`` (a trainer passes its
    training-seed stream so no auto-reset can land on a held-out seed). ``version`` must be 3
    (:func:`check_version`).
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(self, num_envs: int = 1, scenario: str | None = None,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                 copy: bool = True, params: EDParams | None = None,
                 episode_seeds: Iterator[int] | None = None, version: int = 3) -> None:
        from lifeline.faces.gymnasium import observation_space

        check_version(version)

        mode = AutoresetMode(autoreset_mode)
        if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise ValueError(f"autoreset_mode {mode} is not supported (NEXT_STEP or SAME_STEP)")
        scenario = scenario or next(iter(SCENARIOS))
        self.batch = EDBatchV3(num_envs, scenario, params=params)
        self.core = self.batch.core
        self.num_envs = num_envs
        self.metadata = {"autoreset_mode": mode}
        self.copy = copy
        self.single_observation_space = observation_space(self.core)
        self.single_action_space = spaces.Discrete(self.core.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._np_randoms: list[np.random.Generator | None] = [None] * num_envs
        self._autoreset = np.zeros(num_envs, dtype=np.bool_)
        self._started = False
        self.episode_seeds = episode_seeds

    # ----- helpers ---------------------------------------------------------------------------
    def _episode_seed(self, i: int, seed: int | None) -> int:
        """The next episode seed of env ``i`` (``LifelineGymEnv.reset``'s rule, or the next value
        of ``episode_seeds`` when given: e.g. training seeds only)."""
        if self.episode_seeds is not None and seed is None:
            return int(next(self.episode_seeds))
        if seed is not None:
            self._np_randoms[i], _ = seeding.np_random(seed)
            return int(seed)
        rng = self._np_randoms[i]
        if rng is None:
            rng, _ = seeding.np_random()
            self._np_randoms[i] = rng
        return int(rng.integers(0, 2**31 - 1))

    def _obs(self) -> dict[str, np.ndarray]:
        b = self.batch
        obs = {k: (v.copy() if self.copy else v) for k, v in b.obs.items()}
        obs["action_mask"] = b.mask.astype(np.int8) if self.copy else b.mask.view(np.int8)
        return obs

    def _row_obs(self, i: int) -> dict[str, np.ndarray]:
        b = self.batch
        row = {k: v[i].copy() for k, v in b.obs.items()}
        row["action_mask"] = b.mask[i].astype(np.int8)
        return row

    def action_masks(self) -> np.ndarray:
        """Boolean masks of the legal actions, shape ``(num_envs, num_actions)``."""
        if not self._started:
            raise gym.error.ResetNeeded("call reset() before action_masks()")
        return self.batch.mask.copy()

    # ----- gymnasium API -------------------------------------------------------------------
    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None,
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        n = self.num_envs
        if seed is None:
            seeds: list[int | None] = [None] * n
        elif isinstance(seed, (int, np.integer)):
            seeds = [int(seed) + i for i in range(n)]
        else:
            seeds = list(seed)
            if len(seeds) != n:
                raise ValueError(f"seed list has {len(seeds)} entries, expected {n}")
        episode = np.zeros(n, dtype=np.int64)
        for i in range(n):
            episode[i] = self._episode_seed(i, seeds[i])
            self.batch.reset_env(i, int(episode[i]))
        self._autoreset[:] = False
        self._started = True
        return self._obs(), {"seed": episode, "_seed": np.ones(n, dtype=np.bool_),
                             "action_mask": self.batch.mask.copy(),
                             "_action_mask": np.ones(n, dtype=np.bool_)}

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray,
                                          np.ndarray, dict[str, Any]]:
        if not self._started:
            raise gym.error.ResetNeeded("call reset() before step()")
        b, n = self.batch, self.num_envs
        acts = np.asarray(actions).reshape(n)
        skip = self._autoreset
        restarted = np.flatnonzero(skip)
        for i in restarted:  # NEXT_STEP: the step after the end resets, the action is ignored
            b.reset_env(int(i), self._episode_seed(int(i), None))
        b.step(acts, skip)
        reward = b.reward.copy()
        terminated = b.terminated.copy()
        truncated = b.truncated.copy()
        if len(restarted):
            reward[restarted] = 0.0
            terminated[restarted] = False
            truncated[restarted] = False
        stepped = ~skip
        infos: dict[str, Any] = {}
        for j, key in enumerate(("ticks", "deaths", "treated", "early_stopped")):
            column = b.info_ev[:, j]
            infos[key] = column.astype(bool) if key == "early_stopped" else column.copy()
            infos[f"_{key}"] = stepped
        infos["valid"] = b.valid.copy()
        infos["_valid"] = stepped
        infos["action_mask"] = b.mask.copy()  # like SyncVectorEnv's stacked info["action_mask"]
        infos["_action_mask"] = np.ones(n, dtype=np.bool_)
        ended = np.flatnonzero(terminated | truncated)
        if len(ended):
            self._end_infos(infos, ended)
        if self.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP and len(ended):
            final_obs = np.full(n, None, dtype=object)
            for i in ended:
                final_obs[i] = self._row_obs(int(i))
                b.reset_env(int(i), self._episode_seed(int(i), None))
            infos["final_obs"] = final_obs
            infos["_final_obs"] = np.isin(np.arange(n), ended)
            self._autoreset = np.zeros(n, dtype=np.bool_)
        else:
            self._autoreset = terminated | truncated
        infos["action_mask"] = b.mask.copy()  # the masks of the returned observations
        infos["_action_mask"] = np.ones(n, dtype=np.bool_)
        return self._obs(), reward, terminated, truncated, infos

    def _end_infos(self, infos: dict[str, Any], ended: np.ndarray) -> None:
        """Score, return and grade components of the episodes that ended this step."""
        n = self.num_envs
        mask = np.zeros(n, dtype=np.bool_)
        mask[ended] = True
        score = np.zeros(n)
        ret = np.zeros(n)
        comps: dict[str, np.ndarray] = {}
        for i in ended:
            grade = self.batch.grade(int(i))
            score[i] = grade.score
            ret[i] = self.batch.episode_return(int(i))
            for key, value in grade.components.items():
                comps.setdefault(key, np.zeros(n))[i] = value
        infos.update({"score": score, "_score": mask, "episode_return": ret,
                      "_episode_return": mask, "components": comps, "_components": mask})

    def render(self) -> tuple[Any, ...] | None:
        return None


def make_vector_env(num_envs: int = 1, lifeline_env: str = "ed", scenario: str | None = None,
                    render_mode: str | None = None, asynchronous: bool = False,
                    max_episode_steps: int | None = None, batch: bool = True,
                    autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                    copy: bool = True, version: int = 3,
                    **unknown: Any) -> gym.vector.VectorEnv[Any, Any, Any]:
    """ed's ``vector_entry_point``. ``gym.make_vec("lifeline/ED-v3", num_envs=N)`` is an
    :class:`EDVectorEnv` over the ED-v3 array kernel (``kernel_v3``; plain Python without
    numba); ``batch=False``, ``asynchronous=True`` or a ``render_mode`` give Gymnasium's loop of
    scalar envs (:func:`lifeline.faces.gymnasium.make_vector_env`). ``version`` other than 3
    fails (:func:`check_version`)."""
    from lifeline.faces import gymnasium as adapter

    check_version(version)
    if not batch or asynchronous or render_mode is not None:
        return adapter.make_vector_env(num_envs, lifeline_env, scenario, render_mode,
                                       asynchronous, max_episode_steps, **unknown)
    if max_episode_steps is not None:
        unknown["max_episode_steps"] = max_episode_steps  # episodes end by the env's own clock
    if unknown or lifeline_env != "ed":
        raise TypeError(
            f"lifeline/ED: unexpected keyword argument(s) {', '.join(sorted(unknown))}; "
            f"accepted: num_envs, scenario, render_mode, asynchronous, batch, autoreset_mode, "
            f"copy")
    return EDVectorEnv(num_envs, scenario, autoreset_mode=autoreset_mode, copy=copy)
