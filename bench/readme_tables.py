"""The README's throughput tables, written from the benchmark JSON files (never typed by hand).

    python bench/readme_tables.py            # rewrite the blocks in README.md
    python bench/readme_tables.py --check    # exit 1 if README.md differs from the JSON files

Two blocks of ``README.md`` sit between HTML comment markers and are regenerated here:

* ``throughput``: per env, the range over its scenarios of core steps/s, Gymnasium steps/s and
  reset time, from ``results/throughput.json`` (``lifeline bench --all-scenarios``);
* ``scale``: the side-by-side ratios of issue 15, each measured within one run: batch ``ed`` vs
  its scalar core and vs Gymnasium's ``SyncVectorEnv`` (``results/ed/batch_bench.json``, from
  ``bench/batch.py``), ``dispatch`` step + observe vs its v1 path, the process-level vector envs,
  and Ray vs serial evaluation (``results/scale_bench.json``, from ``bench/scale.py``).

A test keeps the committed README equal to what this module renders from the committed JSON, so
a regenerated benchmark cannot leave stale numbers in the README.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BLOCKS = ("throughput", "scale")


def _int(x: float) -> str:
    return f"{round(x):,}"


def _range(values: list[float], fmt: Callable[[float], str]) -> str:
    lo, hi = min(values), max(values)
    return fmt(lo) if fmt(lo) == fmt(hi) else f"{fmt(lo)}–{fmt(hi)}"


def _load(line: Any) -> str:
    if isinstance(line, (list, tuple)) and line:
        return f"{float(line[0]):.1f}"
    if isinstance(line, (int, float)):
        return f"{float(line):.1f}"
    return "not recorded"


def render_throughput(data: dict[str, Any]) -> str:
    """The per-env table of ``results/throughput.json`` (ranges over scenarios)."""
    by_env: dict[str, list[dict[str, Any]]] = {}
    for row in data["results"]:
        by_env.setdefault(row["env"], []).append(row)
    lines = ["| env | scenarios | core steps/s | Gymnasium steps/s | reset (ms) |",
             "|---|---|---|---|---|"]
    for env, rows in by_env.items():
        lines.append(
            f"| {env} | {len(rows)} "
            f"| {_range([r['core_steps_per_s'] for r in rows], _int)} "
            f"| {_range([r['gym_steps_per_s'] for r in rows], _int)} "
            f"| {_range([r['reset_ms'] for r in rows], lambda x: f'{x:.1f}')} |")
    return "\n".join(lines)


def _batch_rows(batch: dict[str, Any]) -> list[str]:
    scalar = batch["scalar"]
    base = scalar["step_observe_mask_steps_per_s"]
    rows = []
    load = _load(batch.get("load_avg_1m_5m_15m", batch.get("load_avg_1m")))
    for n, b in batch["batch"].items():
        rows.append(
            f"| batch `ed` kernel, N = {int(n):,} (with resets) | {_int(b['kernel_steps_per_s'])} "
            f"({_int(b['with_resets_steps_per_s'])}) | scalar step + observe + mask "
            f"{_int(base)} | **{b['kernel_vs_scalar_step_observe_mask']:.1f}×** "
            f"({b['with_resets_vs_scalar_step_observe_mask']:.1f}×) | "
            f"{load} |")
    for n, v in batch.get("vector", {}).items():
        rows.append(
            f"| `EDVectorEnv`, N = {int(n):,} | {_int(v['EDVectorEnv_steps_per_s'])} | "
            f"`SyncVectorEnv` over the scalar env {_int(v['SyncVectorEnv_steps_per_s'])} | "
            f"**{v['ratio']:.1f}×** | {load} |")
    return rows


def _scale_rows(scale: dict[str, Any]) -> list[str]:
    load = _load(scale.get("load_avg_start"))
    rows = []
    for r in scale.get("dispatch_step_observe", {}).get("results", []):
        rows.append(
            f"| `{r['env']}` {r['scenario']}: mask + step + observe | "
            f"{_int(r['after_steps_per_s'])} | v1 path (1.0× DispatchR in issue 15) "
            f"{_int(r['v1_observe_steps_per_s'])} | **{r['speedup_vs_v1_observe']:.2f}×** | "
            f"{load} |")
    vec = scale.get("dispatch_vector")
    if vec:
        rows.append(
            f"| `dispatch` {vec['scenario']}, {vec['num_envs']} envs: `SyncVectorEnv` "
            f"(`AsyncVectorEnv`) | {_int(vec['sync_vector_env_steps_per_s'])} "
            f"({_int(vec['async_vector_env_steps_per_s'])}) | Python loop "
            f"{_int(vec['python_loop_steps_per_s'])} | {vec['sync_vs_python_loop']:.2f}× "
            f"({vec['async_vector_env_steps_per_s'] / vec['python_loop_steps_per_s']:.2f}×) "
            f"| {load} |")
    ray = scale.get("ray_eval")
    if ray:
        rows.append(
            f"| `lifeline eval --backend ray`, {ray['episodes']} episodes, {ray['num_cpus']} "
            f"CPUs (warm; incl. start-up) | {ray['ray_warm_s']:.2f} s "
            f"({ray['ray_warm_s'] + ray['ray_startup_s']:.1f} s) | serial {ray['serial_s']:.2f} s "
            f"| {ray['speedup_warm']:.2f}× ({ray['speedup_incl_startup']:.2f}×); records "
            f"{'identical' if ray['records_identical'] else '**differ**'} | {load} |")
    return rows


def render_scale(batch: dict[str, Any], scale: dict[str, Any]) -> str:
    """Issue 15's side-by-side ratios (each row measured within one run)."""
    lines = ["| measured | steps/s (or time) | against, same run | ratio | load |",
             "|---|---|---|---|---|"]
    return "\n".join(lines + _batch_rows(batch) + _scale_rows(scale))


def render_blocks(root: Path = ROOT) -> dict[str, str]:
    """Each README block's body, rendered from the committed JSON files under ``root``."""
    def read(rel: str) -> dict[str, Any]:
        return json.loads((root / rel).read_text())

    return {"throughput": render_throughput(read("results/throughput.json")),
            "scale": render_scale(read("results/ed/batch_bench.json"),
                                  read("results/scale_bench.json"))}


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- {name}:begin[^>]*-->\n)(.*?)(\n<!-- {name}:end -->)", re.S)


def rewrite(text: str, blocks: dict[str, str]) -> str:
    """``text`` with every marked block replaced (a missing marker pair is an error)."""
    for name, body in blocks.items():
        match = _pattern(name).search(text)
        if match is None:
            raise ValueError(f"README has no <!-- {name}:begin --> ... <!-- {name}:end --> block")
        text = text[:match.start(2)] + body + text[match.end(2):]
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="Only compare; exit 1 if README.md is stale.")
    parser.add_argument("--readme", type=Path, default=ROOT / "README.md")
    args = parser.parse_args(argv)
    old = args.readme.read_text()
    new = rewrite(old, render_blocks(args.readme.resolve().parent))
    if args.check:
        if new != old:
            print(f"{args.readme} is stale: run python bench/readme_tables.py", file=sys.stderr)
            return 1
        return 0
    args.readme.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
