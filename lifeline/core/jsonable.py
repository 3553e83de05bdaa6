"""Plain JSON from numpy-laden values (replays, frames, pictures and the web pages all use it)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def clean(value: Any) -> Any:
    """``value`` as plain JSON: numpy scalars/arrays converted, non-finite floats -> ``None``."""
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if isinstance(value, np.ndarray):
        return clean(value.tolist())
    if isinstance(value, np.generic):
        return clean(value.item())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
