"""The ``lifeline`` command line (entry point ``lifeline.cli:app``); see :mod:`lifeline.cli.app`."""

from lifeline.cli.app import app, main
from lifeline.cli.common import EVAL_SEED_BASE, UserError, fail

__all__ = ["EVAL_SEED_BASE", "UserError", "app", "fail", "main"]
