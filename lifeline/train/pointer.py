"""The generic recipe for :class:`lifeline.agents.pointer.PointerNet` on any env.

Over the Gymnasium face (:class:`lifeline.faces.gymnasium.LifelineGymEnv`), on training seeds
only (:func:`lifeline.eval.seeds.train_seed_stream`):

1. **Behaviour cloning + DAgger** from a teacher (``teacher``; default the env's reference
   baseline; it may be stronger or read the hidden state — the student sees only the
   observation): ``dagger_rounds`` rounds of ``episodes`` episodes; in round ``r`` the executed
   action is the teacher's with probability ``0.5 ** r`` and the learner's otherwise, and every
   visited state is labelled with the teacher's action (legal labels only). After each round the
   network is fitted on all labels so far (cross-entropy over the masked logits).
2. **Masked PPO with a cloning anchor** for ``ppo_iters`` iterations: sampled actions, the env
   reward, GAE under a value head fitted alone on each batch, the clipped objective plus
   ``anchor`` x the cross-entropy to the teacher's label in the same states.
3. **Model selection on validation seeds** (:func:`lifeline.eval.seeds.validation_seeds`):
   after every round and iteration the greedy policy plays ``val_episodes`` validation episodes;
   the best mean score is kept (``pointer.pt``). The held-out seeds are never touched here; the
   final paired comparison is :func:`held_out_comparison`.

Torch runs on one thread; ``cpu_seconds`` stops the run (at the end of a round or iteration).
"""

from __future__ import annotations

import copy
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from lifeline.agents import make_agent
from lifeline.agents.pointer import PointerNet, batch_tables, save
from lifeline.core.registry import resolve_scenario, spec
from lifeline.eval.seeds import train_seed_stream, validation_seeds
from lifeline.faces.entities import entity_spec
from lifeline.faces.gymnasium import LifelineGymEnv


@dataclass
class PointerConfig:
    """Hyperparameters of one run (defaults: a few CPU-minutes on a cheap scenario)."""

    env: str
    """Registered env name."""
    scenario: str | None = None
    """Scenario (default: the env's default)."""
    teacher: str = ""
    """Agent that labels every visited state (DAgger and the PPO anchor); empty: the env's
    reference. It may be stronger than the reference or read hidden state (a privileged
    teacher, e.g. ``mpc`` on evgrid, ``oracle`` on codered): the student still sees only the
    observation, and the held-out comparison is always against the reference."""
    lookahead_prob: float = 0.0
    """If > 0: the teacher is the hindsight-lookahead teacher around ``teacher``
    (:class:`lifeline.train.lookahead.LookaheadAgent`): this share of the labelled states gets
    the best of the candidates by a rollout of ``teacher`` to the episode's end on the same
    seeded future (privileged: it sees the future; the student sees only the observation).
    0: the plain teacher."""
    lookahead_k: int = 4
    """Candidates per looked-ahead state (the teacher's own action included)."""
    lookahead_horizon: int = 0
    """Steps each lookahead rollout plays before it is graded (0: to the episode's end)."""
    lookahead_weight: float = 1.0
    """Cloning weight of a label the lookahead changed (the teacher's rare deviations from its
    base, a few per episode among hundreds of states; 1: like any other label)."""
    d: int = 64
    """Width of the row encodings, context and scorers."""
    dagger_rounds: int = 6
    """Rounds of cloning/DAgger (round r: reference executes with probability 0.5**r)."""
    episodes: int = 24
    """Training episodes per DAgger round and per PPO iteration."""
    bc_epochs: int = 10
    """Epochs over all labels after each DAgger round."""
    batch: int = 256
    """Minibatch size (cloning and PPO)."""
    lr: float = 1e-3
    """Adam learning rate of cloning."""
    ppo_iters: int = 0
    """PPO iterations after DAgger (0: none)."""
    ppo_epochs: int = 4
    """Epochs over each PPO batch."""
    clip: float = 0.2
    """PPO ratio clip."""
    gamma: float = 0.99
    """Discount of the env reward."""
    lam: float = 0.95
    """GAE lambda."""
    anchor: float = 0.5
    """Weight of the cross-entropy to the reference's label during PPO."""
    ppo_lr: float = 1e-4
    """Adam learning rate of PPO."""
    value_epochs: int = 50
    """Epochs fitting the value head alone (cached contexts, minibatch 64) on each PPO batch."""
    val_episodes: int = 10
    """Validation episodes per checkpoint (model selection)."""
    seed: int = 0
    """Run seed: torch init and the training seed stream."""
    cpu_seconds: float = 900.0
    """Training CPU budget (process_time), checked between rounds/iterations."""


