"""Golden trajectories of ed v3 (issue 27): whole episodes (every action, reward, validity, clock
and observation, and the final grade) of ``EDEnv`` hashed and compared with digests recorded for
this version. A change to the v3 dynamics, observation or grader changes a digest: then bump the
env's version (README version history) and record new digests, never silently. (ED-v2's own
digests, on ``EDv2Env``, are in ``test_ed_snapshot.py`` and are unchanged by v3.)
"""

from __future__ import annotations

import pytest

from lifeline.envs.ed.env import EDEnv
from tests.envs.ed.ed_digest import trajectory_digest

GOLDEN = {
    ("heuristic", "surge", 11):
        "da7d4c322b85bf87485b785cb735056fc16675d6427b69c09424821d03599b55",
    ("random", "mass_casualty", 5):
        "b3f1fb4a5ca7836f587aaf32fc88cb2ac81c57b5a0e8d19f5fb159cf73af3821",
    ("discharge_boarders", "icu_boarding", 3):
        "b9b1bd313631b6f32b020c82a99ae7edebd5bb7969a14165b7a7677b877a06c9",
    ("invalid_instead_of_wait", "night_shift", 2):
        "898b8b819d9e13fab57ec8d08158494a0eec9e468af64ab11e22ebc8422f1632",
}


@pytest.mark.parametrize(("agent", "scenario", "seed"), list(GOLDEN))
def test_whole_v3_trajectory_matches_the_recorded_digest(agent: str, scenario: str,
                                                         seed: int) -> None:
    assert EDEnv(scenario).version == 3
    assert trajectory_digest(EDEnv(scenario), agent, seed) == GOLDEN[(agent, scenario, seed)]
