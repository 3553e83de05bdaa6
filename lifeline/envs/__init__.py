"""Built-in environments. Each registers itself here by import path (nothing heavy is imported)."""

from lifeline.core.registry import EnvSpec, register

DISPATCH_EXPLOITS = ("swarm", "aid_spam", "type_blind", "park_then_answer", "verify_everything",
                     "ignore_priority", "reroute_churn", "relocate_churn")
"""dispatch's exploit policies (``lifeline.envs.dispatch.baselines``), shared by both cities."""

register(EnvSpec(
    name="ed",
    gym_id="lifeline/ED-v0",
    entry_point="lifeline.envs.ed.env:EDEnv",
    scenarios=("normal_day", "surge", "mass_casualty", "night_shift", "ventilator_crisis",
               "icu_boarding"),
    tags=("healthcare", "triage", "allocation", "discrete-time"),
    description="Emergency-department triage and bed/ICU/ventilator allocation over a 24 h shift.",
    agents=("noop", "random", "heuristic", "bound"),
    baselines="lifeline.envs.ed.baselines",
    reference="heuristic",
    bound="bound",
    exploits=(),
    harm_metric="deaths",
))

register(EnvSpec(
    name="dispatch",
    gym_id="lifeline/Dispatch-v1",
    entry_point="lifeline.envs.dispatch.env:DispatchEnv",
    scenarios=("warmup", "learning", "advanced", "expert", "heatwave", "bridge_collapse",
               "mass_casualty", "hospital_divert"),
    tags=("healthcare", "dispatch", "routing", "road-graph", "event-driven",
          "partial-observability"),
    description="Emergency medical dispatch on a city road graph over an 8 h shift "
                "(the seed's 20-node dispatchr-20 city).",
    agents=("hold", "random", "closest_idle", "dmexclp", "bound"),
    baselines="lifeline.envs.dispatch.baselines",
    reference="closest_idle",
    bound="bound",
    exploits=DISPATCH_EXPLOITS,
    harm_metric="expected_fatalities",
))

register(EnvSpec(
    name="dispatch_metro",
    gym_id="lifeline/DispatchMetro-v1",
    entry_point="lifeline.envs.dispatch.env:DispatchMetroEnv",
    scenarios=("metro_warmup", "metro_learning", "metro_advanced", "metro_expert",
               "metro_heatwave", "metro_bridge_collapse", "metro_mass_casualty",
               "metro_hospital_divert"),
    tags=("healthcare", "dispatch", "routing", "road-graph", "event-driven",
          "partial-observability"),
    description="Emergency medical dispatch over an 8 h shift on a generated 240-node metro "
                "city (30 units; same model as dispatch, own id because its spaces differ).",
    agents=("hold", "random", "closest_idle", "dmexclp", "bound"),
    baselines="lifeline.envs.dispatch.baselines",
    reference="closest_idle",
    bound="bound",
    exploits=DISPATCH_EXPLOITS,
    harm_metric="expected_fatalities",
))
