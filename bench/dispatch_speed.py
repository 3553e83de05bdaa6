"""Dispatch step + observe vs the v1 path, expert and metro_expert in one run (JSON; issue 15).

    python bench/dispatch_speed.py [--quick] [--steps N] [--rounds R] [--baseline-tree PATH]

The implementation is :mod:`lifeline.bench.dispatch_speed`; ``bench/scale.py`` runs the same
section among others.
"""

from lifeline.bench.dispatch_speed import main

if __name__ == "__main__":
    main()
