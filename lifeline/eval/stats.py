"""Statistics for evaluation results: bootstrap CIs, paired comparisons, normalised scores.

Pure functions over plain numbers (numpy/scipy only, no plotting, no I/O) so they are easy to
test and reuse. Why these choices:

* **Bootstrap CIs** (percentile method over episodes, ``scipy.stats.bootstrap``) make no
  normality assumption — episode scores are bounded in [0, 1] and often skewed. Resampling is
  seeded, so the same inputs always give the same interval (a report regenerated from the same
  JSON is byte-identical).
* **Paired comparisons.** Agents are evaluated on the *same* seeds (common random numbers), so the
  per-seed difference removes the episode-to-episode variance that both agents share; its CI is
  far tighter than comparing two independent CIs. We report a bootstrap CI of the mean difference,
  the Wilcoxon signed-rank test (robust, no normality) and the paired t-test (classic).
* **Normalised score** ``(agent - heuristic) / (bound - heuristic)``: 0 means "as good as the
  heuristic", 1 means "as good as the upper bound", negative means worse than the heuristic.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import stats as sps

DEFAULT_RESAMPLES = 10_000
"""Bootstrap resamples; 10k keeps the Monte-Carlo error of a 95% bound well under 0.001 here."""


@dataclass(frozen=True)
class MeanCI:
    """Mean of a sample with its bootstrap confidence interval."""

    n: int
    mean: float
    ci_low: float
    ci_high: float
    sd: float
    """Sample standard deviation (ddof=1; 0 for n < 2)."""

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)


@dataclass(frozen=True)
class PairedComparison:
    """Agent A minus agent B over the seeds both were evaluated on."""

    n: int
    """Number of common seeds."""
    mean_a: float
    mean_b: float
    mean_diff: float
    """Mean of per-seed ``a - b``."""
    ci_low: float
    ci_high: float
    """Bootstrap CI of ``mean_diff`` (resampling seeds, so pairs stay together)."""
    wilcoxon_p: float
    """Two-sided Wilcoxon signed-rank p-value (1.0 when every difference is zero)."""
    ttest_p: float
    """Two-sided paired t-test p-value (1.0 when the differences have no spread and mean 0)."""
    wins: int
    """Seeds where A scored strictly higher than B."""
    losses: int
    """Seeds where A scored strictly lower than B."""

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)

    @property
    def significant(self) -> bool:
        """True when the bootstrap CI of the difference excludes zero."""
        return self.ci_low > 0.0 or self.ci_high < 0.0


def _as_array(values: Iterable[float]) -> np.ndarray:
    arr = np.asarray(list(values), dtype=float)
    if arr.ndim != 1:
        raise ValueError("expected a one-dimensional sequence of numbers")
    if not np.all(np.isfinite(arr)):
        raise ValueError("values must be finite")
    return arr


def bootstrap_ci(
    values: Iterable[float],
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile-bootstrap confidence interval of the mean of ``values``.

    Deterministic for a given ``seed``. A single value (or a constant sample) gives a zero-width
    interval at that value; an empty sample is an error.
    """
    arr = _as_array(values)
    if arr.size == 0:
        raise ValueError("cannot compute a confidence interval of an empty sample")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if arr.size == 1 or np.all(arr == arr[0]):
        return float(arr[0]), float(arr[0])
    # scipy's percentile bootstrap with a seeded Generator: reproducible, and the same draws
    # (and so the same interval) as the hand-written loop it replaced. ``batch`` bounds memory
    # (n * resamples floats per batch) for long samples.
    res = sps.bootstrap((arr,), np.mean, confidence_level=confidence, n_resamples=n_resamples,
                        method="percentile", vectorized=True, rng=np.random.default_rng(seed),
                        batch=max(1, 2_000_000 // arr.size))
    low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    # Clip to the sample range: percentile bounds can only drift outside it by rounding.
    return float(max(low, arr.min())), float(min(high, arr.max()))


def mean_ci(
    values: Iterable[float],
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> MeanCI:
    """Mean, bootstrap CI and standard deviation of ``values`` in one record."""
    arr = _as_array(values)
    low, high = bootstrap_ci(arr, confidence, n_resamples, seed)
    sd = float(arr.std(ddof=1)) if arr.size > 1 else 0.0
    return MeanCI(n=int(arr.size), mean=float(arr.mean()), ci_low=low, ci_high=high, sd=sd)


def paired_test_pvalues(diffs: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """Two-sided ``(wilcoxon_p, ttest_p)`` for per-seed differences against zero.

    Degenerate inputs get explicit values instead of scipy's warnings/NaNs: all-zero differences
    give p = 1; a constant non-zero difference gives t-test p = 0 (an exact, certain shift) and
    the Wilcoxon p of its ranks; fewer than two differences give p = 1 (no evidence).
    """
    arr = _as_array(diffs)
    if arr.size < 2 or np.all(arr == 0.0):
        return 1.0, 1.0
    wil_p = float(sps.wilcoxon(arr, zero_method="wilcox", alternative="two-sided").pvalue)
    # A (numerically) constant difference has zero spread: t is infinite, the shift certain.
    constant = np.ptp(arr) <= 1e-12 * max(1.0, float(np.abs(arr).max()))
    t_p = 0.0 if constant else float(sps.ttest_1samp(arr, 0.0).pvalue)
    return wil_p, t_p


def paired_compare(
    a: Mapping[int, float],
    b: Mapping[int, float],
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> PairedComparison:
    """Compare agent A with agent B on the seeds both have (``seed -> score`` mappings).

    Seeds present in only one mapping are ignored (they have no partner). Raises ``ValueError``
    when there is no common seed.
    """
    common = sorted(set(a) & set(b))
    if not common:
        raise ValueError("the two agents share no evaluation seed; nothing to pair")
    xa = np.array([a[s] for s in common], dtype=float)
    xb = np.array([b[s] for s in common], dtype=float)
    diff = xa - xb
    low, high = bootstrap_ci(diff, confidence, n_resamples, seed)
    wil_p, t_p = paired_test_pvalues(diff)
    return PairedComparison(
        n=len(common), mean_a=float(xa.mean()), mean_b=float(xb.mean()),
        mean_diff=float(diff.mean()), ci_low=low, ci_high=high,
        wilcoxon_p=wil_p, ttest_p=t_p,
        wins=int(np.sum(diff > 0)), losses=int(np.sum(diff < 0)),
    )


def paired_differences(records: Sequence[Mapping[str, Any]], reference: str,
                       key: str = "score") -> list[dict[str, Any]]:
    """Every other agent minus ``reference``, per (env, scenario), over their common seeds:
    one :class:`PairedComparison` record each (plus ``env``, ``scenario``, ``agent``,
    ``reference``), in the order the records first name them."""
    cells: dict[tuple[str, str], list[str]] = {}
    for rec in records:
        agents = cells.setdefault((str(rec["env"]), str(rec["scenario"])), [])
        if rec["agent"] not in agents:
            agents.append(str(rec["agent"]))
    rows: list[dict[str, Any]] = []
    for (env, scenario), agents in cells.items():
        if reference not in agents:
            continue
        ref = scores_by_seed(records, env, scenario, reference, key)
        for agent in agents:
            if agent == reference:
                continue
            mine = scores_by_seed(records, env, scenario, agent, key)
            if not set(mine) & set(ref):
                continue  # an interrupted run: no seed played by both yet
            c = paired_compare(mine, ref)
            rows.append({"env": env, "scenario": scenario, "agent": agent,
                         "reference": reference, **c.to_dict()})
    return rows


def normalised_score(agent: float, heuristic: float, bound: float) -> float:
    """``(agent - heuristic) / (bound - heuristic)``; NaN if the bound does not beat the heuristic.

    0 = heuristic level, 1 = upper-bound level. When ``bound <= heuristic`` (up to 1e-9) the
    scale is undefined and NaN is returned rather than a meaningless huge number.
    """
    gap = bound - heuristic
    if gap <= 1e-9:
        return math.nan
    return (agent - heuristic) / gap


def normalised_score_ci(
    agent: Mapping[int, float],
    heuristic: Mapping[int, float],
    bound: Mapping[int, float],
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> tuple[float, float, float]:
    """Normalised score of mean scores on common seeds, with a paired bootstrap CI.

    Returns ``(value, ci_low, ci_high)``. Seeds are resampled jointly for the three agents (the
    ratio of means, not a mean of per-seed ratios, which explode when a seed's gap is ~0).
    Resamples whose bound-heuristic gap vanishes are dropped; all NaN if there is no usable gap.
    """
    common = sorted(set(agent) & set(heuristic) & set(bound))
    if not common:
        raise ValueError("agent, heuristic and bound share no evaluation seed")
    xa = np.array([agent[s] for s in common], dtype=float)
    xh = np.array([heuristic[s] for s in common], dtype=float)
    xb = np.array([bound[s] for s in common], dtype=float)
    value = normalised_score(float(xa.mean()), float(xh.mean()), float(xb.mean()))
    if math.isnan(value):
        return math.nan, math.nan, math.nan
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(common), size=(n_resamples, len(common)))
    ma, mh, mb = xa[idx].mean(axis=1), xh[idx].mean(axis=1), xb[idx].mean(axis=1)
    gap = mb - mh
    ok = gap > 1e-9
    if not np.any(ok):
        return value, math.nan, math.nan
    # Not scipy.stats.bootstrap: it cannot drop the resamples where the ratio is undefined
    # (bound-reference gap <= 0); a NaN statistic makes its whole interval NaN.
    ratios = (ma[ok] - mh[ok]) / gap[ok]
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(ratios, [alpha, 1.0 - alpha])
    return value, float(low), float(high)


# ----- helpers over harness records ---------------------------------------------------------


def scores_by_seed(
    records: Iterable[Mapping[str, Any]], env: str, scenario: str, agent: str,
    key: str = "score",
) -> dict[int, float]:
    """``seed -> records[key]`` for one (env, scenario, agent) from harness result records.

    ``key`` may also name a grader component (looked up in ``record["components"]``).
    Several attempts on one seed (``--trials``: records with distinct ``trial``) are averaged;
    a seed that appears twice with the same trial is an error: pairing would be ambiguous.
    """
    values: dict[int, dict[int, float]] = {}
    for rec in records:
        if rec["env"] != env or rec["scenario"] != scenario or rec["agent"] != agent:
            continue
        seed, trial = int(rec["seed"]), int(rec.get("trial", 0))
        if trial in values.setdefault(seed, {}):
            raise ValueError(f"duplicate record for {env}/{scenario}/{agent} seed {seed}")
        value = rec[key] if key in rec else rec.get("components", {})[key]
        values[seed][trial] = float(value)
    return {seed: float(np.mean(list(by_trial.values()))) for seed, by_trial in values.items()}


def pass_hat_k(
    records: Sequence[Mapping[str, Any]], threshold: float, confidence: float = 0.95,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """pass^k per (env, scenario, agent): the share of seeds on which *every* one of the k
    attempts scored at least ``threshold`` (a reliability measure for stochastic agents such as
    LLMs; k = the number of trials per seed, the smallest if they differ), with a bootstrap CI
    over seeds, plus pass@1 (the share of single attempts that pass)."""
    groups: dict[tuple[str, str, str], dict[int, list[float]]] = {}
    for rec in records:
        key = (rec["env"], rec["scenario"], rec["agent"])
        groups.setdefault(key, {}).setdefault(int(rec["seed"]), []).append(float(rec["score"]))
    rows = []
    for (env, scenario, agent), by_seed in groups.items():
        k = min(len(v) for v in by_seed.values())
        all_pass = [float(all(s >= threshold for s in v)) for v in by_seed.values()]
        single = [float(s >= threshold) for v in by_seed.values() for s in v]
        low, high = bootstrap_ci(all_pass, confidence, seed=seed)
        rows.append({"env": env, "scenario": scenario, "agent": agent, "k": k,
                     "seeds": len(by_seed), "threshold": threshold,
                     "pass_k": float(np.mean(all_pass)), "ci_low": low, "ci_high": high,
                     "pass_1": float(np.mean(single))})
    return rows


def summarise(
    records: Sequence[Mapping[str, Any]], confidence: float = 0.95, seed: int = 0,
) -> list[dict[str, Any]]:
    """Per (env, scenario, agent): ``n, mean, ci_low, ci_high, sd`` of ``score``, in input order."""
    groups: dict[tuple[str, str, str], list[float]] = {}
    for rec in records:
        groups.setdefault((rec["env"], rec["scenario"], rec["agent"]), []).append(
            float(rec["score"]))
    rows = []
    for (env, scenario, agent), values in groups.items():
        m = mean_ci(values, confidence=confidence, seed=seed)
        rows.append({"env": env, "scenario": scenario, "agent": agent, **m.to_dict()})
    return rows
