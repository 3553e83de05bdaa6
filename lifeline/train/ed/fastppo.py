"""A compact masked PPO (CleanRL-style, torch) that trains on the batch ED-v3 directly.

``MaskablePPO`` over Gymnasium's ``SyncVectorEnv`` (``lifeline.train.ppo``) spends most of its
time outside the environment (2.8k steps/s overall); this trainer is sized for throughput
instead: the environment is ED-v3's batch env (:class:`lifeline.train.ed.vec.EDv3Vec` over
:class:`lifeline.envs.ed.batch_v3.EDBatchV3`, the numba ``kernel_v3``, N envs per call, no
copies), the policy a small MLP on the same ``log1p`` features as ``lifeline.faces.features``
(sorted observation keys, mask applied to the logits), one torch thread, large rollouts and few
epochs. Training episodes use training seeds only (the vector env's ``episode_seeds``); the
greedy policy is scored on the *validation* seeds (``lifeline.eval.seeds.validation_seeds``)
every ``eval_every_s`` CPU seconds of training, which gives the time-to-score curve and selects
the model (``model.pt`` is the best validation point). The held-out seeds are played once, after
training, by :func:`held_out_comparison`. CPU time is ``time.process_time`` (all threads of this
process), with the evaluations' own CPU time excluded from the training clock.

``arch="pointer"`` swaps the flat MLP for :mod:`lifeline.train.ed.pointer` (one shared scorer over
each action's own patient row), ``batch_collect`` collects the cloning data on the batch kernel
(:mod:`lifeline.train.ed.clone`), ``paired`` adds the per-seed comparison with the heuristic.

``train_fast_ppo("surge", cpu_seconds=120, out_dir="results/ed/fastppo")`` writes
``curve.json`` (config, points ``(train_cpu_s, env_steps, eval_score, train_score)``, the target
and when it was first reached), ``curve.png`` (with the ``viz`` extra) and ``model.pt``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lifeline.agents import register_agent_prefix
from lifeline.core.agent import Agent
from lifeline.eval.seeds import check_train_seed, eval_seeds, train_seed_stream, validation_seeds
from lifeline.faces.features import MASK_KEY, feature_keys
from lifeline.train.ppo_loss import clipped_policy_loss, masked_logits


@dataclass
class FastPPOConfig:
    """Hyperparameters (sized for CPU throughput on the batch env)."""

    num_envs: int = 128
    """Environments stepped together (one batch-kernel call per step)."""
    num_steps: int = 32
    """Steps per environment per rollout (rollout = num_envs x num_steps transitions)."""
    epochs: int = 2
    """PPO passes over each rollout."""
    minibatches: int = 4
    """Minibatches each pass splits the rollout into."""
    learning_rate: float = 1e-3
    """Adam step size of PPO."""
    anneal_lr: bool = False
    """Decay the learning rate linearly with training CPU time (to 5 % at the end)."""
    gamma: float = 0.99
    """Discount per step."""
    gae_lambda: float = 0.95
    """GAE lambda of the advantage estimate."""
    clip_coef: float = 0.2
    """PPO ratio clip (policy loss)."""
    ent_coef: float = 0.01
    """Weight of the entropy bonus over the legal actions."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    max_grad_norm: float = 0.5
    """Gradients are clipped to this global norm."""
    hidden: int = 128
    """Width of the two tanh layers of the actor and of the critic (the pointer policy: of
    its context embedding)."""
    reward_scale: float = 0.05
    """Rewards are multiplied by this (the dense reward is in tens per step when patients die)."""
    eval_every_s: float = 10.0
    """CPU seconds of training between two evaluations of the greedy policy."""
    eval_episodes: int = 30
    """Validation seeds each evaluation plays (``validation_seeds(eval_episodes)``); the best
    evaluation is the model kept."""
    threads: int = 1
    """torch threads (1: the machine is shared; the env is single-threaded anyway)."""
    bc_episodes: int = 0
    """Warm start: behaviour cloning of the env's reference heuristic on this many training
    episodes (masked cross-entropy, plus value regression on its discounted returns), on the
    training clock (collection and fitting count as training CPU time)."""
    bc_epochs: int = 20
    """Passes of the cloning fit over the heuristic data."""
    bc_batch: int = 256
    """Minibatch size of the cloning fit."""
    bc_lr: float = 1e-3
    """Learning rate of the cloning fit (PPO then runs at ``learning_rate``)."""
    dagger_rounds: int = 0
    """After cloning: rounds of DAgger (the learner drives ``dagger_episodes`` episodes, the
    heuristic labels the states it visits, the data are aggregated and refitted for
    ``dagger_epochs``), so the clone also knows what to do where its own mistakes lead."""
    dagger_episodes: int = 20
    """Episodes the learner drives per DAgger round."""
    dagger_epochs: int = 6
    """Passes of the refit over the aggregated data after each DAgger round."""
    bc_coef: float = 0.0
    """During PPO: weight of a cross-entropy term toward the heuristic's labels on a minibatch of
    the cloning/DAgger data (keeps PPO from drifting away from the clone); 0 disables it."""
    arch: str = "mlp"
    """Policy: ``mlp`` (one MLP over the flat ``log1p`` observation, one output per action) or
    ``pointer`` (:mod:`lifeline.train.ed.pointer`: one shared scorer over each action's own
    features, given a context embedding of the observation)."""
    scorer_hidden: int = 64
    """Width of the pointer policy's per-action scorer (``arch=pointer`` only)."""
    eval_during_cloning: bool = False
    """Also evaluate after the cloning fit and after every DAgger round (the time-to-score curve
    then shows the cloning phase too; evaluations stay off the training clock)."""
    bc_balance: float = 0.0
    """Cloning loss weight of a label ``∝ (share of its action kind in the data) ** -bc_balance``
    (0: plain cross-entropy; 0.5: rare moves such as step-down or ventilate count more)."""
    paired: bool = False
    """Keep every evaluation's per-seed scores in ``curve.json`` and write ``paired.json``: the
    greedy policy minus the reference heuristic on the same held-out seeds (bootstrap CI) at
    the final point and at the first point that reached the target."""
    batch_collect: bool = False
    """Collect cloning/DAgger episodes side by side on the batch kernel
    (:func:`lifeline.train.ed.clone.collect_batch`) instead of one by one on the scalar env."""
    lookahead_prob: float = 0.0
    """With ``batch_collect``: the share of DAgger states labelled by the privileged lookahead
    teacher (:mod:`lifeline.train.ed.lookahead`: the best of a few candidates by a heuristic
    rollout of the rest of that episode) instead of the heuristic; 0 disables it. The cloning
    phase always clones the heuristic, so validation can fall back to the plain clone."""
    lookahead_candidates: int = 4
    """Candidate actions the lookahead teacher compares at a state (heuristic's, wait, others)."""
    teacher: str = "heuristic"
    """With ``batch_collect``: the policy whose actions label the cloning and DAgger data (and
    that plays the lookahead rollouts): ``heuristic`` (the reference), ``heuristic-no-RULE`` (the
    reference recipe without one rule, :mod:`lifeline.train.ed.teacher`) or ``auto`` (the best
    single-rule ablation on ``teacher_episodes`` training seeds if it beats the heuristic there,
    else the heuristic; on the training clock)."""
    teacher_episodes: int = 100
    """Training episodes each candidate teacher plays when ``teacher`` is ``auto``."""


