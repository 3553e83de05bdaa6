"""The static files of the browser pages and the HTML templates they fill in (a leaf module:
both the replay viewer, :mod:`lifeline.web`, and the live pages, :mod:`lifeline.web.live`, use it).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI

STATIC_DIR = Path(__file__).with_name("static")
ASSETS = ("common.css", "render.js", "viewer.js", "live.js")
"""Files the pages load (served by name only: nothing else on disk is reachable)."""


def page(name: str, **values: str) -> str:
    """An HTML page from ``static/`` with ``{{KEY}}`` placeholders filled in."""
    import html

    text = (STATIC_DIR / name).read_text(encoding="utf-8")
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", html.escape(value, quote=True))
    return text


def add_assets(app: FastAPI, prefix: str = "/static") -> None:
    """Serve :data:`ASSETS` under ``prefix`` on ``app``."""
    from fastapi import HTTPException
    from fastapi.responses import FileResponse

    media = {"css": "text/css", "js": "text/javascript"}

    @app.get(prefix + "/{name}", include_in_schema=False)
    async def asset(name: str) -> FileResponse:
        if name not in ASSETS:
            raise HTTPException(404, f"no asset {name!r}")
        return FileResponse(STATIC_DIR / name, media_type=media[name.rsplit(".", 1)[1]],
                            headers={"Cache-Control": "no-cache"})