def _action_index(core: Any, action: Any) -> int:
    return int(action) if isinstance(action, (int, np.integer)) else int(core.encode(action))


class Recipe:
    """One training run (module docstring); :meth:`run` returns the history."""

    def __init__(self, cfg: PointerConfig, out: Path) -> None:
        self.cfg, self.out = cfg, out
        self.env_spec = spec(cfg.env)
        self.scenario = resolve_scenario(self.env_spec, cfg.scenario)
        self.gym = LifelineGymEnv(cfg.env, self.scenario)
        self.core = self.gym.core
        self.spec = entity_spec(self.core)
        torch.manual_seed(cfg.seed)
        torch.set_num_threads(1)
        self.net = PointerNet(self.spec, cfg.d)
        self.seeds = train_seed_stream(cfg.seed)
        self.rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, 0x9017]))
        self.reference = make_agent(self.env_spec.reference, cfg.env)
        self.teacher_name = cfg.teacher or self.env_spec.reference
        self.teacher = (self.reference if self.teacher_name == self.env_spec.reference
                        else make_agent(self.teacher_name, cfg.env))
        if cfg.lookahead_prob > 0:
            from lifeline.train.lookahead import LookaheadAgent, env_candidates

            base = make_agent(self.teacher_name, cfg.env)  # its own copy: rollouts mutate it
            self.teacher = LookaheadAgent(base, env_candidates(cfg.env), cfg.lookahead_prob,
                                          cfg.lookahead_k, cfg.lookahead_horizon, cfg.seed)
            self.teacher_name = f"lookahead({self.teacher_name})"
        self.data: list[tuple[dict[str, np.ndarray], np.ndarray, int, float]] = []
        self.history: list[dict[str, Any]] = []
        self.best = (-np.inf, copy.deepcopy(self.net.state_dict()))
        self.cpu0 = time.process_time()

    # ----- acting -----------------------------------------------------------------------
    def _policy(self, obs: dict[str, np.ndarray], mask: np.ndarray) -> tuple[np.ndarray, float]:
        with torch.no_grad():
            logits, value = self.net(batch_tables(self.spec, [obs]),
                                     torch.from_numpy(mask)[None])
        return logits[0].numpy(), float(value[0])

    def _reference(self, state: Any) -> tuple[Any, int]:
        """The teacher's action in ``state`` and its index (-1: a tool-only call, no index)."""
        action = self.teacher.act(self.core, state)
        try:
            return action, _action_index(self.core, action)
        except ValueError:
            return action, -1

    def _episode(self, beta: float, sample: bool) -> list[dict[str, Any]]:
        seed = next(self.seeds)
        obs, info = self.gym.reset(seed=seed)
        self.teacher.reset(self.core, seed)
        steps: list[dict[str, Any]] = []
        done = False
        while not done:
            mask = np.asarray(info["action_mask"], dtype=bool)
            ref_action, label = self._reference(self.gym.state)
            weight = (self.cfg.lookahead_weight if getattr(self.teacher, "last_changed", False)
                      else 1.0)
            expert = self.rng.random() < beta
            if expert and label < 0:  # a tool-only call (a query): no index, no label
                ts = self.core.step(self.gym.state, ref_action)
                done = bool(ts.terminated or ts.truncated)
                mask = np.asarray(self.core.action_mask(self.gym.state), dtype=bool)
                obs, info = {**self.core.observe(self.gym.state), "action_mask": mask}, {
                    "action_mask": mask}
                continue
            if expert:  # the teacher acts: no forward pass (logp and value unused in DAgger)
                action, logp, value = label, 0.0, 0.0
            else:
                logits, value = self._policy(obs, mask)
                if sample:
                    p = np.exp(logits - logits.max())
                    action = int(self.rng.choice(len(p), p=p / p.sum()))
                else:
                    action = int(logits.argmax())
                top = logits.max()
                logp = float(logits[action] - top - np.log(np.exp(logits - top).sum()))
            nxt, reward, term, trunc, info = self.gym.step(action)
            steps.append({"obs": obs, "mask": mask, "label": label, "action": action,
                          "logp": logp, "value": value, "reward": float(reward),
                          "weight": weight})
            obs, done = nxt, bool(term or trunc)
        return steps

    # ----- selection --------------------------------------------------------------------
    def validate(self, reference: bool = False) -> float:
        """Mean score of the greedy policy (or the reference) on the validation seeds."""
        scores = []
        for seed in validation_seeds(self.cfg.val_episodes):
            state = self.core.reset(seed)
            self.reference.reset(self.core, seed)
            while not state.done:
                if reference:
                    action = self.reference.act(self.core, state)
                else:
                    logits, _ = self._policy(self.core.observe(state), np.asarray(
                        self.core.action_mask(state), dtype=bool))
                    action = int(logits.argmax())
                self.core.step(state, action)  # an int or, for the reference, a semantic call
            scores.append(self.core.grade(state).score)
        return float(np.mean(scores))

    def _checkpoint(self, stage: str, extra: dict[str, Any]) -> None:
        score = self.validate()
        if score > self.best[0]:
            self.best = (score, copy.deepcopy(self.net.state_dict()))
        row = {"stage": stage, "cpu_s": round(time.process_time() - self.cpu0, 1),
               "validation_score": round(score, 5), **extra}
        self.history.append(row)
        print(json.dumps(row), flush=True)

    def _out_of_time(self) -> bool:
        return time.process_time() - self.cpu0 > self.cfg.cpu_seconds

    # ----- stages -----------------------------------------------------------------------
    def _fit(self) -> float:
        opt = torch.optim.Adam(self.net.parameters(), lr=self.cfg.lr)
        n = len(self.data)
        loss_v = 0.0
        for _ in range(self.cfg.bc_epochs):
            order = self.rng.permutation(n)
            for start in range(0, n, self.cfg.batch):
                idx = order[start:start + self.cfg.batch]
                obs = [self.data[i][0] for i in idx]
                mask = torch.from_numpy(np.stack([self.data[i][1] for i in idx]))
                labels = torch.tensor([self.data[i][2] for i in idx])
                w = torch.tensor([self.data[i][3] for i in idx], dtype=torch.float32)
                logits, _ = self.net(batch_tables(self.spec, obs), mask)
                ce = nn.functional.cross_entropy(logits, labels, reduction="none")
                loss = (ce * w).sum() / w.sum()
                opt.zero_grad()
                loss.backward()
                opt.step()
                loss_v = float(loss.detach())
        return loss_v

    def dagger(self) -> None:
        """Stage 1: behaviour cloning (round 0) and DAgger rounds."""
        for r in range(self.cfg.dagger_rounds):
            for _ in range(self.cfg.episodes):
                for s in self._episode(beta=0.5 ** r, sample=False):
                    if s["label"] >= 0 and s["mask"][s["label"]]:
                        self.data.append((s["obs"], s["mask"], s["label"], s["weight"]))
            loss = self._fit()
            self._checkpoint(f"dagger{r}", {"labels": len(self.data), "bc_loss": round(loss, 4)})
            if self._out_of_time():
                return

    def _contexts(self, steps: list[dict[str, Any]]) -> torch.Tensor:
        """The (detached) contexts of the states of ``steps``: all the value head reads."""
        out = []
        with torch.no_grad():
            for start in range(0, len(steps), self.cfg.batch):
                sel = steps[start:start + self.cfg.batch]
                out.append(self.net.encode(batch_tables(self.spec, [s["obs"] for s in sel]))[0])
        return torch.cat(out) if out else torch.zeros(0, self.cfg.d)

    def _fit_value(self, episodes: list[list[dict[str, Any]]]) -> dict[str, float]:
        """Fit the value head alone on this batch's discounted returns (``value_epochs`` epochs
        over cached contexts: cheap, and the head sees enough updates to be a baseline), then
        give every step its value. Returns the explained variance of the returns before the
        fit (the head as the previous iteration left it: out of sample) and after."""
        steps = [s for ep in episodes for s in ep]
        for ep in episodes:
            ret = 0.0
            for s in reversed(ep):
                ret = s["reward"] + self.cfg.gamma * ret
                s["mc"] = ret
        ctx = self._contexts(steps)
        target = torch.tensor([s["mc"] for s in steps], dtype=torch.float32)

        def explained() -> float:
            with torch.no_grad():
                v = self.net.value(ctx)[:, 0]
            return float(1.0 - torch.var(target - v) / (torch.var(target) + 1e-12))

        before = explained()
        opt = torch.optim.Adam(self.net.value.parameters(), lr=self.cfg.lr)
        for _ in range(self.cfg.value_epochs):
            order = torch.from_numpy(self.rng.permutation(len(steps)))
            for start in range(0, len(steps), 64):
                idx = order[start:start + 64]
                loss = ((self.net.value(ctx[idx])[:, 0] - target[idx]) ** 2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        with torch.no_grad():
            values = self.net.value(ctx)[:, 0].numpy()
        for s, v in zip(steps, values, strict=True):
            s["value"] = float(v)
        return {"explained_var_before": round(before, 4), "explained_var": round(explained(), 4)}

    def _gae(self, episodes: list[list[dict[str, Any]]]) -> None:
        """Advantages and returns (GAE) of each episode from the steps' values."""
        for ep in episodes:
            adv, nxt = 0.0, 0.0
            for s in reversed(ep):
                delta = s["reward"] + self.cfg.gamma * nxt - s["value"]
                adv = delta + self.cfg.gamma * self.cfg.lam * adv
                s["adv"], s["ret"] = adv, adv + s["value"]
                nxt = s["value"]

    def ppo(self) -> None:
        """Stage 2: masked PPO from the selected network, anchored to the teacher's labels.

        The value head reads a detached context (its loss never moves the cloned policy's
        features) and is fitted alone on each batch's returns before the advantages
        (``value_epochs``; without it the head had a negative explained variance on every
        iteration, so the advantages were noise). Each checkpoint row logs the diagnostics:
        approximate KL, clipped share, explained variance of the returns before and after the
        value fit, agreement of the greedy action with the teacher's label, entropy.
        """
        self.net.load_state_dict(self.best[1])
        opt = torch.optim.Adam(self.net.parameters(), lr=self.cfg.ppo_lr)
        for it in range(self.cfg.ppo_iters):
            if self._out_of_time():
                return
            episodes = [self._episode(beta=0.0, sample=True) for _ in range(self.cfg.episodes)]
            returns_sum = sum(s["reward"] for ep in episodes for s in ep)
            value_diag = self._fit_value(episodes)
            self._gae(episodes)
            batch = [s for ep in episodes for s in ep]
            advs = np.array([s["adv"] for s in batch])
            advs = (advs - advs.mean()) / (advs.std() + 1e-8)
            kls, clipped, agree, ent = [], [], [], []
            for _ in range(self.cfg.ppo_epochs):
                order = self.rng.permutation(len(batch))
                for start in range(0, len(batch), self.cfg.batch):
                    idx = order[start:start + self.cfg.batch]
                    sel = [batch[i] for i in idx]
                    mask = torch.from_numpy(np.stack([s["mask"] for s in sel]))
                    logits, values = self.net(batch_tables(self.spec, [s["obs"] for s in sel]),
                                              mask)
                    logp_all = torch.log_softmax(logits, -1)
                    acts = torch.tensor([s["action"] for s in sel])
                    logp = logp_all.gather(1, acts[:, None])[:, 0]
                    old = torch.tensor([s["logp"] for s in sel])
                    ratio = torch.exp(logp - old)
                    a = torch.tensor(advs[idx], dtype=torch.float32)
                    pg = -torch.min(ratio * a, ratio.clamp(1 - self.cfg.clip,
                                                           1 + self.cfg.clip) * a).mean()
                    vloss = ((values - torch.tensor([s["ret"] for s in sel],
                                                    dtype=torch.float32)) ** 2).mean()
                    legal = torch.tensor([s["label"] >= 0 and bool(s["mask"][s["label"]])
                                          for s in sel])
                    labels = torch.tensor([max(s["label"], 0) for s in sel])
                    bc = (nn.functional.cross_entropy(logits[legal], labels[legal])
                          if bool(legal.any()) else logits.sum() * 0)
                    loss = pg + 0.5 * vloss + self.cfg.anchor * bc
                    opt.zero_grad()
                    loss.backward()
                    nn.utils.clip_grad_norm_(self.net.parameters(), 0.5)
                    opt.step()
                    with torch.no_grad():
                        kls.append(float((old - logp).mean()))
                        clipped.append(float(((ratio - 1).abs() > self.cfg.clip).float().mean()))
                        if bool(legal.any()):
                            agree.append(float((logits[legal].argmax(-1) == labels[legal])
                                               .float().mean()))
                        p_all = torch.softmax(logits, -1)
                        ent.append(float(-(p_all * logp_all.clamp(min=-30)).sum(-1).mean()))
            diag = {"mean_return": round(returns_sum / self.cfg.episodes, 4),
                    "approx_kl": round(float(np.mean(kls)), 5),
                    "clip_frac": round(float(np.mean(clipped)), 4),
                    **value_diag,
                    "teacher_agreement": round(float(np.mean(agree)), 4) if agree else None,
                    "entropy": round(float(np.mean(ent)), 4)}
            self._checkpoint(f"ppo{it}", diag)

    def run(self) -> dict[str, Any]:
        """Both stages, then ``pointer.pt`` (the validation-best network) and ``metadata.json``."""
        ref_val = self.validate(reference=True)
        print(json.dumps({"stage": "reference", "validation_score": round(ref_val, 5)}),
              flush=True)
        self.dagger()
        self.ppo()
        self.net.load_state_dict(self.best[1])
        meta = {"env": self.cfg.env, "scenario": self.scenario, "config": asdict(self.cfg),
                "reference": self.env_spec.reference, "best_validation_score": self.best[0],
                "reference_validation_score": ref_val, "teacher": self.teacher_name,
                "cpu_s": round(time.process_time() - self.cpu0, 1), "history": self.history}
        looked = getattr(self.teacher, "looked", None)  # the lookahead teacher: how often
        if looked is not None:  # it looked ahead and overrode its base
            meta["lookahead"] = {"looked": looked, "changed": getattr(self.teacher, "changed", 0)}
        save(self.net, self.out, meta)
        return meta


def train_pointer(cfg: PointerConfig, out: Path) -> dict[str, Any]:
    """Run the recipe; the run directory ``out`` holds ``pointer.pt`` and ``metadata.json``."""
    return Recipe(cfg, out).run()


def held_out_comparison(env: str, scenario: str, run_dir: Path, episodes: int = 30,
                        workers: int = 1, also: list[str] | None = None) -> dict[str, Any]:
    """The learned agent (named ``learned``) and the reference (and the agents in ``also``, e.g.
    a teacher) on the held-out seeds, with the paired score difference and the paired harm
    difference (learned minus reference): a ``lifeline compare --json`` result."""
    from lifeline.eval.harness import evaluate
    from lifeline.eval.stats import paired_compare, paired_differences, summarise

    env_spec = spec(env)
    ref, name = env_spec.reference, f"pointer:{run_dir}"
    result = evaluate(env, [ref, name, *(also or [])], [scenario], episodes=episodes,
                      workers=workers)
    for rec in result["records"]:
        if rec["agent"] == name:
            rec["agent"] = "learned"
            rec["model"] = str(run_dir)
    result["summary"] = summarise(result["records"])
    result["paired"] = paired_differences(result["records"], ref)

    def harm(agent: str) -> dict[int, float]:
        return {int(r["seed"]): float(r["metrics"][env_spec.harm_metric])
                for r in result["records"] if r["agent"] == agent}

    result["paired_harm"] = {"metric": env_spec.harm_metric,
                             **paired_compare(harm("learned"), harm(ref)).to_dict()}
    return result
