"""Ray backend (``dist`` extra): eval records identical to serial, PPO rollouts through actors.

One local Ray instance (``ray.init(num_cpus=2)``) is shared by the module's Ray tests and shut
down at the end; the last test checks that no Ray process is left behind.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from lifeline.cli import app
from lifeline.eval.harness import plan, run_tasks
from lifeline.eval.ray_backend import chunks

ray = pytest.importorskip("ray")
runner = CliRunner()


def _ray_children() -> list[str]:
    """Command lines of live processes started under this one that look like Ray's."""
    me = os.getpid()
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue
        if ppid == me and ("ray" in cmd or "raylet" in cmd or "gcs_server" in cmd):
            found.append(cmd[:120])
    return found


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def test_chunks_cover_every_task_in_order() -> None:
    for n, cpus in ((1, 2), (7, 2), (100, 2), (1000, 64)):
        parts = chunks(n, cpus)
        assert [i for a, b in parts for i in range(a, b)] == list(range(n))
        assert all(1 <= b - a <= 8 for a, b in parts)


def test_address_needs_the_ray_backend_and_backends_are_checked() -> None:
    result = runner.invoke(app, ["eval", "codered", "--agents", "random", "--episodes", "1",
                                 "--address", "auto"])
    assert result.exit_code != 0 and "--backend ray" in result.output
    result = runner.invoke(app, ["eval", "codered", "--agents", "random", "--episodes", "1",
                                 "--backend", "spark"])
    assert result.exit_code != 0 and "process, ray" in result.output
    with pytest.raises(ValueError, match="unknown backend"):
        run_tasks([], backend="spark")


def test_gae_matches_a_hand_computed_example() -> None:
    from lifeline.train.ray_rollouts import gae

    rewards = np.array([[1.0], [0.0], [2.0]], np.float32)
    values = np.array([[0.5], [0.4], [0.3]], np.float32)
    dones = np.array([[False], [True], [False]])
    adv, ret = gae(rewards, values, dones, np.array([1.0], np.float32), gamma=0.9, lam=0.5)
    d2 = 2.0 + 0.9 * 1.0 - 0.3  # last step bootstraps from last_value
    d1 = 0.0 - 0.4  # the episode ended after step 1: no bootstrap, no carry
    d0 = 1.0 + 0.9 * 0.4 - 0.5
    expected = [d0 + 0.9 * 0.5 * d1, d1, d2]
    assert adv[:, 0] == pytest.approx(expected, abs=1e-6)
    assert ret[:, 0] == pytest.approx(np.array(expected) + values[:, 0], abs=1e-6)


@pytest.mark.slow
def test_ray_eval_records_are_identical_to_serial(local_ray: None) -> None:
    tasks = (plan("codered", ["random", "heuristic"], ["task1"], range(3))
             + plan("dispatch", ["closest_idle"], ["warmup"], range(2), trials=2))
    serial = run_tasks(tasks, workers=1)
    seen: list[dict[str, object]] = []
    distributed = run_tasks(tasks, backend="ray", on_record=seen.append)
    assert distributed == serial
    assert seen == serial  # progress callbacks arrive in task order too
    assert ray.is_initialized()  # a caller's Ray instance is reused and left running


@pytest.mark.slow
def test_cli_eval_backend_ray_matches_workers_1(local_ray: None, tmp_path: Path) -> None:
    outs = {}
    for name, extra in (("serial", ["--workers", "1"]), ("ray", ["--backend", "ray"])):
        path = tmp_path / f"{name}.json"
        result = runner.invoke(app, ["compare", "codered", "--agents", "random,heuristic",
                                     "--scenario", "task1", "--episodes", "3", "--json",
                                     str(path), *extra])
        assert result.exit_code == 0, result.output
        outs[name] = json.loads(path.read_text())
    assert outs["ray"]["records"] == outs["serial"]["records"]
    assert outs["ray"]["summary"] == outs["serial"]["summary"]


@pytest.mark.slow
def test_ppo_rollouts_on_ray_actors_smoke(local_ray: None) -> None:
    pytest.importorskip("torch")
    from lifeline.train.ray_rollouts import RayPPOConfig, train_ppo_ray

    cfg = RayPPOConfig(n_workers=2, n_envs=2, n_steps=48, hidden=16, epochs=2, minibatches=2)
    out = train_ppo_ray("codered", "task1", iterations=2, config=cfg, seed=3)
    hist = out["history"]
    assert [h["iteration"] for h in hist] == [1, 2]
    assert hist[-1]["steps"] == 2 * cfg.n_workers * cfg.n_envs * cfg.n_steps
    assert sum(h["episodes"] for h in hist) > 0  # codered episodes end within 48 steps
    assert all(0.0 <= h["score_mean"] <= 1.0 for h in hist if h["score_mean"] is not None)
    assert all(np.isfinite([h["policy_loss"], h["value_loss"], h["entropy"]]).all()
               for h in hist)
    assert out["policy"] is not None


def test_zz_ray_leaves_no_processes() -> None:
    """Runs after the module's Ray tests (file order); the fixture has shut Ray down by now
    only if it was used, so shut it down here as well and wait for the children to go."""
    if ray.is_initialized():
        ray.shutdown()
    deadline = time.monotonic() + 20
    while _ray_children() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _ray_children() == []
