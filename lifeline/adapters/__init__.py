"""Faces of the environments: Gymnasium, OpenEnv server and JSON-schema tools."""
