"""Several server processes behind one port (``lifeline serve --workers N``).

uvicorn's worker supervisor binds the port once and starts N processes that all accept on it;
the kernel hands each new connection to one of them, and a WebSocket session lives on the
process that accepted it for its whole life. What the processes must agree on is shared
through one temporary directory:

* ``slots.json`` — the session ledger (:class:`lifeline.adapters.slots.SlotLedger`), so the
  cap of ``--max-sessions`` holds for all workers together;
* ``metrics/`` — prometheus_client's multi-process files, so ``/metrics`` on any worker
  reports the whole server.

Each worker builds its app with :func:`app_from_environment` from the JSON configuration in
:data:`CONFIG_ENV`.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from lifeline.adapters.guard import Guard
from lifeline.adapters.slots import LEDGER_ENV

CONFIG_ENV = "LIFELINE_SERVE_CONFIG"
"""Environment variable with the JSON keyword arguments of ``build_app`` for every worker."""


def app_from_environment() -> Guard:
    """The app of one worker (a uvicorn ``factory``): ``build_app`` with the shared config."""
    from lifeline.adapters.server import build_app

    config: dict[str, Any] = json.loads(os.environ[CONFIG_ENV])
    return build_app(config.pop("envs"), slots_file=os.environ[LEDGER_ENV], **config)


def run_workers(config: dict[str, Any], *, host: str, port: int, workers: int,
                **uvicorn_options: Any) -> None:
    """Run ``workers`` processes serving ``build_app(**config)`` on ``host:port`` (blocking)."""
    import uvicorn

    with tempfile.TemporaryDirectory(prefix="lifeline-serve-") as shared:
        metrics = Path(shared) / "metrics"
        metrics.mkdir()
        # Inherited by the spawned workers (set before they start).
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(metrics)
        os.environ[LEDGER_ENV] = str(Path(shared) / "slots.json")
        os.environ[CONFIG_ENV] = json.dumps(config)
        uvicorn.run("lifeline.adapters.workers:app_from_environment", factory=True, host=host,
                    port=port, workers=workers, **uvicorn_options)
