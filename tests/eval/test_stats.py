"""Statistics must be right, not just run: coverage, detection of known shifts, determinism."""

from __future__ import annotations

import math
from itertools import islice

import numpy as np
import pytest

from lifeline.eval import seeds as seedsplit
from lifeline.eval import stats


def test_bootstrap_ci_is_deterministic_and_brackets_the_mean() -> None:
    x = np.random.default_rng(1).normal(0.6, 0.1, size=40)
    a = stats.bootstrap_ci(x, seed=3)
    b = stats.bootstrap_ci(x, seed=3)
    assert a == b
    assert a[0] < x.mean() < a[1]
    # Width close to the normal-theory 2 * 1.96 * sd / sqrt(n).
    expected = 2 * 1.96 * x.std(ddof=1) / math.sqrt(x.size)
    assert 0.8 * expected < a[1] - a[0] < 1.2 * expected


def test_bootstrap_ci_covers_true_mean_about_95_percent() -> None:
    rng = np.random.default_rng(7)
    trials, hits = 200, 0
    for t in range(trials):
        x = rng.beta(2.0, 3.0, size=50)  # true mean 0.4, skewed, in [0, 1] like scores
        low, high = stats.bootstrap_ci(x, n_resamples=2000, seed=t)
        hits += low <= 0.4 <= high
    assert 0.88 <= hits / trials <= 0.99


def test_bootstrap_ci_edge_cases() -> None:
    assert stats.bootstrap_ci([0.5]) == (0.5, 0.5)
    assert stats.bootstrap_ci([0.2, 0.2, 0.2]) == (0.2, 0.2)
    with pytest.raises(ValueError):
        stats.bootstrap_ci([])
    with pytest.raises(ValueError):
        stats.bootstrap_ci([0.1, float("nan")])


def test_mean_ci_fields() -> None:
    m = stats.mean_ci([0.0, 1.0, 0.5, 0.5])
    assert m.n == 4 and m.mean == pytest.approx(0.5)
    assert m.sd == pytest.approx(np.std([0.0, 1.0, 0.5, 0.5], ddof=1))
    assert 0.0 <= m.ci_low < 0.5 < m.ci_high <= 1.0


def test_paired_compare_detects_a_known_shift_hidden_by_seed_noise() -> None:
    rng = np.random.default_rng(0)
    seed_effect = rng.normal(0.5, 0.15, size=30)  # large shared per-seed variation
    a = {1000 + i: float(v + 0.03 + rng.normal(0, 0.005)) for i, v in enumerate(seed_effect)}
    b = {1000 + i: float(v) for i, v in enumerate(seed_effect)}
    # Unpaired CIs overlap heavily ...
    ca, cb = stats.mean_ci(a.values()), stats.mean_ci(b.values())
    assert ca.ci_low < cb.ci_high
    # ... but the paired comparison sees the +0.03 shift clearly.
    cmp = stats.paired_compare(a, b)
    assert cmp.n == 30 and cmp.wins == 30 and cmp.losses == 0
    assert cmp.ci_low > 0.02 and cmp.ci_high < 0.04
    assert cmp.significant
    assert cmp.wilcoxon_p < 1e-4 and cmp.ttest_p < 1e-4


def test_paired_compare_no_shift_is_not_significant() -> None:
    rng = np.random.default_rng(5)
    a = {i: float(rng.normal(0.5, 0.1)) for i in range(40)}
    b = {i: float(rng.normal(0.5, 0.1)) for i in range(40)}
    cmp = stats.paired_compare(a, b)
    assert cmp.ci_low < 0.0 < cmp.ci_high
    assert cmp.wilcoxon_p > 0.05 and cmp.ttest_p > 0.05


def test_paired_compare_uses_only_common_seeds() -> None:
    a = {1: 0.9, 2: 0.8, 3: 0.7}
    b = {2: 0.5, 3: 0.6, 4: 0.0}
    cmp = stats.paired_compare(a, b)
    assert cmp.n == 2
    assert cmp.mean_diff == pytest.approx(((0.8 - 0.5) + (0.7 - 0.6)) / 2)
    with pytest.raises(ValueError):
        stats.paired_compare({1: 0.1}, {2: 0.1})


def test_paired_test_degenerate_inputs() -> None:
    assert stats.paired_test_pvalues([0.0, 0.0, 0.0]) == (1.0, 1.0)
    assert stats.paired_test_pvalues([0.1]) == (1.0, 1.0)
    wil, t = stats.paired_test_pvalues([0.1] * 20)
    assert t == 0.0 and wil < 1e-3


def test_normalised_score() -> None:
    assert stats.normalised_score(0.7, 0.7, 0.9) == pytest.approx(0.0)
    assert stats.normalised_score(0.9, 0.7, 0.9) == pytest.approx(1.0)
    assert stats.normalised_score(0.6, 0.7, 0.9) == pytest.approx(-0.5)
    assert math.isnan(stats.normalised_score(0.6, 0.7, 0.7))
    rng = np.random.default_rng(2)
    base = rng.normal(0.6, 0.1, size=50)
    h = {i: float(v) for i, v in enumerate(base)}
    bnd = {i: float(v + 0.2) for i, v in enumerate(base)}
    ag = {i: float(v + 0.1 + rng.normal(0, 0.01)) for i, v in enumerate(base)}
    value, low, high = stats.normalised_score_ci(ag, h, bnd)
    assert value == pytest.approx(0.5, abs=0.02)
    assert low < value < high and low > 0.4 and high < 0.6


def test_scores_by_seed_and_summarise() -> None:
    recs = [
        {"env": "ed", "scenario": "s", "agent": "a", "seed": 1, "score": 0.2,
         "components": {"survival": 0.9}},
        {"env": "ed", "scenario": "s", "agent": "a", "seed": 2, "score": 0.4,
         "components": {"survival": 0.8}},
        {"env": "ed", "scenario": "s", "agent": "b", "seed": 1, "score": 0.6,
         "components": {"survival": 1.0}},
    ]
    assert stats.scores_by_seed(recs, "ed", "s", "a") == {1: 0.2, 2: 0.4}
    assert stats.scores_by_seed(recs, "ed", "s", "a", key="survival") == {1: 0.9, 2: 0.8}
    rows = stats.summarise(recs)
    assert [(r["agent"], r["n"]) for r in rows] == [("a", 2), ("b", 1)]
    assert rows[0]["mean"] == pytest.approx(0.3)
    with pytest.raises(ValueError):
        stats.scores_by_seed([*recs, recs[0]], "ed", "s", "a")


def test_seed_split_is_disjoint_and_reproducible() -> None:
    ev = seedsplit.eval_seeds(5)
    assert ev == [1_000_000, 1_000_001, 1_000_002, 1_000_003, 1_000_004]
    assert seedsplit.eval_seeds(2, start=3) == ev[3:5]
    assert all(seedsplit.is_eval_seed(s) for s in ev)
    stream = list(islice(seedsplit.train_seed_stream(0), 5000))
    assert stream == list(islice(seedsplit.train_seed_stream(0), 5000))
    assert stream != list(islice(seedsplit.train_seed_stream(1), 5000))
    assert all(0 <= s < seedsplit.VALIDATION_SEED_BASE for s in stream)
    assert not set(stream) & set(seedsplit.validation_seeds(100_000))
    assert not any(seedsplit.is_eval_seed(s) for s in stream)
    assert len(set(stream)) > 4900  # a real spread, not a handful of repeated episodes
    with pytest.raises(ValueError):
        seedsplit.check_train_seed(1_000_000)
    with pytest.raises(ValueError):
        seedsplit.eval_seeds(-1)
