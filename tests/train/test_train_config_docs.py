"""Every field of the training configs is documented (a docstring right under it)."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools

import pytest

from lifeline.train.ed.fastppo import FastPPOConfig
from lifeline.train.pointer import PointerConfig
from lifeline.train.ppo import PPOConfig


def documented_fields(cls: type) -> set[str]:
    """Names of the class's annotated fields followed directly by a string literal."""
    tree = ast.parse(inspect.getsource(cls))
    body = tree.body[0].body  # type: ignore[attr-defined]
    out = set()
    for node, after in itertools.pairwise(body):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)):
            out.add(node.target.id)
    return out


@pytest.mark.parametrize("cls", [FastPPOConfig, PPOConfig, PointerConfig])
def test_every_config_field_has_a_docstring(cls: type) -> None:
    fields = {f.name for f in dataclasses.fields(cls)}
    missing = sorted(fields - documented_fields(cls))
    assert not missing, f"{cls.__name__}: undocumented fields {missing}"
