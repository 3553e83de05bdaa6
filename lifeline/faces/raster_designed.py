"""The designed pictures of ``codered``, ``pharmacy`` and ``evgrid`` / ``evgrid_team`` as RGB
frames (``render_mode="rgb_array"``), drawn with matplotlib's Agg backend from the same
``frame(state)`` the web pages draw (:mod:`lifeline.web`, ``static/render.js``).

Each function takes a figure made by :func:`lifeline.faces.raster.frame_to_rgb` and draws into
axes of its own; nothing here reads an environment's state, only its JSON frame.
"""

from __future__ import annotations

from typing import Any

import numpy as np

COND = {"cardiac": "#c62828", "stroke": "#6a1b9a", "trauma": "#e65100", "general": "#1565c0",
        "anxiety": "#78909c", "gerd": "#8d6e63", "panic": "#90a4ae", "minor": "#7cb342"}
CR_UNIT = {"available": "#2e7d32", "en_route": "#d32f2f", "on_scene": "#8e24aa",
           "transporting": "#f57c00", "handover": "#6d4c41", "returning": "#1e88e5",
           "aid_inbound": "#9e9d24"}
OR_COL = {"free": "#2e7d32", "elective": "#9aa7b6", "preparing": "#f9a825", "ready": "#00897b",
          "surgery": "#c62828", "failed": "#000000"}
AT_SCENE = {"waiting", "call", "unit_en_route", "on_scene", "callback_pending", "self_transport"}


def _axes(fig: Any, rect: tuple[float, float, float, float], flip: bool = True) -> Any:
    ax = fig.add_axes(rect)
    ax.set_axis_off()
    ax.set_xlim(0, 1)
    ax.set_ylim((1, 0) if flip else (0, 1))
    return ax


