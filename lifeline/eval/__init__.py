"""Evaluation: episode harness (records, no printing), statistics and reports.

``lifeline.eval.evaluate_masked`` evaluates a masked policy (MaskablePPO) on a Gymnasium id with
its action masks (SB3's own ``evaluate_policy`` ignores them); imported lazily so ``import
lifeline.eval.<module>`` stays light.
"""

from typing import Any


def __getattr__(name: str) -> Any:
    if name in ("evaluate_masked", "MaskedEvaluation"):
        from lifeline.eval import masked

        return getattr(masked, name)
    raise AttributeError(f"module 'lifeline.eval' has no attribute {name!r}")


__all__ = ["MaskedEvaluation", "evaluate_masked"]
