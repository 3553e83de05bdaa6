"""Golden trajectories of ed v3 (issue 27): whole episodes (every action, reward, validity, clock
and observation, and the final grade) of ``EDEnv`` hashed and compared with digests recorded for
this version. A change to the v3 dynamics, observation or grader changes a digest: then bump the
env's version (README version history) and record new digests, never silently. (ED-v2's
digests were retired with ED-v2: README, "Version history".)
"""

from __future__ import annotations

import pytest

from lifeline.envs.ed.env import EDEnv
from tests.envs.ed.ed_digest import trajectory_digest

GOLDEN = {
    ("heuristic", "surge", 11):
        "781bc0fa41cf2e0b06bebd6d433326fb2b6c55198f55c4ad58767ac389333851",
    ("random", "mass_casualty", 5):
        "f7ba002da0b7f43deaaf94a38fe7481dae2bc68c1906bb25c5719ca6baeb2f72",
    ("discharge_boarders", "icu_boarding", 3):
        "7cb64b307cd3e0811576245e5363c60caff55eb0d30a3140d8db04e580ecbef7",
    ("invalid_instead_of_wait", "night_shift", 2):
        "fd58b3567829f67d2f3117eededaa355fa3da5aaeb2297092f5adeb3cac83b76",
}


@pytest.mark.parametrize(("agent", "scenario", "seed"), list(GOLDEN))
def test_whole_v3_trajectory_matches_the_recorded_digest(agent: str, scenario: str,
                                                         seed: int) -> None:
    assert EDEnv(scenario).version == 3
    assert trajectory_digest(EDEnv(scenario), agent, seed) == GOLDEN[(agent, scenario, seed)]
