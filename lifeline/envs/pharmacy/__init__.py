"""``pharmacy``: central-pharmacy coordination (MedChain, ``lifeline/Pharmacy-v1``); see
README.md."""

# The env's public names, the same in every ``envs/<env>/``: ``Env`` (the core environment
# class), ``Params`` (its parameters), ``State`` (its state) and ``SCENARIOS`` (its scenarios).
from lifeline.envs.pharmacy.env import PharmacyEnv
from lifeline.envs.pharmacy.params import SCENARIOS, PharmacyParams
from lifeline.envs.pharmacy.types import PharmacyState

Env = PharmacyEnv
Params = PharmacyParams
State = PharmacyState

__all__ = ["SCENARIOS", "Env", "Params", "PharmacyEnv", "PharmacyParams", "PharmacyState", "State"]