@dataclass
class FastPPOResult:
    """What a run produced."""

    points: list[dict[str, Any]] = field(default_factory=list)
    """``train_score`` is ``None`` until a training episode has ended."""
    target: float | None = None
    reached_at_cpu_s: float | None = None
    out_dir: Path | None = None


def _torch() -> Any:
    import torch

    return torch


def make_agent(obs_dim: int, num_actions: int, hidden: int) -> Any:
    """Actor and critic MLPs (two tanh layers each), orthogonal init as in CleanRL."""
    torch = _torch()
    nn = torch.nn

    def layer(i: int, o: int, std: float = 2 ** 0.5) -> Any:
        lin = nn.Linear(i, o)
        nn.init.orthogonal_(lin.weight, std)
        nn.init.constant_(lin.bias, 0.0)
        return lin

    class Agent(nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.critic = nn.Sequential(layer(obs_dim, hidden), nn.Tanh(),
                                        layer(hidden, hidden), nn.Tanh(), layer(hidden, 1, 1.0))
            self.actor = nn.Sequential(layer(obs_dim, hidden), nn.Tanh(),
                                       layer(hidden, hidden), nn.Tanh(),
                                       layer(hidden, num_actions, 0.01))

        def value(self, x: Any) -> Any:
            return self.critic(x).squeeze(-1)

        def logits(self, x: Any, mask: Any) -> Any:
            return masked_logits(self.actor(x), mask)

    return Agent()


class Featurizer:
    """``lifeline.faces.features.features`` for a whole batch: ``log1p(max(obs, 0))`` of the
    observation arrays in sorted key order, flattened per env."""

    def __init__(self, keys: list[str]) -> None:
        self.keys = feature_keys(keys)

    def __call__(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        n = next(iter(obs.values())).shape[0]
        flat = np.concatenate([obs[k].reshape(n, -1) for k in self.keys], axis=1)
        return np.log1p(np.maximum(flat, 0.0, dtype=np.float32))


def collect_heuristic(scenario: str, episodes: int, seeds: Any, cfg: FastPPOConfig,
                      featurize: Callable[[dict[str, np.ndarray]], np.ndarray],
                      driver: Any = None) -> tuple[np.ndarray, ...]:
    """Features, masks, heuristic actions and discounted scaled returns of ``episodes`` episodes
    driven by the heuristic (or by ``driver``, the learner's greedy policy: DAgger)."""
    from lifeline.agents import make_agent as make_baseline
    from lifeline.core.registry import spec
    from lifeline.envs.ed.env import EDEnv

    env: Any = EDEnv(scenario)
    heuristic = make_baseline(spec("ed").reference, "ed")
    xs: list[np.ndarray] = []
    ms: list[np.ndarray] = []
    acts: list[int] = []
    rets: list[float] = []
    for _ in range(episodes):
        seed = next(seeds)
        state = env.reset(seed)
        heuristic.reset(env, seed)
        rewards: list[float] = []
        while not state.done:
            obs = env.observe(state)
            obs[MASK_KEY] = env.action_mask(state)
            xs.append(featurize({k: v[None] for k, v in obs.items()})[0])
            ms.append(env.action_mask(state))
            action = heuristic.act(env, state)
            acts.append(action if isinstance(action, int) else env.encode(action))
            if driver is not None:
                action = driver(xs[-1], ms[-1])
            rewards.append(env.step(state, action).reward * cfg.reward_scale)
        ret, disc = 0.0, []
        for r in reversed(rewards):
            ret = r + cfg.gamma * ret
            disc.append(ret)
        rets.extend(reversed(disc))
    return (np.asarray(xs, dtype=np.float32), np.asarray(ms, dtype=bool),
            np.asarray(acts, dtype=np.int64), np.asarray(rets, dtype=np.float32))


def behaviour_clone(agent: Any, data: tuple[np.ndarray, ...], cfg: FastPPOConfig,
                    opt: Any, epochs: int | None = None, kinds: np.ndarray | None = None) -> float:
    """Fit the actor to the heuristic's actions and the critic to its returns; accuracy.
    ``kinds`` (the action kind of every action index) enables ``cfg.bc_balance``."""
    torch = _torch()
    x, m, a, ret = (torch.from_numpy(d) for d in data)
    weight = None
    if kinds is not None and cfg.bc_balance > 0:
        label_kind = kinds[data[2]]
        share = np.bincount(label_kind, minlength=int(kinds.max()) + 1) / len(label_kind)
        w = share[label_kind] ** -cfg.bc_balance
        weight = torch.from_numpy((w / w.mean()).astype(np.float32))
    size = len(a)
    opt.param_groups[0]["lr"] = cfg.bc_lr
    for _ in range(cfg.bc_epochs if epochs is None else epochs):
        perm = torch.randperm(size)
        for start in range(0, size, cfg.bc_batch):
            idx = perm[start:start + cfg.bc_batch]
            logits = agent.logits(x[idx], m[idx])
            ce = torch.nn.functional.cross_entropy(logits, a[idx], reduction="none")
            ce = (ce * weight[idx]).mean() if weight is not None else ce.mean()
            loss = ce + 0.5 * ((agent.value(x[idx]) - ret[idx]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    opt.param_groups[0]["lr"] = cfg.learning_rate
    with torch.no_grad():
        return float((agent.logits(x, m).argmax(-1) == a).float().mean())


def evaluate(agent: Any, scenario: str, seeds: list[int],
             featurize: Callable[[dict[str, np.ndarray]], np.ndarray]) -> float:
    """Mean grader score of the greedy policy on ``seeds``."""
    return float(evaluate_scores(agent, scenario, seeds, featurize).mean())


def evaluate_scores(agent: Any, scenario: str, seeds: list[int],
                    featurize: Callable[[dict[str, np.ndarray]], np.ndarray]) -> np.ndarray:
    """Per-seed grader scores of the greedy policy on ``seeds`` (the batch env)."""
    from lifeline.train.ed.vec import EDv3Vec

    torch = _torch()
    venv = EDv3Vec(len(seeds), scenario)
    obs = venv.reset(seeds)
    scores = np.full(len(seeds), np.nan)
    with torch.no_grad():
        while np.isnan(scores).any():
            x = torch.from_numpy(featurize(obs))
            mask = torch.from_numpy(obs[MASK_KEY].astype(bool))
            action = agent.logits(x, mask).argmax(-1).numpy()
            obs, _, _, _, score = venv.step(action)
            ended = ~np.isnan(score)
            scores[ended] = score[ended]
    return scores


def build_agent(cfg: FastPPOConfig, scenario: str) -> tuple[Any, Any]:
    """The untrained network of ``cfg.arch`` for ED-v3 ``scenario`` and its featurizer."""
    from lifeline.envs.ed.env import EDEnv

    core = EDEnv(scenario)
    keys = [MASK_KEY, *core.observation_spec()]
    featurize: Any
    if cfg.arch == "pointer":
        from lifeline.train.ed.pointer import RawFeaturizer, make_pointer_agent

        return make_pointer_agent(core.params, cfg.hidden, cfg.scorer_hidden), RawFeaturizer(keys)
    if cfg.arch == "mlp":
        featurize = Featurizer(keys)
        obs = core.observe(core.reset(0))
        dim = featurize({k: v[None] for k, v in obs.items()}).shape[1]
        return make_agent(dim, core.num_actions, cfg.hidden), featurize
    raise ValueError(f"unknown arch {cfg.arch!r} (mlp or pointer)")


def _collector(cfg: FastPPOConfig, seed: int, say: Callable[[str], None],
               teacher: Any = None) -> Any:
    """``clone.collect_batch``, or the lookahead teacher's collection (``cfg.lookahead_prob``),
    with the same signature, labelling with ``teacher`` (the heuristic unless given); each call
    of the latter logs what its lookahead changed."""
    from lifeline.train.ed.clone import collect_batch

    if cfg.lookahead_prob <= 0:
        def plain(scenario: str, episodes: int, seeds: Any, gamma: float, reward_scale: float,
                  featurize: Any, driver: Any = None) -> tuple[np.ndarray, ...]:
            return collect_batch(scenario, episodes, seeds, gamma, reward_scale, featurize,
                                 driver=driver, teacher=teacher)

        return plain
    from lifeline.train.ed.lookahead import LookaheadStats, collect_lookahead

    calls = [0]

    def collect(scenario: str, episodes: int, seeds: Any, gamma: float, reward_scale: float,
                featurize: Any, driver: Any = None) -> tuple[np.ndarray, ...]:
        stats = LookaheadStats()
        calls[0] += 1
        data = collect_lookahead(scenario, episodes, seeds, gamma, reward_scale, featurize,
                                 driver=driver, prob=cfg.lookahead_prob,
                                 candidates=cfg.lookahead_candidates,
                                 rng_seed=seed * 1000 + calls[0], stats=stats, teacher=teacher)
        say(json.dumps({"lookahead": asdict(stats), "labels": len(data[2])}))
        return data

    return collect


def _teacher(cfg: FastPPOConfig, scenario: str, seeds: Any, say: Callable[[str], None],
             record: dict[str, Any]) -> Any:
    """The labelling policy of ``cfg.teacher`` (``auto``: chosen on training seeds; the choice
    is logged and kept in ``record`` for ``curve.json``)."""
    from lifeline.train.ed.teacher import choose_teacher, make_teacher

    name = cfg.teacher
    if name == "auto":
        choice = choose_teacher(scenario, cfg.teacher_episodes, seeds)
        record["teacher_choice"] = asdict(choice)
        say(json.dumps({"teacher_choice": asdict(choice)}))
        name = choice.name
    record["teacher"] = name
    return make_teacher(name)


def train_fast_ppo(scenario: str = "surge", cpu_seconds: float = 120.0,
                   out_dir: Path | str | None = None, seed: int = 0,
                   config: FastPPOConfig | None = None, target: float | None = None,
                   stop_at_target: bool = False,
                   log: Callable[[str], None] | None = None) -> FastPPOResult:
    """Train for ``cpu_seconds`` of training CPU time; evaluate every ``eval_every_s``."""
    from lifeline.train.ed.vec import EDv3Vec

    torch = _torch()
    cfg = config or FastPPOConfig()
    check_train_seed(seed)
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(seed)
    rng_seeds = train_seed_stream(seed)
    agent, featurize = build_agent(cfg, scenario)
    venv = EDv3Vec(cfg.num_envs, scenario, episode_seeds=rng_seeds)
    obs = venv.reset([next(rng_seeds) for _ in range(cfg.num_envs)])
    n_act = venv.num_actions
    val_seeds = validation_seeds(cfg.eval_episodes)
    best: dict[str, Any] = {"score": -np.inf, "state": None, "point": None}
    x0 = featurize(obs)
    opt = torch.optim.Adam(agent.parameters(), lr=cfg.learning_rate, eps=1e-5)
    n, t_len = cfg.num_envs, cfg.num_steps
    buf_x = torch.zeros((t_len, n, x0.shape[1]))
    buf_m = torch.zeros((t_len, n, int(n_act)), dtype=torch.bool)
    buf_a = torch.zeros((t_len, n), dtype=torch.long)
    buf_lp = torch.zeros((t_len, n))
    buf_r = torch.zeros((t_len, n))
    buf_d = torch.zeros((t_len, n))
    buf_v = torch.zeros((t_len, n))
    result = FastPPOResult(target=target)
    train_scores: list[float] = []
    env_steps = 0
    train_cpu = 0.0
    next_eval = 0.0
    say = log or (lambda _msg: None)
    x = torch.from_numpy(x0)
    mask = torch.from_numpy(obs[MASK_KEY].astype(bool))
    done = torch.zeros(n)
    data: tuple[np.ndarray, ...] | None = None
    teacher_record: dict[str, Any] = {"teacher": "heuristic"}

    def checkpoint(phase: str = "ppo") -> bool:
        t0 = time.process_time()
        per_seed = evaluate_scores(agent, scenario, val_seeds, featurize)
        score = float(per_seed.mean())
        if score > best["score"]:
            best.update(score=score, point=len(result.points),
                        state={k: v.clone() for k, v in agent.state_dict().items()})
        recent = float(np.mean(train_scores[-200:])) if train_scores else None
        point = {"train_cpu_s": round(train_cpu, 2), "env_steps": env_steps,
                 "phase": phase, "eval_score": score, "train_score": recent,
                 "eval_cpu_s": round(time.process_time() - t0, 2)}
        if cfg.paired:
            point["eval_scores"] = per_seed.tolist()
        result.points.append(point)
        say(json.dumps(point))
        if target is not None and result.reached_at_cpu_s is None and score >= target:
            result.reached_at_cpu_s = train_cpu
        return target is not None and stop_at_target and score >= target

    stopped = False
    if cfg.bc_episodes > 0:
        t0 = time.process_time()
        if cfg.batch_collect:
            from lifeline.train.ed.clone import collect_batch as collect_clone
            from lifeline.train.ed.clone import greedy_driver

            teacher = _teacher(cfg, scenario, rng_seeds, say, teacher_record)
            collect_batch = _collector(cfg, seed, say, teacher)  # DAgger rounds
            data = collect_clone(scenario, cfg.bc_episodes, rng_seeds, cfg.gamma,
                                 cfg.reward_scale, featurize, teacher=teacher)
        else:
            if cfg.teacher != "heuristic":
                raise ValueError("teacher other than 'heuristic' needs batch_collect=true")
            data = collect_heuristic(scenario, cfg.bc_episodes, rng_seeds, cfg, featurize)
        kinds = None
        if cfg.bc_balance > 0:
            from lifeline.train.ed.pointer import action_targets

            kinds = action_targets(venv.params)[0]
        accuracy = behaviour_clone(agent, data, cfg, opt, kinds=kinds)
        if cfg.eval_during_cloning:
            train_cpu += time.process_time() - t0
            stopped = checkpoint("clone")
            t0 = time.process_time()

        def greedy(xf: np.ndarray, mf: np.ndarray) -> int:
            with torch.no_grad():
                return int(agent.logits(torch.from_numpy(xf[None]),
                                        torch.from_numpy(mf[None])).argmax(-1)[0])

        for round_ in range(cfg.dagger_rounds):
            if stopped:
                break
            if cfg.batch_collect:
                more = collect_batch(scenario, cfg.dagger_episodes, rng_seeds, cfg.gamma,
                                     cfg.reward_scale, featurize, driver=greedy_driver(agent))
            else:
                more = collect_heuristic(scenario, cfg.dagger_episodes, rng_seeds, cfg,
                                         featurize, driver=greedy)
            data = tuple(np.concatenate([a, b]) for a, b in zip(data, more, strict=True))
            accuracy = behaviour_clone(agent, data, cfg, opt, cfg.dagger_epochs, kinds)
            if cfg.eval_during_cloning:
                train_cpu += time.process_time() - t0
                stopped = checkpoint(f"dagger {round_ + 1}")
                t0 = time.process_time()
        train_cpu += time.process_time() - t0
        if cfg.eval_during_cloning:
            next_eval = train_cpu + cfg.eval_every_s
        say(json.dumps({"bc_samples": len(data[2]), "bc_accuracy": round(accuracy, 4),
                        "train_cpu_s": round(train_cpu, 2)}))

    bc_data = (tuple(torch.from_numpy(d) for d in data)
               if data is not None and cfg.bc_coef > 0 else None)
    while not stopped and train_cpu < cpu_seconds:
        if train_cpu >= next_eval:
            if checkpoint():
                break
            next_eval = train_cpu + cfg.eval_every_s
        t0 = time.process_time()
        if cfg.anneal_lr:
            opt.param_groups[0]["lr"] = cfg.learning_rate * max(0.05, 1 - train_cpu / cpu_seconds)
        with torch.no_grad():
            for step in range(t_len):
                buf_x[step], buf_m[step], buf_d[step] = x, mask, done
                logits = agent.logits(x, mask)
                dist = torch.distributions.Categorical(logits=logits)
                action = dist.sample()
                buf_a[step] = action
                buf_lp[step] = dist.log_prob(action)
                buf_v[step] = agent.value(x)
                obs, reward, terminated, truncated, score = venv.step(action.numpy())
                ended = terminated | truncated
                if ended.any():
                    train_scores.extend(score[ended].tolist())
                buf_r[step] = torch.from_numpy((reward * cfg.reward_scale).astype(np.float32))
                done = torch.from_numpy(ended.astype(np.float32))
                x = torch.from_numpy(featurize(obs))
                mask = torch.from_numpy(obs[MASK_KEY].astype(bool))
            env_steps += n * t_len
            # GAE: buf_d[t] = "the observation at t starts a new episode"
            next_value = agent.value(x)
            adv = torch.zeros((t_len, n))
            last = torch.zeros(n)
            for step in reversed(range(t_len)):
                if step == t_len - 1:
                    nonterminal, nv = 1.0 - done, next_value
                else:
                    nonterminal, nv = 1.0 - buf_d[step + 1], buf_v[step + 1]
                delta = buf_r[step] + cfg.gamma * nv * nonterminal - buf_v[step]
                last = delta + cfg.gamma * cfg.gae_lambda * nonterminal * last
                adv[step] = last
            returns = adv + buf_v
        bx = buf_x.reshape(t_len * n, -1)
        bm = buf_m.reshape(t_len * n, -1)
        ba, blp = buf_a.reshape(-1), buf_lp.reshape(-1)
        badv, bret = adv.reshape(-1), returns.reshape(-1)
        size = t_len * n
        mb = size // cfg.minibatches
        for _ in range(cfg.epochs):
            perm = torch.randperm(size)
            for start in range(0, size, mb):
                idx = perm[start:start + mb]
                dist = torch.distributions.Categorical(logits=agent.logits(bx[idx], bm[idx]))
                pg = clipped_policy_loss(dist.log_prob(ba[idx]), blp[idx], badv[idx],
                                         cfg.clip_coef)
                v_loss = 0.5 * ((agent.value(bx[idx]) - bret[idx]) ** 2).mean()
                loss = pg - cfg.ent_coef * dist.entropy().mean() + cfg.vf_coef * v_loss
                if bc_data is not None:
                    j = torch.randint(0, len(bc_data[2]), (len(idx),))
                    loss = loss + cfg.bc_coef * torch.nn.functional.cross_entropy(
                        agent.logits(bc_data[0][j], bc_data[1][j]), bc_data[2][j])
                opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(agent.parameters(), cfg.max_grad_norm)
                opt.step()
        train_cpu += time.process_time() - t0
    else:
        if not stopped:
            checkpoint()
    if out_dir is not None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        result.out_dir = out
        torch.save(best["state"] or agent.state_dict(), out / "model.pt")
        payload = {"env": "ed", "version": int(venv.params.version), "scenario": scenario,
                   "seed": seed, "config": asdict(cfg),
                   "cpu_seconds_budget": cpu_seconds, "target": target,
                   "reached_at_cpu_s": result.reached_at_cpu_s, "points": result.points,
                   "eval_seeds": f"validation_seeds({cfg.eval_episodes})",
                   "selected_point": best["point"], "selected_validation_score": best["score"],
                   **teacher_record,
                   "model": "model.pt: the network at selected_point (best validation score)",
                   "clock": "time.process_time (training only; evaluations excluded)"}
        (out / "curve.json").write_text(json.dumps(payload, indent=2) + "\n")
        if cfg.paired and result.points:
            write_paired(result, out, scenario, cfg.eval_episodes)
        plot_curve(result, out / "curve.png", scenario)
    return result


def write_paired(result: FastPPOResult, out: Path, scenario: str, episodes: int) -> None:
    """``heuristic.json`` (the reference heuristic's per-seed scores on the validation seeds) and
    ``paired.json`` (greedy policy minus heuristic, per validation seed, at the final point and
    at the first point that reached the target; bootstrap 95 % CI over seeds)."""
    from lifeline.eval.stats import paired_compare
    from lifeline.train.ed.clone import heuristic_scores

    seeds = validation_seeds(episodes)
    ref = heuristic_scores(scenario, seeds)
    (out / "heuristic.json").write_text(json.dumps({
        "scores": ref.tolist(), "mean": float(ref.mean()), "seeds": seeds,
        "what": f"heuristic (reference) on ed {scenario}, validation_seeds({episodes}), the same "
                "seeds as the fast-PPO evaluations"}, indent=1) + "\n")
    ref_by_seed = dict(zip(seeds, ref.tolist(), strict=True))
    chosen = {"final": result.points[-1]}
    reached = [p for p in result.points
               if result.target is not None and p["eval_score"] >= result.target]
    if reached:
        chosen["first_reached"] = reached[0]
    report: dict[str, Any] = {"what": "greedy policy minus heuristic, per validation seed"}
    for name, point in chosen.items():
        mine = dict(zip(seeds, point["eval_scores"], strict=True))
        report[name] = {"train_cpu_s": point["train_cpu_s"],
                        **paired_compare(mine, ref_by_seed).to_dict()}
    (out / "paired.json").write_text(json.dumps(report, indent=1) + "\n")


def plot_curve(result: FastPPOResult, path: Path, scenario: str) -> bool:
    """Time-to-score plot (needs matplotlib, the ``viz`` extra); False if unavailable."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    xs = [p["train_cpu_s"] for p in result.points]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.plot(xs, [p["eval_score"] for p in result.points], marker="o", label="greedy, validation")
    ax.plot(xs, [np.nan if p["train_score"] is None else p["train_score"]
                 for p in result.points], alpha=0.6, label="training episodes")
    if result.target is not None:
        ax.axhline(result.target, color="k", ls="--", lw=1, label="heuristic")
    ax.set_xlabel("training CPU seconds (scores: validation seeds)")
    ax.set_ylabel("grader score")
    ax.set_title(f"fast PPO on ED-v3 {scenario} (batch kernel_v3)")
    ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


class FastPPOAgent(Agent):
    """A trained fast-PPO network playing the scalar ED-v3: the most probable legal action of the
    same features the batch trainer fed it (``lifeline compare`` semantics for the held-out
    comparison)."""

    name = "learned"

    def __init__(self, network: Any, featurize: Callable[[dict[str, np.ndarray]], np.ndarray]
                 ) -> None:
        self.network, self.featurize = network, featurize

    @classmethod
    def from_run(cls, run_dir: Path | str) -> FastPPOAgent:
        """The network of a run directory (``curve.json``'s config and ``model.pt``)."""
        torch = _torch()
        run = Path(run_dir)
        meta = json.loads((run / "curve.json").read_text())
        cfg = FastPPOConfig(**meta["config"])
        network, featurize = build_agent(cfg, meta["scenario"])
        network.load_state_dict(torch.load(run / "model.pt", weights_only=True))
        network.eval()
        return cls(network, featurize)

    def act(self, env: Any, state: Any) -> int:
        torch = _torch()
        obs = env.observe(state)
        mask = np.asarray(env.action_mask(state), dtype=bool)
        obs[MASK_KEY] = mask
        x = torch.from_numpy(self.featurize({k: np.asarray(v)[None] for k, v in obs.items()}))
        with torch.no_grad():
            return int(self.network.logits(x, torch.from_numpy(mask[None])).argmax(-1)[0])


register_agent_prefix("fastppo", FastPPOAgent.from_run)
"""``make_agent("fastppo:RUN_DIR", "ed")`` plays a run directory once this module is imported."""


def held_out_comparison(scenario: str, run_dir: Path | str, episodes: int = 30,
                        earlier: dict[str, Any] | None = None) -> dict[str, Any]:
    """The trained network (agent ``learned``) and ED's reference on the first ``episodes``
    held-out seeds, played on the scalar ED-v3 by ``lifeline.eval.episode.run_episode``: a
    ``lifeline compare --json`` result with the paired score difference and, per scenario, the
    paired harm (deaths) difference. ``earlier`` (such a result for other scenarios) is merged:
    its records of other scenarios are kept."""
    from lifeline.eval.episode import Task, run_episode

    torch = _torch()
    torch.set_num_threads(1)
    ref = _reference()
    learned = FastPPOAgent.from_run(run_dir)
    start = time.perf_counter()
    records = [r for r in (earlier or {}).get("records", []) if r["scenario"] != scenario]
    for agent_name in (ref, "learned"):
        for s in eval_seeds(episodes):
            rec = run_episode(Task("ed", scenario, agent_name, s),
                              learned if agent_name == "learned" else None)
            if agent_name == "learned":
                rec["model"] = str(run_dir)
            records.append(rec)
    return comparison(records, time.perf_counter() - start)


def _reference() -> str:
    from lifeline.core.registry import spec

    return spec("ed").reference


def comparison(records: list[dict[str, Any]], wall_s: float | None = None) -> dict[str, Any]:
    """Summary, paired score differences and paired harm differences of ``records``."""
    from lifeline.core.registry import spec
    from lifeline.eval.harness import meta
    from lifeline.eval.stats import paired_compare, paired_differences, summarise

    ref, metric = _reference(), spec("ed").harm_metric
    harm_rows = []
    for scenario in dict.fromkeys(str(r["scenario"]) for r in records):

        def harm(agent: str, scenario: str = scenario) -> dict[int, float]:
            return {int(r["seed"]): float(r["metrics"][metric]) for r in records
                    if r["agent"] == agent and r["scenario"] == scenario}

        harm_rows.append({"scenario": scenario, "metric": metric, "agent": "learned",
                          "reference": ref,
                          **paired_compare(harm("learned"), harm(ref)).to_dict()})
    return {"records": records, "summary": summarise(records), "meta": meta(["ed"], wall_s),
            "paired": paired_differences(records, ref), "paired_harm": harm_rows}
