"""The entity face: an observation as typed entity tables, an action as a kind plus row pointers.

Every Lifeline env already says what it observes (``observation_spec``) and how its flat action
index decodes (``decode(i)`` gives a semantic action whose dataclass fields name what it acts
on). :func:`entity_spec` derives from those two alone:

* **tables**: every observation array with two or more dimensions is a table of
  ``shape[0]`` rows (entities: patients, units, beds, calls, stations ...) of
  ``prod(shape[1:])`` features; every one-dimensional array joins the one-row ``global`` table.
* **actions**: for each flat index, its ``kind`` (the action type's name), its ``refs`` — one
  ``(table, row)`` per field that names a table (``unit`` -> ``units``, ``hospital`` ->
  ``hospitals``, ``from_hospital`` -> ``hospitals``; where several tables match, the one whose row
  count equals the field's range among that kind's actions) — and its ``args``: every other
  field, as a small integer (the index of the value among the values that field takes for that
  kind: a ``decision``, a ``blood_type``, a ``charge_rate``).

A new env gets all of this for free. Where the names do not line up (``ambulance`` rows live in
``units``; a pharmacy's ``(ward, sku)`` cells are spread over several ``(3, 10)`` arrays), the
env declares the difference in one function, ``entity_hints()`` in
``lifeline/envs/<env>/entities.py``, returning :class:`EntityHints`: field aliases (per kind if
need be), tables built by stacking arrays of one shape, and fields whose pair points at one row.

:meth:`EntitySpec.tables` turns one observation into ``{table: float32 (rows, features)}``
(squashed with ``sign(x) * log1p(|x|)``, the scale :class:`~lifeline.faces.gymnasium.FlattenMasked`
uses), so a pointer policy scores action ``i`` from the rows ``spec.actions[i].refs`` name.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

GLOBAL = "global"
"""Name of the one-row table that holds every one-dimensional observation array."""


@dataclass(frozen=True)
class StackedTable:
    """A table built from several arrays of one shape ``(d0, d1, ...)``: rows are the flattened
    index ``(d0, d1, ...)`` (row-major), features are the arrays (one per key, in order)."""

    keys: tuple[str, ...]


Derive = Callable[[Mapping[str, np.ndarray]], dict[str, np.ndarray]]
"""An observation -> extra (or replacing) named arrays (:attr:`EntityHints.derive`, bound to
one core)."""


@dataclass(frozen=True)
class EntityHints:
    """What an env declares where :func:`entity_spec`'s name matching cannot see the mapping.

    ``aliases``: field name (or ``"kind.field"``, which wins) -> table name.
    ``stacked``: extra tables built from arrays of one shape (the arrays leave their own tables).
    ``pairs``: ``(field_a, field_b)`` -> table whose row is ``a * rows_b + b`` (both fields are
    then one ref); ``rows_b`` is the second dimension of the stacked arrays of that table.
    ``cross``: ``(field_a, field_b)`` -> stacked table whose row ``a * rows_b + b`` is an *extra*
    ref of every action naming both fields (the fields keep their own refs): a pairwise feature,
    e.g. the travel time from an EV to a station for ``route(ev, station)``.
    ``ignore``: fields never treated as refs (always args).
    ``derive``: optional; given the core env, a function from one observation to extra named
    arrays computed from that observation and the env's static public data only (e.g. the
    minutes from each unit to each call on the city map, which the heuristics read too). They
    join the observation before the tables are built, so ``stacked`` / ``cross`` may use them;
    an array named like an observation array replaces it (e.g. a table with extra columns);
    their shapes are those of the function's output on an all-zero observation.
    """

    aliases: Mapping[str, str] = field(default_factory=dict)
    stacked: Mapping[str, StackedTable] = field(default_factory=dict)
    pairs: Mapping[tuple[str, str], str] = field(default_factory=dict)
    cross: Mapping[tuple[str, str], str] = field(default_factory=dict)
    ignore: tuple[str, ...] = ()
    derive: Callable[[Any], Derive] | None = None


@dataclass(frozen=True)
class ActionEntry:
    """One flat action index: its kind, the rows it points at and its other arguments."""

    index: int
    kind: str
    refs: tuple[tuple[str, int], ...]
    """``(table, row)`` per pointer field, in field order."""
    args: tuple[int, ...]
    """Per non-pointer field, the index of its value among that kind's values of the field."""


