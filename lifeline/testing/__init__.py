"""Tools for testing environments: the conformance checker users can run on their own envs."""

from lifeline.testing.checker import CheckFailure, CheckResult, check_env, trajectory_digest

__all__ = ["CheckFailure", "CheckResult", "check_env", "trajectory_digest"]
