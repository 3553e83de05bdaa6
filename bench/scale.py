"""Scale benchmark (JSON): dispatch step+observe before/after, vector envs, Ray vs serial eval.

    python bench/scale.py [--quick] [--baseline-tree PATH] [--no-ray]

The implementation is :mod:`lifeline.bench.scale`.
"""

from lifeline.bench.scale import main

if __name__ == "__main__":
    main()
