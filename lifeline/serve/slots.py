"""The session cap across worker processes: a small ledger file under an exclusive lock.

``lifeline serve --workers N`` runs N processes behind one port; each has its own OpenEnv server
and so its own session table. :class:`SlotLedger` keeps, per environment, how many sessions each
worker process holds, in one JSON file guarded by ``fcntl.flock``. Opening a session takes a
slot only while the *total* is below the cap; closing it gives the slot back. Entries of
processes that are no longer alive are dropped on every read, so a crashed worker cannot leak
slots. The file is touched once per session opened or closed, never per step.

Workers also register themselves (:meth:`SlotLedger.join`), which lets ``/health`` and ``/``
report how many workers are serving.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

LEDGER_ENV = "LIFELINE_SLOTS_FILE"
"""Environment variable naming the ledger file shared by the workers of one server."""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


class SlotLedger:
    """Per-environment session counts of every worker process, shared through a file."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.touch(exist_ok=True)
        self.pid = os.getpid()

    @contextmanager
    def _locked(self) -> Iterator[dict[str, Any]]:
        """The ledger's content under an exclusive lock, written back (pruned) on exit."""
        with open(self.path, "r+", encoding="utf-8") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                text = fh.read()
                data: dict[str, Any] = json.loads(text) if text.strip() else {}
                workers = [p for p in data.get("workers", []) if _alive(int(p))]
                sessions = {env: {pid: n for pid, n in per.items() if n > 0 and _alive(int(pid))}
                            for env, per in data.get("sessions", {}).items()}
                data = {"workers": workers, "sessions": sessions}
                yield data
                fh.seek(0)
                fh.truncate()
                fh.write(json.dumps(data, sort_keys=True))
                fh.flush()  # written before the lock is released, not at close
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def join(self) -> None:
        """Register this process as a serving worker."""
        with self._locked() as data:
            if self.pid not in data["workers"]:
                data["workers"].append(self.pid)

    def leave(self) -> None:
        """Unregister this process (its sessions are dropped too)."""
        with self._locked() as data:
            data["workers"] = [p for p in data["workers"] if p != self.pid]
            for per in data["sessions"].values():
                per.pop(str(self.pid), None)

    def acquire(self, env: str, cap: int) -> tuple[bool, int]:
        """Take one of ``env``'s ``cap`` slots: ``(taken, total before)``."""
        with self._locked() as data:
            per = data["sessions"].setdefault(env, {})
            total = sum(per.values())
            if total >= cap:
                return False, total
            per[str(self.pid)] = per.get(str(self.pid), 0) + 1
            return True, total

    def release(self, env: str) -> None:
        """Give back one of this process's slots of ``env``."""
        with self._locked() as data:
            per = data["sessions"].setdefault(env, {})
            per[str(self.pid)] = max(0, per.get(str(self.pid), 0) - 1)

    def releaser(self, env: str) -> Callable[[], None]:
        """A callable that releases one slot of ``env`` (for a session's close hook)."""
        return lambda: self.release(env)

    def snapshot(self) -> dict[str, Any]:
        """``{"workers": [pid, ...], "sessions": {env: {pid: count}}}`` of live processes."""
        with self._locked() as data:
            return json.loads(json.dumps(data))
