"""``ed``: emergency-department triage, physicians, diagnostics and bed/ICU/ventilator allocation
(``lifeline/ED-v3``); see README.md."""

# The env's public names, the same in every ``envs/<env>/``: ``Env`` (the core environment
# class), ``Params`` (its parameters), ``State`` (its state) and ``SCENARIOS`` (its scenarios).
from lifeline.envs.ed.env import EDEnv
from lifeline.envs.ed.params import SCENARIOS, EDParams
from lifeline.envs.ed.types import EDState

Env = EDEnv
Params = EDParams
State = EDState

__all__ = ["SCENARIOS", "EDEnv", "EDParams", "EDState", "Env", "Params", "State"]
