"""``lifeline.asgi:app``: the server as an importable ASGI app (for uvicorn, Docker, OpenEnv).

``lifeline/asgi.py`` is a one-line shim for this module, so the documented entry stays
``lifeline.asgi:app``. ``uvicorn lifeline.asgi:app --host 0.0.0.0 --port 8000`` serves every
registered environment, the same app ``lifeline serve`` runs. ``LIFELINE_TOKEN`` (if set) requires
``Authorization: Bearer TOKEN``. The app is built on first access, so importing this module is
cheap; it needs the ``server`` extra.
"""

from __future__ import annotations

import os
from typing import Any

_APP: Any = None


def __getattr__(name: str) -> Any:
    global _APP
    if name != "app":
        raise AttributeError(f"module 'lifeline.serve.asgi' has no attribute {name!r}")
    if _APP is None:
        from lifeline.core.extras import require

        require("server", "lifeline.asgi:app")
        from lifeline.serve.server import build_app

        _APP = build_app(token=os.environ.get("LIFELINE_TOKEN") or None)
    return _APP
