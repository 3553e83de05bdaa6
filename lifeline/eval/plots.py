"""PNG plots for evaluation reports (matplotlib, headless ``Agg`` backend).

Each function draws one figure from already-computed numbers and writes it to ``path``; none of
them computes statistics (that is :mod:`lifeline.eval.stats`), so a plot never disagrees with the
table next to it in the report.

Layout rules, so a plot stays readable for any number of scenarios and agents: every figure is
:data:`WIDTH_IN` inches wide (about 1,000 px at :data:`_DPI`, the README's width); many scenarios
wrap into a grid of small panels (at most :data:`MAX_COLS` per row) instead of one ever-wider
axis; an agent keeps its colour in every panel and every figure (:func:`agent_colours`); long
labels are shortened and titles wrapped so they never overlap.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless: reports are written on servers and in CI

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Patch

from lifeline.eval.stats import MeanCI, PairedComparison

_DPI = 110
WIDTH_IN = 9.0
"""Figure width in inches: 990 px at ``_DPI``, readable at 1,000 px without scaling."""
MAX_COLS = 4
"""Panels per row before a grid wraps."""
PANEL_H = 2.3
"""Height of one grid row, inches."""


def agent_colours(agents: Sequence[str]) -> dict[str, str]:
    """A fixed colour per agent (its position in the env's agent order), shared by every plot."""
    palette = plt.get_cmap("tab10" if len(agents) <= 10 else "tab20")
    return {a: matplotlib.colors.to_hex(palette(i % palette.N)) for i, a in enumerate(agents)}


def _short(label: str, width: int = 18) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"


def _grid(n: int, max_cols: int = MAX_COLS) -> tuple[int, int]:
    cols = max(1, min(max_cols, n))
    return math.ceil(max(1, n) / cols), cols


def _panels(n: int, height: float = PANEL_H, max_cols: int = MAX_COLS,
            sharey: bool = True) -> tuple[plt.Figure, list[plt.Axes]]:
    rows, cols = _grid(n, max_cols)
    fig, axes = plt.subplots(rows, cols, figsize=(WIDTH_IN, height * rows + 0.9),
                             squeeze=False, sharey=sharey, layout="constrained")
    flat = [ax for row in axes for ax in row]
    for ax in flat[n:]:
        ax.axis("off")
    return fig, flat[:n]


def _title(fig: plt.Figure, title: str) -> None:
    fig.suptitle(textwrap.fill(title, 90), fontsize=11)


def _legend(fig: plt.Figure, agents: Sequence[str], colours: Mapping[str, str]) -> None:
    handles = [Patch(color=colours[a], label=_short(a, 28)) for a in agents]
    fig.legend(handles=handles, loc="outside lower center", ncols=min(len(agents), 6),
               fontsize=8, frameon=False)


def _save(fig: plt.Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
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
    colours: Mapping[str, str] | None = None,
) -> Path:
    """One panel per scenario (wrapped into a grid), one bar per agent, error bars = 95% CI.

    ``cells[scenario][agent]`` holds the summary; missing cells are left blank.
    """
    colours = colours or agent_colours(agents)
    fig, axes = _panels(len(scenarios))
    x = np.arange(len(agents))
    for ax, s in zip(axes, scenarios, strict=True):
        for j, agent in enumerate(agents):
            m = cells.get(s, {}).get(agent)
            if m is None:
                continue
            # max(0, ...): the mean of a constant sample can differ from it by rounding.
            err = [[max(0.0, m.mean - m.ci_low)], [max(0.0, m.ci_high - m.mean)]]
            ax.bar(x[j], m.mean, 0.8, yerr=err, capsize=2, color=colours[agent])
        ax.set_xticks([])
        ax.set_ylim(0.0, 1.0)
        ax.set_title(_short(s, 26), fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("score (mean, 95% CI)", fontsize=8)
    _title(fig, title)
    _legend(fig, agents, colours)
    return _save(fig, path)


def distributions(
    values: Mapping[str, Mapping[str, Sequence[float]]],
    scenarios: Sequence[str],
    agents: Sequence[str],
    title: str,
    path: Path,
    colours: Mapping[str, str] | None = None,
) -> Path:
    """Per-scenario box plots of episode scores per agent, with the individual episodes overlaid."""
    colours = colours or agent_colours(agents)
    fig, axes = _panels(len(scenarios))
    jitter = np.random.default_rng(0)  # fixed jitter: deterministic images
    for ax, scenario in zip(axes, scenarios, strict=True):
        for i, agent in enumerate(agents, start=1):
            d = np.asarray(values.get(scenario, {}).get(agent, []), dtype=float)
            if d.size == 0:
                continue
            ax.boxplot([d], positions=[i], widths=0.7, showfliers=False, patch_artist=True,
                       boxprops={"facecolor": colours[agent], "alpha": 0.55},
                       medianprops={"color": "black"})
            ax.scatter(i + jitter.uniform(-0.15, 0.15, d.size), d, s=5, alpha=0.8,
                       color="black", zorder=3)
        ax.set_xticks([])
        ax.set_xlim(0.4, len(agents) + 0.6)
        ax.set_title(_short(scenario, 26), fontsize=9)
        ax.set_ylim(0.0, 1.0)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("episode score", fontsize=8)
    _title(fig, title)
    _legend(fig, agents, colours)
    return _save(fig, path)


def paired_differences(
    comparisons: Mapping[str, Mapping[str, PairedComparison]],
    scenarios: Sequence[str],
    agents: Sequence[str],
    reference: str,
    title: str,
    path: Path,
    colours: Mapping[str, str] | None = None,
) -> Path:
    """Forest plots of ``agent - reference``, one panel per scenario (grid), shared x-axis."""
    colours = colours or agent_colours(agents)
    shown = [s for s in scenarios if comparisons.get(s)]
    fig, axes = _panels(len(shown), height=0.25 * len(agents) + 1.0, sharey=True)
    for ax, s in zip(axes, shown, strict=True):
        for i, a in enumerate(agents):
            c = comparisons[s].get(a)
            if c is None:
                continue
            err = [[max(0.0, c.mean_diff - c.ci_low)], [max(0.0, c.ci_high - c.mean_diff)]]
            ax.errorbar(c.mean_diff, i, xerr=err, fmt="o", ms=4, color=colours[a], capsize=3)
        ax.axvline(0.0, color="black", lw=1)
        ax.set_yticks(range(len(agents)), [_short(a) for a in agents], fontsize=7)
        ax.set_ylim(len(agents) - 0.5, -0.5)
        ax.tick_params(axis="x", labelsize=7)
        ax.set_title(_short(s, 26), fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    fig.supxlabel(f"score difference vs {reference} (paired seeds, 95% CI)", fontsize=9)
    _title(fig, title)
    return _save(fig, path)


def learning_curves(
    curves: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    references: Mapping[str, float],
    title: str,
    ylabel: str,
    path: Path,
    points: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
) -> Path:
    """One panel per training run (``label -> (timesteps, value)``), wrapped into a grid.

    ``references`` maps the same labels to a level worth comparing against (e.g. the heuristic's
    mean score on that scenario), drawn dashed; ``points`` adds markers (e.g. validation checks
    of the deterministic policy). A curve with a single point is drawn as a marker, so a very
    short run still shows something.
    """
    labels = list(curves) or ["(no runs)"]
    fig, axes = _panels(len(labels), height=2.8, max_cols=3, sharey=False)
    for ax, label in zip(axes, labels, strict=True):
        xs, ys = (list(v) for v in curves.get(label, ([], [])))
        k = min(9, len(ys))  # centred moving average: the trend without the episode noise
        if len(ys) < 3:  # too short to smooth: show the points themselves
            ax.plot(xs, ys, color="C0", marker="o", ms=6)
        else:
            ax.plot(xs, ys, color="C0", alpha=0.25, lw=0.8)
            smooth = np.convolve(ys, np.ones(k) / k, mode="valid")
            ax.plot(xs[k // 2: k // 2 + smooth.size], smooth, color="C0")
        if label in references:
            ax.axhline(references[label], color="C3", ls="--", lw=1)
        if points and label in points and len(points[label][0]):
            ax.plot(*points[label], color="C2", marker="o", ls=":", ms=4)
        ax.set_title(_short(label, 30), fontsize=9)
        ax.set_xlabel("environment steps", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.xaxis.get_offset_text().set_fontsize(7)
        ax.grid(alpha=0.3)
    fig.supylabel(ylabel, fontsize=9)
    _title(fig, title)
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color="C0", label="training (moving average)"),
               Line2D([], [], color="C3", ls="--", label="reference")]
    if points:
        handles.append(Line2D([], [], color="C2", ls=":", marker="o", label="validation"))
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8,
               frameon=False)
    return _save(fig, path)
