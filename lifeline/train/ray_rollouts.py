"""PPO whose rollouts are collected by Ray actors, each stepping its own vector env.

The split is the usual one for CPU-bound simulators: **acting is parallel, learning is central**.
Every :class:`RolloutWorker` is a Ray actor holding ``n_envs`` copies of the environment in a
Gymnasium ``SyncVectorEnv`` (same-step autoreset) behind the PPO face
(:class:`lifeline.train.ppo.TrainingEnv`: training seeds only, flat features, action mask, grader
score at episode end) and a CPU copy of the policy. Each iteration the driver broadcasts the
current weights (one ``ray.put``), every actor collects ``n_steps`` steps of its envs with the
masked policy and returns numpy arrays, and the driver runs a compact clipped-PPO update (GAE,
masked categorical, minibatches) in torch. Workers on other machines join through
``address=...`` exactly as for evaluation (:mod:`lifeline.eval.ray_backend`).

    from lifeline.train.ray_rollouts import train_ppo_ray
    history = train_ppo_ray("ed", "surge", iterations=50, n_workers=4, n_envs=8, n_steps=128)

Each actor's training seeds come from :func:`lifeline.eval.seeds.train_seed_stream` of its own
stream id (``seed * 1000 + actor * n_envs + env``), so no two envs play the same episode and none
plays a held-out evaluation seed. Needs the ``dist`` and ``train`` extras.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from lifeline.core.extras import require
from lifeline.train.ppo_loss import clipped_policy_loss, masked_logits


@dataclass(frozen=True)
class RayPPOConfig:
    """Hyperparameters of :func:`train_ppo_ray` (defaults: small, CPU-friendly)."""

    n_workers: int = 2
    """Ray actors collecting rollouts (one CPU each)."""
    n_envs: int = 4
    """Environments per actor (a ``SyncVectorEnv``)."""
    n_steps: int = 128
    """Steps per environment per iteration (batch = workers × envs × steps)."""
    hidden: int = 128
    """Width of the two hidden layers of the policy/value MLP."""
    lr: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    epochs: int = 4
    minibatches: int = 4
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    reward_scale: float = 1.0


def _policy(obs_size: int, n_actions: int, hidden: int) -> Any:
    """Shared-trunk MLP: ``forward(x) -> (logits, value)``."""
    import torch
    from torch import nn

    class MaskedPolicy(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.trunk = nn.Sequential(nn.Linear(obs_size, hidden), nn.Tanh(),
                                       nn.Linear(hidden, hidden), nn.Tanh())
            self.pi = nn.Linear(hidden, n_actions)
            self.v = nn.Linear(hidden, 1)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            h = self.trunk(x)
            return self.pi(h), self.v(h).squeeze(-1)

    return MaskedPolicy()


class RolloutWorker:
    """One actor's envs and policy copy (wrapped by ``ray.remote`` in :func:`train_ppo_ray`)."""

    def __init__(self, env: str, scenario: str, n_envs: int, stream: int, hidden: int,
                 reward_scale: float) -> None:
        import gymnasium as gym
        import torch

        from lifeline.eval.seeds import train_seed_stream
        from lifeline.train.ppo import make_training_env

        torch.set_num_threads(1)
        fns = [lambda i=i: make_training_env(env, scenario, train_seed_stream(stream + i),
                                             reward_scale) for i in range(n_envs)]
        self.venv = gym.vector.SyncVectorEnv(fns, autoreset_mode=gym.vector.AutoresetMode.SAME_STEP)
        self.obs, _ = self.venv.reset()
        self.mask = np.stack(self.venv.call("action_masks"))
        n_actions = int(self.venv.single_action_space.n)  # type: ignore[attr-defined]
        self.policy = _policy(self.obs.shape[1], n_actions, hidden)

    def sizes(self) -> tuple[int, int]:
        """``(observation size, number of actions)``."""
        return int(self.obs.shape[1]), int(self.mask.shape[1])

    def collect(self, weights: dict[str, Any], n_steps: int) -> dict[str, Any]:
        """``n_steps`` steps of every env with the given policy weights; numpy arrays back."""
        import torch

        self.policy.load_state_dict(weights)
        n = self.obs.shape[0]
        buf: dict[str, list[np.ndarray]] = {k: [] for k in (
            "obs", "mask", "action", "logp", "value", "reward", "done")}
        episodes: list[dict[str, float]] = []
        with torch.no_grad():
            for _ in range(n_steps):
                x = torch.as_tensor(self.obs, dtype=torch.float32)
                m = torch.as_tensor(self.mask)
                logits, value = self.policy(x)
                dist = torch.distributions.Categorical(logits=masked_logits(logits, m))
                action = dist.sample()
                buf["obs"].append(self.obs)
                buf["mask"].append(self.mask)
                buf["action"].append(action.numpy())
                buf["logp"].append(dist.log_prob(action).numpy())
                buf["value"].append(value.numpy())
                self.obs, reward, term, trunc, info = self.venv.step(action.numpy())
                buf["reward"].append(np.asarray(reward, dtype=np.float32))
                buf["done"].append(np.logical_or(term, trunc))
                self.mask = np.stack(self.venv.call("action_masks"))
                episodes += _finished(info, n)
            _, last_value = self.policy(torch.as_tensor(self.obs, dtype=torch.float32))
        out: dict[str, Any] = {k: np.stack(v) for k, v in buf.items()}
        out["last_value"] = last_value.numpy()
        out["episodes"] = episodes
        return out


