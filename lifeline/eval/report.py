"""Markdown + PNG reports from harness results JSON.

``write_report(results, out_dir)`` reads one or more results files (or dicts) of the form
``{"records": [...], "summary": [...], "meta": {...}}``, recomputes every statistic from the
*records* (the summary is not trusted: one place computes numbers) and writes ``report.md`` plus
plots next to it. Per environment it shows:

* mean score ± bootstrap 95% CI per scenario × agent (bars and table);
* the normalised score ``(agent − reference) / (bound − reference)`` where both exist;
* paired differences versus the reference baseline (the env's strongest non-bound baseline, e.g.
  ``heuristic`` for ed) on common seeds, with CI, Wilcoxon and t-test p-values;
* score distributions, mean grader components, and learning curves of PPO runs whose training
  log (``learning_curve.csv`` beside the model) can be found.

Everything is deterministic: the same inputs give the same Markdown, byte for byte.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lifeline.eval import plots
from lifeline.eval.stats import (
    MeanCI,
    PairedComparison,
    mean_ci,
    normalised_score_ci,
    paired_compare,
    scores_by_seed,
)

ResultsSource = str | Path | Mapping[str, Any]

LADDER_ORDER = ("noop", "random", "heuristic")
"""Fallback ladder when the environment is not registered: listed first, in this order; other
agents follow in first-seen order, ``bound`` last."""

KEY_METRICS = ("deaths", "lwbs", "avg_wait_h", "early_discharges", "returns")
"""Raw metrics shown in the per-component comparison when an environment reports them."""

REFERENCE_AGENT = "heuristic"
"""Fallback reference; a registered env's reference is its strongest non-bound baseline."""
BOUND_AGENT = "bound"


def env_ladder(env: str) -> tuple[tuple[str, ...], str]:
    """``(baseline ladder without the bound, reference agent)`` for ``env``.

    The reference is the env's registered ``reference`` (the one the exploit suite and the
    leaderboard compare against, e.g. ``heuristic`` for ed and ``verify_dmexclp`` for dispatch),
    else the last non-bound baseline of the registered ladder; unknown envs fall back to the
    defaults.
    """
    try:
        from lifeline.core.registry import spec

        registered = spec(env)
    except KeyError:
        return LADDER_ORDER, REFERENCE_AGENT
    agents = tuple(a for a in registered.agents if a != BOUND_AGENT)
    if not agents:
        return LADDER_ORDER, REFERENCE_AGENT
    return agents, registered.reference if registered.reference in agents else agents[-1]
CURVE_FILE = "learning_curve.csv"
"""The learning curve of runs written before training logged through SB3's logger."""
PROGRESS_FILE = "progress.csv"
"""SB3's logger CSV (``time/total_timesteps``, ``rollout/ep_score_mean``, ...): newer runs."""
VALIDATION_FILE = "validation_curve.csv"


# ----- loading ---------------------------------------------------------------------------------


class ResultsConflict(ValueError):
    """Two inputs hold different records for the same (env, scenario, agent, seed)."""


def _read_source(src: ResultsSource) -> tuple[str, Mapping[str, Any]]:
    if isinstance(src, Mapping):
        if "records" not in src:
            raise ValueError("dict: no 'records' (not results from eval/compare)")
        return "dict", src
    path = Path(src)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"{path}: is a directory, not a results JSON file") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a results JSON file ({exc})") from None
    if not isinstance(data, Mapping) or "records" not in data:
        raise ValueError(f"{path}: no 'records' (not a results file from eval/compare)")
    return str(path), data


