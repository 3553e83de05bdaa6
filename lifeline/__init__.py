"""Lifeline: reinforcement-learning environments for the operations that keep people alive.

``import lifeline`` registers every environment's Gymnasium id (e.g. ``lifeline/ED-v3``).
"""

import lifeline.envs  # noqa: F401 - registers the built-in environments (the registry imports none)
from lifeline.core.registry import all_specs, make, spec

__version__ = "0.1.0"


def _register_gym_ids() -> None:
    from lifeline.faces.gymnasium import register_all

    register_all()


_register_gym_ids()

__all__ = ["__version__", "all_specs", "make", "spec"]
