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


def collect_batch(scenario: str, episodes: int, seeds: Iterator[int], gamma: float,
                  reward_scale: float, featurize: Callable[[dict[str, np.ndarray]], np.ndarray],
                  driver: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
                  ) -> tuple[np.ndarray, ...]:
    """Features, masks, heuristic labels and discounted scaled returns of ``episodes`` whole
    episodes (seeds from ``seeds``), driven by the heuristic or by ``driver(features, masks)``
    (the learner: DAgger), in the order episode by episode."""
    venv = EDv3Vec(episodes, scenario)
    obs = venv.reset([int(next(seeds)) for _ in range(episodes)])
    agent = EDHeuristicAgent()
    layout = Layout(venv.params)
    live = np.ones(episodes, dtype=bool)
    xs: list[np.ndarray] = []
    ms: list[np.ndarray] = []
    labels: list[np.ndarray] = []
    rewards: list[np.ndarray] = []
    alive: list[np.ndarray] = []
    all_rows = np.arange(episodes)
    while live.any():
        rows = all_rows[live]
        x = featurize(obs)
        mask = obs[MASK_KEY].astype(bool)
        label = np.zeros(episodes, dtype=np.int64)
        label[rows] = heuristic_labels(agent, obs, layout, rows)
        xs.append(x)
        ms.append(mask)
        labels.append(label)
        alive.append(live.copy())
        action = label if driver is None else driver(x, mask)
        obs, reward, terminated, truncated, _ = venv.step(action)
        rewards.append(reward * reward_scale)
        live &= ~(terminated | truncated)
    steps = len(xs)
    ret = np.zeros(episodes)
    returns = np.zeros((steps, episodes), dtype=np.float32)
    for t in reversed(range(steps)):
        ret = rewards[t] + gamma * ret
        returns[t] = ret
    on = np.stack(alive)  # (steps, episodes)
    order = np.argwhere(on.T)  # episode-major: (episode, step)
    ep, st = order[:, 0], order[:, 1]
    x_all, m_all = np.stack(xs), np.stack(ms)
    return (x_all[st, ep].astype(np.float32), m_all[st, ep], np.stack(labels)[st, ep],
            returns[st, ep])


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
