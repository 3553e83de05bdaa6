"""Where results came from: the git commit of the source tree (written into results files and
training runs' metadata). Never ``None``: a results file always names its code."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

UNKNOWN_COMMIT = "unknown (no git metadata; set LIFELINE_GIT_COMMIT)"
"""What :func:`git_commit` returns when no source of the commit answers."""


def git_commit(mark_dirty: bool = False) -> str:
    """The commit of the source tree holding this package, never ``None``.

    Sources, in order: ``$LIFELINE_GIT_COMMIT``; ``git rev-parse HEAD``; the ``.git`` files read
    directly (no git binary, or git refusing a checkout owned by another user); else
    :data:`UNKNOWN_COMMIT`. ``mark_dirty`` appends ``-dirty`` when git says tracked files differ
    from that commit (training runs record it: the code that trained may not be the commit).
    """
    stamped = os.environ.get("LIFELINE_GIT_COMMIT", "").strip()
    if stamped:
        return stamped
    root = Path(__file__).resolve().parents[2]
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                             text=True, timeout=5, check=True)
        commit = out.stdout.strip()
        if commit:
            if mark_dirty:
                dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                                       cwd=root, capture_output=True, text=True,
                                       timeout=5).stdout.strip()
                commit += "-dirty" if dirty else ""
            return commit
    except (OSError, subprocess.SubprocessError):
        pass
    return _read_git_head(root) or UNKNOWN_COMMIT


def _read_git_head(root: Path) -> str | None:
    """HEAD's commit from the files of ``root/.git`` (a directory, or a worktree's
    ``gitdir:`` file), following one symbolic ref through ``refs/`` or ``packed-refs``."""
    dot = root / ".git"
    try:
        if dot.is_file():
            gitdir = Path(dot.read_text().split("gitdir:", 1)[1].strip())
            gitdir = gitdir if gitdir.is_absolute() else (root / gitdir)
        elif dot.is_dir():
            gitdir = dot
        else:
            return None
        common = gitdir
        if (gitdir / "commondir").is_file():
            common = (gitdir / (gitdir / "commondir").read_text().strip()).resolve()
        head = (gitdir / "HEAD").read_text().strip()
        if not head.startswith("ref:"):
            return head or None
        ref = head.split(":", 1)[1].strip()
        for base in (gitdir, common):
            if (base / ref).is_file():
                return (base / ref).read_text().strip() or None
        packed = common / "packed-refs"
        if packed.is_file():
            for line in packed.read_text().splitlines():
                sha, _, name = line.partition(" ")
                if name.strip() == ref:
                    return sha
    except (OSError, IndexError):
        return None
    return None
