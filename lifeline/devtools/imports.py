"""The import graph of the ``lifeline`` package, read from the source (no module is imported).

Every ``import`` and ``from ... import`` counts: module-level, function-local and those under
``if TYPE_CHECKING:`` (a reader must follow all three), and so does
``importlib.import_module("lifeline....")`` with a literal name. Names held in data (an
``EnvSpec``'s ``entry_point``, ``baselines``) are not imports of the module that holds them: the
registry resolves them for whoever asks. A package's ``__init__`` is a module like any other;
importing ``a.b`` implicitly runs ``a/__init__``, which is not counted as an edge.
``python -m lifeline.devtools.imports`` prints the import circles and the upward imports.
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
    return sorted(set(found), key=lambda e: (e.source, e.line, e.target))


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


LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", ("lifeline.core",)),
    ("faces", ("lifeline.faces",)),
    ("envs", ("lifeline.envs",)),
    ("agents", ("lifeline.agents", "lifeline")),
    ("eval", ("lifeline.eval",)),
    ("tools", ("lifeline.testing", "lifeline.train", "lifeline.calibrate", "lifeline.web")),
    ("serve", ("lifeline.serve", "lifeline.asgi")),
    ("cli", ("lifeline.cli", "lifeline.__main__", "lifeline.devtools")),
)
"""The layers, lowest first; a module may import its own layer and those below, never above.

* ``core`` — the env contract, registry, seeded streams, agent contracts, extras; numpy + stdlib.
* ``faces`` — the same core env through another API (Gymnasium, tools/text, rendering, features);
  generic over every env.
* ``envs`` — one package per environment; each imports the core and the faces only.
* ``agents`` — agents by name (generic baselines, LLM agents, the text heuristic); the root
  package ``lifeline`` (it registers the built-in envs and their Gymnasium ids) sits here.
* ``eval`` — episode <- replay <- runner <- harness / Ray backend, statistics, reports, throughput.
* ``tools`` — what builds on evaluation: the checker and exploit suite, training, calibration,
  the web pages; they may import one another (no circles).
* ``serve`` — the server (OpenEnv, MCP, WebSocket), ``asgi`` and ``client``: may import every
  layer below; nothing imports it but the CLI.
* ``cli`` — the ``lifeline`` command (and these developer tools).

A name is placed by its longest matching prefix (``lifeline`` alone is the root package).
"""

ALLOWED_UPWARD: dict[tuple[str, str], str] = {
    ("lifeline.train.grpo", "lifeline.serve.client"):
        "GRPO rollouts can play a served env as an LLM would: through the client (the wire's "
        "other end), imported inside the function that opens the connection.",
    ("lifeline.envs.codered.probes", "lifeline.eval.stats"):
        "a measurement script beside its env (CodeRed-v3 switch-off probes); belongs in bench/",
    ("lifeline.envs.codered.probes", "lifeline.agents"):
        "the same measurement script plays named agents; belongs in bench/",
    ("lifeline.envs.ed.sensitivity", "lifeline.eval.stats"):
        "ED-v3's switch-off measurement beside its env; belongs in bench/",
}
"""Upward imports that are deliberate, each with its reason (the test accepts only these)."""


def layer_of(module: str) -> int:
    """Index in :data:`LAYERS` of ``module`` (by its longest matching prefix)."""
    best, best_len = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            matches = module == prefix or (prefix != PACKAGE and module.startswith(prefix + "."))
            if matches and len(prefix) > best_len:
                best, best_len = index, len(prefix)
    if best < 0:
        raise KeyError(f"{module} is in no layer: add it to LAYERS in {__name__}")
    return best


def upward(found: list[Edge]) -> list[Edge]:
    """The imports of a module from a higher layer (less :data:`ALLOWED_UPWARD`)."""
    return [e for e in found if layer_of(e.target) > layer_of(e.source)
            and (e.source, e.target) not in ALLOWED_UPWARD]


def group(module: str) -> str:
    """The box a module is drawn in: its subpackage (``envs.<env>`` per environment)."""
    parts = module.split(".")
    if len(parts) == 1:
        return "lifeline"
    if parts[1] == "envs" and len(parts) > 2:
        return f"envs.{parts[2]}"
    if parts[1] == "train" and len(parts) > 2 and parts[2] == "ed":
        return "train.ed"
    return parts[1]


def mermaid(found: list[Edge]) -> str:
    """A Mermaid flowchart of who imports whom, by subpackage, grouped by layer (top: cli)."""
    pairs = sorted({(group(e.source), group(e.target)) for e in found
                    if group(e.source) != group(e.target)})
    boxes = sorted({g for pair in pairs for g in pair} | {group(m) for m in modules()})
    by_layer: dict[int, list[str]] = {}
    for box in boxes:
        module = PACKAGE if box == "lifeline" else f"{PACKAGE}.{box}"
        by_layer.setdefault(layer_of(module), []).append(box)
    lines = ["flowchart TD"]
    for index in sorted(by_layer, reverse=True):
        lines.append(f"  subgraph {LAYERS[index][0]}")
        lines.extend(f"    {box.replace('.', '_')}[{box}]" for box in by_layer[index])
        lines.append("  end")
    lines.extend(f"  {a.replace('.', '_')} --> {b.replace('.', '_')}" for a, b in pairs)
    return "\n".join(lines)


BEGIN, END = "<!-- imports:begin (python -m lifeline.devtools.imports --write) -->", \
    "<!-- imports:end -->"
DOC = ROOT.parent / "docs" / "architecture.md"


def render_doc(text: str, found: list[Edge]) -> str:
    """``text`` with the block between :data:`BEGIN` and :data:`END` regenerated."""
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n```mermaid\n{mermaid(found)}\n```\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    """Print the circles and upward imports (exit 1 if any); ``--write`` regenerates the picture
    in ``docs/architecture.md``."""
    args = argv or []
    found = edges()
    adjacency = graph()
    cycles = circles(adjacency)
    for component in cycles:
        print("circle:", " <-> ".join(component))
    bad = upward(found)
    for e in bad:
        print(f"upward: {e.source}:{e.line} -> {e.target} "
              f"({LAYERS[layer_of(e.source)][0]} -> {LAYERS[layer_of(e.target)][0]})")
    print(f"{len(adjacency)} modules, {len(found)} imports, {len(cycles)} circles, "
          f"{len(bad)} upward imports")
    if "--write" in args:
        DOC.write_text(render_doc(DOC.read_text(encoding="utf-8"), found), encoding="utf-8")
        print(f"wrote {DOC}")
    return 1 if cycles or bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
