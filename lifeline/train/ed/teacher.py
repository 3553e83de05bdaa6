"""Which policy labels the ED student's cloning and DAgger data: the reference heuristic, or one
of its *recipe ablations*, chosen on training seeds.

The reference heuristic (``EDHeuristicAgent.decide``) is a priority list of rules: discharge,
ventilate, transfer, see, expedite, (make room), admit, else wait. An ablation skips one rule
everywhere (``AblatedHeuristic``); it sees the same observation and nothing else, so a student
can learn it exactly. ``choose_teacher`` plays the heuristic and every ablation of
``ABLATABLE`` on the same training seeds and keeps the ablation with the highest mean paired
score gain, if that gain's 95 % interval (normal approximation over seeds) lies above 0 and its
mean deaths are not higher than the heuristic's; otherwise the heuristic. This is a
policy-improvement step over the recipe's structure, made on training seeds only (never on the
validation or held-out seeds), and it replaces nothing in the env: the reference stays the
heuristic.

Why: the one-state lookahead teacher (:mod:`lifeline.train.ed.lookahead`) cannot see a rule
whose cost is spread over many small decisions. On ED-v3 the heuristic's old ``expedite`` rule
(moving the most urgent queued imaging order ahead of a less urgent first one) cost score on
every scenario measured when skipped for a whole episode, yet the paired rollout gain of
skipping it at a single state was +0.00003 (s.e. 0.00016, ``surge``, 227 branched states): far
below the noise of one episode's rollout. Whole-episode ablations measure it directly. That
finding was folded into the heuristic (stop 37: ESI 4-5 orders first); on the new heuristic no
ablation gains on 60 validation seeds (``results/ed/teacher_headroom.json``), so ``auto`` now
keeps the heuristic.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from lifeline.core.env import Action
from lifeline.envs.ed.baselines import EDHeuristicAgent
from lifeline.envs.ed.rules import Layout
from lifeline.envs.ed.types import Wait

ABLATABLE = ("ventilate", "transfer", "see", "expedite")
"""Rules an ablation may skip. ``discharge`` and ``admit`` are left out: without them no patient
ever leaves or gets a bed (a policy far below the heuristic, not worth the episodes)."""


class AblatedHeuristic(EDHeuristicAgent):
    """The reference heuristic's recipe with the rules in ``skip`` left out."""

    def __init__(self, skip: Sequence[str]) -> None:
        unknown = set(skip) - set(ABLATABLE)
        if unknown:
            raise ValueError(f"unknown heuristic rule(s) {sorted(unknown)}; one of {ABLATABLE}")
        self.skip = tuple(sorted(skip))
        self.name = "heuristic-no-" + "-".join(self.skip)

    def decide(self, obs: dict[str, np.ndarray]) -> Action:
        gen, icu, queue = obs["general_beds"], obs["icu_beds"], obs["queue"]
        rules: tuple[tuple[str, Callable[[], Action | None]], ...] = (
            ("discharge", lambda: self.discharge(gen, icu)),
            ("ventilate", lambda: self.ventilate(icu, obs)),
            ("transfer", lambda: self.transfer(gen, icu)),
            ("see", lambda: self.see(gen, icu, obs)),
            ("expedite", lambda: self.expedite(gen, icu)),
            ("make_room", lambda: self.make_room(gen, icu, queue)),
            ("admit", lambda: self.admit(gen, icu, queue)))
        for rule, propose in rules:
            if rule in self.skip:
                continue
            action = propose()
            if action is not None:
                return action
        return Wait()


def make_teacher(name: str) -> EDHeuristicAgent:
    """``heuristic`` or ``heuristic-no-RULE[-RULE...]`` (an :class:`AblatedHeuristic`)."""
    if name == "heuristic":
        return EDHeuristicAgent()
    prefix = "heuristic-no-"
    if not name.startswith(prefix):
        raise ValueError(f"unknown teacher {name!r}: 'heuristic', 'heuristic-no-RULE' or 'auto'")
    return AblatedHeuristic(name[len(prefix):].split("-"))


def play_scores(teacher: EDHeuristicAgent, scenario: str, seeds: Sequence[int]
                ) -> tuple[np.ndarray, np.ndarray]:
    """Grader scores and deaths of ``teacher`` on ``seeds`` (one episode each, batch kernel)."""
    from lifeline.train.ed.clone import heuristic_labels
    from lifeline.train.ed.vec import EDv3Vec

    venv = EDv3Vec(len(seeds), scenario)
    obs = venv.reset([int(s) for s in seeds])
    layout = Layout(venv.params)
    scores = np.full(len(seeds), np.nan)
    deaths = np.zeros(len(seeds))
    rows = np.arange(len(seeds))
    while np.isnan(scores).any():
        action = np.zeros(len(seeds), dtype=np.int64)
        live = rows[~venv.finished]
        action[live] = heuristic_labels(teacher, obs, layout, live)
        obs, _, _, _, score = venv.step(action)
        for i in np.flatnonzero(~np.isnan(score)):
            scores[i] = score[i]
            deaths[i] = venv.batch.grade(int(i)).metrics["deaths"]
    return scores, deaths


@dataclass
class TeacherChoice:
    """What :func:`choose_teacher` measured (paired over the same training seeds)."""

    name: str
    """The chosen teacher."""
    episodes: int
    """Training episodes each candidate played."""
    heuristic_score: float
    """The heuristic's mean score on them."""
    candidates: dict[str, dict[str, float]]
    """Per ablation: mean paired score gain over the heuristic, its 95 % half-width, and the
    mean paired deaths difference."""


def choose_teacher(scenario: str, episodes: int, seeds: Iterator[int],
                   rules: Sequence[str] = ABLATABLE) -> TeacherChoice:
    """The best single-rule ablation of the heuristic on ``episodes`` training seeds from
    ``seeds``, if it beats the heuristic (95 % interval of the paired gain above 0, no more
    deaths on average); else ``heuristic`` (module docstring)."""
    drawn = [int(next(seeds)) for _ in range(episodes)]
    base, base_deaths = play_scores(EDHeuristicAgent(), scenario, drawn)
    table: dict[str, dict[str, float]] = {}
    best, best_gain = "heuristic", 0.0
    for rule in rules:
        teacher = AblatedHeuristic([rule])
        scores, deaths = play_scores(teacher, scenario, drawn)
        diff = scores - base
        half = float(1.96 * diff.std(ddof=1) / np.sqrt(len(diff)))
        gain, more_deaths = float(diff.mean()), float((deaths - base_deaths).mean())
        table[teacher.name] = {"gain": gain, "ci_half_width": half, "deaths_diff": more_deaths}
        if gain - half > 0 and more_deaths <= 0 and gain > best_gain:
            best, best_gain = teacher.name, gain
    return TeacherChoice(best, episodes, float(base.mean()), table)
