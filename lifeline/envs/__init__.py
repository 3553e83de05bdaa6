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
    baselines="lifeline.envs.ed.baselines",
    reference="heuristic",
    bound="bound",
    exploits=(),
    harm_metric="deaths",
))

register(EnvSpec(
    name="dispatch",
    gym_id="lifeline/Dispatch-v0",
    entry_point="lifeline.envs.dispatch.env:DispatchEnv",
    scenarios=("warmup", "learning", "advanced", "expert", "heatwave", "bridge_collapse",
               "mass_casualty", "hospital_divert", "metro_warmup", "metro_learning",
               "metro_advanced", "metro_expert", "metro_heatwave", "metro_bridge_collapse",
               "metro_mass_casualty", "metro_hospital_divert"),
    tags=("healthcare", "dispatch", "routing", "road-graph", "event-driven",
          "partial-observability"),
    description="Emergency medical dispatch on a city road graph over an 8 h shift "
                "(dispatchr-20 and a generated metro city).",
    agents=("hold", "random", "closest_idle", "dmexclp", "bound"),
    baselines="lifeline.envs.dispatch.baselines",
    reference="closest_idle",
    bound="bound",
    exploits=(),
    harm_metric="expected_fatalities",
))

register(EnvSpec(
    name="evgrid",
    gym_id="lifeline/EVGrid-v0",
    entry_point="lifeline.envs.evgrid.env:EVGridEnv",
    scenarios=("baseline", "heatwave_peak", "festival_surge", "transformer_derate",
               "station_outage", "tariff_shock", "monsoon_storm", "cricket_final",
               "airport_rush", "silk_board_jam", "whitefield_night"),
    tags=("energy", "ev-charging", "grid", "routing", "road-graph", "partial-observability",
          "multi-agent"),
    description="EV charging dispatch on a feeder-constrained Bangalore grid (25 stations, "
                "walk-ups and plugged-in EVs, 8-24 h).",
    agents=("never_route", "random", "nearest", "greedy", "mpc", "bound"),
    baselines="lifeline.envs.evgrid.baselines",
    reference="greedy",
    bound="bound",
    exploits=("always_defer", "always_shift", "ultra_hog", "cheap_hours_only"),
    harm_metric="unmet_critical_kwh",
))

register(EnvSpec(
    name="evgrid_team",
    gym_id="lifeline/EVGridTeam-v0",
    entry_point="lifeline.envs.evgrid.team:EVGridTeamEnv",
    scenarios=("baseline",),
    tags=("energy", "ev-charging", "grid", "multi-agent", "two-roles"),
    description="evgrid with the grid operator's directives (caps, blacklist, prices) and the "
                "dispatcher in one session; violations detected, not rewritten.",
    agents=("never_route", "greedy", "bound"),
    baselines="lifeline.envs.evgrid.baselines",
    reference="greedy",
    bound="bound",
    exploits=("always_shift",),
    harm_metric="unmet_critical_kwh",
))
