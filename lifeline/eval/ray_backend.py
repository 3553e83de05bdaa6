"""Evaluation across a Ray cluster: ``lifeline eval ... --backend ray [--address A]``.

Episodes are independent and each is a pure function of ``(env, scenario, agent, seed, trial)``
(:class:`lifeline.eval.episode.Task`), so the fan-out is plain Ray tasks: the task list is cut
into chunks, each chunk runs :func:`lifeline.eval.runner.run_task` on a Ray worker, and the
driver collects the chunks **in task order**. The records are therefore identical to serial
evaluation (``--workers 1``): same episodes, same floats, same order (a test checks this).

* ``address=None`` starts a private local Ray instance for this call (all local CPUs, or
  ``num_cpus``) and shuts it down afterwards, leaving no processes; the ``RAY_ADDRESS``
  environment variable, or ``address="auto"`` / ``"ray://head:10001"`` / ``"head:6379"``,
  connects to a running cluster instead (which is left running).
* Every node needs the same ``lifeline-gym`` version installed (``pip install
  "lifeline-gym[dist]"``): the records are only identical if the code is. ``ship_code=True``
  (Python API) uploads this checkout's ``lifeline`` package to the cluster with the
  job instead (Ray ``runtime_env={"py_modules": [...]}``); third-party dependencies must still be
  installed on the nodes.
* Results come back to the driver as Python objects (Ray's object store); nothing is written on
  the workers except replays with ``record_dir`` (written on the node that ran the episode, so
  only useful on one machine or a shared filesystem).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lifeline.core.extras import require


def _run_chunk(tasks: Sequence[Any], record_dir: str | None) -> list[dict[str, Any]]:
    """What a Ray worker runs: the episodes of one chunk, in order (serial harness code)."""
    from lifeline.eval.runner import run_task

    return [run_task(task, record_dir) for task in tasks]


def chunks(n_tasks: int, n_cpus: int, max_chunk: int = 8) -> list[tuple[int, int]]:
    """``(start, stop)`` slices: about 4 chunks per CPU (load balance), at most ``max_chunk``
    episodes each (steady progress), at least one episode."""
    size = max(1, min(max_chunk, n_tasks // max(1, 4 * n_cpus)))
    return [(i, min(i + size, n_tasks)) for i in range(0, n_tasks, size)]


class RayUnavailable(RuntimeError):
    """The Ray cluster named by ``address`` / ``RAY_ADDRESS`` does not answer (one line)."""


def check_address(address: str | None, timeout_s: float = 3.0) -> None:
    """Raise :class:`RayUnavailable` now if a ``HOST:PORT`` (or ``ray://HOST:PORT``) address
    does not accept a TCP connection within ``timeout_s``.

    Without this, ``ray.init`` retries for minutes and prints over a hundred log lines from its
    C++ core before a traceback. Ray rewrites a loopback host to the node's IP address, so for
    ``127.0.0.1``/``localhost`` both are tried. ``auto`` and ``None`` are left to Ray (they
    find a local cluster, or fail fast).
    """
    import os
    import socket

    address = address or os.environ.get("RAY_ADDRESS") or None
    if address is None or address == "auto":
        return
    where = address.removeprefix("ray://")
    host, sep, port_text = where.rpartition(":")
    if not sep or not port_text.isdigit():
        raise RayUnavailable(f"--address {address!r}: expected HOST:PORT, ray://HOST:PORT or "
                             f"auto")
    hosts = [host]
    if host in ("127.0.0.1", "localhost"):
        try:
            from ray.util import get_node_ip_address

            hosts.append(get_node_ip_address())
        except Exception:  # only a second guess
            pass
    last: OSError | None = None
    for h in hosts:
        try:
            with socket.create_connection((h, int(port_text)), timeout=timeout_s):
                return
        except OSError as exc:
            last = exc
    reason = getattr(last, "strerror", None) or str(last) or "timed out"
    raise RayUnavailable(f"no Ray cluster answers at {address} ({reason}); start one with "
                         f"`ray start --head`, or drop --address and RAY_ADDRESS for a private "
                         f"local Ray")


def run_tasks_ray(tasks: Sequence[Any], address: str | None = None,
                  on_record: Callable[[dict[str, Any]], None] | None = None,
                  record_dir: str | None = None, num_cpus: int | None = None,
                  ship_code: bool = False) -> list[dict[str, Any]]:
    """Run ``tasks`` as Ray tasks; the records, in task order (see the module docstring)."""
    require("dist", "--backend ray")
    import ray

    own = not ray.is_initialized()
    if own:
        check_address(address)
        runtime_env: dict[str, Any] | None = None
        if ship_code:
            import lifeline

            runtime_env = {"py_modules": [str(Path(lifeline.__file__).parent)]}
        ray.init(address=address, num_cpus=num_cpus if address is None else None,
                 include_dashboard=False, log_to_driver=False, runtime_env=runtime_env,
                 configure_logging=False)
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(_run_chunk)
        n_cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        refs = [remote.remote(list(tasks[a:b]), record_dir)
                for a, b in chunks(len(tasks), n_cpus)]
        records: list[dict[str, Any]] = []
        try:
            for ref in refs:  # in order: records stream back as their chunk (and all before) end
                for record in ray.get(ref):
                    records.append(record)
                    if on_record is not None:
                        on_record(record)
        except BaseException:
            for ref in refs:
                ray.cancel(ref, force=True)
            raise
        return records
    finally:
        if own:
            ray.shutdown()
