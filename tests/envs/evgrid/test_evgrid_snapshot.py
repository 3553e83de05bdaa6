"""Golden trajectories of evgrid v1: whole episodes (every mask, observation, action, reward
and validity, the final grade and text view) hashed and compared with digests recorded for this
version (``tests/fixtures/evgrid_trajectories.json``, written by ``bench/evgrid_digest.py
--write``).

They pin behaviour across speed work: the step was made faster (static visibility order,
precomputed route rows, an exact p90, cached session power, fewer array passes) with these
digests unchanged. A change to the dynamics, the observation or the grader changes a digest:
then bump the env's version (README version history) and record the new digests, never silently.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from lifeline.envs.evgrid.reward import p90

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = json.loads((ROOT / "tests" / "fixtures" / "evgrid_trajectories.json").read_text())


def _digest_module():
    spec = importlib.util.spec_from_file_location("evgrid_digest", ROOT / "bench" /
                                                  "evgrid_digest.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


MACHINE_VARIANTS: dict[str, str] = {
    "baseline/random/3":
        "a145c4cb746f0ffabc1f6510e7ab5a84aeb330b5be9eb33f1d45195c390153e6",
    "silk_board_jam/random/11":
        "7c9c7bf9d4e6f97140b202a467eacd4b013ebdbdd3a362e214cf2f7877f9451f",
}
"""The second digest measured for two random-policy cases: at unchanged code and the same pinned
packages (``pip freeze`` = ``constraints.txt``), fresh machines of this project's CI pool give one
of two values, stable within a machine across processes, ``PYTHONHASHSEED`` and thread settings;
numpy's SIMD dispatch switched off (``NPY_DISABLE_CPU_FEATURES``) does not change it, and the
heuristic cases never differ. Cause not found (a floating-point path that depends on the host and
flips a discrete choice of the random policy). Any third value fails."""


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_trajectory_digest_unchanged(case: str) -> None:
    scenario, policy, seed = case.split("/")
    got = _digest_module().digest(scenario, policy, int(seed))
    assert got in {GOLDEN[case], MACHINE_VARIANTS.get(case, GOLDEN[case])}


def test_p90_is_numpy_percentile_bit_for_bit() -> None:
    rng = np.random.default_rng(0)
    for _ in range(3000):
        n = int(rng.integers(1, 200))
        a = rng.random(n) * 120.0
        if rng.random() < 0.3:
            a = np.round(a)
        assert p90(a) == float(np.percentile(a, 90))


def test_action_mask_matches_routable_and_validate() -> None:
    """The fast mask (precomputed route rows) equals the readable predicate ``routable`` and
    ``validate`` on states along random play, outages included."""
    import lifeline
    from lifeline.envs.evgrid.rules import routable

    for scenario in ("station_outage", "baseline"):
        env = lifeline.make("evgrid", scenario)
        s = env.reset(5)
        rng = np.random.default_rng(1)
        lay = env.layout
        for i in range(600):
            if s.done:
                break
            mask = env.action_mask(s)
            ok = routable(s, env.ctx)
            assert np.array_equal(mask[:lay.defer], np.repeat(ok.ravel(), lay.R))
            if i % 25 == 0:
                for a in range(lay.total):
                    assert mask[a] == (env.validate(s, env.decode(a)) is None)
            legal = np.flatnonzero(mask)
            env.step(s, int(legal[rng.integers(legal.size)]))
