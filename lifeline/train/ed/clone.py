"""Cloning data for the ED collected on the ED-v3 batch kernel instead of the scalar core.

``fastppo.collect_heuristic`` steps the scalar ``EDEnv`` (observation, mask and step in Python)
for every labelled decision; here ``episodes`` episodes run side by side in one
:class:`~lifeline.train.ed.vec.EDv3Vec` (``kernel_v3``: the same environment, trajectory-identical
per seed) and only the heuristic's label is computed per env in Python, by the reference
heuristic's own recipe (``EDHeuristicAgent.decide``, via :func:`heuristic_labels`) on that env's
observation, which is the scalar observation. A test checks the labels equal ``act`` of the
agent on the scalar env.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from lifeline.envs.ed.baselines import EDHeuristicAgent
from lifeline.envs.ed.rules import Layout
from lifeline.faces.features import MASK_KEY
from lifeline.train.ed.vec import EDv3Vec


def heuristic_label(agent: EDHeuristicAgent, obs: dict[str, np.ndarray], layout: Layout) -> int:
    """``agent.act`` of the ED heuristic for one observation, as an action index."""
    return layout.encode(agent.decide(obs))  # type: ignore[arg-type]


def heuristic_labels(agent: EDHeuristicAgent, obs: dict[str, np.ndarray], layout: Layout,
                     rows: np.ndarray) -> np.ndarray:
    """:func:`heuristic_label` of the batch observation's ``rows``."""
    keys = ("general_beds", "icu_beds", "queue", "ventilators", "staff")
    return np.array([heuristic_label(agent, {k: obs[k][r] for k in keys}, layout)
                     for r in rows], dtype=np.int64)


class Trace:
    """What :func:`play` records per step of a batch of episodes: features, masks, heuristic
    labels, scaled rewards and which episodes were still running."""

    def __init__(self) -> None:
        self.xs: list[np.ndarray] = []
        self.ms: list[np.ndarray] = []
        self.labels: list[np.ndarray] = []
        self.rewards: list[np.ndarray] = []
        self.alive: list[np.ndarray] = []

    def flatten(self, gamma: float) -> tuple[np.ndarray, ...]:
        """Features, masks, labels and discounted returns of the live steps, episode by
        episode."""
        steps, episodes = len(self.xs), len(self.alive[0])
        ret = np.zeros(episodes)
        returns = np.zeros((steps, episodes), dtype=np.float32)
        for t in reversed(range(steps)):
            ret = self.rewards[t] + gamma * ret
            returns[t] = ret
        order = np.argwhere(np.stack(self.alive).T)  # episode-major: (episode, step)
        ep, st = order[:, 0], order[:, 1]
        return (np.stack(self.xs)[st, ep].astype(np.float32), np.stack(self.ms)[st, ep],
                np.stack(self.labels)[st, ep], returns[st, ep])


StepHook = Callable[[int, np.ndarray, np.ndarray, np.ndarray], None]
"""Called as ``hook(step, rows, mask, labels)`` before each batch step (the lookahead teacher
snapshots env rows there)."""


def play(venv: EDv3Vec, seeds: Iterator[int], reward_scale: float,
         featurize: Callable[[dict[str, np.ndarray]], np.ndarray],
         driver: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
         hook: StepHook | None = None, teacher: EDHeuristicAgent | None = None) -> Trace:
    """Play one episode per env of ``venv`` (seeds from ``seeds``), driven by the teacher or
    by ``driver(features, masks)`` (the learner: DAgger), labelling every live state with the
    teacher's action (``teacher``: the reference heuristic unless given, e.g. one of
    :mod:`lifeline.train.ed.teacher`'s ablations)."""
    episodes = venv.num_envs
    obs = venv.reset([int(next(seeds)) for _ in range(episodes)])
    agent = teacher or EDHeuristicAgent()
    layout = Layout(venv.params)
    live = np.ones(episodes, dtype=bool)
    trace = Trace()
    all_rows = np.arange(episodes)
    while live.any():
        rows = all_rows[live]
        x = featurize(obs)
        mask = obs[MASK_KEY].astype(bool)
        label = np.zeros(episodes, dtype=np.int64)
        label[rows] = heuristic_labels(agent, obs, layout, rows)
        if hook is not None:
            hook(len(trace.xs), rows, mask, label)
        trace.xs.append(x)
        trace.ms.append(mask)
        trace.labels.append(label)
        trace.alive.append(live.copy())
        action = label if driver is None else driver(x, mask)
        obs, reward, terminated, truncated, _ = venv.step(action)
        trace.rewards.append(reward * reward_scale)
        live &= ~(terminated | truncated)
    return trace


def collect_batch(scenario: str, episodes: int, seeds: Iterator[int], gamma: float,
                  reward_scale: float, featurize: Callable[[dict[str, np.ndarray]], np.ndarray],
                  driver: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
                  teacher: EDHeuristicAgent | None = None) -> tuple[np.ndarray, ...]:
    """Features, masks, teacher labels and discounted scaled returns of ``episodes`` whole
    episodes (seeds from ``seeds``), driven by the teacher (the heuristic unless given) or by
    ``driver(features, masks)`` (the learner: DAgger), in the order episode by episode."""
    return play(EDv3Vec(episodes, scenario), seeds, reward_scale, featurize, driver,
                teacher=teacher).flatten(gamma)


def greedy_driver(agent: Any) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The learner's greedy policy on a batch (for DAgger)."""
    import torch

    def drive(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return np.asarray(agent.logits(torch.from_numpy(x), torch.from_numpy(mask))
                              .argmax(-1).numpy())

    return drive


def heuristic_scores(scenario: str, seeds: list[int]) -> np.ndarray:
    """Grader scores of the reference heuristic on ``seeds`` (one episode each), played on the
    batch kernel with :func:`heuristic_labels` (the scalar ``lifeline compare`` gives the same)."""
    venv = EDv3Vec(len(seeds), scenario)
    obs = venv.reset([int(s) for s in seeds])
    agent = EDHeuristicAgent()
    layout = Layout(venv.params)
    scores = np.full(len(seeds), np.nan)
    rows = np.arange(len(seeds))
    while np.isnan(scores).any():
        action = np.zeros(len(seeds), dtype=np.int64)
        live = rows[~venv.finished]
        action[live] = heuristic_labels(agent, obs, layout, live)
        obs, _, _, _, score = venv.step(action)
        ended = ~np.isnan(score)
        scores[ended] = score[ended]
    return scores
