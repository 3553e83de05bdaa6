"""Frames as RGB pictures (``render_mode="rgb_array"``), drawn with matplotlib's Agg backend.

The same ``frame(state)`` pictures the web viewer draws: the ``ed`` bed board, the ``dispatch``
(and ``dispatch_metro``) city map, the designed pictures of ``codered``, ``pharmacy`` and
``evgrid`` / ``evgrid_team`` (:mod:`lifeline.faces.raster_designed`), and for any other
environment a generic card (its text view, a progress bar and its
top-level numbers). A figure object of its own is used per call (no pyplot global state), so this
is safe to call from several environments in one process (e.g. a vector env).
"""

from __future__ import annotations

from typing import Any

import numpy as np

ESI = {1: "#c62828", 2: "#ef6c00", 3: "#f9a825", 4: "#43a047", 5: "#1e88e5"}
STATUS = {"idle": "#2e7d32", "relocating": "#26a69a", "en_route": "#d32f2f",
          "on_scene": "#8e24aa", "transporting": "#f57c00", "at_hospital": "#6d4c41",
          "returning": "#1e88e5", "out_of_service": "#616161", "aid_inbound": "#9e9d24",
          "inactive": "#bdbdbd"}
CALLS = {"cardiac": "#c62828", "stroke": "#6a1b9a", "respiratory": "#0277bd",
         "trauma": "#e65100", "fire": "#ff6f00", "minor": "#7cb342"}
SIZE = (640, 480)
"""Width and height of every picture, pixels."""


def _figure() -> tuple[Any, Any]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(SIZE[0] / 80, SIZE[1] / 80), dpi=80)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.01, 0.01, 0.98, 0.92))
    ax.set_axis_off()
    return fig, ax


def _pixels(fig: Any) -> np.ndarray:
    fig.canvas.draw()
    rgba = np.asarray(fig.canvas.buffer_rgba())
    return np.ascontiguousarray(rgba[..., :3])


