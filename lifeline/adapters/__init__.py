"""The faces of Lifeline environments: Gymnasium, OpenEnv and typed tools."""
