"""Masked PPO on any Lifeline id, in one file (CleanRL style, torch only).

    python examples/ppo_masked.py --env-id lifeline/Dispatch-v4 --scenario warmup \
        --total-timesteps 50000

What a researcher copies first: every piece of PPO is here and nothing is hidden in a library.
The two Lifeline-specific parts are marked LIFELINE:

* the observation is flattened and squashed by :class:`lifeline.faces.gymnasium.FlattenMasked`
  (``sign(x)·log1p(|x|)``, a fixed transform, so there is no normaliser to save);
* most actions are illegal at most steps, so the policy's logits are masked with
  ``info["action_mask"]`` (every id's vector infos carry it) before sampling and in the loss.

Training episodes use training seeds (below 900,000); the final check plays the deterministic
policy and a masked-random policy on validation seeds (900,000+), never the held-out seeds
(1,000,000+) that the leaderboard reports.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
import torch
from torch import nn

import lifeline  # noqa: F401  (registers the lifeline/* ids with Gymnasium)
from lifeline.eval.seeds import VALIDATION_SEED_BASE, train_seed_stream
from lifeline.faces.gymnasium import FlattenMasked


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--env-id", default="lifeline/Dispatch-v4")
    p.add_argument("--scenario", default=None)
    p.add_argument("--seed", type=int, default=1,
                   help="torch seed; also seeds the training-seed streams")
    p.add_argument("--total-timesteps", type=int, default=50_000)
    p.add_argument("--num-envs", type=int, default=4)
    p.add_argument("--num-steps", type=int, default=256, help="rollout length per env")
    p.add_argument("--learning-rate", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--eval-episodes", type=int, default=10)
    return p.parse_args()


class TrainingSeeds(gym.Wrapper):
    """Every reset takes the next seed of a training stream (below 900,000), whatever it is
    passed, so no training episode is ever a validation or held-out one."""

    def __init__(self, env: gym.Env, first_seed: int) -> None:
        super().__init__(env)
        self.seeds = train_seed_stream(first_seed)

    def reset(self, *, seed=None, options=None):
        return self.env.reset(seed=next(self.seeds), options=options)


def make_env(env_id: str, scenario: str | None, train_seed: int | None = None):
    def thunk() -> gym.Env:
        kwargs = {} if scenario is None else {"scenario": scenario}
        env = FlattenMasked(gym.make(env_id, **kwargs))  # LIFELINE: flat, squashed Box
        return env if train_seed is None else TrainingSeeds(env, train_seed)
    return thunk


def layer(n_in: int, n_out: int, std: float = np.sqrt(2)) -> nn.Linear:
    lin = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.constant_(lin.bias, 0.0)
    return lin


class Agent(nn.Module):
    """Separate actor and critic MLPs; the actor's logits are masked before sampling."""

    def __init__(self, n_obs: int, n_actions: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(layer(n_obs, 128), nn.Tanh(), layer(128, 128), nn.Tanh(),
                                    layer(128, 1, std=1.0))
        self.actor = nn.Sequential(layer(n_obs, 128), nn.Tanh(), layer(128, 128), nn.Tanh(),
                                   layer(128, n_actions, std=0.01))

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x).squeeze(-1)

    def act(self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        logits = self.actor(x).masked_fill(~mask, -1e8)  # LIFELINE: illegal actions get p = 0
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(x)

    def greedy(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.actor(x).masked_fill(~mask, -1e8).argmax(-1)


def masks_of(infos: dict, n_envs: int, n_actions: int) -> np.ndarray:
    """The ``action_mask`` of each env's latest step or reset, from the vector infos."""
    mask = np.asarray(infos["action_mask"], dtype=bool).reshape(n_envs, n_actions)
    return mask


def evaluate(agent: Agent | None, args: argparse.Namespace, episodes: int) -> float:
    """Mean grader score of the greedy policy (or masked random if ``agent`` is None)."""
    env = make_env(args.env_id, args.scenario)()
    rng = np.random.default_rng(0)
    scores = []
    for i in range(episodes):
        obs, info = env.reset(seed=VALIDATION_SEED_BASE + i)
        done = False
        while not done:
            mask = np.asarray(info["action_mask"], dtype=bool)
            if agent is None:
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                with torch.no_grad():
                    action = int(agent.greedy(torch.as_tensor(obs)[None],
                                              torch.as_tensor(mask)[None])[0])
            obs, _, term, trunc, info = env.step(action)
            done = term or trunc
        scores.append(info["score"])
    env.close()
    return float(np.mean(scores))


def main() -> None:
    args = parse_args()
    torch.manual_seed(args.seed)
    # Same-step autoreset: a done step returns the next episode's first observation (and mask);
    # the finished episode's info is under "final_info". This keeps GAE textbook-simple.
    envs = gym.vector.SyncVectorEnv([make_env(args.env_id, args.scenario, args.seed + 7919 * i)
                                     for i in range(args.num_envs)],
                                    autoreset_mode=gym.vector.AutoresetMode.SAME_STEP)
    n_obs = int(np.prod(envs.single_observation_space.shape))
    n_act = int(envs.single_action_space.n)
    agent = Agent(n_obs, n_act)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    T, N = args.num_steps, args.num_envs
    obs_buf = torch.zeros((T, N, n_obs))
    mask_buf = torch.zeros((T, N, n_act), dtype=torch.bool)
    act_buf = torch.zeros((T, N), dtype=torch.long)
    logp_buf, rew_buf, done_buf, val_buf = (torch.zeros((T, N)) for _ in range(4))

    obs_np, infos = envs.reset()
    obs = torch.as_tensor(obs_np, dtype=torch.float32)
    mask = torch.as_tensor(masks_of(infos, N, n_act))
    done = torch.zeros(N)
    iterations = max(1, args.total_timesteps // (T * N))
    batch = T * N
    minibatch = batch // args.num_minibatches
    start, finished = time.time(), []
    for it in range(1, iterations + 1):
        for t in range(T):
            obs_buf[t], mask_buf[t], done_buf[t] = obs, mask, done
            with torch.no_grad():
                action, logp, _, value = agent.act(obs, mask)
            act_buf[t], logp_buf[t], val_buf[t] = action, logp, value
            obs_np, reward, term, trunc, infos = envs.step(action.numpy())
            rew_buf[t] = torch.as_tensor(reward, dtype=torch.float32)
            obs = torch.as_tensor(obs_np, dtype=torch.float32)
            mask = torch.as_tensor(masks_of(infos, N, n_act))
            done = torch.as_tensor(np.logical_or(term, trunc), dtype=torch.float32)
            final = infos.get("final_info", {})
            if "score" in final:
                pairs = zip(final["score"], final["_score"], strict=True)
                finished += [float(score) for score, ok in pairs if ok]

        # Generalised advantage estimation; `done` at t + 1 means step t ended an episode.
        with torch.no_grad():
            next_value = agent.value(obs)
            adv = torch.zeros((T, N))
            last = torch.zeros(N)
            for t in reversed(range(T)):
                nonterminal = 1.0 - (done if t == T - 1 else done_buf[t + 1])
                nxt = next_value if t == T - 1 else val_buf[t + 1]
                delta = rew_buf[t] + args.gamma * nxt * nonterminal - val_buf[t]
                last = delta + args.gamma * args.gae_lambda * nonterminal * last
                adv[t] = last
            ret = adv + val_buf

        b_obs, b_mask = obs_buf.reshape(batch, n_obs), mask_buf.reshape(batch, n_act)
        b_act, b_logp = act_buf.reshape(batch), logp_buf.reshape(batch)
        b_adv, b_ret, b_val = adv.reshape(batch), ret.reshape(batch), val_buf.reshape(batch)
        for _ in range(args.update_epochs):
            order = torch.randperm(batch)
            for lo in range(0, batch, minibatch):
                idx = order[lo:lo + minibatch]
                _, logp, entropy, value = agent.act(b_obs[idx], b_mask[idx], b_act[idx])
                ratio = (logp - b_logp[idx]).exp()
                a = b_adv[idx]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg_loss = torch.max(-a * ratio,
                                    -a * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_clipped = b_val[idx] + (value - b_val[idx]).clamp(-args.clip_coef,
                                                                    args.clip_coef)
                v_loss = 0.5 * torch.max((value - b_ret[idx]) ** 2,
                                         (v_clipped - b_ret[idx]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        recent = f"{np.mean(finished[-20:]):.3f}" if finished else "n/a"
        print(f"iter {it}/{iterations}  steps {it * batch}  episodes {len(finished)}  "
              f"score(last 20) {recent}  {time.time() - start:.0f}s", flush=True)
    envs.close()

    learned = evaluate(agent, args, args.eval_episodes)
    random_score = evaluate(None, args, args.eval_episodes)
    print(f"validation seeds ({args.eval_episodes} episodes): learned {learned:.4f}  "
          f"masked random {random_score:.4f}  difference {learned - random_score:+.4f}")


if __name__ == "__main__":
    main()
