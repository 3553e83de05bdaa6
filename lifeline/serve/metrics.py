"""Prometheus metrics of a served app (``GET /metrics``, text exposition format).

Built on the standard ``prometheus_client``. One :class:`ServerMetrics` per app:

* ``lifeline_sessions_active{env}`` (gauge) — read from the live session table at every scrape
  (:meth:`ServerMetrics.watch_sessions`; with several workers, the shared ledger, which drops
  the entries of dead processes), never kept as a counter of its own, so a crashed worker's
  sessions disappear from it; ``lifeline_sessions_total{env}`` (counter) of sessions opened;
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
from collections.abc import Callable, Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric

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
        self._live: LiveSessions | None = None
        self.sessions_total = Counter("lifeline_sessions", "Sessions opened.", ["env"],
                                      registry=reg)
        self.steps = Counter("lifeline_steps", "Steps served.", ["env"], registry=reg)
        self.step_seconds = Histogram("lifeline_step_seconds", "Server time of one step.",
                                      ["env"], buckets=STEP_BUCKETS, registry=reg)
        self.errors = Counter("lifeline_errors", "Errors answered, by kind.", ["env", "kind"],
                              registry=reg)

    def watch_sessions(self, source: Callable[[], dict[str, int]]) -> None:
        """Report ``lifeline_sessions_active`` as ``source()`` (``{env: open sessions}``,
        every worker's) says at each scrape."""
        self._live = LiveSessions(source)
        if self.registry is not None:
            self.registry.register(self._live)

    def error(self, env: str, kind: str) -> None:
        """Count one error of ``kind`` for ``env`` (``""`` when no environment is addressed)."""
        self.errors.labels(env=env, kind=kind).inc()

    def render(self) -> bytes:
        """The exposition text of every metric (all workers' in multi-process mode)."""
        if self.shared:
            from prometheus_client import multiprocess

            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry, path=self.shared)
            if self._live is not None:
                registry.register(self._live)
            return generate_latest(registry)
        assert self.registry is not None
        return generate_latest(self.registry)


class LiveSessions:
    """A prometheus_client collector: ``lifeline_sessions_active{env}`` read from a live
    source at collection time."""

    def __init__(self, source: Callable[[], dict[str, int]]) -> None:
        self.source = source

    def describe(self) -> list[Metric]:
        return []  # not collected at registration (the source may not be ready yet)

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily("lifeline_sessions_active",
                                   "Open sessions (the live session table, all workers).",
                                   labels=["env"])
        for env, count in sorted(self.source().items()):
            family.add_metric([env], count)
        yield family
