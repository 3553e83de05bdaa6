"""Golden trajectories of ed v2 (recorded for v2, issue 18; the v1 digests are replaced), played on
``EDv2Env`` (ED-v2 is kept unchanged beside v3; v3's own digests are in
``test_ed_v3_snapshot.py``): whole
episodes (every action, reward, validity, clock and observation, and the final grade) hashed
and compared with digests recorded for this version.

A change to the dynamics, the observation or the grader changes a digest: then bump the env's
version (README version history) and record the new digests, never silently.
"""

from __future__ import annotations

import pytest

from lifeline.envs.ed.env import EDv2Env
from tests.envs.ed.ed_digest import trajectory_digest

GOLDEN = {
    ("heuristic", "surge", 11):
        "23e0a7a76cbf635b9c122aa65b926988213cc45be63daa391992adfdbf9be87a",
    ("random", "mass_casualty", 5):
        "0971dfbe813a89ae58c5e56e1929de57bd5bc351510e12945d2bb0275fbea83f",
    ("churn", "ventilator_crisis", 3):
        "aa3e3db9b92c35498af4e0fe6b765d57faa20723ef5b41b07393dc3e77cc3b09",
    ("invalid_instead_of_wait", "icu_boarding", 2):
        "cb8e0aa7312ccfdeba7b1de4c66ed0388e12da4597943abe6bd9d265e7fc6164",
}


@pytest.mark.parametrize(("agent", "scenario", "seed"), list(GOLDEN))
def test_whole_trajectory_matches_the_recorded_digest(agent: str, scenario: str,
                                                      seed: int) -> None:
    assert EDv2Env(scenario).version == 2
    assert trajectory_digest(EDv2Env(scenario), agent, seed) == GOLDEN[(agent, scenario, seed)]
