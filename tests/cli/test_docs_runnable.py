"""Docs that stay true: the marked shell blocks and every Python snippet of the docs run.

Blocks are fenced code blocks of ``README.md`` and ``docs/*.md``; the info string after the
opening fence is the language and then flags:

- ```` ```bash runnable ````: every line runs (``bash -e``) in a fresh temporary directory, with
  ``lifeline`` the CLI of this checkout and ``--episodes N`` capped at 2 (short budgets). A
  ``bash`` block without ``runnable`` is not run (it needs a server, a model, a cluster or
  minutes); the flag is the author's promise that it runs as printed.
- ```` ```python ````: every Python snippet runs in a subprocess in a temporary directory
  (``episodes=N`` capped at 1), unless flagged ``no-run`` (then it is compiled and its imports
  resolved: a snippet for a cluster still names real modules and functions). ``needs-server``
  starts ``lifeline serve`` for the snippet (on a free port replacing ``127.0.0.1:8000``, token
  ``s3cret``); ``needs-llm`` starts the scripted OpenAI-compatible server of
  ``tests/fake_llm.py`` in place of ``127.0.0.1:8001``.

Slow: the blocks together run for a minute or more.
"""

from __future__ import annotations

import ast
import importlib
import os
import re
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
TIMEOUT_S = 600

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Block:
    """One fenced code block: where it is, its language, flags and text."""

    path: Path
    line: int
    lang: str
    flags: frozenset[str]
    text: str

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(paths: list[Path] = DOCS) -> list[Block]:
    """Every fenced code block of ``paths``."""
    out = []
    for path in paths:
        source = path.read_text()
        for match in FENCE.finditer(source):
            words = match.group(1).split()
            line = source.count("\n", 0, match.start()) + 1
            out.append(Block(path, line, words[0] if words else "", frozenset(words[1:]),
                             match.group(2)))
    return out


ALL = blocks()
SHELL = [b for b in ALL if b.lang in ("bash", "sh", "shell") and "runnable" in b.flags]
PYTHON = [b for b in ALL if b.lang == "python"]


def _env(tmp: Path) -> dict[str, str]:
    """PATH with a ``lifeline`` that runs this checkout's CLI; PYTHONPATH at the checkout."""
    bin_dir = tmp / ".bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "lifeline"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m lifeline "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("LIFELINE_")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=str(ROOT),
               COLUMNS="200", MPLBACKEND="Agg", LIFELINE_HF_PROGRESS="0")
    return env


def short_budget_shell(text: str) -> str:
    """``--episodes N`` capped at 2; comment-only and blank lines dropped."""
    text = re.sub(r"--episodes\s+(\d+)", lambda m: f"--episodes {min(2, int(m.group(1)))}", text)
    return "\n".join(line for line in text.splitlines() if line.strip()
                     and not line.lstrip().startswith("#"))


def short_budget_python(text: str) -> str:
    return re.sub(r"\bepisodes=(\d+)", lambda m: f"episodes={min(1, int(m.group(1)))}", text)


def test_the_docs_have_runnable_blocks_and_every_marker_is_known() -> None:
    assert len(SHELL) >= 3, [b.id for b in SHELL]
    assert len(PYTHON) >= 5, [b.id for b in PYTHON]
    known = {"runnable", "no-run", "needs-server", "needs-llm"}
    for b in ALL:
        assert b.flags <= known, f"{b.id}: unknown flag(s) {sorted(b.flags - known)}"
    no_run = [b.id for b in PYTHON if "no-run" in b.flags]
    assert len(no_run) <= 2, f"most Python snippets must run: {no_run}"


def test_block_parser_reads_flags_and_budgets(tmp_path: Path) -> None:
    doc = tmp_path / "x.md"
    doc.write_text("a\n```bash runnable\nlifeline eval ed --episodes 30\n# note\n```\n"
                   "```python no-run\nimport os\n```\n```\nplain\n```\n")
    found = blocks([doc])
    assert [(b.lang, sorted(b.flags), b.line) for b in found] == [
        ("bash", ["runnable"], 2), ("python", ["no-run"], 6), ("", [], 9)]
    assert short_budget_shell(found[0].text) == "lifeline eval ed --episodes 2"
    assert short_budget_python("evaluate(x, episodes=5)") == "evaluate(x, episodes=1)"


@pytest.mark.parametrize("block", SHELL, ids=[b.id for b in SHELL])
def test_runnable_shell_block_runs(block: Block, tmp_path: Path) -> None:
    script = short_budget_shell(block.text)
    done = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, env=_env(tmp_path),
                          capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    assert done.returncode == 0, (f"{block.id} failed ({done.returncode}):\n{script}\n"
                                  f"--- stderr ---\n{done.stderr[-3000:]}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _imports_resolve(text: str) -> None:
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module:
            module = importlib.import_module(node.module)
            for alias in node.names:
                assert hasattr(module, alias.name), f"{node.module} has no {alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                importlib.import_module(alias.name)


@pytest.mark.parametrize("block", PYTHON, ids=[b.id for b in PYTHON])
def test_python_snippet_runs(block: Block, tmp_path: Path) -> None:
    text = short_budget_python(block.text)
    compile(text, block.id, "exec")
    if "no-run" in block.flags:
        _imports_resolve(text)
        return
    env = _env(tmp_path)
    server = None
    llm = None
    try:
        if "needs-server" in block.flags:
            port = _free_port()
            text = text.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
            server = subprocess.Popen(
                [sys.executable, "-m", "lifeline", "serve", "ed", "--port", str(port),
                 "--token", "s3cret"], cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, text=True)
            _wait_for_port(port, server)
        if "needs-llm" in block.flags:
            sys.path.insert(0, str(ROOT / "tests"))
            from fake_llm import FakeLLM

            llm = FakeLLM(["legal"]).__enter__()
            text = text.replace("http://127.0.0.1:8001/v1", llm.url)
        done = subprocess.run([sys.executable, "-c", text], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
        if llm is not None:
            llm.__exit__(None, None, None)
    assert done.returncode == 0, (f"{block.id} failed ({done.returncode}):\n{text}\n"
                                  f"--- stderr ---\n{done.stderr[-3000:]}")


def _wait_for_port(port: int, proc: subprocess.Popen[str], limit_s: float = 120.0) -> None:
    start = time.monotonic()
    while time.monotonic() - start < limit_s:
        if proc.poll() is not None:
            err = proc.stderr.read() if proc.stderr else ""
            raise AssertionError(f"lifeline serve exited: {err[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"lifeline serve did not listen on {port} within {limit_s} s")
