"""The two pieces of a masked clipped-PPO update that Lifeline's hand-written trainers share.

:mod:`lifeline.train.ed.fastppo` (the batch ED) and :mod:`lifeline.train.ray_rollouts` (Ray actors)
each run their own loop (different buffers, GAE conventions and regularisers), but an illegal
action must get the same probability (zero) and the clipped surrogate must be the same formula in
both, so those live here once. (SB3/sb3-contrib's MaskablePPO has both, but only inside its own
rollout buffer and policy classes, which neither trainer uses.)
"""

from __future__ import annotations

from typing import Any


def masked_logits(logits: Any, mask: Any) -> Any:
    """Illegal actions (``mask`` False) get a very negative logit: probability 0 after softmax."""
    return logits.masked_fill(~mask, -1e9)


def clipped_policy_loss(logp: Any, old_logp: Any, advantages: Any, clip: float) -> Any:
    """PPO's clipped surrogate (to minimise), with per-minibatch advantage normalisation."""
    import torch

    adv = advantages
    if adv.numel() > 1:
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    ratio = torch.exp(logp - old_logp)
    return torch.max(-adv * ratio, -adv * torch.clamp(ratio, 1 - clip, 1 + clip)).mean()
