"""Evaluation: episode harness (records, no printing), statistics and reports."""
