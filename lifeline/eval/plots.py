"""PNG plots for evaluation reports (matplotlib, headless ``Agg`` backend).

Each function draws one figure from already-computed numbers and writes it to ``path``; none of
them computes statistics (that is :mod:`lifeline.eval.stats`), so a plot never disagrees with the
table next to it in the report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless: reports are written on servers and in CI

import matplotlib.pyplot as plt
import numpy as np

from lifeline.eval.stats import MeanCI, PairedComparison

_DPI = 110


def _save(fig: plt.Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    # Fixed metadata so the same inputs produce the same bytes.
    fig.savefig(path, dpi=_DPI, metadata={"Software": None})
    plt.close(fig)
    return path


def bar_means(
    cells: Mapping[str, Mapping[str, MeanCI]],
    scenarios: Sequence[str],
    agents: Sequence[str],
    title: str,
    path: Path,
) -> Path:
    """Grouped bars: one group per scenario, one bar per agent, error bars = the 95% CI.

    ``cells[scenario][agent]`` holds the summary; missing cells are left blank.
    """
    fig, ax = plt.subplots(figsize=(max(6.0, 1.4 * len(scenarios) * max(1, len(agents)) / 3), 4))
    width = 0.8 / max(1, len(agents))
    x = np.arange(len(scenarios))
    for j, agent in enumerate(agents):
        means, lo, hi = [], [], []
        for s in scenarios:
            m = cells.get(s, {}).get(agent)
            means.append(m.mean if m else np.nan)
            # max(0, ...): the mean of a constant sample can differ from it by rounding.
            lo.append(max(0.0, m.mean - m.ci_low) if m else 0.0)
            hi.append(max(0.0, m.ci_high - m.mean) if m else 0.0)
        ax.bar(x + (j - (len(agents) - 1) / 2) * width, means, width, yerr=[lo, hi],
               capsize=2, label=agent)
    ax.set_xticks(x, list(scenarios), rotation=20, ha="right")
    ax.set_ylabel("score (mean, 95% CI)")
    ax.set_ylim(0.0, 1.0)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, path)


def distributions(
    values: Mapping[str, Mapping[str, Sequence[float]]],
    scenarios: Sequence[str],
    agents: Sequence[str],
    title: str,
    path: Path,
) -> Path:
    """Per-scenario box plots of episode scores per agent, with the individual episodes overlaid."""
    n = len(scenarios)
    cols = min(3, n)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
    jitter = np.random.default_rng(0)  # fixed jitter: deterministic images
    for k, scenario in enumerate(scenarios):
        ax = axes[k // cols][k % cols]
        present = [a for a in agents if values.get(scenario, {}).get(a)]
        data = [np.asarray(values[scenario][a], dtype=float) for a in present]
        if data:
            ax.boxplot(data, showfliers=False)
            for i, d in enumerate(data, start=1):
                ax.scatter(i + jitter.uniform(-0.15, 0.15, d.size), d, s=6, alpha=0.5)
            ax.set_xticks(range(1, len(present) + 1), present, rotation=30, ha="right",
                          fontsize=8)
        ax.set_title(scenario, fontsize=10)
        ax.set_ylim(0.0, 1.0)
        ax.grid(axis="y", alpha=0.3)
    for k in range(n, rows * cols):
        axes[k // cols][k % cols].axis("off")
    fig.suptitle(title)
    return _save(fig, path)


def paired_differences(
    comparisons: Mapping[str, Mapping[str, PairedComparison]],
    scenarios: Sequence[str],
    agents: Sequence[str],
    reference: str,
    title: str,
    path: Path,
) -> Path:
    """Forest plot of ``agent - reference`` per scenario: mean paired difference and its 95% CI."""
    rows = [(s, a) for s in scenarios for a in agents if a in comparisons.get(s, {})]
    fig, ax = plt.subplots(figsize=(7, max(2.0, 0.35 * len(rows) + 1)))
    colours = {a: f"C{i}" for i, a in enumerate(agents)}
    for i, (s, a) in enumerate(rows):
        c = comparisons[s][a]
        err = [[max(0.0, c.mean_diff - c.ci_low)], [max(0.0, c.ci_high - c.mean_diff)]]
        ax.errorbar(c.mean_diff, i, xerr=err,
                    fmt="o", color=colours[a], capsize=3)
    ax.axvline(0.0, color="black", lw=1)
    ax.set_yticks(range(len(rows)), [f"{s} · {a}" for s, a in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"score difference vs {reference} (paired seeds, 95% CI)")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def learning_curves(
    curves: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    references: Mapping[str, float],
    title: str,
    ylabel: str,
    path: Path,
    points: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
) -> Path:
    """One line per training run (``label -> (timesteps, value)``); dashed reference levels.

    ``references`` maps the same labels to a level worth comparing against (e.g. the heuristic's
    mean score on that scenario), drawn as a dashed line in the run's colour; ``points`` adds
    markers (e.g. validation checks of the deterministic policy).
    """
    fig, ax = plt.subplots(figsize=(7, 4))
    for i, (label, (xs_in, ys)) in enumerate(curves.items()):
        xs = list(xs_in)
        ax.plot(xs, ys, color=f"C{i}", alpha=0.2, lw=0.8)
        k = min(9, len(ys))  # centred moving average: the trend without the episode noise
        if k > 1:
            smooth = np.convolve(ys, np.ones(k) / k, mode="valid")
            ax.plot(xs[k // 2: k // 2 + smooth.size], smooth, color=f"C{i}", label=label)
        else:
            ax.plot(xs, ys, color=f"C{i}", label=label)
        if label in references:
            ax.axhline(references[label], color=f"C{i}", ls="--", lw=1)
        if points and label in points:
            ax.plot(*points[label], color=f"C{i}", marker="o", ls=":", ms=4)
    ax.set_xlabel("environment steps")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if curves:
        ax.legend(fontsize=8)
    return _save(fig, path)
