"""The lookahead teacher: a branch copied from an episode replays that episode exactly, and the
teacher only ever relabels with a candidate whose rollout scored higher."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from lifeline.envs.ed.baselines import EDHeuristicAgent
from lifeline.envs.ed.rules import Layout
from lifeline.faces.features import MASK_KEY
from lifeline.train.ed.clone import collect_batch, heuristic_labels, heuristic_scores
from lifeline.train.ed.lookahead import (
    LookaheadStats,
    collect_lookahead,
    rollout_scores,
    snapshot,
)
from lifeline.train.ed.pointer import RawFeaturizer
from lifeline.train.ed.vec import EDv3Vec


def test_a_branch_replays_its_episode() -> None:
    """Copying an env's kernel arrays mid-episode and playing on with the heuristic ends with the
    score the episode itself gets (the future is pre-drawn, so the branch sees the same one)."""
    seeds = [5, 6]
    venv = EDv3Vec(2, "night_shift")
    obs = venv.reset(seeds)
    agent, layout = EDHeuristicAgent(), Layout(venv.params)
    rows = np.arange(2)
    snaps, firsts = [], []
    for t in range(60):
        label = heuristic_labels(agent, obs, layout, rows)
        if t == 40:
            snaps = [snapshot(venv.batch, int(e)) for e in rows]
            firsts = [int(a) for a in label]
        obs, *_ = venv.step(label)
    replay = rollout_scores("night_shift", snaps, firsts, venv.batch.capacity)
    np.testing.assert_allclose(replay, heuristic_scores("night_shift", seeds))
    other = rollout_scores("night_shift", snaps, [0, 0], venv.batch.capacity)
    assert other.shape == (2,) and (other >= 0).all()


def test_lookahead_labels_differ_only_where_branched() -> None:
    keys = [MASK_KEY, *EDv3Vec(1, "night_shift").batch.obs]
    featurize = RawFeaturizer(keys)
    stats = LookaheadStats()
    x, m, labels, ret = collect_lookahead("night_shift", 2, iter([21, 22]), 0.99, 0.05,
                                          featurize, prob=0.2, candidates=3, stats=stats)
    x0, _m0, labels0, ret0 = collect_batch("night_shift", 2, iter([21, 22]), 0.99, 0.05,
                                          featurize)
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(ret, ret0)
    changed = int((labels != labels0).sum())
    assert stats.branched > 0 and changed == stats.changed
    assert stats.gain >= 0 and (stats.gain > 0) == (changed > 0)
    assert m[np.arange(len(labels)), labels].all()  # every label is a legal action
