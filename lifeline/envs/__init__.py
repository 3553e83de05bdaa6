"""Built-in environments. Each registers itself here by import path (nothing heavy is imported)."""

from lifeline.core.registry import EnvSpec, register

register(EnvSpec(
    name="ed",
    gym_id="lifeline/ED-v0",
    entry_point="lifeline.envs.ed.env:EDEnv",
    scenarios=("normal_day", "surge", "mass_casualty", "night_shift", "ventilator_crisis",
               "icu_boarding"),
    tags=("healthcare", "triage", "allocation", "discrete-time"),
    description="Emergency-department triage and bed/ICU/ventilator allocation over a 24 h shift.",
    agents=("noop", "random", "heuristic", "bound"),
))