def _finished(info: dict[str, Any], n: int) -> list[dict[str, float]]:
    """Episode summaries (return, length, score, seed) of envs that ended on this step."""
    final = info.get("final_info", {})
    got = final.get("lifeline_episode")
    present = final.get("_lifeline_episode")
    if got is None or present is None:
        return []
    if isinstance(got, dict):  # Gymnasium batches a dict-valued info key field by field
        return [{k: float(v[i]) for k, v in got.items() if not k.startswith("_")}
                for i in range(n) if present[i]]
    return [dict(got[i]) for i in range(n) if present[i]]


def gae(rewards: np.ndarray, values: np.ndarray, dones: np.ndarray, last_value: np.ndarray,
        gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Generalised advantage estimates and returns for ``(T, N)`` arrays (``dones[t]``: the
    episode ended after step ``t``, so nothing is bootstrapped across it)."""
    steps = rewards.shape[0]
    adv = np.zeros_like(rewards, dtype=np.float32)
    running = np.zeros(rewards.shape[1], dtype=np.float32)
    for t in reversed(range(steps)):
        next_value = last_value if t == steps - 1 else values[t + 1]
        live = 1.0 - dones[t].astype(np.float32)
        delta = rewards[t] + gamma * next_value * live - values[t]
        running = delta + gamma * lam * live * running
        adv[t] = running
    return adv, adv + values


def ppo_update(policy: Any, optimizer: Any, batch: dict[str, np.ndarray], cfg: RayPPOConfig,
               rng: np.random.Generator) -> dict[str, float]:
    """Clipped-PPO epochs over one batch of flattened transitions; mean losses."""
    import torch

    t = {k: torch.as_tensor(v) for k, v in batch.items()}
    size = t["obs"].shape[0]
    mb = max(1, size // cfg.minibatches)
    stats: dict[str, list[float]] = {"policy_loss": [], "value_loss": [], "entropy": [],
                                     "approx_kl": []}
    for _ in range(cfg.epochs):
        order = torch.as_tensor(rng.permutation(size))
        for start in range(0, size, mb):
            idx = order[start:start + mb]
            logits, value = policy(t["obs"][idx])
            dist = torch.distributions.Categorical(logits=masked_logits(logits, t["mask"][idx]))
            logp = dist.log_prob(t["action"][idx])
            pg = clipped_policy_loss(logp, t["logp"][idx], t["adv"][idx], cfg.clip)
            v_loss = 0.5 * ((value - t["ret"][idx]) ** 2).mean()
            entropy = dist.entropy().mean()
            loss = pg + cfg.vf_coef * v_loss - cfg.ent_coef * entropy
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), cfg.max_grad_norm)
            optimizer.step()
            stats["policy_loss"].append(float(pg.detach()))
            stats["value_loss"].append(float(v_loss.detach()))
            stats["entropy"].append(float(entropy.detach()))
            stats["approx_kl"].append(float((t["logp"][idx] - logp).mean().detach()))
    return {k: float(np.mean(v)) for k, v in stats.items()}


def train_ppo_ray(env: str, scenario: str, iterations: int = 10,
                  config: RayPPOConfig | None = None, seed: int = 0,
                  address: str | None = None, num_cpus: int | None = None,
                  ) -> dict[str, Any]:
    """Train a masked PPO policy with Ray rollout actors; returns ``{"history", "config",
    "policy"}`` (per-iteration steps, wall time, episode scores, losses; the torch module).

    ``address=None`` starts (and afterwards shuts down) a private local Ray instance with
    ``num_cpus`` CPUs; an existing ``ray.init`` in the caller is reused and left running.
    """
    require("dist", "Ray rollouts")
    require("train", "Ray rollouts")
    import ray
    import torch

    cfg = config or RayPPOConfig()
    if iterations < 1:
        raise ValueError(f"iterations must be >= 1, got {iterations}")
    own = not ray.is_initialized()
    if own:
        ray.init(address=address, num_cpus=num_cpus if address is None else None,
                 include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        torch.manual_seed(seed)
        actor_cls: Any = ray.remote(num_cpus=1)(RolloutWorker)
        workers: list[Any] = [
            actor_cls.remote(env, scenario, cfg.n_envs, seed * 1000 + w * cfg.n_envs,
                             cfg.hidden, cfg.reward_scale)
            for w in range(cfg.n_workers)]
        obs_size, n_actions = ray.get(workers[0].sizes.remote())
        policy = _policy(obs_size, n_actions, cfg.hidden)
        optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.lr, eps=1e-5)
        rng = np.random.default_rng(seed)
        history: list[dict[str, Any]] = []
        steps = 0
        start = time.perf_counter()
        for it in range(iterations):
            weights = ray.put({k: v.detach().clone() for k, v in policy.state_dict().items()})
            t0 = time.perf_counter()
            parts = ray.get([w.collect.remote(weights, cfg.n_steps) for w in workers])
            collect_s = time.perf_counter() - t0
            batch = _merge(parts, cfg)
            t1 = time.perf_counter()
            losses = ppo_update(policy, optimizer, batch, cfg, rng)
            steps += batch["obs"].shape[0]
            episodes = [e for p in parts for e in p["episodes"]]
            history.append({
                "iteration": it + 1, "steps": steps,
                "wall_s": round(time.perf_counter() - start, 3),
                "collect_s": round(collect_s, 3), "update_s": round(time.perf_counter() - t1, 3),
                "episodes": len(episodes),
                "score_mean": float(np.mean([e["score"] for e in episodes])) if episodes else None,
                "return_mean": (float(np.mean([e["return"] for e in episodes]))
                                if episodes else None),
                **losses,
            })
        for w in workers:
            ray.kill(w)
        return {"history": history, "config": asdict(cfg), "policy": policy}
    finally:
        if own:
            ray.shutdown()


def _merge(parts: list[dict[str, Any]], cfg: RayPPOConfig) -> dict[str, np.ndarray]:
    """Advantages per actor, then one flat batch of every actor's transitions."""
    cols: dict[str, list[np.ndarray]] = {k: [] for k in ("obs", "mask", "action", "logp", "adv",
                                                          "ret")}
    for p in parts:
        adv, ret = gae(p["reward"], p["value"], p["done"], p["last_value"], cfg.gamma,
                       cfg.gae_lambda)
        t, n = p["reward"].shape
        cols["obs"].append(p["obs"].reshape(t * n, -1).astype(np.float32))
        cols["mask"].append(p["mask"].reshape(t * n, -1).astype(bool))
        cols["action"].append(p["action"].reshape(-1).astype(np.int64))
        cols["logp"].append(p["logp"].reshape(-1).astype(np.float32))
        cols["adv"].append(adv.reshape(-1))
        cols["ret"].append(ret.reshape(-1).astype(np.float32))
    return {k: np.concatenate(v) for k, v in cols.items()}
