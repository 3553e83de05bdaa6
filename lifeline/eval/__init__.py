"""Evaluation: the harness (records), seed split, statistics, reports and plots."""