def load_results(sources: ResultsSource | Sequence[ResultsSource],
                 on_conflict: str = "error") -> dict[str, Any]:
    """Merge one or more results files/dicts into ``{"records", "meta", "duplicates",
    "conflicts"}``.

    Records are keyed by ``(env, scenario, agent, seed)``: a record that appears again with
    identical content (overlapping files, e.g. the same run saved twice) is kept once and counted
    in ``duplicates``; a *different* record under the same key is a conflict, described with both
    sources. ``on_conflict="error"`` raises :class:`ResultsConflict` listing them; ``"first"`` /
    ``"last"`` keep that input's record and list the conflicts in ``conflicts`` (the report
    prints them). ``meta`` becomes the list of the inputs' meta blocks.
    """
    if on_conflict not in ("error", "first", "last"):
        raise ValueError(f"on_conflict must be error, first or last, got {on_conflict!r}")
    if isinstance(sources, (str, Path, Mapping)):
        sources = [sources]
    kept: dict[tuple[str, str, str, int], tuple[str, dict[str, Any]]] = {}
    metas: list[dict[str, Any]] = []
    duplicates = 0
    conflicts: list[str] = []
    for src in sources:
        name, data = _read_source(src)
        for raw in data["records"]:
            rec = dict(raw)
            key = (str(rec["env"]), str(rec["scenario"]), str(rec["agent"]), int(rec["seed"]))
            if key not in kept:
                kept[key] = (name, rec)
                continue
            first_name, first = kept[key]
            if first == rec:
                duplicates += 1
                continue
            diff = sorted(k for k in set(first) | set(rec) if first.get(k) != rec.get(k))
            conflicts.append(f"{'/'.join(map(str, key))}: {first_name} and {name} differ in "
                             f"{', '.join(diff)}")
            if on_conflict == "last":
                kept[key] = (name, rec)
        if data.get("meta"):
            metas.append(dict(data["meta"]))
    if conflicts and on_conflict == "error":
        shown = "; ".join(conflicts[:3]) + (f"; and {len(conflicts) - 3} more"
                                            if len(conflicts) > 3 else "")
        raise ResultsConflict(f"{len(conflicts)} conflicting record(s) for the same env/"
                              f"scenario/agent/seed: {shown} (use --on-conflict first|last to "
                              f"keep one)")
    return {"records": [rec for _, rec in kept.values()], "meta": metas,
            "duplicates": duplicates, "conflicts": conflicts}


def agent_label(agent: str) -> str:
    """Short display name: ``ppo:runs/<family>/<run>`` becomes ``<family>`` when the family
    directory's name starts with ``ppo`` (``runs/ppo/ed-surge`` -> ``ppo``), otherwise ``ppo``;
    other names are kept."""
    if not agent.startswith("ppo:"):
        return agent
    path = Path(agent.removeprefix("ppo:"))
    run = path.parent if path.suffix == ".zip" else path
    family = run.parent.name
    return family if family.startswith("ppo") else "ppo"


def relabel(records: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Records with display labels in ``agent`` (originals in ``agent_id``), and the label map.

    One model per scenario (the usual case) shares one label across scenarios, e.g. ``ppo``;
    models from differently named run families (``runs/ppo``, ``runs/ppo_lives``) get their
    family's name; two models that would still collide in one scenario keep their full names.
    """
    per_cell: dict[tuple[str, str, str], set[str]] = {}
    for r in records:
        per_cell.setdefault((r["env"], r["scenario"], agent_label(r["agent"])), set()).add(
            r["agent"])
    out, mapping = [], {}
    for r in records:
        label = agent_label(r["agent"])
        if len(per_cell[(r["env"], r["scenario"], label)]) > 1:
            label = r["agent"]
        out.append({**r, "agent": label, "agent_id": r["agent"]})
        if label != r["agent"]:
            mapping[f"{r['env']}/{r['scenario']}/{label}"] = r["agent"]
    return out, mapping


def _ordered(names: Sequence[str], ladder: Sequence[str] = LADDER_ORDER) -> list[str]:
    seen = list(dict.fromkeys(names))
    first = [n for n in ladder if n in seen]
    last = [BOUND_AGENT] if BOUND_AGENT in seen else []
    middle = [n for n in seen if n not in first and n not in last]
    return first + middle + last


def read_curve(path: Path) -> tuple[list[float], list[float], str]:
    """``(timesteps, values, column)`` from a learning-curve CSV (score if logged, else return).

    Reads SB3's ``progress.csv`` (``time/total_timesteps``, ``rollout/ep_score_mean`` or
    ``rollout/ep_rew_mean``) and the older ``learning_curve.csv``; the column is reported in the
    old names (``ep_score_mean``/``ep_return_mean``).
    """
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        return [], [], ""
    sb3 = "time/total_timesteps" in rows[0]
    x_col = "time/total_timesteps" if sb3 else "timesteps"
    score_col = "rollout/ep_score_mean" if sb3 else "ep_score_mean"
    return_col = "rollout/ep_rew_mean" if sb3 else "ep_return_mean"
    has_score = any(r.get(score_col, "") not in ("", "nan") for r in rows)
    column = score_col if has_score else return_col
    xs, ys = [], []
    for row in rows:
        value = row.get(column, "")
        if value not in ("", "nan", None) and row.get(x_col, "") not in ("", None):
            xs.append(float(row[x_col]))
            ys.append(float(value))
    return xs, ys, "ep_score_mean" if has_score else "ep_return_mean"


def _curve_in(run_dir: Path) -> Path | None:
    """The learning-curve file of a run directory (SB3's progress.csv, else the legacy CSV)."""
    for name in (PROGRESS_FILE, CURVE_FILE):
        if (run_dir / name).is_file():
            return run_dir / name
    return None


def read_validation(curve_path: Path) -> tuple[list[float], list[float]] | None:
    """``(timesteps, val_score_mean)`` from ``validation_curve.csv`` beside a learning curve."""
    path = curve_path.parent / VALIDATION_FILE
    if not path.is_file():
        return None
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    return ([float(r["timesteps"]) for r in rows], [float(r["val_score_mean"]) for r in rows])


def find_curves(records: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], Path]:
    """``(env, scenario) -> learning_curve.csv`` for PPO agents whose model path still exists."""
    found: dict[tuple[str, str], Path] = {}
    for r in records:
        agent = str(r.get("agent_id", r["agent"]))
        if not agent.startswith("ppo:"):
            continue
        model = Path(agent.removeprefix("ppo:"))
        csv_path = _curve_in(model if model.is_dir() else model.parent)
        if csv_path is not None:
            found.setdefault((r["env"], r["scenario"]), csv_path)
    return found


