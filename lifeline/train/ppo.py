"""Train MaskablePPO (sb3-contrib) on a Lifeline environment through its Gymnasium face.

``train_ppo("ed", "surge", timesteps=200_000, out_dir="runs/ed-surge")`` writes into ``out_dir``:

* ``model.zip`` — the sb3-contrib MaskablePPO model (CPU);
* ``metadata.json`` — env id and version, scenario, seeds, timesteps, wall time, hyperparameters,
  package version, git commit, library versions, and the policy's feature layout;
* ``progress.csv`` — Stable-Baselines3's own logger, one row per rollout: ``time/total_timesteps``,
  ``rollout/ep_rew_mean``, ``rollout/ep_len_mean``, ``rollout/ep_score_mean`` (the grader score,
  recorded by a small callback), the PPO losses, and ``eval/val_score`` with checkpoint selection;
  ``monitor.csv`` — SB3's ``VecMonitor``: one row per training episode (reward, length, time,
  grader score). With ``tensorboard=DIR`` the same logger also writes TensorBoard event files.
  (Runs from before used a hand-written ``learning_curve.csv``; reports still read those.)

Ctrl-C saves the current policy as ``model.zip`` (metadata says ``"interrupted": true``);
``resume=True`` continues a run directory's model up to ``timesteps`` in total, on fresh training
seeds. The step count is rounded up to whole rollouts (``n_envs * n_steps``) *before* training, so
the progress bar's total is the number of steps actually run.

Training episodes use **training seeds only** (:func:`lifeline.eval.seeds.train_seed_stream`):
:class:`TrainingEnv` ignores any seed passed to ``reset`` and draws the next training seed itself,
so no code path can train on a held-out evaluation episode.

Optionally the policy is warm-started by **behaviour cloning** of the environment's heuristic
(``bc_episodes > 0``, again on training seeds): supervised masked cross-entropy on the heuristic's
actions plus a regression of the value head on its discounted returns. PPO then fine-tunes from
there. This is recorded in the metadata so results say exactly what was trained.

Optionally (``select_every > 0``) the deterministic policy is scored on **validation seeds**
(``lifeline.eval.seeds.validation_seeds``: neither training nor held-out) before the first update
and every ``select_every`` steps; the best checkpoint becomes ``model.zip`` (early stopping), and
the checks are written to ``validation_curve.csv``.
"""

from __future__ import annotations

import csv
import json
import platform
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import lifeline
from lifeline.core.provenance import git_commit
from lifeline.core.registry import make as make_core
from lifeline.core.registry import spec as env_spec
from lifeline.eval.seeds import (
    EVAL_SEED_BASE,
    TRAIN_SEED_MAX,
    VALIDATION_SEED_BASE,
    check_train_seed,
    train_seed_stream,
    validation_seeds,
)
from lifeline.faces.features import MASK_KEY, feature_keys, feature_size, features

MODEL_FILE = "model.zip"
METADATA_FILE = "metadata.json"
CURVE_FILE = "progress.csv"
"""SB3's logger CSV (one row per rollout); older runs have ``LEGACY_CURVE_FILE`` instead."""
LEGACY_CURVE_FILE = "learning_curve.csv"
MONITOR_FILE = "monitor.csv"
VALIDATION_FILE = "validation_curve.csv"
BEST_FILE = "best_model.zip"
CURVE_COLUMNS = ("time/total_timesteps", "rollout/ep_rew_mean", "rollout/ep_len_mean",
                 "rollout/ep_score_mean")
"""Columns of ``progress.csv`` the report relies on (SB3 writes more)."""


