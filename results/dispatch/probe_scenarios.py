"""Probe (validation seeds only): reference vs bound per scenario. python results/dispatch/probe_scenarios.py SCENARIO N"""
import sys
import time

import numpy as np

from lifeline.agents import make_agent
from lifeline.eval.seeds import validation_seeds
from lifeline.faces.gymnasium import LifelineGymEnv

scen = sys.argv[1]; n = int(sys.argv[2])
g = LifelineGymEnv("dispatch", scen); core = g.core
for name in ["verify_dmexclp", "bound"]:
    a = make_agent(name, "dispatch"); sc=[]; steps=0; t0=time.process_time()
    for seed in validation_seeds(n):
        s = core.reset(seed); a.reset(core, seed)
        while not s.done:
            core.step(s, a.act(core, s)); steps+=1
        sc.append(core.grade(s).score)
    print(scen, name, np.round(sc,4).tolist(), "mean %.4f"%np.mean(sc), "steps/ep", steps//n, "cpu/ep %.2f"%((time.process_time()-t0)/n), flush=True)
