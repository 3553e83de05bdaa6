"""The held-out comparison of an already trained pointer run, as ``lifeline train pointer``
writes it after training (run 3 trained with ``--episodes 0`` so that the held-out seeds were
played only after model selection on validation seeds).

``PYTHONPATH=$PWD python results/pharmacy/heldout_run.py RUN_DIR OUT.json``: the learned agent,
``base_stock`` and the teacher ``base_stock_flat`` on the 30 held-out seeds (workers 1), with
the paired score and harm differences and the run's training record (``metadata.json``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from lifeline.train.pointer import held_out_comparison


def main() -> None:
    run_dir, out = Path(sys.argv[1]), Path(sys.argv[2])
    meta = json.loads((run_dir / "metadata.json").read_text())
    teacher = meta["config"]["teacher"]
    result = held_out_comparison("pharmacy", meta["scenario"], run_dir, 30, also=[teacher])
    result["training"] = {k: meta[k] for k in ("config", "cpu_s", "best_validation_score",
                                               "history")}
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({"paired": result["paired"], "paired_harm": result["paired_harm"]}))


if __name__ == "__main__":
    main()