@dataclass(frozen=True)
class PPOConfig:
    """MaskablePPO hyperparameters (defaults tuned for short CPU runs on Lifeline envs)."""

    n_envs: int = 8
    """Environments stepped in lock-step (in-process ``DummyVecEnv``)."""
    n_steps: int = 256
    """Steps per environment per rollout (rollout = ``n_envs * n_steps`` transitions)."""
    batch_size: int = 256
    """PPO minibatch size (the cloning warm start uses it too)."""
    n_epochs: int = 5
    """PPO passes over each rollout."""
    learning_rate: float = 3e-4
    """Adam step size of PPO."""
    gamma: float = 0.995
    """Discount per step; ED episodes are a few hundred steps, so a long horizon."""
    gae_lambda: float = 0.95
    """GAE lambda of the advantage estimate."""
    clip_range: float = 0.2
    """PPO ratio clip."""
    ent_coef: float = 0.01
    """Weight of the entropy bonus."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    net_arch: tuple[int, ...] = (256, 256)
    """Hidden layer widths of the policy and value MLPs (SB3 ``net_arch``)."""
    reward: str = "dense"
    """``"dense"``: the environment's shaping reward. ``"grader"``: the per-step change of the
    episode grader's points (0-100), so the undiscounted return *is* the final score x 100 — PPO
    then optimises exactly what evaluation measures."""
    death_penalty: float = 0.0
    """Extra reward subtracted per death the step reports (``info["deaths"]``), before scaling.
    With ``reward="grader"`` it is in grader points: a way to make trading lives for shorter
    waits unattractive when the grader alone would accept the trade."""
    reward_scale: float = 0.05
    """Rewards are multiplied by this before PPO sees them (keeps value targets O(1-10))."""
    bc_episodes: int = 0
    """Heuristic episodes for the behaviour-cloning warm start (0 = plain PPO from scratch)."""
    bc_epochs: int = 10
    """Passes of the cloning warm start over the heuristic data."""
    bc_learning_rate: float = 1e-3
    """Adam step size of the cloning warm start."""
    select_every: int = 0
    """Validate the deterministic policy every this many steps (and before the first update) on
    validation seeds and keep the best checkpoint as ``model.zip`` (0 = keep the final policy)."""
    select_episodes: int = 30
    """Validation episodes per check (seeds ``VALIDATION_SEED_BASE + i``, never held-out ones)."""
    torch_threads: int = 1
    """torch threads (1: the machine is shared; the envs step in this one process)."""
    stats_window: int = 20
    """Training episodes averaged into each logged ``rollout/ep_*_mean`` (SB3's
    ``stats_window_size``; about two rollouts of ed episodes)."""
    curriculum: bool = False
    """Train on the env's curriculum (``<env package>.curriculum.make_curriculum``) climbing to the
    scenario instead of on the scenario alone; validation and evaluation still use the scenario."""


def rollout_size(cfg: PPOConfig) -> int:
    """Transitions per PPO rollout; training always runs whole rollouts."""
    return cfg.n_envs * cfg.n_steps


def planned_timesteps(timesteps: int, cfg: PPOConfig) -> int:
    """``timesteps`` rounded up to whole rollouts: the number of steps training really runs."""
    size = rollout_size(cfg)
    return -(-timesteps // size) * size if timesteps > 0 else 0


# ----- environment wrapper ---------------------------------------------------------------------


class TrainingEnv(gym.Wrapper):
    """The Gymnasium face, seen by PPO: training seeds, flat scaled features, mask, score.

    * ``reset`` ignores the caller's seed and takes the next seed of the run's training stream.
    * Observations become :func:`lifeline.faces.features.features` vectors; the mask is served by
      :meth:`action_masks` (what MaskablePPO calls).
    * The reward is the env's dense reward, or with ``reward="grader"`` the change in grader points;
      either is multiplied by ``reward_scale``. The dense (unscaled) return, length and grader score
      of a finished episode are put into ``info["lifeline_episode"]`` for the learning curve.
    """

    def __init__(self, env: gym.Env, seeds: Iterator[int], reward_scale: float = 1.0,
                 reward: str = "dense", death_penalty: float = 0.0) -> None:
        super().__init__(env)
        space = env.observation_space
        if not isinstance(space, gym.spaces.Dict) or MASK_KEY not in space.spaces:
            raise TypeError("TrainingEnv expects the Lifeline Dict observation with action_mask")
        self.keys = feature_keys(list(space.spaces))
        shapes = {k: space.spaces[k].shape for k in self.keys}
        size = feature_size(shapes, self.keys)  # type: ignore[arg-type]
        self.observation_space = gym.spaces.Box(0.0, np.inf, shape=(size,), dtype=np.float32)
        self.action_space = env.action_space
        self._seeds = seeds
        self._scale = reward_scale
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        self._reward_mode = reward
        self._death_penalty = death_penalty
        self._points = 0.0
        n_actions = int(getattr(env.action_space, "n", 0))
        self._mask: np.ndarray = np.ones(n_actions, dtype=np.bool_)
        self._return = 0.0
        self._len = 0
        self.episode_seed = -1

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None,
              ) -> tuple[np.ndarray, dict[str, Any]]:
        # The caller's seed is deliberately ignored: only training seeds may be used.
        self.episode_seed = check_train_seed(next(self._seeds))
        obs, info = self.env.reset(seed=self.episode_seed, options=options)
        self._mask = np.asarray(obs[MASK_KEY], dtype=bool)
        self._return, self._len = 0.0, 0
        if self._reward_mode == "grader":
            self._points = grader_points(self.env)
        return features(obs, self.keys), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        self._mask = np.asarray(obs[MASK_KEY], dtype=bool)
        self._return += float(reward)
        self._len += 1
        if self._reward_mode == "grader":
            points = grader_points(self.env)
            reward, self._points = points - self._points, points
        reward = float(reward) - self._death_penalty * float(info.get("deaths", 0))
        if terminated or truncated:
            info = dict(info)
            info["lifeline_episode"] = {"return": self._return, "length": self._len,
                                        "score": episode_score(self.env, info),
                                        "seed": self.episode_seed}
        return features(obs, self.keys), float(reward) * self._scale, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Legal actions in the current state (MaskablePPO's hook)."""
        return self._mask.copy()