@dataclass(frozen=True)
class KindSpec:
    """One action kind: the tables its refs point into and the size of each argument."""

    name: str
    ref_tables: tuple[str, ...]
    ref_fields: tuple[str, ...]
    arg_fields: tuple[str, ...]
    arg_sizes: tuple[int, ...]
    indices: tuple[int, ...]
    """The flat action indices of this kind, ascending."""


@dataclass
class EntitySpec:
    """Tables and actions of one env scenario (see the module docstring)."""

    tables_shape: dict[str, tuple[int, int]]
    """``{table: (rows, features)}``, ``global`` first."""
    sources: dict[str, tuple[str, ...]]
    """Observation keys feeding each table."""
    actions: list[ActionEntry]
    kinds: dict[str, KindSpec]
    stacked: dict[str, StackedTable] = field(default_factory=dict)
    derive: Derive | None = None
    """Extra arrays derived from each observation (:attr:`EntityHints.derive`), or ``None``."""

    def tables(self, obs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """One observation as ``{table: float32 (rows, features)}``, squashed (sign*log1p)."""
        if self.derive is not None:
            obs = {**obs, **self.derive(obs)}
        out: dict[str, np.ndarray] = {}
        for name, (rows, feats) in self.tables_shape.items():
            keys = self.sources[name]
            if name in self.stacked:
                arr = np.stack([np.asarray(obs[k], np.float32).reshape(rows) for k in keys], 1)
            elif name == GLOBAL:
                arr = np.concatenate([np.asarray(obs[k], np.float32).ravel() for k in keys]
                                     ).reshape(1, feats) if keys else np.zeros((1, 1), np.float32)
            else:
                arr = np.asarray(obs[keys[0]], np.float32).reshape(rows, feats)
            out[name] = (np.sign(arr) * np.log1p(np.abs(arr))).astype(np.float32)
        return out


def _plural_candidates(fname: str) -> list[str]:
    base = fname
    for prefix in ("from_", "to_"):
        base = base.removeprefix(prefix)
    base = base.removesuffix("_index").removesuffix("_id")
    return [base, base + "s", base + "es", base.removesuffix("y") + "ies"]


def load_hints(core: Any) -> EntityHints:
    """The env's ``entity_hints()`` from ``<env package>.entities``, or empty hints."""
    package = type(core).__module__.rsplit(".", 1)[0]
    try:
        module = importlib.import_module(f"{package}.entities")
    except ModuleNotFoundError as exc:
        if exc.name != f"{package}.entities":
            raise
        return EntityHints()
    hints: EntityHints = module.entity_hints()
    return hints


def entity_spec(core: Any, hints: EntityHints | None = None) -> EntitySpec:
    """The entity tables and per-index action pointers of core env ``core`` (module docstring)."""
    hints = load_hints(core) if hints is None else hints
    shapes_of = {k: tuple(a.shape) for k, a in core.observation_spec().items()}
    derive = hints.derive(core) if hints.derive is not None else None
    if derive is not None:
        zero = {k: np.zeros(shape, np.float32) for k, shape in shapes_of.items()}
        shapes_of.update({k: tuple(np.shape(v)) for k, v in derive(zero).items()})
    stacked_keys = {k for t in hints.stacked.values() for k in t.keys}
    shapes: dict[str, tuple[int, int]] = {}
    sources: dict[str, tuple[str, ...]] = {}
    glob = [k for k, dims in shapes_of.items() if len(dims) <= 1 and k not in stacked_keys]
    shapes[GLOBAL] = (1, max(1, sum(int(np.prod(shapes_of[k])) for k in glob)))
    sources[GLOBAL] = tuple(glob)
    for name, stack in hints.stacked.items():
        shape = shapes_of[stack.keys[0]]
        shapes[name] = (int(np.prod(shape)), len(stack.keys))
        sources[name] = stack.keys
    for key, dims in shapes_of.items():
        if len(dims) >= 2 and key not in stacked_keys:
            shapes[key] = (int(dims[0]), int(np.prod(dims[1:])))
            sources[key] = (key,)
    decoded = [core.decode(i) for i in range(core.num_actions)]
    by_kind: dict[str, list[int]] = {}
    for i, action in enumerate(decoded):
        by_kind.setdefault(action.kind, []).append(i)
    kinds: dict[str, KindSpec] = {}
    entries: dict[int, ActionEntry] = {}
    for kind, indices in by_kind.items():
        sample = decoded[indices[0]]
        fnames = [f.name for f in dataclasses.fields(sample)] if dataclasses.is_dataclass(
            sample) else []
        values = {f: [getattr(decoded[i], f) for i in indices] for f in fnames}
        ref_plan: list[tuple[tuple[str, ...], str]] = []
        used: set[str] = set()
        for (fa, fb), pair_table in hints.pairs.items():
            if fa in values and fb in values:
                ref_plan.append(((fa, fb), pair_table))
                used.update((fa, fb))
        for fname in fnames:
            if fname in used or fname in hints.ignore:
                continue
            table_name = _match(kind, fname, values[fname], shapes, hints)
            if table_name is not None:
                ref_plan.append(((fname,), table_name))
                used.add(fname)
        for (fa, fb), cross_table in hints.cross.items():
            if fa in values and fb in values and fa in used and fb in used:
                ref_plan.append(((fa, fb), cross_table))
        arg_fields = tuple(f for f in fnames if f not in used)
        arg_values = {f: sorted(set(map(repr, values[f]))) for f in arg_fields}
        for i in indices:
            a = decoded[i]
            refs = []
            for fs, table_name in ref_plan:
                if len(fs) == 2:
                    inner = shapes_of[hints.stacked[table_name].keys[0]][1]
                    row = int(getattr(a, fs[0])) * int(inner) + int(getattr(a, fs[1]))
                else:
                    row = int(getattr(a, fs[0]))
                refs.append((table_name, row))
            args = tuple(arg_values[f].index(repr(getattr(a, f))) for f in arg_fields)
            entries[i] = ActionEntry(i, kind, tuple(refs), args)
        kinds[kind] = KindSpec(kind, tuple(t for _, t in ref_plan),
                               tuple("+".join(fs) for fs, _ in ref_plan), arg_fields,
                               tuple(len(arg_values[f]) for f in arg_fields), tuple(indices))
    return EntitySpec(shapes, sources, [entries[i] for i in range(core.num_actions)], kinds,
                      dict(hints.stacked), derive)


def _match(kind: str, fname: str, vals: list[Any], shapes: Mapping[str, tuple[int, int]],
           hints: EntityHints) -> str | None:
    """The table field ``fname`` of action ``kind`` points into, or ``None`` (an argument)."""
    if not vals or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                           for v in vals):
        return None
    alias = hints.aliases.get(f"{kind}.{fname}", hints.aliases.get(fname))
    if alias is not None:
        return alias
    span = max(int(v) for v in vals) + 1
    names = [n for n in shapes if n != GLOBAL]
    cands = _plural_candidates(fname)
    exact = [n for n in names if n in cands]
    loose = [n for n in names if any(n.endswith("_" + c) for c in cands[1:])]
    for group in (exact, loose):
        fitting = [n for n in group if shapes[n][0] == span]
        if len(fitting) == 1:
            return fitting[0]
        if len(group) == 1 and shapes[group[0]][0] >= span:
            return group[0]
    return None
