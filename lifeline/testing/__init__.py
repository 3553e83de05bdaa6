"""Testing utilities: the reference counter environment (and the conformance checker)."""
