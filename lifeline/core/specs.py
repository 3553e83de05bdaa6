"""Array specifications for observations: shape, dtype and bounds, independent of Gymnasium."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ArraySpec:
    """One observation array: ``shape``, ``dtype`` and inclusive ``[low, high]`` bounds."""

    shape: tuple[int, ...]
    dtype: str
    low: float
    high: float
    doc: str = ""

    def validate(self, name: str, value: np.ndarray) -> str | None:
        """A message describing why ``value`` does not conform, or ``None`` if it does."""
        if not isinstance(value, np.ndarray):
            return f"{name}: expected numpy array, got {type(value).__name__}"
        if value.shape != self.shape:
            return f"{name}: shape {value.shape} != spec {self.shape}"
        if value.dtype != np.dtype(self.dtype):
            return f"{name}: dtype {value.dtype} != spec {self.dtype}"
        if value.size and not np.all(np.isfinite(value)):
            return f"{name}: contains non-finite values"
        if value.size and (value.min() < self.low or value.max() > self.high):
            return (f"{name}: values outside [{self.low}, {self.high}]: "
                    f"min {value.min()}, max {value.max()}")
        return None
