"""Environment-agnostic core: the env contract, specs, seeded streams and the registry.

Imports numpy and the standard library only.
"""

from lifeline.core.env import Action, CoreState, Environment, Grade, TimeStep
from lifeline.core.registry import EnvSpec, all_specs, make, register, spec
from lifeline.core.rng import check_seed, make_streams
from lifeline.core.specs import ArraySpec

__all__ = [
    "Action", "ArraySpec", "CoreState", "EnvSpec", "Environment", "Grade", "TimeStep",
    "all_specs", "check_seed", "make", "make_streams", "register", "spec",
]
