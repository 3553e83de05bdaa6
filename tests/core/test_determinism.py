"""Same seed and actions give byte-identical trajectories across processes and hash seeds."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import ENV_SCENARIOS

from lifeline.testing import trajectory_digest


def _digest_elsewhere(env: str, scenario: str, seed: int, hash_seed: str) -> str:
    code = ("import sys; from lifeline.testing import trajectory_digest as d; "
            "print(d(sys.argv[1], sys.argv[2], int(sys.argv[3])))")
    env_vars = {**os.environ, "PYTHONHASHSEED": hash_seed}
    out = subprocess.run([sys.executable, "-c", code, env, scenario, str(seed)],
                         capture_output=True, text=True, env=env_vars, check=True, timeout=120)
    return out.stdout.strip()


@pytest.mark.parametrize(("env_name", "scenario"), ENV_SCENARIOS)
def test_cross_process_identical(env_name: str, scenario: str) -> None:
    local = trajectory_digest(env_name, scenario, 42)
    assert _digest_elsewhere(env_name, scenario, 42, "0") == local
    assert _digest_elsewhere(env_name, scenario, 42, "987654") == local
