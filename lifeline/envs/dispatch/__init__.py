"""Emergency medical dispatch on a city road graph (``lifeline/Dispatch-v4``,
``lifeline/DispatchMetro-v4``); see README.md."""

# The env's public names, the same in every ``envs/<env>/``: ``Env`` (the core environment
# class), ``Params`` (its parameters), ``State`` (its state) and ``SCENARIOS`` (its scenarios).
from lifeline.envs.dispatch.env import DispatchEnv, DispatchMetroEnv
from lifeline.envs.dispatch.params import SCENARIO_NAMES, DispatchParams
from lifeline.envs.dispatch.types import DispatchState

Env = DispatchEnv
Params = DispatchParams
State = DispatchState
SCENARIOS = SCENARIO_NAMES
"""The scenario names (``params.scenario_params`` builds one on demand: the metro city is
generated, so a name -> params dict would build it at import)."""

__all__ = ["SCENARIOS", "DispatchEnv", "DispatchMetroEnv", "DispatchParams", "DispatchState", "Env",
           "Params", "State"]
