"""The ED student's teacher choice: recipe ablations of the heuristic, the training-seed selection
(gain above 0 with no more deaths), and the labels they give the cloning data."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

pytest.importorskip("numba")

from lifeline.envs.ed.baselines import EDHeuristicAgent
from lifeline.envs.ed.rules import Layout
from lifeline.faces.features import MASK_KEY
from lifeline.train.ed import teacher as teacher_mod
from lifeline.train.ed.clone import collect_batch, heuristic_labels
from lifeline.train.ed.pointer import RawFeaturizer
from lifeline.train.ed.teacher import AblatedHeuristic, choose_teacher, make_teacher
from lifeline.train.ed.vec import EDv3Vec


def _expedite_range(layout: Layout) -> tuple[int, int]:
    lo = layout.offsets["expedite_general"]
    return lo, layout.offsets["expedite_icu"] + layout.sizes["expedite_icu"]


def test_an_ablation_without_skips_is_the_heuristic_and_one_without_expedite_never_expedites(
) -> None:
    venv = EDv3Vec(4, "surge")
    obs = venv.reset([11, 12, 13, 14])
    layout = Layout(venv.params)
    lo, hi = _expedite_range(layout)
    rows = np.arange(4)
    same, plain, no_exp = [], EDHeuristicAgent(), make_teacher("heuristic-no-expedite")
    heuristic_expedites = 0
    for _ in range(200):
        label = heuristic_labels(plain, obs, layout, rows)
        same.append(np.array_equal(label, heuristic_labels(AblatedHeuristic([]), obs, layout,
                                                           rows)))
        ablated = heuristic_labels(no_exp, obs, layout, rows)
        assert not ((ablated >= lo) & (ablated < hi)).any()
        heuristic_expedites += int(((label >= lo) & (label < hi)).sum())
        obs, *_ = venv.step(label)
    assert all(same)
    assert heuristic_expedites > 0  # the ablation removes something the heuristic does
    with pytest.raises(ValueError, match="unknown heuristic rule"):
        make_teacher("heuristic-no-discharge")


def test_the_teacher_labels_the_cloning_data() -> None:
    keys = [MASK_KEY, *EDv3Vec(1, "surge").batch.obs]
    featurize = RawFeaturizer(keys)
    no_exp = make_teacher("heuristic-no-expedite")
    _x, m, labels, _r = collect_batch("surge", 2, iter([31, 32]), 0.99, 0.05, featurize,
                                      teacher=no_exp)
    _x0, _m0, labels0, _r0 = collect_batch("surge", 2, iter([31, 32]), 0.99, 0.05, featurize)
    lo, hi = _expedite_range(Layout(EDv3Vec(1, "surge").params))
    assert not ((labels >= lo) & (labels < hi)).any()
    assert ((labels0 >= lo) & (labels0 < hi)).any()
    assert m[np.arange(len(labels)), labels].all()


def test_choose_teacher_needs_a_gain_above_zero_and_no_more_deaths(monkeypatch) -> None:
    """Fake per-seed outcomes: ``transfer`` gains most but kills more; ``expedite`` gains with
    no more deaths; ``see`` gains within noise. The choice is ``expedite``; without it,
    nothing qualifies and the heuristic stays."""
    rng = np.random.default_rng(0)
    noise = rng.normal(0, 1e-4, 40)
    outcome = {"heuristic": (0.90, 0.0), "heuristic-no-ventilate": (0.89, 1.0),
               "heuristic-no-transfer": (0.92, 0.5), "heuristic-no-see": (0.90, 0.0),
               "heuristic-no-expedite": (0.905, 0.0)}

    def fake(teacher, scenario, seeds):  # type: ignore[no-untyped-def]
        mean, deaths = outcome[teacher.name]
        jitter = rng.normal(0, 1e-2, len(seeds)) if teacher.name == "heuristic-no-see" else 0
        return mean + noise + jitter, np.full(len(seeds), 3.0 + deaths)

    monkeypatch.setattr(teacher_mod, "play_scores", fake)
    choice = choose_teacher("surge", 40, itertools.count())
    assert choice.name == "heuristic-no-expedite"
    assert choice.candidates["heuristic-no-transfer"]["deaths_diff"] == pytest.approx(0.5)
    outcome["heuristic-no-expedite"] = (0.899, 0.0)
    assert choose_teacher("surge", 40, itertools.count()).name == "heuristic"


def test_a_fast_ppo_run_directory_plays_as_fastppo_path() -> None:
    """``make_agent("fastppo:RUN_DIR", "ed")`` (what the learned harm check plays) is the run's
    network, acting legally on the scalar env."""
    pytest.importorskip("torch")
    from lifeline import make
    from lifeline.agents import make_agent
    from lifeline.train.ed.fastppo import FastPPOAgent

    agent = make_agent("fastppo:results/ed/fastppo/v3t_normal_day", "ed")
    assert isinstance(agent, FastPPOAgent)
    env = make("ed", "normal_day")
    state = env.reset(3)
    for _ in range(20):
        action = agent.act(env, state)
        assert env.action_mask(state)[action]
        env.step(state, action)
