"""Results name the code's commit even without a git binary or with git refusing the tree."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from lifeline.core import provenance


def test_git_commit_is_never_none(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LIFELINE_GIT_COMMIT", "abc123")
    assert provenance.git_commit() == "abc123"
    monkeypatch.delenv("LIFELINE_GIT_COMMIT")

    def no_git(*args: object, **kwargs: object) -> None:
        raise FileNotFoundError("git")

    monkeypatch.setattr(subprocess, "run", no_git)
    commit = provenance.git_commit()
    assert commit and commit != "None"
    monkeypatch.setattr(provenance, "_read_git_head", lambda root: None)
    assert provenance.git_commit() == provenance.UNKNOWN_COMMIT


def test_head_is_read_from_the_git_files(tmp_path: Path) -> None:
    sha = "0123456789abcdef0123456789abcdef01234567"
    git = tmp_path / "repo" / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "packed-refs").write_text(f"# pack-refs\n{sha} refs/heads/main\n")
    assert provenance._read_git_head(tmp_path / "repo") == sha
    (git / "refs" / "heads" / "main").write_text("f" * 40 + "\n")
    assert provenance._read_git_head(tmp_path / "repo") == "f" * 40
    # a worktree: .git is a file pointing at its gitdir, refs live in the common dir
    wt_dir = git / "worktrees" / "wt"
    wt_dir.mkdir(parents=True)
    (wt_dir / "HEAD").write_text("ref: refs/heads/main\n")
    (wt_dir / "commondir").write_text("../..\n")
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt" / ".git").write_text(f"gitdir: {wt_dir}\n")
    assert provenance._read_git_head(tmp_path / "wt") == "f" * 40
    assert provenance._read_git_head(tmp_path / "nothing") is None


def test_the_real_checkout_reads_the_same_as_git() -> None:
    root = Path(provenance.__file__).resolve().parents[2]
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                             text=True, timeout=5, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pytest.skip("no git here")
    assert provenance._read_git_head(root) == out
