"""EV charging on a feeder-constrained Bangalore grid (``lifeline/EVGrid-v3``).

``parallel_env(scenario)`` gives the two-role PettingZoo face (needs the ``marl`` extra).
"""

from __future__ import annotations

from typing import Any

# The env's public names, the same in every ``envs/<env>/``: ``Env`` (the core environment
# class), ``Params`` (its parameters), ``State`` (its state) and ``SCENARIOS`` (its scenarios).
from lifeline.envs.evgrid.env import EVGridEnv
from lifeline.envs.evgrid.params import SCENARIOS, EVGridParams
from lifeline.envs.evgrid.types import EVGridState

Env = EVGridEnv
Params = EVGridParams
State = EVGridState

__all__ = ["SCENARIOS", "EVGridEnv", "EVGridParams", "EVGridState", "Env", "Params", "State",
           "parallel_env"]


def parallel_env(scenario: str = "baseline", render_mode: str | None = None) -> Any:
    """The two-role (``operator``, ``dispatcher``) PettingZoo ``ParallelEnv`` of ``evgrid``."""
    from lifeline.envs.evgrid.marl import parallel_env as make

    return make(scenario, render_mode=render_mode)
