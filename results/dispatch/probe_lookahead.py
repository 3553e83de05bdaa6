"""Probe (validation seeds only): the lookahead teacher vs its base. python results/dispatch/probe_lookahead.py SCENARIO N PROB K"""
import sys
import time

import numpy as np

from lifeline.agents import make_agent
from lifeline.eval.seeds import validation_seeds
from lifeline.faces.gymnasium import LifelineGymEnv
from lifeline.train.lookahead import LookaheadAgent, env_candidates

scen = sys.argv[1]; n = int(sys.argv[2]); prob=float(sys.argv[3]); k=int(sys.argv[4]); h=int(sys.argv[5]) if len(sys.argv)>5 else 0
core = LifelineGymEnv("dispatch", scen).core
la = LookaheadAgent(make_agent("verify_dmexclp","dispatch"), env_candidates("dispatch"), prob, k, h)
ref = make_agent("verify_dmexclp","dispatch")
d=[]
for seed in validation_seeds(n):
    out=[]
    for a in (ref, la):
        t0=time.process_time(); s=core.reset(seed); a.reset(core, seed)
        while not s.done: core.step(s, a.act(core, s))
        out.append(core.grade(s).score); out.append(time.process_time()-t0)
    d.append(out[2]-out[0])
    print(seed, "ref %.4f la %.4f diff %+.4f cpu %.1f looked %d changed %d"%(out[0],out[2],out[2]-out[0],out[3],la.looked,la.changed), flush=True)
print("mean diff %+.4f"%np.mean(d))
