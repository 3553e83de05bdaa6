"""A privileged teacher for the ED student: one-step lookahead with heuristic rollouts.

The reference heuristic labels every state of the cloning/DAgger data; at a random share of
them (``prob``) the label is instead the best of a few candidate actions, each judged by playing
the rest of *that* episode with the heuristic (a rollout policy-improvement step). The ED-v3
kernel pre-draws every random event of an episode (arrivals, hazards, test turnarounds), so a
branch copied from the episode's arrays sees the same future as the episode would: the teacher
acts on hidden information (the future), the student sees only the observation and can learn
only what the observation predicts. Training seeds only; the grader's episode score decides
(survival first, so a candidate that buys flow with deaths loses).

Candidates at a state: the heuristic's action, ``wait``, and up to ``candidates - 2`` other legal
actions drawn from the allocation kinds (admit, see, expedite, transfer, step down, ventilate;
never a discharge, which the heuristic reserves for ready patients). A candidate replaces the
heuristic's label only when its rollout scores strictly higher.

Branches are copies of an env's row in every array of the batch env's kernel state
(``EDBatchV3.st``, a tuple of per-env arrays) into a second batch env of the same capacity; all
branches of a collection run side by side in one batch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from lifeline.envs.ed.baselines import EDHeuristicAgent
from lifeline.envs.ed.batch_v3 import EDBatchV3
from lifeline.envs.ed.rules import Layout
from lifeline.train.ed.clone import heuristic_labels, play
from lifeline.train.ed.vec import EDv3Vec

BRANCH_KINDS = ("admit_general", "admit_icu", "ventilate", "transfer_to_icu", "step_down",
                "see_general", "see_icu", "expedite_general", "expedite_icu")
"""Action kinds a lookahead candidate may come from (no discharges)."""


@dataclass
class LookaheadStats:
    """What one collection's teacher did."""

    branched: int = 0
    """States whose label was decided by rollouts."""
    changed: int = 0
    """Of those, states where a candidate beat the heuristic's action."""
    rollouts: int = 0
    """Rollouts played (candidates over all branched states)."""
    gain: float = 0.0
    """Sum over changed states of (best candidate's score - heuristic action's score)."""


def _branchable(layout: Layout) -> np.ndarray:
    allowed = np.zeros(layout.total, dtype=bool)
    for kind in BRANCH_KINDS:
        off = layout.offsets[kind]
        allowed[off:off + layout.sizes[kind]] = True
    return allowed


def candidates_for(mask: np.ndarray, label: int, allowed: np.ndarray, k: int,
                   rng: np.random.Generator) -> list[int]:
    """The heuristic's ``label``, ``wait`` and up to ``k - 2`` other legal allocation actions."""
    out = [int(label)] + ([0] if label != 0 else [])
    others = np.flatnonzero(mask & allowed)
    others = others[~np.isin(others, out)]
    take = min(max(k - len(out), 0), len(others))
    if take:
        out += [int(a) for a in rng.choice(others, size=take, replace=False)]
    return out


Snapshot = tuple[tuple[np.ndarray, ...], np.ndarray]
"""One env's row of every kernel array, and its action mask (the kernel checks actions
against the mask of the last observation)."""


def snapshot(batch: EDBatchV3, e: int) -> Snapshot:
    """A copy of env ``e`` of ``batch`` as it is now."""
    return tuple(np.array(arr[e]) for arr in batch.st), batch.mask[e].copy()


def rollout_scores(scenario: str, snapshots: list[Snapshot], first: list[int],
                   capacity: int, teacher: EDHeuristicAgent | None = None) -> np.ndarray:
    """Grader score of each branch: ``snapshots[j]`` (see :func:`snapshot`), action
    ``first[j]``, then ``teacher`` (the heuristic unless given) to the end of the episode."""
    n = len(first)
    batch = EDBatchV3(n, scenario, capacity=capacity)
    for j, (arrays, mask) in enumerate(snapshots):
        for dst, src in zip(batch.st, arrays, strict=True):
            dst[j] = src
        batch.mask[j] = mask
    agent = teacher or EDHeuristicAgent()
    layout = Layout(batch.params)
    rows = np.arange(n)
    done = np.zeros(n, dtype=bool)
    action = np.asarray(first, dtype=np.int64)
    while not done.all():
        batch.step(action, done.copy())
        done |= batch.terminated | batch.truncated
        live = rows[~done]
        action = np.zeros(n, dtype=np.int64)
        if len(live):
            action[live] = heuristic_labels(agent, batch.obs, layout, live)
    return np.array([batch.grade(j).score for j in range(n)])


def collect_lookahead(scenario: str, episodes: int, seeds: Iterator[int], gamma: float,
                      reward_scale: float,
                      featurize: Callable[[dict[str, np.ndarray]], np.ndarray],
                      driver: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
                      prob: float = 0.1, candidates: int = 4, rng_seed: int = 0,
                      stats: LookaheadStats | None = None,
                      teacher: EDHeuristicAgent | None = None) -> tuple[np.ndarray, ...]:
    """``clone.collect_batch``'s data (features, masks, labels, discounted scaled returns,
    episode by episode), with the lookahead teacher's labels at a ``prob`` share of states
    (``teacher``: the base policy that labels the other states and plays the rollouts; the
    heuristic unless given)."""
    rng = np.random.default_rng(rng_seed)
    venv = EDv3Vec(episodes, scenario)
    allowed = _branchable(Layout(venv.params))
    branches: list[tuple[int, int, list[int]]] = []  # (step, env, candidates)
    snapshots: list[Snapshot] = []

    def branch(step: int, rows: np.ndarray, mask: np.ndarray, label: np.ndarray) -> None:
        for e in rows[rng.random(len(rows)) < prob]:
            cands = candidates_for(mask[e], int(label[e]), allowed, candidates, rng)
            if len(cands) > 1:
                branches.append((step, int(e), cands))
                snapshots.append(snapshot(venv.batch, int(e)))

    trace = play(venv, seeds, reward_scale, featurize, driver, hook=branch, teacher=teacher)
    labels = trace.labels
    if branches:
        snaps = [s for s, (_, _, c) in zip(snapshots, branches, strict=True) for _ in c]
        first = [a for _, _, c in branches for a in c]
        scores = rollout_scores(scenario, snaps, first, venv.batch.capacity, teacher)
        at = 0
        for step, e, cands in branches:
            sc = scores[at:at + len(cands)]
            at += len(cands)
            best = int(np.argmax(sc))
            if stats is not None:
                stats.branched += 1
                stats.rollouts += len(cands)
            if sc[best] > sc[0]:
                labels[step][e] = cands[best]
                if stats is not None:
                    stats.changed += 1
                    stats.gain += float(sc[best] - sc[0])
    return trace.flatten(gamma)
