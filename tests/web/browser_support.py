"""What the browser tests share: the chromium they drive, where screenshots go, the browser.

Importing this module skips the importing test module when Playwright or Debian's chromium is
missing (``make setup`` installs both; nothing is ever downloaded).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = os.environ.get("LIFELINE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip("chromium is not installed (make setup installs it)", allow_module_level=True)

SHOTS = Path(os.environ.get("LIFELINE_SCREENSHOTS", "reports/screenshots"))


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless chromium (Playwright), closed on exit."""
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()
