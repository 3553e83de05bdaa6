"""examples/ppo_masked.py, the single-file masked PPO a researcher copies first, runs end to end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_single_file_ppo_example_trains_and_reports_against_random() -> None:
    example = ROOT / "examples" / "ppo_masked.py"
    assert len(example.read_text().splitlines()) <= 300
    out = subprocess.run(
        [sys.executable, str(example), "--env-id", "lifeline/CodeRed-v3", "--scenario", "task1",
         "--total-timesteps", "256", "--num-envs", "2", "--num-steps", "64",
         "--eval-episodes", "1"],
        capture_output=True, text=True, timeout=600, cwd=ROOT, check=True)
    assert "iter 2/2" in out.stdout
    assert "validation seeds (1 episodes): learned" in out.stdout
    assert "masked random" in out.stdout
