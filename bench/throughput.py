"""Throughput benchmark (JSON): core and Gymnasium steps/s and reset time of every environment.

    python bench/throughput.py [--steps 20000] [--env ed] [--all-scenarios]

Same as ``lifeline bench``; the implementation is :mod:`lifeline.bench.throughput`.
"""

from lifeline.bench.throughput import main

if __name__ == "__main__":
    main()
