"""Tools for testing environments: the conformance checker users can run on their own envs."""

from lifeline.testing.checker import (
    CheckFailure,
    CheckReport,
    CheckResult,
    check_env,
    trajectory_digest,
)
from lifeline.testing.exploits import run_exploit_suite

__all__ = ["CheckFailure", "CheckReport", "CheckResult", "check_env", "run_exploit_suite",
           "trajectory_digest"]
