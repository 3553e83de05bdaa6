"""The conformance checker fails on environments that break its promises."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from lifeline.core.registry import EnvSpec, register, unregister
from lifeline.envs.ed.env import EDEnv
from lifeline.envs.ed.types import EDAction, EDState
from lifeline.testing import CheckFailure, check_env


class LyingMask(EDEnv):
    """Masks in an illegal action."""

    def action_mask(self, state: EDState) -> np.ndarray:
        mask = super().action_mask(state)
        mask[-1] = True
        return mask


class AliasingObs(EDEnv):
    """Returns the same cached array on every call (shares memory across calls)."""

    _cache: dict[str, np.ndarray] | None = None

    def observe(self, state: EDState) -> dict[str, np.ndarray]:
        if self._cache is None:
            self._cache = super().observe(state)
        return self._cache


class GlobalRandom(EDEnv):
    """Uses an RNG outside the state: same seed no longer means same trajectory."""

    _global = np.random.default_rng()

    def _apply(self, state: EDState, action: EDAction) -> tuple[float, dict[str, Any]]:
        reward, info = super()._apply(state, action)
        return reward + float(self._global.random()), info


class HalfApplied(EDEnv):
    """Invalid actions leak a change into the world."""

    def validate(self, state: EDState, action: EDAction) -> str | None:
        message = super().validate(state, action)
        if message is not None:
            state.episode_return -= 1.0
        return message


BROKEN = {"lying_mask": (LyingMask, "mask_exact"),
          "aliasing": (AliasingObs, "observations_conform"),
          "global_rng": (GlobalRandom, "rollout_deterministic"),
          "half_applied": (HalfApplied, "mask_exact")}


@pytest.fixture
def broken(request: pytest.FixtureRequest) -> Iterator[str]:
    """Registers the broken env named by the test parameter, and removes it afterwards."""
    name = request.param
    cls = BROKEN[name][0]
    register(EnvSpec(name=f"broken_{name}", gym_id=f"lifeline-test/Broken{name}-v0",
                     entry_point=f"{__name__}:{cls.__name__}", scenarios=("normal_day",)))
    yield name
    unregister(f"broken_{name}")


@pytest.mark.parametrize("broken", sorted(BROKEN), indirect=True)
def test_checker_catches(broken: str) -> None:
    name = broken
    check_name = BROKEN[name][1]
    results = check_env(f"broken_{name}", "normal_day", raise_on_failure=False,
                        subprocess_check=False, only=(check_name,))
    assert not results[0].passed, f"{check_name} did not catch {name}"
    with pytest.raises(CheckFailure):
        check_env(f"broken_{name}", "normal_day", subprocess_check=False, only=(check_name,))


def test_checker_passes_good_env() -> None:
    results = check_env("ed", "normal_day", subprocess_check=False)
    assert [r.name for r in results if not r.passed] == []
