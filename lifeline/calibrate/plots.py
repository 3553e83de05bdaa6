"""Small matplotlib figures for calibration cards (headless ``Agg``; the ``viz`` extra)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np

_DPI = 110
_SIZE = (7.5, 4.0)
_REF_COLOURS = ("tab:red", "tab:green", "tab:purple", "tab:brown")


def _save(fig: plt.Figure, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=_DPI)
    plt.close(fig)
    return path


def box_by_group(path: Path, labels: Sequence[str], data: Sequence[Sequence[float]],
                 refs: Mapping[str, Sequence[float]], ylabel: str, title: str) -> Path:
    """Box plot per group with published reference points (one marker series per source)."""
    fig, ax = plt.subplots(figsize=_SIZE)
    pos = np.arange(1, len(labels) + 1)
    ax.boxplot([list(d) if len(d) else [np.nan] for d in data], positions=pos, widths=0.5,
               showmeans=True, showfliers=False)
    for i, (name, vals) in enumerate(refs.items()):
        ax.scatter(pos + 0.28, vals, marker="D", color=_REF_COLOURS[i % 4], label=name, zorder=3)
    ax.set_xticks(pos, labels)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, title="simulated: box (triangle = mean); published:",
              title_fontsize=8)
    return _save(fig, path)


def cdf(path: Path, values: Sequence[float], lines: Mapping[str, float], xlabel: str,
        title: str) -> Path:
    """Empirical CDF of ``values`` with vertical reference lines."""
    fig, ax = plt.subplots(figsize=_SIZE)
    xs = np.sort(np.asarray(values, dtype=float))
    if xs.size:
        ax.step(xs, np.arange(1, xs.size + 1) / xs.size, where="post", label="simulated")
    for i, (name, x) in enumerate(lines.items()):
        ax.axvline(x, color=_REF_COLOURS[i % 4], ls="--", label=name)
    if xs.size > 20:  # keep the body readable: the far tail is in the card's table
        right = max([float(np.percentile(xs, 99)) * 1.05, *(x * 1.15 for x in lines.values())])
        ax.set_xlim(left=min(0.0, float(xs[0])), right=right)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of cases")
    ax.set_ylim(0, 1.02)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return _save(fig, path)


def curve(path: Path, series: Mapping[str, tuple[Sequence[float], Sequence[float]]],
          xlabel: str, ylabel: str, title: str, bars: tuple[Sequence[float],
                                                            Sequence[float]] | None = None,
          bar_label: str = "", points: tuple[Sequence[float], Sequence[float]] | None = None,
          point_label: str = "") -> Path:
    """Line plot of named ``(x, y)`` series, optionally over bars or a scatter of points."""
    fig, ax = plt.subplots(figsize=_SIZE)
    if bars is not None:
        ax.bar(bars[0], bars[1], color="tab:blue", alpha=0.5, label=bar_label)
    if points is not None:
        ax.scatter(points[0], points[1], color="tab:blue", alpha=0.6, s=18, label=point_label,
                   zorder=3)
    for i, (name, (x, y)) in enumerate(series.items()):
        ax.plot(x, y, marker="o", ms=3, color=_REF_COLOURS[i % 4], label=name)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return _save(fig, path)
