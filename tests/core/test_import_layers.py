"""The import graph runs one way: no circles, no import from a higher layer (docs/architecture.md).

Measured from the source by :mod:`lifeline.devtools.imports`: module-level, function-local and
``TYPE_CHECKING`` imports and ``importlib.import_module("lifeline...")`` all count.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from lifeline.devtools import imports

PENDING_CIRCLES: dict[frozenset[str], str] = {
    frozenset({"lifeline.envs.pharmacy.baselines", "lifeline.envs.pharmacy.flat_reference"}):
        "issue 31 (pharmacy): base_stock_flat reuses base_stock's rules, and baselines lists it in "
        "AGENTS; the fix is to split those rules out of baselines into a module both import",
}
"""Circles known and owned elsewhere. Every other circle fails the test."""


def test_no_import_circles() -> None:
    found = imports.circles(imports.graph())
    unexpected = [c for c in found if frozenset(c) not in PENDING_CIRCLES]
    assert not unexpected, f"import circles: {unexpected}"


def test_no_upward_imports() -> None:
    bad = imports.upward(imports.edges())
    assert not bad, "imports from a higher layer:\n" + "\n".join(
        f"  {e.source}:{e.line} -> {e.target}" for e in bad)


def test_every_module_is_in_a_layer() -> None:
    for module in imports.modules():
        imports.layer_of(module)  # KeyError names the module


def test_serve_is_imported_by_the_cli_only() -> None:
    serve = imports.layer_of("lifeline.serve")
    importers = {e.source for e in imports.edges() if imports.layer_of(e.target) == serve
                 and imports.layer_of(e.source) != serve}
    allowed = {s for s, _ in imports.ALLOWED_UPWARD}
    assert all(imports.layer_of(m) == imports.layer_of("lifeline.cli") or m in allowed
               for m in importers), importers


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "lifeline"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    for folder in {p.parent for p in root.rglob("*.py")} | {root}:
        (folder / "__init__.py").touch()
    return root


def test_the_checker_sees_a_new_upward_import_even_inside_a_function(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "core/registry.py": """
            def make():
                from lifeline.eval.harness import evaluate  # upward: core -> eval
                return evaluate
        """,
        "eval/harness.py": "from lifeline.core.registry import make\nevaluate = make\n",
    })
    bad = imports.upward(imports.edges(root))
    assert [(e.source, e.target) for e in bad] == [("lifeline.core.registry",
                                                    "lifeline.eval.harness")]


def test_the_checker_sees_a_circle_through_type_checking_and_import_module(
        tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "agents/a.py": """
            from typing import TYPE_CHECKING
            if TYPE_CHECKING:
                from lifeline.agents.b import B
        """,
        "agents/b.py": """
            import importlib
            A = importlib.import_module("lifeline.agents.a")
        """,
    })
    assert imports.circles(imports.graph(root)) == [["lifeline.agents.a", "lifeline.agents.b"]]