def _ed(fig: Any, ax: Any, f: dict[str, Any]) -> None:
    from matplotlib.patches import Rectangle

    c = f["counters"]
    fig.suptitle(f"ED {f['clock']}  treated {c['treated']}  deaths {c['deaths']}  "
                 f"LWBS {c['lwbs']}  waiting {len(f['waiting'])}", fontsize=12, y=0.98)
    cols = 10
    ax.set_xlim(0, cols)
    rows_g = -(-len(f["general"]) // cols)
    rows_i = -(-len(f["icu"]) // cols)
    height = rows_g + rows_i + 3.2
    ax.set_ylim(height, 0)

    def beds(ward: list[Any], top: float, label: str) -> None:
        for i, p in enumerate(ward):
            x, y = i % cols, top + i // cols
            color = ESI[p["esi"]] if p else "#eef1f4"
            edge = "#1b5e20" if p and p["ready"] else "#9aa7b6"
            ax.add_patch(Rectangle((x + 0.05, y + 0.05), 0.9, 0.9, facecolor=color,
                                   edgecolor=edge, linewidth=3 if p and p["ready"] else 1))
            ax.text(x + 0.1, y + 0.35, f"{label}{i}", fontsize=7,
                    color="white" if p else "#8a96a3")
            if p:
                ax.text(x + 0.1, y + 0.7, f"{p['hours_in_bed']:.1f}h" + (" V" if p["vent"] else ""),
                        fontsize=7, color="white")

    beds(f["general"], 0.0, "G")
    beds(f["icu"], rows_g + 0.2, "I")
    top = rows_g + rows_i + 0.5
    ax.text(0, top + 0.3, f"ventilators {f['ventilators']['in_use']}/{f['ventilators']['total']}"
            f" in use · waiting room:", fontsize=9)
    for k, p in enumerate(f["waiting"][:40]):
        x, y = (k % 20) * 0.5, top + 0.6 + (k // 20) * 0.5
        ax.add_patch(Rectangle((x + 0.03, y + 0.03), 0.44, 0.44, facecolor=ESI[p["esi"]],
                               alpha=0.9 if p["slot"] is not None else 0.35))


def _dispatch(fig: Any, ax: Any, st: dict[str, Any], f: dict[str, Any]) -> None:
    from matplotlib.collections import LineCollection

    xy = np.asarray(st["nodes"], dtype=float)
    fig.suptitle(f"{st['city']} {f['clock']}  open calls {f['counters']['open']}  "
                 f"alerts: {', '.join(f['alerts']) or 'none'}", fontsize=11, y=0.98)
    ax.set_xlim(-0.03, 1.03)
    ax.set_ylim(1.03, -0.03)
    segs = [(xy[a], xy[b]) for a, b, _ in st["edges"]]
    ax.add_collection(LineCollection(segs, colors="#b0b8c1", linewidths=0.8))
    for key, color in (("closed_roads", "#d32f2f"), ("slowed_roads", "#ff9800")):
        if f.get(key):
            ax.add_collection(LineCollection([(xy[a], xy[b]) for a, b in f[key]], colors=color,
                                             linewidths=2.5))
    st_xy = xy[st["stations"]]
    ax.scatter(st_xy[:, 0], st_xy[:, 1], marker="s", s=30, facecolors="white",
               edgecolors="#37474f")
    for k, h in enumerate(st["hospitals"]):
        x, y = xy[h["node"]]
        ax.scatter([x], [y], marker="P", s=140,
                   color="#d32f2f" if f["hospitals"][k]["divert"] else "#2e7d32")
    for c in f["calls"]:
        x, y = xy[c["node"]]
        ax.scatter([x], [y], s=60, color=CALLS.get(c["type"], "black"), marker="o",
                   edgecolors="black", linewidths=0.5)
    for u in f["units"]:
        a, b = xy[u["from"]], xy[u["to"]]
        x, y = a + (b - a) * u["frac"]
        color = STATUS.get(u["status"], "black")
        ax.scatter([x], [y], s=36, facecolors=color if u["als"] else "white", edgecolors=color,
                   linewidths=2)


def _generic(fig: Any, ax: Any, f: dict[str, Any]) -> None:
    from matplotlib.patches import Rectangle

    ax.set_xlim(0, 1)
    ax.set_ylim(1, 0)
    progress = float(f.get("progress", 0.0) or 0.0)
    ax.add_patch(Rectangle((0, 0), progress, 0.03, color="#1f6feb"))
    numbers = [f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
               for k, v in f.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    fig.suptitle("  ".join(numbers)[:110], fontsize=9, y=0.98)
    text = str(f.get("text", ""))
    lines = text.splitlines()[:40]
    ax.text(0, 0.06, "\n".join(line[:110] for line in lines), fontsize=7, family="monospace",
            va="top")


def _designed() -> dict[str, Any]:
    from lifeline.faces import raster_designed as d

    return {"codered": d.codered, "pharmacy": d.pharmacy, "evgrid": d.evgrid,
            "evgrid_team": d.evgrid}


DESIGNED: dict[str, Any] = _designed()
"""Environments with a designed picture of their own (:mod:`lifeline.faces.raster_designed`)."""


def frame_to_rgb(env: str, static: dict[str, Any], frame: dict[str, Any]) -> np.ndarray:
    """``(H, W, 3)`` uint8 picture of ``frame`` (``static`` = the env's :meth:`frame_static`)."""
    fig, ax = _figure()
    try:
        if env == "ed":
            _ed(fig, ax, frame)
        elif env in ("dispatch", "dispatch_metro"):
            _dispatch(fig, ax, static, frame)
        elif env in DESIGNED:
            fig.clf()
            DESIGNED[env](fig, frame)
        else:
            _generic(fig, ax, frame)
    except (KeyError, TypeError, ValueError, IndexError):
        fig.clf()
        ax = fig.add_axes((0.01, 0.01, 0.98, 0.92))
        ax.set_axis_off()
        _generic(fig, ax, frame)
    return _pixels(fig)
