"""``codered``: multi-hospital mass-casualty coordination in Prakashnagar (see README.md)."""

# The env's public names, the same in every ``envs/<env>/``: ``Env`` (the core environment
# class), ``Params`` (its parameters), ``State`` (its state) and ``SCENARIOS`` (its scenarios).
from lifeline.envs.codered.env import CodeRedEnv
from lifeline.envs.codered.params import SCENARIOS, CodeRedParams
from lifeline.envs.codered.types import CodeRedState

Env = CodeRedEnv
Params = CodeRedParams
State = CodeRedState

__all__ = ["SCENARIOS", "CodeRedEnv", "CodeRedParams", "CodeRedState", "Env", "Params", "State"]
