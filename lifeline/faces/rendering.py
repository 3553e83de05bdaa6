"""Rendering for the Gymnasium face (kept out of ``gymnasium.py``, which stays import-light).

``ansi`` returns the text view; ``rgb_array`` draws the environment's ``frame(state)`` with
matplotlib's Agg backend (:mod:`lifeline.faces.raster`: the ``ed`` bed board, the ``dispatch``
map, a generic card for other environments); ``human`` prints the text view. Without a render
mode, ``render()`` warns and returns ``None``, as Gymnasium's own environments do.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym


def render(env: Any) -> Any:
    """What ``env.render()`` returns for ``env.render_mode`` (see the module docstring)."""
    mode = env.render_mode
    if mode is None:
        gym.logger.warn("You are calling render method without specifying any render mode. "
                        "You can specify the render_mode at initialization, e.g. "
                        f'gym.make("{env.spec.id if env.spec else "lifeline/ED-v3"}", '
                        'render_mode="rgb_array")')
        return None
    if env.state is None:
        return None
    core = env.core
    if mode == "ansi":
        return core.render_text(env.state)
    if mode == "human":
        print(core.render_text(env.state), flush=True)
        return None
    from lifeline.core.jsonable import clean
    from lifeline.faces.raster import frame_to_rgb

    static = getattr(env, "_frame_static", None)
    if static is None:
        static = env._frame_static = clean(core.frame_static())
    return frame_to_rgb(core.name, static, clean(core.frame(env.state)))