def find_curves_in(root: str | Path) -> dict[tuple[str, str], Path]:
    """``(env, scenario) -> learning_curve.csv`` for every training run directory under ``root``.

    A run directory holds ``metadata.json`` (with ``env`` and ``scenario``) and the curve; this is
    how a committed report finds curves whose model weights are not committed.
    """
    found: dict[tuple[str, str], Path] = {}
    for meta_path in sorted(Path(root).rglob("metadata.json")):
        curve = _curve_in(meta_path.parent)
        if curve is None:
            continue
        meta = json.loads(meta_path.read_text())
        if "env" in meta and "scenario" in meta:
            found.setdefault((str(meta["env"]), str(meta["scenario"])), curve)
    return found


# ----- formatting ------------------------------------------------------------------------------


def _fmt_ci(m: MeanCI) -> str:
    return f"{m.mean:.3f} [{m.ci_low:.3f}, {m.ci_high:.3f}]"


def _fmt_p(p: float) -> str:
    return "<1e-4" if p < 1e-4 else f"{p:.4f}"


def _verdict(c: PairedComparison) -> str:
    if c.ci_low > 0:
        return "better"
    if c.ci_high < 0:
        return "worse"
    return "no significant difference"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


# ----- the report ------------------------------------------------------------------------------


def write_report(
    results: ResultsSource | Sequence[ResultsSource],
    out_dir: str | Path,
    curves: Mapping[tuple[str, str], Path] | None = None,
    title: str = "Lifeline evaluation report",
    on_conflict: str = "error",
) -> Path:
    """Write ``report.md`` and PNG plots into ``out_dir``; return the Markdown path.

    ``curves`` maps ``(env, scenario)`` to learning-curve CSVs; by default they are looked up
    beside the models of ``ppo:PATH`` agents. Overlapping inputs are merged
    (:func:`load_results`; ``on_conflict`` says what to do with differing duplicates).
    """
    out = Path(out_dir)
    data = load_results(results, on_conflict=on_conflict)
    out.mkdir(parents=True, exist_ok=True)
    records, label_map = relabel(data["records"])
    if not records:
        raise ValueError("the results contain no records")
    if curves is None:
        curves = find_curves(records)

    lines = [f"# {title}", ""]
    lines += _meta_lines(data["meta"], len(records))
    if data["duplicates"]:
        lines += [f"- identical duplicate records merged: {data['duplicates']}", ""]
    if data["conflicts"]:
        lines += ["## Conflicting records", "",
                  f"These keys had different records in different inputs; the "
                  f"{on_conflict} input's record was kept:", ""]
        lines += [f"- {c}" for c in data["conflicts"]]
        lines.append("")
    envs = list(dict.fromkeys(r["env"] for r in records))
    for env in envs:
        lines += _env_section(env, [r for r in records if r["env"] == env], out, curves)
    if label_map:
        lines += ["## Agent labels", ""]
        lines += [f"- `{k}` = `{v}`" for k, v in sorted(label_map.items())]
        lines.append("")
    lines += [
        "## Method", "",
        "Scores are the episode grader's score in [0, 1]. Means carry percentile-bootstrap 95% "
        "confidence intervals (10,000 resamples of episodes, seeded). Agents are evaluated on the "
        "same held-out seeds (common random numbers), so differences are computed per seed; their "
        "CI resamples seeds, keeping pairs together. p-values are two-sided (Wilcoxon signed-rank, "
        "paired t-test). Normalised score = (agent − reference) / (bound − reference), where the "
        "reference is the environment's strongest non-bound baseline: 0 is the reference, 1 the "
        "upper bound.", "",
    ]
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path


