"""Built-in environments. Each registers itself here by import path (nothing heavy is imported).

A registration names the env's class, scenarios and baselines module; everything else an env
declares (agents, exploit policies, text policy) is declared once, in its own ``baselines.py``.
``import lifeline`` imports this module, so the registry itself imports no environment.
"""

from lifeline.core.registry import EnvSpec, register

register(EnvSpec(
    name="ed",
    gym_id="lifeline/ED-v3",
    entry_point="lifeline.envs.ed.env:EDEnv",
    scenarios=("normal_day", "surge", "mass_casualty", "night_shift", "ventilator_crisis",
               "icu_boarding"),
    tags=("healthcare", "triage", "allocation", "discrete-time"),
    description="Emergency-department triage, physicians, diagnostics and bed/ICU/ventilator "
                "allocation with inpatient boarding over a 24 h shift.",
    agents=("noop", "random", "heuristic", "bound"),
    baselines="lifeline.envs.ed.baselines",
    reference="heuristic",
    bound="bound",
    harm_metric="deaths",
    vector_entry_point="lifeline.envs.ed.batch:make_vector_env",
))

register(EnvSpec(
    name="dispatch",
    gym_id="lifeline/Dispatch-v4",
    entry_point="lifeline.envs.dispatch.env:DispatchEnv",
    scenarios=("warmup", "learning", "advanced", "expert", "heatwave", "bridge_collapse",
               "mass_casualty", "hospital_divert"),
    tags=("healthcare", "dispatch", "routing", "road-graph", "event-driven",
          "partial-observability"),
    description="Emergency medical dispatch on a city road graph over an 8 h shift "
                "(the seed's 20-node dispatchr-20 city).",
    agents=("hold", "random", "closest_idle", "dmexclp", "verify_dmexclp", "bound"),
    baselines="lifeline.envs.dispatch.baselines",
    reference="verify_dmexclp",
    bound="bound",
    harm_metric="expected_fatalities",
))

register(EnvSpec(
    name="dispatch_metro",
    gym_id="lifeline/DispatchMetro-v4",
    entry_point="lifeline.envs.dispatch.env:DispatchMetroEnv",
    scenarios=("metro_warmup", "metro_learning", "metro_advanced", "metro_expert",
               "metro_heatwave", "metro_bridge_collapse", "metro_mass_casualty",
               "metro_hospital_divert"),
    tags=("healthcare", "dispatch", "routing", "road-graph", "event-driven",
          "partial-observability"),
    description="Emergency medical dispatch over an 8 h shift on a generated 240-node metro "
                "city (30 units; same model as dispatch, own id because its spaces differ).",
    agents=("hold", "random", "closest_idle", "dmexclp", "verify_dmexclp", "bound"),
    baselines="lifeline.envs.dispatch.baselines",
    reference="verify_dmexclp",
    bound="bound",
    harm_metric="expected_fatalities",
))

register(EnvSpec(
    name="codered",
    gym_id="lifeline/CodeRed-v3",
    entry_point="lifeline.envs.codered.env:CodeRedEnv",
    scenarios=("task1", "task2", "task3", "task4", "task5", "task3_gridlock", "task5_surge"),
    tags=("healthcare", "mass-casualty", "dispatch", "hospitals", "blood", "road-graph",
          "event-driven", "partial-observability"),
    description="Multi-hospital mass-casualty coordination in Prakashnagar: ambulances, ORs, "
                "specialists, blood and a 911 call queue (the seed's five tasks).",
    agents=("noop", "random", "mutual_aid_only", "heuristic", "bound"),
    baselines="lifeline.envs.codered.baselines",
    reference="heuristic",
    bound="bound",
    harm_metric="harm",
))

register(EnvSpec(
    name="pharmacy",
    gym_id="lifeline/Pharmacy-v2",
    entry_point="lifeline.envs.pharmacy.env:PharmacyEnv",
    scenarios=("light", "medium", "heavy", "mass_casualty", "supply_shock"),
    tags=("healthcare", "supply-chain", "inventory", "multi-actor", "tool-calling",
          "partial-observability"),
    description="Central-pharmacy coordination (MedChain): FEFO lots, suppliers, a real budget, "
                "padding ward actors and 21 enterprise tools over 8 rounds x 2 days.",
    agents=("rubber_stamp", "discount_general", "escalate_all", "base_stock", "bound"),
    baselines="lifeline.envs.pharmacy.baselines",
    reference="base_stock",
    bound="bound",
    harm_metric="harm_units",
))

register(EnvSpec(
    name="evgrid",
    gym_id="lifeline/EVGrid-v3",
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
    harm_metric="harm_kwh",
))

register(EnvSpec(
    name="evgrid_team",
    gym_id="lifeline/EVGridTeam-v3",
    entry_point="lifeline.envs.evgrid.team:EVGridTeamEnv",
    scenarios=("baseline", "heatwave_peak", "festival_surge", "transformer_derate",
               "station_outage", "tariff_shock", "monsoon_storm", "cricket_final",
               "airport_rush", "silk_board_jam", "whitefield_night"),
    tags=("energy", "ev-charging", "grid", "multi-agent", "two-roles"),
    description="evgrid with the grid operator's directives (caps, blacklist, prices) and the "
                "dispatcher in one session; caps enforced by protection, violations costed.",
    agents=("never_route", "greedy", "team_greedy", "bound"),
    baselines="lifeline.envs.evgrid.baselines",
    reference="greedy",
    bound="bound",
    harm_metric="harm_kwh",
))
