"""The flat PettingZoo face (extra ``marl``): per-agent ``Dict`` observations as one ``Box``.

The layouts are those of :mod:`lifeline.faces.flat`; this module needs ``pettingzoo`` (the
``marl`` extra), that one does not. ``supersuit.pettingzoo_env_to_vec_env_v1(FlatParallel(
lifeline.envs.evgrid.parallel_env(), pad=True))`` is a vector env of the two-role ``evgrid``.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseParallelWrapper

from lifeline.faces.flat import MASK_KEY, FlatLayout, MaskLayout


class FlatParallel(BaseParallelWrapper):
    """A PettingZoo ``ParallelEnv`` with each agent's ``Dict`` observation flattened.

    ``FlatParallel(lifeline.envs.evgrid.parallel_env())``: the layouts of the module docstring,
    per agent; ``infos[agent]["action_mask"]`` (boolean, padded with ``pad``) and
    ``action_mask(agent)``. ``pad=True`` makes every agent's spaces identical (SuperSuit's
    ``pettingzoo_env_to_vec_env_v1`` requires that).
    """

    def __init__(self, env: Any, mask: MaskLayout = "first", pad: bool = False) -> None:
        super().__init__(env)
        agents = list(env.possible_agents)
        raw = {a: FlatLayout(env.observation_space(a), mask) for a in agents}
        n_max = max(int(env.action_space(a).n) for a in agents)
        f_max = max(layout.own_features for layout in raw.values())
        self.pad = pad
        self.layouts = {a: FlatLayout(env.observation_space(a), mask,
                                      num_actions=n_max if pad else int(env.action_space(a).n),
                                      features=f_max if pad else None) for a in agents}
        if pad:  # one space for all: the elementwise union of the agents' feature bounds
            low = np.minimum.reduce([layout.low for layout in self.layouts.values()])
            high = np.maximum.reduce([layout.high for layout in self.layouts.values()])
            for layout in self.layouts.values():
                layout.low, layout.high = low, high
        self._obs_spaces = {a: self.layouts[a].space() for a in agents}
        self._act_spaces = {a: spaces.Discrete(n_max) if pad else env.action_space(a)
                            for a in agents}
        self._masks: dict[str, np.ndarray] = {}

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._act_spaces[agent]

    def action_mask(self, agent: str) -> np.ndarray:
        """Boolean legal-action mask of ``agent`` now (padded to ``A_max`` with ``pad``)."""
        return self._masks[agent].copy()

    def _convert(self, obs: dict[str, Any], infos: dict[str, Any]
                 ) -> tuple[dict[str, Any], dict[str, Any]]:
        flat, out_infos = {}, {}
        for agent, o in obs.items():
            layout = self.layouts[agent]
            self._masks[agent] = layout.padded_mask(o).astype(bool)
            flat[agent] = layout.flatten(o)
            out_infos[agent] = {**infos.get(agent, {}), MASK_KEY: self._masks[agent].copy()}
        return flat, out_infos

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        obs, infos = self.env.reset(seed=seed, options=options)
        return self._convert(obs, infos)

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, SupportsFloat],
                                                   dict[str, bool], dict[str, bool],
                                                   dict[str, Any]]:
        obs, rewards, terminated, truncated, infos = self.env.step(
            {a: int(np.asarray(v).item()) for a, v in actions.items()})
        flat, out_infos = self._convert(obs, infos)
        return flat, rewards, terminated, truncated, out_infos