def _meta_lines(metas: Sequence[Mapping[str, Any]], n_records: int) -> list[str]:
    lines = [f"- records: {n_records}"]
    for key in ("package_version", "git_commit", "created"):
        values = sorted({str(m[key]) for m in metas if key in m})
        if values:
            lines.append(f"- {key}: {', '.join(values)}")
    versions = sorted({f"{k} v{v}" for m in metas for k, v in m.get("env_versions", {}).items()})
    if versions:
        lines.append(f"- environment versions: {', '.join(versions)}")
    return [*lines, ""]


def _env_section(
    env: str, records: Sequence[Mapping[str, Any]], out: Path,
    curves: Mapping[tuple[str, str], Path],
) -> list[str]:
    scenarios = list(dict.fromkeys(r["scenario"] for r in records))
    ladder, ref_agent = env_ladder(env)
    agents = _ordered([r["agent"] for r in records], ladder)
    by_seed = {(s, a): scores_by_seed(records, env, s, a) for s in scenarios for a in agents}
    by_seed = {k: v for k, v in by_seed.items() if v}
    cells: dict[str, dict[str, MeanCI]] = {s: {} for s in scenarios}
    for (s, a), scores in by_seed.items():
        cells[s][a] = mean_ci(list(scores.values()))

    lines = [f"## Environment `{env}`", "", "### Mean score with 95% CI", ""]
    rows = [[s] + [_fmt_ci(cells[s][a]) + f" (n={cells[s][a].n})" if a in cells[s] else "—"
                   for a in agents] for s in scenarios]
    lines += _table(["scenario", *agents], rows)
    colours = plots.agent_colours(agents)
    bars = plots.bar_means(cells, scenarios, agents, f"{env}: mean score, 95% CI",
                           out / f"{env}_scores.png", colours=colours)
    dist = plots.distributions(
        {s: {a: list(by_seed[(s, a)].values()) for a in agents if (s, a) in by_seed}
         for s in scenarios}, scenarios, agents, f"{env}: episode scores",
        out / f"{env}_distributions.png", colours=colours)
    lines += ["", f"![scores]({bars.name})", "", f"![distributions]({dist.name})", ""]

    others = [a for a in agents if a != ref_agent]
    if any((s, ref_agent) in by_seed for s in scenarios):
        lines += _paired_section(env, scenarios, others, by_seed, out, ref_agent, colours)
    lines += _components_section(env, records, scenarios, agents)
    focus = [a for a in others if a not in (*ladder, BOUND_AGENT)]
    if focus and any((s, ref_agent) in by_seed for s in scenarios):
        lines += _component_diffs_section(env, records, scenarios, focus, ref_agent)

    env_curves = {s: curves[(env, s)] for s in scenarios if (env, s) in curves}
    if env_curves:
        series, refs, column = {}, {}, "ep_return_mean"
        checks = {}
        for s, p in env_curves.items():
            xs, ys, column = read_curve(p)
            series[s] = (xs, ys)
            val = read_validation(p)
            if val is not None:
                checks[s] = val
            if column == "ep_score_mean" and s in cells and ref_agent in cells[s]:
                refs[s] = cells[s][ref_agent].mean
        ylabel = "training episode score" if column == "ep_score_mean" else "episode return"
        img = plots.learning_curves(
            series, refs, f"{env}: PPO learning curves (dashed: {ref_agent} on held-out seeds)",
            ylabel, out / f"{env}_learning_curves.png", points=checks)
        lines += ["### PPO learning curves", "",
                  "Training-episode score (training seeds, stochastic policy) against environment "
                  "steps; dots are validation checks of the deterministic policy (validation "
                  "seeds, used to pick the checkpoint); dashed lines are the reference baseline's "
                  "held-out mean on the same scenario.", "",
                  f"![learning curves]({img.name})", ""]
    return lines