REWARDS = ("dense", "grader")


def grader_points(env: gym.Env) -> float:
    """The grader's running score x 100 for the face's current state (the "grader" reward)."""
    base = env.unwrapped
    return 100.0 * float(base.core.grade(base.state).score)  # type: ignore[attr-defined]


def episode_score(env: gym.Env, info: dict[str, Any]) -> float:
    """Grader score of the episode that just ended (the face reports it in ``info["score"]``)."""
    if "score" in info:
        return float(info["score"])
    base = env.unwrapped
    return float(base.core.grade(base.state).score)  # type: ignore[attr-defined]


def make_training_env(env_name: str, scenario: str, seeds: Iterator[int],
                      reward_scale: float, reward: str = "dense", death_penalty: float = 0.0,
                      curriculum: Any = None) -> TrainingEnv:
    """The env's Gymnasium face (``Dict`` observation), wrapped in :class:`TrainingEnv`; with a
    ``curriculum``, a :class:`lifeline.train.curriculum.CurriculumFace` following it."""
    from lifeline.faces.gymnasium import make_gym

    if curriculum is not None:
        from lifeline.train.curriculum import CurriculumFace

        return TrainingEnv(CurriculumFace(env_name, curriculum), seeds, reward_scale, reward,
                           death_penalty)
    return TrainingEnv(make_gym(env_name, scenario), seeds, reward_scale, reward, death_penalty)


# ----- validation (checkpoint selection) -----------------------------------------------------


def validation_score(model: Any, env_name: str, scenario: str, seeds: list[int]) -> float:
    """Mean grader score of ``model``'s deterministic policy on ``seeds`` (episodes in lockstep).

    Uses the core env and :func:`features` exactly like :class:`lifeline.agents.ppo.PPOAgent`.
    """
    core = make_core(env_name, scenario)
    keys = feature_keys(list(core.observation_spec()))
    states = [core.reset(seed) for seed in seeds]
    while True:
        active = [s for s in states if not s.done]
        if not active:
            break
        obs = np.stack([features(core.observe(s), keys) for s in active])
        masks = np.stack([core.action_mask(s) for s in active])
        actions, _ = model.predict(obs, deterministic=True, action_masks=masks)
        for state, action in zip(active, np.asarray(actions).reshape(-1), strict=True):
            core.step(state, int(action))
    return float(np.mean([core.grade(s).score for s in states]))


# ----- logging -----------------------------------------------------------------------------------


def _make_logging_callback(start: float, max_seconds: float | None) -> Any:
    """Adds the grader score to SB3's logger each rollout and enforces the wall-time budget.

    Episode bookkeeping (return, length, score) is SB3's ``VecMonitor``; writing rows (CSV,
    TensorBoard) is SB3's logger. This only records ``rollout/ep_score_mean`` from the monitor's
    episode buffer, which SB3 does not log by itself.
    """
    from stable_baselines3.common.callbacks import BaseCallback

    class ScoreAndBudget(BaseCallback):
        def _on_step(self) -> bool:
            return max_seconds is None or time.perf_counter() - start < max_seconds

        def _on_rollout_end(self) -> None:
            scores = [ep["score"] for ep in self.model.ep_info_buffer or () if "score" in ep]
            if scores:
                self.logger.record("rollout/ep_score_mean", float(np.mean(scores)))
            self.logger.record("time/wall_s", round(time.perf_counter() - start, 1))

    return ScoreAndBudget()


