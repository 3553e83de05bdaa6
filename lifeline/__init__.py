"""Lifeline: reinforcement-learning environments for the operations that keep people alive."""

from lifeline.core.registry import all_specs, make, spec

__version__ = "0.1.0"

__all__ = ["__version__", "all_specs", "make", "spec"]
