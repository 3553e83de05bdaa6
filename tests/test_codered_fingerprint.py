"""codered's speed work changed no behaviour: every fingerprinted episode (masked-random and
heuristic play on every scenario; mask, observation, reward, messages, text, frame and grade)
hashes exactly as recorded before the optimisation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lifeline.envs.codered.fingerprint import CASES, episode_digest

FIXTURE = Path(__file__).parent / "fixtures" / "codered_fingerprints.json"
RECORDED: dict[str, str] = json.loads(FIXTURE.read_text())


def test_fixture_covers_every_case() -> None:
    assert sorted(RECORDED) == sorted(f"{sc}/{po}/{se}" for sc, po, se in CASES)


@pytest.mark.parametrize("scenario", sorted({sc for sc, _, _ in CASES}))
def test_trajectories_identical_to_recorded(scenario: str) -> None:
    for sc, po, se in CASES:
        if sc == scenario:
            key = f"{sc}/{po}/{se}"
            assert episode_digest(sc, po, se) == RECORDED[key], key
