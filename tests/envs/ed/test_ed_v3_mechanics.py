"""Every ED-v3 mechanic moves the reference policy's outcomes: switched off (``params`` probes),
the same seeds give a measurably different heuristic (the README gives the 30-seed effects from
``bench/ed_v3_mechanics.py``). Exploit-range seeds, never the held-out ones."""

from __future__ import annotations

import numpy as np

from bench.ed_sensitivity import play
from lifeline.envs.ed import params as P

SEEDS = [1_500_000 + i for i in range(3)]


def _paired(scenario: str, probe: P.EDParams) -> tuple[dict[str, float], dict[str, float]]:
    base = P.SCENARIOS[scenario]
    on = [play(base, s) for s in SEEDS]
    off = [play(probe, s) for s in SEEDS]
    mean = lambda rows, k: float(np.mean([r[k] for r in rows]))  # noqa: E731
    keys = ("score", "door_to_provider_h", "deaths", "los_h", "boarding_h")
    return {k: mean(on, k) for k in keys}, {k: mean(off, k) for k in keys}


def test_the_physician_limit_delays_care_and_costs_score() -> None:
    on, off = _paired("surge", P.unlimited_physicians(P.SCENARIOS["surge"]))
    assert on["door_to_provider_h"] > off["door_to_provider_h"] + 0.3
    assert off["score"] > on["score"] + 0.003


def test_the_scanner_queue_lengthens_stays() -> None:
    on, off = _paired("surge", P.no_imaging_queue(P.SCENARIOS["surge"]))
    assert on["los_h"] > off["los_h"] + 0.05


def test_inpatient_census_makes_admissions_board_and_costs_score() -> None:
    on, off = _paired("surge", P.unlimited_inpatient_beds(P.SCENARIOS["surge"]))
    assert on["boarding_h"] > off["boarding_h"] + 0.25
    assert off["score"] > on["score"] + 0.005


def test_the_workup_lengthens_stays() -> None:
    on, off = _paired("normal_day", P.without_workup(P.SCENARIOS["normal_day"]))
    assert on["los_h"] > off["los_h"] + 0.5
