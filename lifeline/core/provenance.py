"""Where results came from: the git commit of the source tree (written into results files and
training runs' metadata)."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git_commit(mark_dirty: bool = False) -> str | None:
    """The git commit of the checkout holding this package, or ``None`` outside a checkout.

    ``mark_dirty`` appends ``-dirty`` when tracked files differ from that commit (training runs
    record it: the code that trained may not be the commit).
    """
    root = Path(__file__).resolve().parents[2]
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                             text=True, timeout=5, check=True)
        commit = out.stdout.strip()
        if commit and mark_dirty:
            dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                                   cwd=root, capture_output=True, text=True,
                                   timeout=5).stdout.strip()
            commit += "-dirty" if dirty else ""
    except (OSError, subprocess.SubprocessError):
        return None
    return commit or None
