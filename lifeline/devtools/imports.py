"""The import graph of the ``lifeline`` package, read from the source (no module is imported).

Every ``import`` and ``from ... import`` counts: module-level, function-local and those under
``if TYPE_CHECKING:`` (a reader must follow all three), and so does
``importlib.import_module("lifeline....")`` with a literal name. Names held in data (an
``EnvSpec``'s ``entry_point``, ``baselines``) are not imports of the module that holds them: the
registry resolves them for whoever asks. A package's ``__init__`` is a module like any other;
importing ``a.b`` implicitly runs ``a/__init__``, which is not counted as an edge. ``python -m lifeline.devtools.imports``
prints the strongly connected components (import circles) and the layer edges.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "lifeline"
ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Edge:
    """``source`` imports ``target`` (both dotted module names) at ``source_file:line``."""

    source: str
    target: str
    line: int


def module_name(path: Path, root: Path = ROOT) -> str:
    """Dotted name of the module at ``path`` inside the package rooted at ``root``."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package: dotted name -> file."""
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def _resolve(current: str, is_package: bool, level: int, name: str | None) -> str:
    if level == 0:
        return name or ""
    base = current.split(".") if is_package else current.split(".")[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, name] if name else base)


def _closest(name: str, known: Iterable[str]) -> str | None:
    """The longest known module that is ``name`` or a package above it."""
    known_set = set(known)
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known_set:
            return candidate
        parts.pop()
    return None


def _is_import_module(node: ast.Call) -> bool:
    """``importlib.import_module("<literal>")`` (or ``import_module(...)``)."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return (name == "import_module" and len(node.args) >= 1
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str))


def edges(root: Path = ROOT) -> list[Edge]:
    """Every import of one package module by another (self-imports dropped)."""
    mods = modules(root)
    found: list[Edge] = []
    for source, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(source, is_package, node.level, node.module)
                # ``from pkg import sub`` imports the submodule ``pkg.sub`` when there is one.
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in mods else base
                           for alias in node.names]
            elif isinstance(node, ast.Call) and _is_import_module(node):
                # importlib.import_module("lifeline.x"): an import by name is still an import.
                targets = [node.args[0].value]  # type: ignore[attr-defined]
            else:
                continue
            for target in targets:
                if not target.startswith(PACKAGE):
                    continue
                resolved = _closest(target, mods)
                if resolved is not None and resolved != source:
                    found.append(Edge(source, resolved, node.lineno))
    return found


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Adjacency: module -> the package modules it imports."""
    adjacency: dict[str, set[str]] = {m: set() for m in modules(root)}
    for edge in edges(root):
        adjacency[edge.source].add(edge.target)
    return adjacency


def circles(adjacency: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative), sorted.

    A package's ``__init__`` importing its own submodules is not a circle by itself; it is one
    only when a submodule imports the package back, which the graph records as a real edge.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    result: list[list[str]] = []
    counter = 0
    for start in sorted(adjacency):
        if start in index:
            continue
        work: list[tuple[str, list[str]]] = [(start, sorted(adjacency[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            if children:
                child = children.pop(0)
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, sorted(adjacency[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    result.append(sorted(component))
    return sorted(result)


def main(argv: list[str] | None = None) -> int:
    adjacency = graph()
    found = circles(adjacency)
    for component in found:
        print("circle:", " <-> ".join(component))
    print(f"{len(adjacency)} modules, {sum(map(len, adjacency.values()))} imports, "
          f"{len(found)} circles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
