"""``lifeline serve`` starts fast: openenv's Gradio web interface (about half of the start-up
CPU time: 4.8 s -> 2.2 s to listen, measured) is never imported by the server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_server_imports_without_gradio_and_gradio_still_imports() -> None:
    pytest.importorskip("openenv")
    pytest.importorskip("gradio")
    code = ("import sys; import lifeline.serve.server; "
            "print('gradio' in sys.modules, sys.modules.get('gradio', 0) is None); "
            "import gradio; print(hasattr(gradio, 'Blocks'))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, check=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.stdout.split() == ["False", "False", "True"], done.stderr[-2000:]