def _make_selection_callback(out: Path, env_name: str, scenario: str, every: int,
                             episodes: int) -> Any:
    """An sb3 callback that validates every ``every`` steps and saves the best checkpoint.

    Not sb3-contrib's ``MaskableEvalCallback(best_model_save_path=...)``: that callback ranks
    checkpoints by mean *training reward* (dense shaping, scaled) through ``evaluate_policy``, and
    our selection criterion is the episode *grader score* on validation seeds, which the dense
    reward does not equal (it ranks policies differently on ed: shorter waits vs deaths). The
    scores still go to SB3's logger (``eval/val_score``) so they appear in progress.csv and
    TensorBoard.
    """
    from stable_baselines3.common.callbacks import BaseCallback

    seeds = validation_seeds(episodes)

    class SelectionCallback(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.history: list[tuple[int, float]] = []
            self.best = (-1, -np.inf)
            self.next_check = 0

        def check(self) -> None:
            score = validation_score(self.model, env_name, scenario, seeds)
            self.history.append((int(self.num_timesteps), score))
            self.logger.record("eval/val_score", score)
            if score > self.best[1]:
                self.best = (int(self.num_timesteps), score)
                self.model.save(out / BEST_FILE)
            self.next_check = self.num_timesteps + every

        def _on_training_start(self) -> None:
            self.check()  # the starting point (e.g. the behaviour-cloned policy) competes too

        def _on_step(self) -> bool:
            return True

        def _on_rollout_end(self) -> None:
            if self.num_timesteps >= self.next_check:
                self.check()

        def _on_training_end(self) -> None:
            if not self.history or self.history[-1][0] != self.num_timesteps:
                self.check()
            self.write()

        def write(self) -> None:
            with (out / VALIDATION_FILE).open("w", newline="") as fh:
                writer = csv.writer(fh)
                writer.writerow(("timesteps", "val_score_mean"))
                writer.writerows((t, f"{v:.5f}") for t, v in self.history)

    return SelectionCallback()


# ----- behaviour cloning warm start --------------------------------------------------------------


def collect_heuristic(env_name: str, scenario: str, episodes: int, seeds: Iterator[int],
                      reward_scale: float, gamma: float, reward: str = "dense",
                      death_penalty: float = 0.0,
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[float]]:
    """Roll out the env's reference baseline (``EnvSpec.reference``: its operations heuristic) on
    training seeds: ``(features, actions, masks, returns, scores)``.

    ``returns`` are discounted, scaled rewards-to-go (value-head targets).
    """
    from lifeline.agents import make_agent
    from lifeline.core.registry import spec

    core = make_core(env_name, scenario)
    agent = make_agent(spec(env_name).reference or "heuristic", env_name)
    play = agent.prepare(core)
    if play is not core:
        raise ValueError("behaviour cloning needs an agent that plays the unmodified env")
    keys = feature_keys(list(core.observation_spec()))
    feats, acts, masks, rets, scores = [], [], [], [], []
    for _ in range(episodes):
        seed = check_train_seed(next(seeds))
        state = core.reset(seed)
        agent.reset(core, seed)
        rewards = []
        points = 100.0 * core.grade(state).score
        while not state.done:
            mask = core.action_mask(state)
            action = agent.act(core, state)
            try:
                index = action if isinstance(action, (int, np.integer)) else core.encode(action)
            except ValueError as exc:
                raise ValueError(f"behaviour cloning needs a reference that plays encoded "
                                 f"actions; {env_name}'s {agent.name} played {exc}") from None
            feats.append(features(core.observe(state), keys))
            masks.append(mask)
            acts.append(int(index))
            ts = core.step(state, int(index))
            r = ts.reward
            if reward == "grader":
                new_points = 100.0 * core.grade(state).score
                r, points = new_points - points, new_points
            r -= death_penalty * float(ts.info.get("deaths", 0))
            rewards.append(r * reward_scale)
        togo, acc = np.zeros(len(rewards)), 0.0
        for t in range(len(rewards) - 1, -1, -1):
            acc = rewards[t] + gamma * acc
            togo[t] = acc
        rets.append(togo)
        scores.append(core.grade(state).score)
    return (np.asarray(feats, dtype=np.float32), np.asarray(acts), np.asarray(masks, dtype=bool),
            np.concatenate(rets).astype(np.float32), scores)


def behaviour_clone(model: Any, data: tuple[Any, ...], epochs: int, lr: float,
                    batch_size: int, seed: int) -> dict[str, float]:
    """Fit ``model.policy`` to heuristic actions (masked NLL) and returns (value MSE), in place."""
    import torch

    feats, acts, masks, rets = data[:4]
    policy = model.policy
    optim = torch.optim.Adam(policy.parameters(), lr=lr)
    rng = np.random.default_rng(seed)
    n = len(acts)
    nll = mse = acc = 0.0
    for _ in range(epochs):
        order = rng.permutation(n)
        tot_nll = tot_mse = 0.0
        for start in range(0, n, batch_size):
            idx = order[start:start + batch_size]
            obs_t = torch.as_tensor(feats[idx])
            values, log_prob, _ = policy.evaluate_actions(
                obs_t, torch.as_tensor(acts[idx]), action_masks=masks[idx])
            loss_pi = -log_prob.mean()
            loss_v = torch.nn.functional.mse_loss(values.flatten(), torch.as_tensor(rets[idx]))
            optim.zero_grad()
            (loss_pi + 0.5 * loss_v).backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optim.step()
            tot_nll += loss_pi.item() * len(idx)
            tot_mse += loss_v.item() * len(idx)
        nll, mse = tot_nll / n, tot_mse / n
    with torch.no_grad():
        hits = 0
        for start in range(0, n, 4096):
            sl = slice(start, start + 4096)
            dist = policy.get_distribution(torch.as_tensor(feats[sl]), action_masks=masks[sl])
            hits += int((dist.mode().numpy() == acts[sl]).sum())
        acc = hits / max(1, n)
    return {"bc_nll": nll, "bc_value_mse": mse, "bc_accuracy": acc, "bc_samples": float(n)}


# ----- training entry point ----------------------------------------------------------------------


@dataclass
class TrainResult:
    """Where a run was written and what it measured."""

    out_dir: Path
    model_path: Path
    metadata: dict[str, Any] = field(default_factory=dict)


def train_ppo(
    env_name: str,
    scenario: str,
    timesteps: int,
    out_dir: str | Path,
    seed: int = 0,
    config: PPOConfig | None = None,
    progress_bar: bool = True,
    max_minutes: float | None = None,
    resume: bool = False,
    tensorboard: str | Path | None = None,
) -> TrainResult:
    """Train MaskablePPO on ``env_name``/``scenario`` for ``timesteps`` steps; write the run.

    ``seed`` seeds the policy initialisation and the run's training-seed stream (it must itself be
    a training seed). ``max_minutes`` stops training early (at the next step) once exceeded.
    ``timesteps`` is rounded up to whole rollouts (:func:`planned_timesteps`). ``resume=True``
    loads ``out_dir/model.zip`` and trains it until ``timesteps`` in total (its saved
    hyperparameters are kept; the training-seed stream moves on to fresh seeds). Ctrl-C saves the
    current model and metadata (``"interrupted": true``) and re-raises ``KeyboardInterrupt``.
    """
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger, make_output_format
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    cfg = config or PPOConfig()
    check_train_seed(seed)
    if timesteps < 0 or (timesteps == 0 and cfg.bc_episodes == 0 and not resume):
        raise ValueError(f"timesteps must be positive (0 only with behaviour cloning), "
                         f"got {timesteps}")
    spec_ = env_spec(env_name)
    if scenario not in spec_.scenarios:
        raise ValueError(f"unknown scenario {scenario!r} for {env_name}; choose one of: "
                         f"{', '.join(spec_.scenarios)}")
    out = Path(out_dir)
    previous: dict[str, Any] = {}
    if resume:
        previous, cfg = resume_config(out, env_name, scenario, cfg)
        if (out / CURVE_FILE).is_file():  # SB3's CSV logger truncates: keep the earlier rows
            (out / CURVE_FILE).replace(out / _EARLIER_CURVE)
    torch.set_num_threads(cfg.torch_threads)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    # At the start: the code that trains, not whatever is checked in later.
    commit = git_commit(mark_dirty=True)
    part = int(previous.get("parts", 1)) if resume else 0
    # Each resumed part draws from new streams (keys seed*1000 + 100*part + rank), so a resumed
    # run never replays the training seeds it already saw; behaviour cloning uses key 999.

    curriculum = None
    if cfg.curriculum:  # one schedule shared by the in-process vectorised copies
        from lifeline.train.curriculum import make_env_curriculum

        curriculum = make_env_curriculum(env_name, scenario)

    def factory(rank: int) -> Any:
        # One independent training-seed stream per vectorised copy (disjoint SeedSequence keys).
        return lambda: make_training_env(env_name, scenario,
                                         train_seed_stream(seed * 1000 + 100 * part + rank),
                                         cfg.reward_scale, cfg.reward, cfg.death_penalty,
                                         curriculum)

    # SB3's VecMonitor keeps the per-episode statistics (and the grader score from info).
    monitor = MONITOR_FILE if part == 0 else f"part{part}.{MONITOR_FILE}"  # SB3 wants *monitor.csv
    venv = VecMonitor(DummyVecEnv([factory(i) for i in range(cfg.n_envs)]),
                      filename=str(out / monitor), info_keywords=("score",))
    venv.seed(seed)
    if resume:
        model = MaskablePPO.load(out / MODEL_FILE, env=venv, device="cpu")
    else:
        model = MaskablePPO(
            "MlpPolicy", venv, n_steps=cfg.n_steps, batch_size=cfg.batch_size,
            n_epochs=cfg.n_epochs, learning_rate=cfg.learning_rate, gamma=cfg.gamma,
            gae_lambda=cfg.gae_lambda, clip_range=cfg.clip_range, ent_coef=cfg.ent_coef,
            vf_coef=cfg.vf_coef, seed=seed, device="cpu", verbose=0,
            stats_window_size=cfg.stats_window,
            policy_kwargs={"net_arch": list(cfg.net_arch)},
        )
    formats = [make_output_format("csv", str(out))]
    if tensorboard is not None:
        formats.append(make_output_format("tensorboard", str(tensorboard)))
    logger = Logger(str(out), formats)
    model.set_logger(logger)
    bc_info: dict[str, float] = dict(previous.get("behaviour_cloning", {}))
    if cfg.bc_episodes > 0 and not resume:
        data = collect_heuristic(env_name, scenario, cfg.bc_episodes,
                                 train_seed_stream(seed * 1000 + 999), cfg.reward_scale,
                                 cfg.gamma, cfg.reward, cfg.death_penalty)
        bc_info = behaviour_clone(model, data, cfg.bc_epochs, cfg.bc_learning_rate,
                                  cfg.batch_size, seed)
        bc_info["bc_heuristic_train_score"] = float(np.mean(data[4]))
        bc_info["bc_wall_s"] = time.perf_counter() - start

    callbacks = [_make_logging_callback(start,
                                        None if max_minutes is None else 60.0 * max_minutes)]
    if cfg.select_every > 0:
        callbacks.append(_make_selection_callback(out, env_name, scenario, cfg.select_every,
                                                  cfg.select_episodes))
    planned = planned_timesteps(timesteps, cfg)
    already = int(model.num_timesteps)
    if resume and planned <= already:
        raise ValueError(f"{out} is already trained for {already:,} steps; ask for more than "
                         f"that with --timesteps")
    interrupted = False
    if planned > already:  # 0 = behaviour cloning only (a diagnostic baseline)
        try:
            model.learn(total_timesteps=planned - already, callback=callbacks,
                        progress_bar=progress_bar, reset_num_timesteps=not resume)
        except KeyboardInterrupt:
            interrupted = True
    trained_steps = int(model.num_timesteps)
    selection: dict[str, Any] = {}
    sel = callbacks[1] if len(callbacks) > 1 else None
    if sel is not None and sel.history:
        if interrupted:
            sel.write()
        selection = {"validation_seeds": [VALIDATION_SEED_BASE,
                                          VALIDATION_SEED_BASE + cfg.select_episodes - 1],
                     "every": cfg.select_every, "best_timesteps": sel.best[0],
                     "best_val_score": sel.best[1], "final_val_score": sel.history[-1][1],
                     "checks": len(sel.history)}
        if not interrupted:
            model = MaskablePPO.load(out / BEST_FILE, device="cpu")
    wall = time.perf_counter() - start + float(previous.get("wall_s", 0.0))
    model_path = out / MODEL_FILE
    model.save(model_path)
    logger.close()
    _join_curves(out)

    import sb3_contrib
    import stable_baselines3

    core = make_core(env_name, scenario)
    metadata: dict[str, Any] = {
        "algorithm": "MaskablePPO",
        "env": env_name,
        "gym_id": spec_.gym_id,
        "env_version": core.version,
        "scenario": scenario,
        "seed": seed,
        "train_seeds": {"range": [0, TRAIN_SEED_MAX], "stream": "lifeline.eval.seeds."
                        "train_seed_stream(seed * 1000 + 100 * part + rank), rank = vec-env "
                        "index, part = 0 then +1 per resume; behaviour cloning uses 999"},
        "eval_seed_base": EVAL_SEED_BASE,
        "timesteps_requested": timesteps,
        "timesteps_planned": planned,
        "timesteps": trained_steps,
        "stopped_by_time_budget": bool(trained_steps < planned and not interrupted),
        "interrupted": interrupted,
        "parts": part + 1,
        "checkpoint_selection": selection,
        "max_minutes": max_minutes,
        "wall_s": round(wall, 2),
        "config": asdict(cfg),
        "behaviour_cloning": bc_info,
        "tensorboard": None if tensorboard is None else str(tensorboard),
        "curriculum": None if curriculum is None else {
            "levels": list(curriculum.levels), "final_level": curriculum.levels[curriculum.level],
            "changes": [list(h) for h in curriculum.history]},
        "features": {"keys": feature_keys(list(core.observation_spec())),
                     "transform": "log1p(max(x, 0)) of the concatenated observation arrays"},
        "num_actions": core.num_actions,
        "package_version": lifeline.__version__,
        "git_commit": commit,
        "versions": {"python": platform.python_version(), "torch": torch.__version__,
                     "sb3_contrib": sb3_contrib.__version__,
                     "stable_baselines3": stable_baselines3.__version__,
                     "numpy": np.__version__, "gymnasium": gym.__version__},
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    (out / METADATA_FILE).write_text(json.dumps(metadata, indent=2) + "\n")
    if interrupted:
        raise TrainingInterrupted(TrainResult(out, model_path, metadata))
    return TrainResult(out, model_path, metadata)


_EARLIER_CURVE = "progress.earlier.csv"


def resume_config(out: Path, env_name: str, scenario: str, cfg: PPOConfig,
                  ) -> tuple[dict[str, Any], PPOConfig]:
    """``(previous metadata, the config the saved model was trained with)`` for ``--resume``."""
    if not (out / MODEL_FILE).is_file() or not (out / METADATA_FILE).is_file():
        raise FileNotFoundError(f"nothing to resume in {out}: no {MODEL_FILE} and "
                                f"{METADATA_FILE} (train without --resume first)")
    previous: dict[str, Any] = json.loads((out / METADATA_FILE).read_text())
    if (previous.get("env"), previous.get("scenario")) != (env_name, scenario):
        raise ValueError(f"{out} holds a run on {previous.get('env')}/"
                         f"{previous.get('scenario')}, not {env_name}/{scenario}")
    saved = {k: tuple(v) if k == "net_arch" else v for k, v in previous["config"].items()
             if k in asdict(cfg)}
    return previous, PPOConfig(**{**asdict(cfg), **saved})


def _join_curves(out: Path) -> None:
    """Prepend the rows of earlier parts (kept aside on resume) to this part's progress.csv."""
    earlier = out / _EARLIER_CURVE
    if not earlier.is_file():
        return
    rows: list[dict[str, str]] = []
    for path in (earlier, out / CURVE_FILE):
        if path.is_file():
            with path.open(newline="") as fh:
                rows += list(csv.DictReader(fh))
    columns = list(dict.fromkeys(k for row in rows for k in row))
    with (out / CURVE_FILE).open("w", newline="") as fh:
        writer = csv.DictWriter(fh, columns)
        writer.writeheader()
        writer.writerows(rows)
    earlier.unlink()


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C during training, after the current model and metadata were saved (``.result``)."""

    def __init__(self, result: TrainResult) -> None:
        super().__init__(f"interrupted; model saved to {result.model_path}")
        self.result = result