def _paired_section(
    env: str, scenarios: Sequence[str], others: Sequence[str],
    by_seed: Mapping[tuple[str, str], dict[int, float]], out: Path, ref_agent: str,
    colours: Mapping[str, str] | None = None,
) -> list[str]:
    comparisons: dict[str, dict[str, PairedComparison]] = {s: {} for s in scenarios}
    rows = []
    norm_rows = []
    for s in scenarios:
        ref = by_seed.get((s, ref_agent))
        if not ref:
            continue
        for a in others:
            mine = by_seed.get((s, a))
            if not mine or not set(mine) & set(ref):
                continue
            c = paired_compare(mine, ref)
            comparisons[s][a] = c
            rows.append([s, a, str(c.n), f"{c.mean_diff:+.3f}",
                         f"[{c.ci_low:+.3f}, {c.ci_high:+.3f}]", f"{c.wins}/{c.losses}",
                         _fmt_p(c.wilcoxon_p), _fmt_p(c.ttest_p), _verdict(c)])
            bound = by_seed.get((s, BOUND_AGENT))
            if bound and a != BOUND_AGENT and set(mine) & set(ref) & set(bound):
                v, lo, hi = normalised_score_ci(mine, ref, bound)
                text = f"n/a (bound ≤ {ref_agent})" if math.isnan(v) else (
                    f"{v:+.3f} [{lo:+.3f}, {hi:+.3f}]")
                norm_rows.append([s, a, text])
    lines: list[str] = []
    if rows:
        lines += [f"### Paired differences vs `{ref_agent}`", "",
                  f"Per-seed score difference (agent − {ref_agent}) on common seeds.", ""]
        lines += _table(["scenario", "agent", "n", "Δ mean", "95% CI", "wins/losses",
                         "Wilcoxon p", "t-test p", "verdict"], rows)
        img = plots.paired_differences(comparisons, scenarios, list(others), ref_agent,
                                       f"{env}: paired difference vs {ref_agent}",
                                       out / f"{env}_paired.png", colours=colours)
        lines += ["", f"![paired differences]({img.name})", ""]
    if norm_rows:
        lines += ["### Normalised score", "",
                  f"(agent − {ref_agent}) / (bound − {ref_agent}) of mean scores, paired "
                  f"bootstrap 95% CI: 0 = {ref_agent}, 1 = upper bound.", ""]
        lines += _table(["scenario", "agent", "normalised [95% CI]"], norm_rows)
        lines.append("")
    return lines


def _components_section(
    env: str, records: Sequence[Mapping[str, Any]], scenarios: Sequence[str],
    agents: Sequence[str],
) -> list[str]:
    names = list(dict.fromkeys(k for r in records for k in r.get("components", {})))
    if not names:
        return []
    rows = []
    for s in scenarios:
        for a in agents:
            recs = [r for r in records if r["scenario"] == s and r["agent"] == a]
            if not recs:
                continue
            means = [sum(float(r.get("components", {}).get(k, math.nan)) for r in recs)
                     / len(recs) for k in names]
            rows.append([s, a, *(f"{m:.3f}" for m in means)])
    return ["### Grader components (means)", "", *_table(["scenario", "agent", *names], rows),
            ""]


def _component_diffs_section(
    env: str, records: Sequence[Mapping[str, Any]], scenarios: Sequence[str],
    agents: Sequence[str], ref_agent: str,
) -> list[str]:
    """Where a non-baseline agent's score difference comes from: paired per-component deltas.

    A higher total can hide a worse outcome that matters (e.g. more deaths traded for shorter
    waits), so each grader component and key raw metric gets its own paired CI.
    """
    comps = list(dict.fromkeys(k for r in records for k in r.get("components", {})))
    mets = [m for m in KEY_METRICS if any(m in r.get("metrics", {}) for r in records)]
    # Raw metrics are per-episode counts (or hours): label them so they never clash with a
    # component of the same name (ED has both an ``lwbs`` component and an ``lwbs`` count).
    header = ["scenario", "agent", *comps, *(m if m.endswith("_h") else f"{m}/episode"
                                            for m in mets)]
    rows = []
    for s in scenarios:
        for a in agents:
            cells = []
            for key, where in [*((c, "components") for c in comps),
                               *((m, "metrics") for m in mets)]:
                mine = _values_by_seed(records, s, a, where, key)
                ref = _values_by_seed(records, s, ref_agent, where, key)
                if not mine or not set(mine) & set(ref):
                    cells.append("—")
                    continue
                c = paired_compare(mine, ref)
                mark = "" if c.significant else " (ns)"
                cells.append(f"{c.mean_diff:+.3f} [{c.ci_low:+.3f}, {c.ci_high:+.3f}]{mark}")
            if any(cell != "—" for cell in cells):
                rows.append([s, a, *cells])
    if not rows:
        return []
    return [f"### Where the difference comes from (paired, agent − {ref_agent})", "",
            "Grader components (higher is better) and raw metrics per episode (for deaths, "
            "LWBS, waits, early discharges and returns lower is better); 95% bootstrap CI, "
            "(ns) = CI includes 0.", "", *_table(header, rows), ""]


def _values_by_seed(records: Sequence[Mapping[str, Any]], scenario: str, agent: str,
                    where: str, key: str) -> dict[int, float]:
    return {int(r["seed"]): float(r[where][key]) for r in records
            if r["scenario"] == scenario and r["agent"] == agent and key in r.get(where, {})}
