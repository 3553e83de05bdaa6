# ruff: noqa
"""Effect of switching each v3 mechanic off on the reference (greedy), training seeds 0-4."""
import json, sys
from dataclasses import replace
import numpy as np
from lifeline.agents import make_agent
from lifeline.envs.evgrid import reward
from lifeline.envs.evgrid.env import EVGridEnv
from lifeline.envs.evgrid.params import scenario_params

def run(sc, seeds, agent='greedy', params=None, ctx_hack=None):
    out=[]
    for sd in seeds:
        env=EVGridEnv(sc, params=params)
        if ctx_hack: ctx_hack(env.ctx)
        a=make_agent(agent,'evgrid'); e2=a.prepare(env)
        if ctx_hack and e2 is not env: ctx_hack(e2.ctx)
        s=e2.reset(sd); a.reset(e2,sd)
        while not s.done: e2.step(s,a.act(e2,s))
        g=e2.grade(s); out.append((g.score,g.metrics['harm_kwh'],g.metrics['unserved_kwh'],g.metrics['excess_ageing_h'],g.metrics['peak_hotspot_c']))
    return np.array(out)
seeds=range(5)
res={}
for sc in sys.argv[1].split(','):
    p=scenario_params(sc)
    base=run(sc,seeds)
    def no_out(ctx): ctx.st_out_kw[:]=0.0; ctx.out_mean[:]=0.0
    cases={'outside_ev_power_off': run(sc,seeds,ctx_hack=no_out),
           'protection_off': run(sc,seeds,params=replace(p,hotspot_limit_c=1e9,hotspot_trip_c=1e9,trip_current_pu=1e9)),
           'thermal_inertia_off(tau_oil=1min)': run(sc,seeds,params=replace(p,tau_oil_min=1.0)),
           'ambient_+0(mean 20, no swing)': run(sc,seeds,params=replace(p,ambient_mean_c=20.0,ambient_amp_c=0.0))}
    hw,ar=reward.HARM_WEIGHT,reward.AGEING_RATE
    reward.HARM_WEIGHT=0.0; cases['harm_price_off']=run(sc,seeds); reward.HARM_WEIGHT=hw
    reward.AGEING_RATE=0.0; cases['ageing_price_off']=run(sc,seeds); reward.AGEING_RATE=ar
    print(sc,'greedy',base.mean(0).round(3).tolist(),flush=True)
    res[sc]={'greedy':base.mean(0).tolist()}
    for k,v in cases.items():
        d=v[:,0]-base[:,0]
        print(f"  {k:36s} dscore {d.mean():+.4f} [{d.min():+.4f},{d.max():+.4f}] harm {v[:,1].mean():7.1f} (ref {base[:,1].mean():7.1f}) hs {v[:,4].mean():.1f}",flush=True)
        res[sc][k]={'dscore_mean':float(d.mean()),'dscore_min':float(d.min()),'dscore_max':float(d.max()),'harm_kwh':float(v[:,1].mean())}
json.dump(res,open(sys.argv[2],'w'),indent=1)
