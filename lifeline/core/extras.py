"""Optional extras: which ``pip install "lifeline-gym[EXTRA]"`` a feature needs, checked up front.

The core install (numpy, scipy, gymnasium, typer, rich) runs the environments, ``list``, ``run``,
``eval``, ``compare``, ``check`` and ``bench``. Everything else lives in an extra; a command that
needs one calls :func:`require` *before* doing any work, so a missing package is one clear line
(``lifeline report needs the 'viz' extra ...``) and exit status 2 instead of a
``ModuleNotFoundError`` traceback after minutes of evaluation. :func:`require` only looks the
modules up (``importlib.util.find_spec``), it imports nothing, so it is cheap.
"""

from __future__ import annotations

import importlib.util

EXTRAS: dict[str, tuple[str, ...]] = {
    "viz": ("matplotlib",),
    "server": ("openenv", "fastapi", "uvicorn", "websockets", "httpx", "pydantic"),
    "train": ("torch", "stable_baselines3", "sb3_contrib", "tqdm"),
    "tensorboard": ("tensorboard",),
    "llm": ("openenv", "httpx"),
    "grpo": ("torch", "trl", "transformers", "datasets", "accelerate", "tokenizers"),
    "marl": ("pettingzoo",),
    "dist": ("ray",),
    "rllib": ("ray", "tree"),
    "fast": ("numba",),
}
"""Extra name -> the importable modules it provides (kept in step with ``pyproject.toml``)."""

DESCRIPTIONS: dict[str, str] = {
    "viz": "plots in `lifeline report` and `lifeline leaderboard`",
    "server": "`lifeline serve` (OpenEnv/MCP server) and `lifeline.serve.client`",
    "train": "`lifeline train ppo` and `ppo:PATH` agents (MaskablePPO, CPU torch)",
    "tensorboard": "`lifeline train ppo --tensorboard DIR`",
    "llm": "`llm:MODEL` agents (any OpenAI-compatible endpoint) and `lifeline.serve.client`",
    "grpo": "`lifeline train grpo` (TRL) and `hf:PATH` agents (local transformers models)",
    "marl": "evgrid's PettingZoo two-role face (`lifeline.envs.evgrid` ParallelEnv) and "
            "SuperSuit's wrappers on it (`lifeline.faces.flat_marl.FlatParallel`)",
    "dist": "`lifeline eval/compare --backend ray` and Ray PPO rollouts",
    "rllib": "RLlib on any id (`lifeline.faces.flat.RLlibEnv`)",
    "fast": "the compiled ED-v3 kernel (`gymnasium.make_vec(\"lifeline/ED-v3\")`, "
            "`lifeline train fastppo`; plain Python, slow, without it)",
}


class MissingExtra(ImportError):
    """A feature's optional dependencies are not installed; the message says what to install."""


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be imported here."""
    out = []
    for module in EXTRAS[extra]:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            out.append(module)
    return out


def require(extra: str, feature: str) -> None:
    """Raise :class:`MissingExtra` (one line naming the extra) if ``extra`` is not installed."""
    absent = missing(extra)
    if absent:
        raise MissingExtra(f"{feature} needs the '{extra}' extra (missing: {', '.join(absent)}); "
                           f"install it with: pip install \"lifeline-gym[{extra}]\"")
