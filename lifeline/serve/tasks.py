"""The task listing of a served environment (``GET /<env>/tasks``): what an agent builder needs to
pick a task and know what "good" means — scenarios with descriptions, the tool schemas, the
baseline ladder and its scores from the last committed leaderboard.

Scenario descriptions come from the env's ``params`` module (``SCENARIO_DESCRIPTIONS``, optional);
scores from ``lifeline/data/leaderboard.json``, which ``lifeline leaderboard --snapshot`` writes
(the summary rows of a leaderboard run: mean and bootstrap CI per env, scenario and agent).
"""

from __future__ import annotations

import importlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from lifeline.core.registry import EnvSpec
from lifeline.faces.tools import tool_specs

LEADERBOARD_FILE = Path(__file__).resolve().parents[1] / "data" / "leaderboard.json"


def scenario_descriptions(env_spec: EnvSpec) -> dict[str, str]:
    """``{scenario: one-line description}`` from the env's params module (empty if none)."""
    package = env_spec.entry_point.partition(":")[0].rsplit(".", 1)[0]
    try:
        params = importlib.import_module(f"{package}.params")
    except ImportError:
        return {}
    found: dict[str, str] = getattr(params, "SCENARIO_DESCRIPTIONS", {})
    return dict(found)


@lru_cache(maxsize=1)
def _leaderboard(path: Path = LEADERBOARD_FILE) -> dict[str, Any]:
    if not path.exists():
        return {}
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def reference_scores(env_name: str, path: Path = LEADERBOARD_FILE) -> dict[str, Any]:
    """``{"source", "created", "scores": {scenario: {agent: {n, mean, ci_low, ci_high}}}}``."""
    board = _leaderboard(path)
    scores: dict[str, dict[str, Any]] = {}
    for row in board.get("summary", []):
        if row["env"] == env_name:
            scores.setdefault(row["scenario"], {})[row["agent"]] = {
                k: row[k] for k in ("n", "mean", "ci_low", "ci_high")}
    meta = board.get("meta", {})
    # Rows re-measured after the snapshot (e.g. one env's new version) carry their own provenance.
    prov = meta.get("env_provenance", {}).get(env_name, meta)
    return {"source": "lifeline/data/leaderboard.json" if scores else None,
            "created": prov.get("created"), "git_commit": prov.get("git_commit"),
            "env_version": meta.get("env_versions", {}).get(env_name), "scores": scores}


def write_snapshot(results: list[dict[str, Any]], path: Path = LEADERBOARD_FILE) -> Path:
    """Keep the summary rows and provenance of leaderboard ``results`` (one per env) at ``path``."""
    summary = [row for r in results for row in r["summary"]]
    meta: dict[str, Any] = dict(results[0]["meta"]) if results else {}
    meta["env_versions"] = {k: v for r in results
                            for k, v in r["meta"].get("env_versions", {}).items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"summary": summary, "meta": meta}, indent=1) + "\n")
    _leaderboard.cache_clear()
    return path


def task_listing(env_spec: EnvSpec) -> dict[str, Any]:
    """The JSON answer of ``GET /<env>/tasks``."""
    core = env_spec.load()(env_spec.default_scenario)
    described = scenario_descriptions(env_spec)
    threshold = env_spec.baselines_value("PASS_THRESHOLD")
    return {
        "env": env_spec.name, "gym_id": env_spec.gym_id, "version": core.version,
        "description": env_spec.description,
        "scenarios": [{"name": s, "description": described.get(s, ""),
                       "default": s == env_spec.default_scenario} for s in env_spec.scenarios],
        "tools": [t.to_dict() for t in tool_specs(core)],
        "noop": core.noop_action().kind,
        "ladder": list(env_spec.agents), "reference": env_spec.reference,
        "bound": env_spec.bound, "pass_threshold": threshold,
        "reference_scores": reference_scores(env_spec.name),
    }
