"""Prometheus metrics of a served app (``GET /metrics``, text exposition format).

Built on the standard ``prometheus_client``. One :class:`ServerMetrics` per app:

* ``lifeline_sessions_active{env}`` (gauge) and ``lifeline_sessions_total{env}`` (counter);
* ``lifeline_steps_total{env}`` and ``lifeline_step_seconds{env}`` (histogram of the server-side
  time of one step: simulation, observation, text view);
* ``lifeline_errors_total{env,kind}`` — error frames by their code (``VALIDATION_ERROR``,
  ``MESSAGE_TOO_LARGE``, ``CAPACITY_REACHED``, ...), JSON-RPC errors (``RPC_-32602``), HTTP
  errors (``HTTP_401``) and penalised invalid actions (``INVALID_ACTION``).

With several worker processes (``lifeline serve --workers N``) every worker writes its values to
``PROMETHEUS_MULTIPROC_DIR`` and ``/metrics`` reads them all through prometheus_client's
``MultiProcessCollector``, so whichever worker answers reports the whole server.
"""

from __future__ import annotations

import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

__all__ = ["CONTENT_TYPE_LATEST", "ServerMetrics", "multiprocess_dir"]

STEP_BUCKETS = (50e-6, 100e-6, 200e-6, 400e-6, 800e-6, 1.6e-3, 3.2e-3, 6.4e-3, 12.8e-3, 25.6e-3,
                51.2e-3, 0.1, 0.4, 1.6)
"""Histogram bounds of one step's server time, in seconds (doubling from 50 µs)."""


def multiprocess_dir() -> str | None:
    """The shared metrics directory when running as one of several workers, else ``None``."""
    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    return path if path and os.path.isdir(path) else None


class ServerMetrics:
    """The metrics of one app (see the module docstring); ``render()`` is the ``/metrics`` body."""

    def __init__(self) -> None:
        self.shared = multiprocess_dir()
        # In multi-process mode the values live in files, collected at render time; the metric
        # objects must then not sit in a registry of their own.
        self.registry: CollectorRegistry | None = None if self.shared else CollectorRegistry()
        reg = self.registry
        self.sessions_active = Gauge("lifeline_sessions_active", "Open sessions.", ["env"],
                                     registry=reg, multiprocess_mode="livesum")
        self.sessions_total = Counter("lifeline_sessions", "Sessions opened.", ["env"],
                                      registry=reg)
        self.steps = Counter("lifeline_steps", "Steps served.", ["env"], registry=reg)
        self.step_seconds = Histogram("lifeline_step_seconds", "Server time of one step.",
                                      ["env"], buckets=STEP_BUCKETS, registry=reg)
        self.errors = Counter("lifeline_errors", "Errors answered, by kind.", ["env", "kind"],
                              registry=reg)

    def error(self, env: str, kind: str) -> None:
        """Count one error of ``kind`` for ``env`` (``""`` when no environment is addressed)."""
        self.errors.labels(env=env, kind=kind).inc()

    def render(self) -> bytes:
        """The exposition text of every metric (all workers' in multi-process mode)."""
        if self.shared:
            from prometheus_client import multiprocess

            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry, path=self.shared)
            return generate_latest(registry)
        assert self.registry is not None
        return generate_latest(self.registry)