def codered(fig: Any, f: dict[str, Any]) -> None:
    """Prakashnagar: roads (closed red, slowed orange), incident sites with their patients
    (colour = condition, ring = vitals), ambulances with their patient, hospital gauges."""
    from matplotlib.patches import Circle, Rectangle

    pts = f["patients"]
    dead = sum(p["status"] == "dead" for p in pts)
    treated = sum(p["status"] == "treated" for p in pts)
    fig.suptitle(f"CODE RED {f.get('clock', '')}  t={f['t']:.0f}/{f['horizon']:.0f} min  "
                 f"patients {len(pts)}  treated {treated}  dead {dead}  "
                 f"911 queue {len(f.get('queue', []))}", fontsize=10, y=0.985)
    xy = np.asarray(f["xy"], dtype=float)
    ax = _axes(fig, (0.0, 0.06, 0.6, 0.86))
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(1.08, -0.06)
    for r in f["roads"]:
        (x1, y1), (x2, y2) = xy[r["a"]], xy[r["b"]]
        color = "#d32f2f" if r["closed"] else "#ffb74d" if r["factor"] > 1.05 else "#b0b8c1"
        ax.plot([x1, x2], [y1, y2], color=color, lw=3 if r["closed"] else 2,
                ls="--" if r["closed"] else "-", zorder=1)
    hosp_at = {h["node"]: k for k, h in enumerate(f["hospitals"])}
    for n, name in enumerate(f["nodes"]):
        x, y = xy[n]
        if n in hosp_at:
            h = f["hospitals"][hosp_at[n]]
            ax.add_patch(Rectangle((x - 0.03, y - 0.03), 0.06, 0.06, zorder=3,
                                   color="#d32f2f" if h["diverted"] else "#2e7d32"))
            ax.text(x, y + 0.075, name, fontsize=6.5, ha="center", color="#1b5e20",
                    weight="bold")
        else:
            ax.add_patch(Circle((x, y), 0.012, facecolor="white", edgecolor="#607080", zorder=3))
            ax.text(x, y + 0.06, name, fontsize=6, ha="center", color="#37474f")
    sites: dict[int, list[dict[str, Any]]] = {}
    for p in pts:
        if p["status"] in AT_SCENE:
            sites.setdefault(p["node"], []).append(p)
    for node, group in sites.items():
        x, y = xy[node]
        ax.add_patch(Circle((x, y), 0.05, facecolor="#ffebee", edgecolor="#e57373", ls="--",
                            zorder=2, alpha=0.8))
        for k, p in enumerate(group):
            px, py = x - 0.04 * (len(group) - 1) / 2 + 0.04 * k, y - 0.07
            v = float(p["vitals"])
            ring = "#b71c1c" if v < 0.3 else "#ef6c00" if v < 0.6 else "#2e7d32"
            ax.add_patch(Circle((px, py), 0.017, zorder=4,
                                facecolor=COND.get(p["condition"] or "", "#9e9e9e"),
                                edgecolor=ring if p["condition"] else "#616161", lw=1.5))
    parked: dict[int, int] = {}
    for k, u in enumerate(f["ambulances"]):
        if u["status"] == "inactive":
            continue
        a, b, frac = f["moving"][k]
        x, y = xy[a] + (xy[b] - xy[a]) * frac
        if a == b:
            parked[a] = parked.get(a, 0) + 1
            x += 0.035 * parked[a]
        color = CR_UNIT.get(u["status"], "#333333")
        ax.add_patch(Rectangle((x - 0.02, y - 0.015), 0.04, 0.03, zorder=5, lw=1.5,
                               facecolor=color if u["als"] else "white", edgecolor=color))
        if u["patient"] >= 0 and u["status"] in ("transporting", "on_scene", "handover"):
            carried = next((p for p in pts if p["index"] == u["patient"]), None)
            if carried is not None:
                ax.add_patch(Circle((x, y), 0.008, zorder=6, color=COND.get(
                    carried["condition"] or "", "#9e9e9e")))
    # hospitals: ORs, ICU, blood gauges
    extra = f.get("hospital_extra", [{}] * len(f["hospitals"]))
    for k, h in enumerate(f["hospitals"]):
        top = 0.93 - k * 0.31
        hx = _axes(fig, (0.61, top - 0.29, 0.38, 0.29), flip=False)
        hx.add_patch(Rectangle((0, 0), 1, 1, facecolor="#fff5f5" if h["diverted"] else "white",
                               edgecolor="#d32f2f" if h["diverted"] else "#d5dbe3"))
        hx.text(0.02, 0.9, h["name"] + (" — DIVERSION" if h["diverted"] else ""), fontsize=7.5,
                weight="bold", va="center")
        for j, o in enumerate(h["ors"]):
            hx.add_patch(Rectangle((0.02 + j * 0.16, 0.68), 0.15, 0.12,
                                   color=OR_COL.get(o, "#999999")))
            hx.text(0.095 + j * 0.16, 0.74, o, fontsize=5, ha="center", va="center",
                    color="white")
        icu = int(extra[k].get("icu_beds", h["icu_free"]))
        for b in range(icu):
            hx.add_patch(Rectangle((0.55 + b * 0.06, 0.68), 0.05, 0.12, edgecolor="#0277bd",
                                   facecolor="white" if b < h["icu_free"] else "#0277bd"))
        hx.text(0.55, 0.86, f"ICU {h['icu_free']}/{icu} free", fontsize=5.5)
        full = extra[k].get("blood_full", [])
        for j, (bt, n) in enumerate(h["blood"].items()):
            cap = max(full[j] if j < len(full) else 0, n, 1)
            low = n <= max(1, 0.25 * cap)
            hx.add_patch(Rectangle((0.04 + j * 0.12, 0.12), 0.07, 0.45, facecolor="#f1f4f7",
                                   edgecolor="#cfd8dc"))
            hx.add_patch(Rectangle((0.04 + j * 0.12, 0.12), 0.07, 0.45 * min(1.0, n / cap),
                                   color="#d32f2f" if low else "#ad1457"))
            hx.text(0.075 + j * 0.12, 0.03, f"{bt} {n}", fontsize=5, ha="center")
    q = f.get("queue", [])
    fig.text(0.01, 0.015, "911 queue: " + (", ".join(
        f"[{c['index']}] {c['category']} {c['minutes']:.0f}m" + ("!" if c["escalated"] else "")
        for c in q[:6]) or "empty") + ("   ALERT: " + "; ".join(f["alerts"])
                                       if f.get("alerts") else ""), fontsize=7)


