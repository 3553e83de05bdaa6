"""Rewrite the README's throughput tables from the benchmark JSON files (``--check`` to compare).

    python bench/readme_tables.py [--check]

The implementation is :mod:`lifeline.bench.readme_tables`.
"""

import sys

from lifeline.bench.readme_tables import main

if __name__ == "__main__":
    sys.exit(main())
