"""A pointer-style policy for the ED: one shared scorer rates every action from its own features.

The flat MLP of :mod:`lifeline.train.ed.fastppo` sees the observation as one vector and must learn
a separate output unit per (action kind, bed or slot); it clones the heuristic on 98.8-99.4 % of
decisions but never exactly, and its remaining mistakes cost score. Here every encoded action ``a``
gets a feature row: its kind (a learned vector per each of ED-v3's 12 kinds, the physician's
assessment ``see_*`` and the imaging priority ``expedite_*`` included) and the observation row of
the patient it points at (the queue slot or bed: observed ESI and condition one-hot, hours waited
or in bed, the ready / ventilated / boarding / seen flags, results pending, imaging queue position,
and its position in the queue or ward), and one small MLP shared by all actions turns ``[action
row, context]`` into the action's logit; the context is an embedding of the whole observation (the
same ``log1p`` features as the flat MLP plus plain counts: free beds, ESI histograms of the queue,
the wards, the unventilated ICU patients and the unseen bed patients, free ventilators and free
physicians one-hot, queued imaging, boarders). The scorer's first layer is split by part (a
projection of each patient row, computed once per row and shared by every action pointing at it,
plus a learned vector per action kind, plus a projection of the context), then tanh, a half-width
tanh layer and one output; the critic is a separate MLP on the context input. The head is
permutation-equivariant over beds and slots except through the position feature, so a rule such as
"the first ready bed" or "the most urgent waiting patient" is one function of a row, not one output
unit per bed. Nothing of the heuristic's *decision* is built in: the policy learns it.

The input is the *raw* observation flattened in sorted key order (:class:`RawFeaturizer`), so
the trainer's buffers stay one float tensor per step whatever the architecture.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lifeline.envs.ed.params import RESPIRATORY, EDParams
from lifeline.envs.ed.rules import Layout
from lifeline.faces.features import feature_keys
from lifeline.train.ppo_loss import masked_logits

KINDS = ("wait", "admit_general", "admit_icu", "ventilate", "transfer_to_icu", "step_down",
         "discharge_general", "discharge_icu", "see_general", "see_icu", "expedite_general",
         "expedite_icu")
"""ED-v3's action kinds in encoding order (``rules.Layout``): the eight bed/queue kinds, then the
physician's assessment (``see_*``) and moving an imaging order to the front (``expedite_*``) per
bed."""
BED_COLUMNS = 9
"""ED-v3 bed rows (``observation.BED_COLUMNS``): ESI, condition, hours in bed, ready,
ventilated, boarding, seen, results pending, imaging queue position."""
STAFF = 6
"""ED-v3 ``staff`` vector: physicians on duty, physicians free, scanners free, imaging queue,
ward beds free, hospital ICU beds free."""
FLAGS = 3 + 1 + 2 + 3 + 1
"""Per-row flags: ready / ventilated / boarding, seen, results pending (>0, min(n, 3) / 3),
imaging queue position (queued, first, position / 4), queued and more urgent (lower ESI) than
the order at the front of the imaging queue; zeros for queue rows."""
HOUR_STEPS = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 6.0, 8.0, 12.0, 24.0)
"""Thermometer encoding of hours waited / in bed: half-hour steps over the first three hours (the
span of the waiting room's patience and of the clock's 15-minute ticks), coarser after; a sharp
rule on waiting time is then one weight, not a steep slope to learn from a continuous input."""
ENTITY_FEATURES = 6 + 7 + 2 + len(HOUR_STEPS) + FLAGS + 1
"""ESI one-hot (0 = empty .. 5), condition one-hot (0 = empty, 1..6), hours / 4 and log1p(hours),
the hour thermometer, the :data:`FLAGS`, position in the queue or ward / 4 (unnormalised, so
that "the first such row" is a steep enough preference to learn)."""


class RawFeaturizer:
    """The raw observation arrays in sorted key order (``action_mask`` excluded), flattened per
    env; the pointer policy slices them back by shape."""

    def __init__(self, keys: list[str]) -> None:
        self.keys = feature_keys(keys)

    def __call__(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        n = next(iter(obs.values())).shape[0]
        return np.concatenate([np.asarray(obs[k], dtype=np.float32).reshape(n, -1)
                               for k in self.keys], axis=1)


def action_targets(params: EDParams) -> tuple[np.ndarray, np.ndarray]:
    """For every encoded action: its kind (index into ``KINDS``) and the row of the entity table
    ``[nothing, queue slots, general beds, ICU beds]`` it points at (0 for ``wait``)."""
    layout = Layout(params)
    q, g = params.queue_slots, params.general_beds
    base = {"wait": 0, "admit_general": 1, "admit_icu": 1, "ventilate": 1 + q + g,
            "transfer_to_icu": 1 + q, "step_down": 1 + q + g, "discharge_general": 1 + q,
            "discharge_icu": 1 + q + g, "see_general": 1 + q, "see_icu": 1 + q + g,
            "expedite_general": 1 + q, "expedite_icu": 1 + q + g}
    kind = np.zeros(layout.total, dtype=np.int64)
    target = np.zeros(layout.total, dtype=np.int64)
    for k, name in enumerate(KINDS):
        off, size = layout.offsets[name], layout.sizes[name]
        kind[off:off + size] = k
        target[off:off + size] = base[name] + np.arange(size) * (name != "wait")
    return kind, target


def make_pointer_agent(params: EDParams, hidden: int, scorer_hidden: int) -> Any:
    """Actor (context MLP + shared per-action scorer) and critic over :class:`RawFeaturizer`'s
    vector for the ED with ``params``."""
    import torch

    nn = torch.nn
    functional = torch.nn.functional
    q, g, i = params.queue_slots, params.general_beds, params.icu_beds
    vents = max(params.ventilators, 1)
    # sorted keys: general_beds, icu_beds, queue, staff, time, totals, ventilators
    c = BED_COLUMNS
    sizes = [("general_beds", g * c), ("icu_beds", i * c), ("queue", q * 3), ("staff", STAFF),
             ("time", 2), ("totals", 4), ("ventilators", 2)]
    offsets: dict[str, tuple[int, int]] = {}
    start = 0
    for name, size in sizes:
        offsets[name] = (start, start + size)
        start += size
    obs_dim = start
    summary_dim = 3 + 4 * 5 + 2 + 4 + 5 + 4 + 3 + 6 + 6 + 6
    ctx_in = obs_dim + summary_dim
    kind_np, target_np = action_targets(params)
    groups = []  # (kind, first entity row, last row + 1) of each action kind, in action order
    for a in range(len(kind_np)):
        if a == 0 or kind_np[a] != kind_np[a - 1]:
            groups.append([int(kind_np[a]), int(target_np[a]), int(target_np[a]) + 1])
        else:
            if target_np[a] != groups[-1][2]:
                raise AssertionError("an action kind must point at consecutive entity rows")
            groups[-1][2] += 1

    def layer(n_in: int, n_out: int, std: float = 2 ** 0.5) -> Any:
        lin = nn.Linear(n_in, n_out)
        nn.init.orthogonal_(lin.weight, std)
        nn.init.constant_(lin.bias, 0.0)
        return lin

    steps = torch.tensor(HOUR_STEPS) - 1e-3  # hours are multiples of the tick (float32)

    def imaging_front(gen: Any, icu: Any) -> tuple[Any, Any]:
        """ESI of the order at the front of the imaging queue and the lowest queued ESI (0:
        none), per env."""
        both = torch.cat([gen, icu], 1)
        esi, position = both[:, :, 0], both[:, :, 8].round()
        front = (esi * (position == 1)).sum(1)
        lowest = torch.where(position > 0, esi, torch.full_like(esi, 9.0)).min(1).values
        return front, torch.where(lowest > 5, torch.zeros_like(lowest), lowest)

    def bed_flags(beds: Any, front: Any) -> Any:
        pending, position = beds[:, :, 7], beds[:, :, 8]
        return torch.stack([beds[:, :, 3], beds[:, :, 4], beds[:, :, 5], beds[:, :, 6],
                            (pending > 0).float(), pending.clamp(max=3.0) / 3.0,
                            (position > 0).float(), (position.round() == 1).float(),
                            position / 4.0,
                            ((position > 0) & (beds[:, :, 0] < front.unsqueeze(1))).float()],
                           dim=-1)

    def rows(esi: Any, cond: Any, hours: Any, flags: Any) -> Any:
        b, m = esi.shape
        pos = (torch.arange(m, dtype=torch.float32) / 4.0).expand(b, m)  # index, not / size
        return torch.cat([functional.one_hot(esi.round().long().clamp(0, 5), 6).float(),
                          functional.one_hot(cond.round().long().clamp(0, 6), 7).float(),
                          (hours / 4.0).unsqueeze(-1), torch.log1p(hours).unsqueeze(-1),
                          (hours.unsqueeze(-1) >= steps).float(), flags, pos.unsqueeze(-1)],
                         dim=-1)

    class PointerAgent(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("kind", torch.from_numpy(kind_np))
            self.register_buffer("target", torch.from_numpy(target_np))
            self.kind_embed = nn.Parameter(torch.zeros(len(KINDS), scorer_hidden))
            self.context = nn.Sequential(layer(ctx_in, hidden), nn.Tanh(),
                                         layer(hidden, hidden), nn.Tanh())
            self.ctx_proj = layer(hidden, scorer_hidden)
            self.entity_proj = layer(ENTITY_FEATURES, scorer_hidden)
            half = max(scorer_hidden // 2, 4)
            self.scorer = nn.Sequential(nn.Tanh(), layer(scorer_hidden, half), nn.Tanh(),
                                        layer(half, 1, 0.01))
            self.critic = nn.Sequential(layer(ctx_in, hidden), nn.Tanh(),
                                        layer(hidden, hidden), nn.Tanh(), layer(hidden, 1, 1.0))

        def _part(self, x: Any, name: str, width: int) -> Any:
            lo, hi = offsets[name]
            return x[:, lo:hi].reshape(x.shape[0], -1, width)

        def _context_input(self, x: Any) -> Any:
            gen, icu = self._part(x, "general_beds", c), self._part(x, "icu_beds", c)
            queue = self._part(x, "queue", 3)
            lo, hi = offsets["ventilators"]
            s_lo, _ = offsets["staff"]
            levels = torch.arange(1, 6, dtype=torch.float32)
            unvented = (icu[:, :, 0] > 0) & (icu[:, :, 4] == 0)
            front, lowest = imaging_front(gen, icu)

            def hist(esi: Any, size: int) -> Any:
                return (esi.round().unsqueeze(-1) == levels).float().sum(1) / size

            summary = torch.cat([
                (gen[:, :, 0] == 0).float().mean(1, keepdim=True),
                (icu[:, :, 0] == 0).float().mean(1, keepdim=True),
                (queue[:, :, 0] > 0).float().mean(1, keepdim=True),
                hist(queue[:, :, 0], q), hist(gen[:, :, 0], g), hist(icu[:, :, 0], i),
                hist(icu[:, :, 0] * (icu[:, :, 4] == 0), i),  # unventilated ICU patients
                x[:, lo:hi] / vents,
                functional.one_hot(x[:, lo].round().long().clamp(0, 3), 4).float(),
                # v3: unseen bed patients by ESI, free physicians one-hot, imaging and boarding
                hist(torch.cat([gen[:, :, 0] * (gen[:, :, 6] == 0),
                                icu[:, :, 0] * (icu[:, :, 6] == 0)], 1), g + i),
                functional.one_hot(x[:, s_lo + 1].round().long().clamp(0, 3), 4).float(),
                (x[:, s_lo + 2:s_lo + 3] > 0).float(),
                ((gen[:, :, 8] > 0).float().sum(1, keepdim=True)
                 + (icu[:, :, 8] > 0).float().sum(1, keepdim=True)) / 4.0,
                (gen[:, :, 5].sum(1, keepdim=True) + icu[:, :, 5].sum(1, keepdim=True)) / 4.0,
                # which steps of a priority order have a candidate: ready patients, unventilated
                # respiratory ESI 1-2 / ESI 1 ICU patients, ESI 1 in a general bed, an unseen
                # ESI 1; and the imaging queue's front ESI and lowest ESI, one-hot
                torch.stack([(icu[:, :, 3] > 0).any(1), (gen[:, :, 3] > 0).any(1),
                             (unvented & (icu[:, :, 1].round() == RESPIRATORY + 1)
                              & (icu[:, :, 0] <= 2)).any(1),
                             (unvented & (icu[:, :, 0].round() == 1)).any(1),
                             (gen[:, :, 0].round() == 1).any(1),
                             ((gen[:, :, 0].round() == 1) & (gen[:, :, 6] == 0)).any(1)
                             | ((icu[:, :, 0].round() == 1) & (icu[:, :, 6] == 0)).any(1)],
                            dim=1).float(),
                functional.one_hot(front.long().clamp(0, 5), 6).float(),
                functional.one_hot(lowest.long().clamp(0, 5), 6).float(),
            ], dim=1)
            return torch.cat([torch.log1p(torch.clamp(x, min=0.0)), summary], dim=1)

        def _entities(self, x: Any) -> Any:
            gen, icu = self._part(x, "general_beds", c), self._part(x, "icu_beds", c)
            queue = self._part(x, "queue", 3)
            zeros = torch.zeros(x.shape[0], q, FLAGS)
            front, _ = imaging_front(gen, icu)
            table = torch.cat([
                torch.zeros(x.shape[0], 1, ENTITY_FEATURES),
                rows(queue[:, :, 0], queue[:, :, 1], queue[:, :, 2], zeros),
                rows(gen[:, :, 0], gen[:, :, 1], gen[:, :, 2], bed_flags(gen, front)),
                rows(icu[:, :, 0], icu[:, :, 1], icu[:, :, 2], bed_flags(icu, front))], dim=1)
            return table  # (batch, entities, ENTITY_FEATURES)

        def value(self, x: Any) -> Any:
            return self.critic(self._context_input(x)).squeeze(-1)

        def logits(self, x: Any, mask: Any) -> Any:
            ctx = self.ctx_proj(self.context(self._context_input(x)))  # (batch, scorer_hidden)
            # first scorer layer on [kind one-hot, entity row, context], split by part: each
            # entity is projected once and gathered for every action that points at it
            base = self.entity_proj(self._entities(x)) + ctx.unsqueeze(1)  # (batch, entities, h)
            pre = torch.cat([base[:, lo:hi] + self.kind_embed[k] for k, lo, hi in groups], dim=1)
            return masked_logits(self.scorer(pre).squeeze(-1), mask)

    return PointerAgent()