def pharmacy(fig: Any, f: dict[str, Any]) -> None:
    """Stock against par as a heat map (products × locations), budget left, lots near expiry,
    open purchase orders and events."""
    from matplotlib.colors import LinearSegmentedColormap
    from matplotlib.patches import Rectangle

    skus = list(f["central"])
    wards = list(f["wards"])
    par = f["par"]
    total, left = float(f["budget"]), float(f["available"])
    fig.suptitle(f"MedChain pharmacy  round {f['round']}  day {f.get('day', '?')}/"
                 f"{f.get('days', '?')}  budget left \\${left:,.0f} of \\${total:,.0f}",
                 fontsize=10, y=0.985)
    bar = _axes(fig, (0.02, 0.9, 0.96, 0.025), flip=False)
    bar.add_patch(Rectangle((0, 0), 1, 1, color="#e3e7ec"))
    bar.add_patch(Rectangle((0, 0), max(0.0, left / total) if total else 0.0, 1,
                            color="#c62828" if left < 0.15 * total else "#1f6feb"))
    ratio = np.full((len(skus), 1 + len(wards)), np.nan)
    for i, s in enumerate(skus):
        ratio[i, 0] = f["central"][s] / par["central"][s] if par["central"].get(s) else np.nan
        for j, w in enumerate(wards):
            p = par["wards"].get(w, {}).get(s)
            if p:
                ratio[i, j + 1] = f["wards"][w].get(s, 0.0) / p
    ax = fig.add_axes((0.16, 0.36, 0.4, 0.5))
    cmap = LinearSegmentedColormap.from_list("stock", ["#c62828", "#f9a825", "#2e7d32"]
                                             ).with_extremes(bad="#eeeeee")
    ax.imshow(np.minimum(ratio, 1.5), cmap=cmap, vmin=0, vmax=1.5, aspect="auto")
    ax.set_yticks(range(len(skus)), skus, fontsize=6)
    ax.set_xticks(range(1 + len(wards)), ["CENTRAL", *[w.replace("ward_", "") for w in wards]],
                  fontsize=6)
    ax.xaxis.tick_top()
    for i in range(len(skus)):
        for j in range(1 + len(wards)):
            if np.isfinite(ratio[i, j]):
                ax.text(j, i, f"{100 * ratio[i, j]:.0f}%", ha="center", va="center", fontsize=5.5)
    rq = _axes(fig, (0.6, 0.36, 0.38, 0.5))
    req, plan = np.asarray(f["requests"]), np.asarray(f["plan"])
    rq.text(0, 0.02, "this round: requested → approved", fontsize=7, weight="bold")
    for i, s in enumerate(skus):
        cells = "  ".join(f"{req[w, i]:.0f}→{plan[w, i]:.0f}" for w in range(len(wards)))
        rq.text(0, 0.1 + i * 0.085, f"{s[:10]:<10} {cells}", fontsize=5.5, family="monospace")
    low = _axes(fig, (0.02, 0.02, 0.96, 0.3))
    lots = [f"{s}: " + ", ".join(f"{q:.0f}@{d}d" for d, q in v[:4])
            for s, v in f.get("lots", {}).items()]
    pos = [f"{p['id']} {p['sku']}×{p['qty']:.0f} {p['status']} eta d{p['eta_day']}"
           for p in f["purchase_orders"] if p["status"] not in ("received", "cancelled")][:6]
    lines = (["lots (units@days left): " + "; ".join(lots)]
             + ["open POs: " + ("; ".join(pos) or "none")]
             + [str(e) for e in f["events"][-4:]])
    low.text(0, 0.05, "\n".join(line[:130] for line in lines), fontsize=6.5, va="top",
             family="monospace")


def _ramp(r: float) -> tuple[float, float, float]:
    """Green (0) → yellow (0.7) → red (1), dark red above 1.1."""
    if r >= 1.1:
        return (0.5, 0.0, 0.0)
    stops = ((0.0, (0.18, 0.49, 0.2)), (0.7, (0.98, 0.66, 0.15)), (1.0, (0.78, 0.16, 0.16)))
    r = max(0.0, min(1.0, r))
    k = 0 if r <= 0.7 else 1
    (a, ca), (b, cb) = stops[k], stops[k + 1]
    t = (r - a) / (b - a)
    return (ca[0] + (cb[0] - ca[0]) * t, ca[1] + (cb[1] - ca[1]) * t, ca[2] + (cb[2] - ca[2]) * t)


