"""Calibration cards: an environment's own statistics next to published reality (issue 18).

``calibrate(env, scenario, episodes)`` plays the env's reference policy
(``lifeline.spec(env).reference``) on held-out seeds with a *probe*: a small object whose
``on_step(env, state)`` reads the env's own state during the episode (through
:func:`lifeline.eval.episode.run_episode`'s ``on_step`` hook) and whose ``values()`` returns the
episode's statistics. No second model is involved: every number is what the simulator did.

Each environment has a module here (``ed.py``, ``dispatch.py``, ...) declaring

* ``STATS``: the :class:`Stat` rows of its card — reference value, band, source, why the band;
* ``Probe``: the per-episode probe;
* ``pooled(probes)`` (optional): statistics computed over all episodes' samples pooled
  (percentiles of a few calls per episode are too noisy per episode);
* ``plots(probes, out_dir)`` (optional): PNG figures where a distribution is the point.

:mod:`lifeline.calibrate.card` turns the result into Markdown.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

MODULES: dict[str, str] = {
    "ed": "lifeline.calibrate.ed",
    "dispatch": "lifeline.calibrate.dispatch",
    "dispatch_metro": "lifeline.calibrate.dispatch",
    "codered": "lifeline.calibrate.codered",
    "pharmacy": "lifeline.calibrate.pharmacy",
    "evgrid": "lifeline.calibrate.evgrid",
}
"""Environment name -> module declaring its card."""


@dataclass(frozen=True)
class Stat:
    """One row of a calibration card."""

    key: str
    """Key of the value in the probe's ``values()`` / ``pooled()`` dict."""
    label: str
    """What is measured, with its unit."""
    reference: str
    """The published value(s), as stated in the source."""
    band: tuple[float, float] | None
    """Inclusive band the simulated mean should fall in; ``None``: reported, not judged."""
    source: str
    """Citation (from ``shared/notes/calibration-references.md``)."""
    why: str
    """One sentence on why this band (population, single site vs spread between sites)."""
    checked: str = "yes"
    """How well the reference is checked: ``yes``, ``2nd`` (secondary summary only) or ``K``
    (commonly cited, not checked: the card says so and does not rely on it)."""
    pooled: bool = False
    """The headline value is computed over all episodes' samples pooled (percentiles)."""
    fmt: str = "{:.1f}"
    """Format of the simulated value."""
    if_outside: str = ""
    """Why the env falls outside the band when it does (the model difference behind it)."""

    def within(self, value: float) -> bool | None:
        """Whether ``value`` lies in the band (``None`` when not judged or not measurable)."""
        if self.band is None or value is None or math.isnan(value):
            return None
        return self.band[0] <= value <= self.band[1]


class Probe(Protocol):
    """Reads one episode's state as it unfolds and returns its statistics."""

    def on_step(self, env: Any, state: Any) -> None: ...

    def values(self) -> dict[str, float]: ...


@dataclass
class Row:
    """A card row with the measured numbers."""

    stat: Stat
    value: float
    """Headline simulated value (mean over episodes, or the pooled value)."""
    sd: float
    """Standard deviation over episodes (NaN when not defined)."""
    lo: float
    hi: float
    """Smallest / largest episode value (NaN when not defined)."""
    n: int
    """Episodes with a defined value."""

    @property
    def within(self) -> bool | None:
        return self.stat.within(self.value)


@dataclass
class Card:
    """The result of :func:`calibrate`."""

    env: str
    scenario: str
    agent: str
    episodes: int
    seed_start: int
    version: int
    rows: list[Row]
    plots: list[Path] = field(default_factory=list)
    notes: str = ""
    """Module docstring of the env's card module: the mapping from model to reality."""
    reference: str = ""
    """The env's reference when the card module pins another ``POLICY`` (the policy real
    services run, when the env's reference is stronger); empty when the card plays it."""

    def row(self, key: str) -> Row:
        """The row of statistic ``key``."""
        for r in self.rows:
            if r.stat.key == key:
                return r
        raise KeyError(key)


def card_module(env: str) -> ModuleType:
    """The module declaring ``env``'s card (``ValueError`` if there is none)."""
    if env not in MODULES:
        raise ValueError(f"no calibration card for {env!r}; cards exist for: "
                         f"{', '.join(MODULES)}")
    return importlib.import_module(MODULES[env])


def _summary(xs: list[float]) -> tuple[float, float, float, float, int]:
    good = [x for x in xs if x is not None and not math.isnan(x)]
    if not good:
        nan = float("nan")
        return nan, nan, nan, nan, 0
    mean = sum(good) / len(good)
    sd = (math.sqrt(sum((x - mean) ** 2 for x in good) / (len(good) - 1))
          if len(good) > 1 else float("nan"))
    return mean, sd, min(good), max(good), len(good)


def calibrate(env: str, scenario: str | None = None, episodes: int = 10,
              seed_start: int | None = None, out_dir: Path | None = None,
              on_episode: Callable[[int], None] | None = None) -> Card:
    """Play ``env``'s reference policy on ``episodes`` held-out seeds and build its card.

    Plots are written to ``out_dir`` when given (needs matplotlib, the ``viz`` extra).
    """
    from lifeline.core.registry import make, resolve_scenario, spec
    from lifeline.eval.episode import Task, run_episode
    from lifeline.eval.seeds import EVAL_SEED_BASE

    module = card_module(env)
    env_spec = spec(env)
    scen = resolve_scenario(env_spec, scenario) if scenario else env_spec.scenarios[0]
    pinned: str | None = getattr(module, "POLICY", None)
    agent = pinned or env_spec.reference
    start = EVAL_SEED_BASE if seed_start is None else seed_start
    probes: list[Any] = []
    for i in range(episodes):
        probe = module.Probe()
        run_episode(Task(env_spec.name, scen, agent, start + i), on_step=probe.on_step)
        probes.append(probe)
        if on_episode is not None:
            on_episode(i)
    per_episode = [p.values() for p in probes]
    pooled: dict[str, float] = module.pooled(probes) if hasattr(module, "pooled") else {}
    rows = []
    for stat in module.STATS:
        mean, sd, lo, hi, n = _summary([v.get(stat.key, float("nan")) for v in per_episode])
        value = pooled.get(stat.key, float("nan")) if stat.pooled else mean
        rows.append(Row(stat, value, sd, lo, hi, n))
    plots: list[Path] = []
    if out_dir is not None and hasattr(module, "plots"):
        out_dir.mkdir(parents=True, exist_ok=True)
        plots = list(module.plots(probes, out_dir, scen))
    return Card(env=env_spec.name, scenario=scen, agent=agent, episodes=episodes,
                seed_start=start, version=int(make(env_spec.name, scen).version), rows=rows,
                plots=plots, notes=module.__doc__ or "",
                reference="" if agent == env_spec.reference else str(env_spec.reference))
