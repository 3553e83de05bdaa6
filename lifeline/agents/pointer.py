"""One entity-pointer policy for every env, and the agent that plays a trained one.

:class:`PointerNet` reads the entity tables of :func:`lifeline.faces.entities.entity_spec`
(any env, no per-env code):

1. a row encoder per table (``features -> d``, two layers);
2. a context: the ``global`` row's encoding plus the mean and max of every table's rows;
3. each row refined with the context (``h + MLP([h, ctx])``);
4. a scorer per action kind over ``[ctx, the rows it points at, its argument embeddings]``;
5. illegal actions get ``-1e9`` (masked logits); a value head on the detached context for PPO
   (its loss never moves the policy's features).

``make_agent("pointer:PATH", env)`` builds :class:`PointerAgent` from a run directory written by
:mod:`lifeline.train.pointer` (``pointer.pt`` + ``metadata.json``); it takes the most probable
legal action (deterministic). Needs the ``train`` extra (torch).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from lifeline.core.agent import Agent
from lifeline.core.env import Environment
from lifeline.faces.entities import GLOBAL, EntitySpec, entity_spec

MODEL_FILE = "pointer.pt"
METADATA_FILE = "metadata.json"
NEG = -1e9


def _mlp(n_in: int, d: int, n_out: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(n_in, d), nn.ReLU(), nn.Linear(d, n_out))


class PointerNet(nn.Module):
    """Entity-pointer policy and value over one :class:`EntitySpec` (module docstring)."""

    def __init__(self, spec: EntitySpec, d: int = 64) -> None:
        super().__init__()
        self.spec, self.d = spec, d
        self.names = list(spec.tables_shape)
        self.enc = nn.ModuleDict({n: _mlp(f, d, d) for n, (_, f) in spec.tables_shape.items()})
        pooled = d + 2 * d * (len(self.names) - 1)
        self.ctx = _mlp(pooled, d, d)
        self.refine = _mlp(2 * d, d, d)
        offsets, total = {}, 0
        for n in self.names:
            offsets[n] = total
            total += spec.tables_shape[n][0]
        self.num_actions = len(spec.actions)
        self.kind_names = list(spec.kinds)
        self.score = nn.ModuleDict()
        self.args = nn.ModuleDict()
        for k, kind in spec.kinds.items():
            idx = np.array(kind.indices, dtype=np.int64)
            refs = np.array([[offsets[t] + r for t, r in spec.actions[i].refs] for i in idx],
                            dtype=np.int64).reshape(len(idx), len(kind.ref_tables))
            args = np.array([spec.actions[i].args for i in idx],
                            dtype=np.int64).reshape(len(idx), len(kind.arg_sizes))
            self.register_buffer(f"idx_{k}", torch.from_numpy(idx), persistent=False)
            self.register_buffer(f"refs_{k}", torch.from_numpy(refs), persistent=False)
            self.register_buffer(f"args_{k}", torch.from_numpy(args), persistent=False)
            self.args[k] = nn.ModuleList([nn.Embedding(s, d) for s in kind.arg_sizes])
            self.score[k] = _mlp(d * (2 + len(kind.ref_tables)), d, 1)
        self.value = _mlp(d, d, 1)

    def encode(self, tables: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        """The context ``(B, d)`` and the refined rows of every table ``(B, rows, d)``."""
        hs = {n: self.enc[n](tables[n]) for n in self.names}
        pools = [hs[GLOBAL][:, 0]]
        for n in self.names[1:]:
            pools += [hs[n].mean(1), hs[n].max(1).values]
        ctx = self.ctx(torch.cat(pools, -1))
        bank = torch.cat([hs[n] for n in self.names], 1)
        return ctx, bank + self.refine(torch.cat([bank, ctx[:, None].expand_as(bank)], -1))

    def forward(self, tables: dict[str, torch.Tensor], mask: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits ``(B, A)`` and values ``(B,)`` for a batch of tables and masks."""
        ctx, bank = self.encode(tables)
        batch = bank.shape[0]
        logits = bank.new_full((batch, self.num_actions), NEG)
        for k in self.kind_names:
            arg_tables: Any = self.args[k]
            idx: torch.Tensor = getattr(self, f"idx_{k}")
            refs: torch.Tensor = getattr(self, f"refs_{k}")
            args: torch.Tensor = getattr(self, f"args_{k}")
            scorer: Any = self.score[k]
            first, out = scorer[0], scorer[2]
            w, d = first.weight, self.d
            # the scorer's first layer on [ctx, rows..., args] split by input block: each row is
            # projected once and gathered per action (the same function as the concatenation)
            pre = (ctx @ w[:, :d].T + first.bias)[:, None]
            for j in range(int(refs.shape[1])):
                proj = bank @ w[:, d * (1 + j):d * (2 + j)].T
                pre = pre + proj[:, refs[:, j]]
            emb = bank.new_zeros(int(idx.shape[0]), d)
            for j, table in enumerate(arg_tables):
                emb = emb + table(args[:, j])
            pre = pre + (emb @ w[:, -d:].T)[None]
            logits[:, idx] = out(torch.relu(pre))[..., 0]
        logits = torch.where(mask, logits, torch.full_like(logits, NEG))
        return logits, self.value(ctx.detach())[:, 0]


def batch_tables(spec: EntitySpec, observations: list[dict[str, np.ndarray]]
                 ) -> dict[str, torch.Tensor]:
    """Stack the entity tables of several observations into tensors ``(B, rows, features)``."""
    per = [spec.tables(o) for o in observations]
    return {n: torch.from_numpy(np.stack([p[n] for p in per])) for n in spec.tables_shape}


def save(net: PointerNet, out: Path, meta: dict[str, Any]) -> None:
    """Write ``pointer.pt`` and ``metadata.json`` (``env``, ``scenario``, ``d`` ...) to ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), out / MODEL_FILE)
    (out / METADATA_FILE).write_text(json.dumps({**meta, "d": net.d}, indent=2) + "\n")


def load(path: str | Path, core: Environment) -> PointerNet:
    """The trained :class:`PointerNet` in run directory ``path`` for env ``core``."""
    p = Path(path)
    if not (p / MODEL_FILE).is_file():
        raise FileNotFoundError(f"no pointer model at {path!s} (expected {MODEL_FILE})")
    meta = json.loads((p / METADATA_FILE).read_text())
    net = PointerNet(entity_spec(core), d=int(meta["d"]))
    net.load_state_dict(torch.load(p / MODEL_FILE, weights_only=True))
    net.eval()
    return net


class PointerAgent(Agent):
    """A trained :class:`PointerNet`: the most probable legal action (deterministic)."""

    name = "pointer"

    def __init__(self, path: str) -> None:
        self.path = path
        self.net: PointerNet | None = None
        torch.set_num_threads(1)

    def act(self, env: Environment, state: Any) -> int:
        if self.net is None:
            self.net = load(self.path, env)
        mask = torch.from_numpy(np.asarray(env.action_mask(state), dtype=bool))[None]
        with torch.no_grad():
            logits, _ = self.net(batch_tables(self.net.spec, [env.observe(state)]), mask)
        return int(logits[0].argmax())