def evgrid(fig: Any, f: dict[str, Any]) -> None:
    """Stations coloured by occupancy (badge: our queue), zones shaded by feeder loading, EVs
    driving to a station, feeder load and hot-spot bars, price and renewable share over the day."""
    from matplotlib.patches import Polygon, Rectangle
    from scipy.spatial import ConvexHull

    sts, zs = f["stations"], f["zones"]
    hh = int(f["hour"])
    fig.suptitle(f"EV grid {hh:02d}:{round((f['hour'] - hh) * 60) % 60:02d}  "
                 f"{f.get('ambient_c', 0):.1f} °C  charging {sum(x['charging'] for x in sts)}  "
                 f"queued {sum(x['queue'] for x in sts)}  renewable "
                 f"{100 * f['renewable_share']:.0f} %", fontsize=10, y=0.985)
    nodes = [(x["lat"], x["lng"]) for x in sts] + [(f["airport"]["lat"], f["airport"]["lng"])]
    xy = np.array([[lng, lat] for lat, lng in nodes])
    ax = fig.add_axes((0.0, 0.0, 0.6, 0.93))
    ax.set_axis_off()
    ax.set_aspect("equal")
    for zi, z in enumerate(zs):
        pts = np.array([[x["lng"], x["lat"]] for x in sts if x["zone"] == zi])
        if len(pts) == 0:
            continue
        grown = np.concatenate([pts + d for d in ((-0.012, -0.012), (0.012, -0.012),
                                                  (-0.012, 0.012), (0.012, 0.012))])
        hull = grown[ConvexHull(grown).vertices]
        load = z["load_kw"] / (z["limit_kw"] * (z["derate"] or 1.0)) if z["limit_kw"] else 0.0
        ax.add_patch(Polygon(hull, closed=True, facecolor=(*_ramp(load), 0.25),
                             edgecolor="black" if z["tripped"] else _ramp(load),
                             ls="--" if z["tripped"] else "-", lw=1.2))
        top = hull[np.argmax(hull[:, 1])]
        ax.text(top[0], top[1] + 0.004, f"{z['name']} {100 * load:.0f}%", fontsize=6.5,
                ha="center", color=_ramp(load), weight="bold")
    for a, b in f.get("roads", []):
        ax.plot(xy[[a, b], 0], xy[[a, b], 1], color="#cfd8dc", lw=0.6, zorder=1)
    for e in f["evs"]:
        if e["status"] == "driving" and e["station"] >= 0:
            o, d = xy[min(e["origin"], len(xy) - 1)], xy[e["station"]]
            ax.plot([o[0], d[0]], [o[1], d[1]], color="#1f6feb", lw=0.8, ls="--", zorder=2)
    occ = [(x["busy_other"] + x["charging"]) / max(1, x["slots"]) for x in sts]
    ax.scatter(xy[:-1, 0], xy[:-1, 1], s=[20 + 4 * x["slots"] for x in sts], zorder=3,
               c=["#9e9e9e" if x["out"] else _ramp(r) for x, r in zip(sts, occ, strict=True)],
               edgecolors="white")
    for x in sts:
        if x["queue"] > 0:
            ax.text(x["lng"] + 0.008, x["lat"] + 0.008, str(x["queue"]), fontsize=6, zorder=4,
                    color="white", weight="bold",
                    bbox={"boxstyle": "round,pad=0.15", "fc": "#b00020", "ec": "none"})
    ax.text(xy[-1, 0], xy[-1, 1], "airport", fontsize=6, ha="center")
    lim = float(f.get("hotspot_limit_c", 120.0))
    for zi, z in enumerate(zs):
        zx = _axes(fig, (0.62, 0.83 - zi * 0.09, 0.36, 0.08), flip=False)
        load = z["load_kw"] / (z["limit_kw"] * (z["derate"] or 1.0)) if z["limit_kw"] else 0.0
        zx.add_patch(Rectangle((0, 0.45), 1, 0.3, color="#eceff1"))
        zx.add_patch(Rectangle((0, 0.45), min(1.2, load) / 1.2, 0.3, color=_ramp(load)))
        zx.plot([1 / 1.2, 1 / 1.2], [0.4, 0.8], color="black", lw=1)
        hot = z.get("hotspot_c")
        if hot is not None:
            zx.add_patch(Rectangle((0, 0.05), 1, 0.25, color="#eceff1"))
            zx.add_patch(Rectangle((0, 0.05), max(0.0, min(1.0, (hot - 20) / lim)), 0.25,
                                   color="#7f0000" if hot >= lim else "#ef6c00"))
        zx.text(0, 0.82, f"{z['name']} {100 * load:.0f}%" + (f"  {hot:.0f} °C" if hot else "")
                + ("  TRIPPED" if z["tripped"] else ""), fontsize=6.5)
    c = f.get("curve")
    if c and len(c["hour"]) > 1:
        cx = fig.add_axes((0.66, 0.06, 0.32, 0.3))
        cx.plot(c["hour"], c["price"], color="#263238", lw=1.2)
        cx.set_ylabel("₹/kWh", fontsize=6)
        cx.tick_params(labelsize=5.5)
        rx = cx.twinx()
        rx.plot(c["hour"], c["renewable"], color="#2e7d32", lw=1.2)
        rx.set_ylim(0, 1)
        rx.tick_params(labelsize=5.5)
        now = c["hour"][0] + ((f["hour"] - c["hour"][0] % 24) % 24)
        cx.axvline(now, color="#b00020", ls="--", lw=1)
        cx.set_title("price (black), renewable share (green)", fontsize=6.5)
