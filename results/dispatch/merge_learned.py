"""Merge per-scenario ``lifeline train pointer --json`` files into one ``learned.json``.

``python results/dispatch/merge_learned.py OUT IN [IN ...]``: records, summary and paired rows
are concatenated; ``paired_harm`` and ``training`` become ``{scenario: ...}`` (the codered
layout); ``meta`` is kept per input under ``meta["scenarios"]`` (each run's own commit).
An input that is already merged (``paired_harm`` keyed by scenario) is taken as it is.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _scenario(d: dict[str, Any]) -> str:
    scen = sorted({r["scenario"] for r in d["records"]})
    if len(scen) != 1:
        raise ValueError(f"one scenario per input, got {scen}")
    return scen[0]


def merge(inputs: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"records": [], "summary": [], "meta": {"scenarios": {}},
                           "paired": [], "paired_harm": {}, "training": {}}
    for d in inputs:
        if "metric" not in d["paired_harm"]:  # already merged
            parts = [{**d, "records": [r for r in d["records"] if r["scenario"] == s],
                      "summary": [r for r in d["summary"] if r["scenario"] == s],
                      "paired": [r for r in d["paired"] if r["scenario"] == s],
                      "paired_harm": d["paired_harm"][s], "training": d["training"][s],
                      "meta": d["meta"]["scenarios"][s]} for s in d["paired_harm"]]
        else:
            parts = [d]
        for p in parts:
            s = _scenario(p)
            for key in ("records", "summary", "paired"):
                out[key].extend(p[key])
            out["paired_harm"][s] = p["paired_harm"]
            out["training"][s] = p.get("training", {})
            out["meta"]["scenarios"][s] = p["meta"]
    return out


if __name__ == "__main__":
    target, *sources = sys.argv[1:]
    merged = merge([json.loads(Path(p).read_text()) for p in sources])
    Path(target).write_text(json.dumps(merged, indent=2) + "\n")
