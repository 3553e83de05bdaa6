"""EV charging on a feeder-constrained Bangalore grid (``lifeline/EVGrid-v3``).

``parallel_env(scenario)`` gives the two-role PettingZoo face (needs the ``marl`` extra).
"""

from __future__ import annotations

from typing import Any


def parallel_env(scenario: str = "baseline", render_mode: str | None = None) -> Any:
    """The two-role (``operator``, ``dispatcher``) PettingZoo ``ParallelEnv`` of ``evgrid``."""
    from lifeline.envs.evgrid.marl import parallel_env as make

    return make(scenario, render_mode=render_mode)
