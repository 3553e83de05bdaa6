"""Benchmarks that print JSON (``lifeline bench``; ``bench/*.py`` are thin scripts over these)."""
