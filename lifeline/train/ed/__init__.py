"""Training that only the ``ed`` environment supports: the compact masked PPO on its batch kernel
(:mod:`~lifeline.train.ed.fastppo`), the pointer policy over its patient rows
(:mod:`~lifeline.train.ed.pointer`) and behaviour cloning of its heuristic on the batch
(:mod:`~lifeline.train.ed.clone`). The rest of ``lifeline.train`` works for every env."""
